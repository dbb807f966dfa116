# pandas: a DataFrame, groupby, merge, pivot, dates, CSV round trip
import io

import pandas as pd

df = pd.DataFrame({
    "city": ["Paris", "Lyon", "Paris", "Nice", "Lyon"],
    "year": [2020, 2020, 2021, 2021, 2021],
    "sales": [10.5, 3.0, 12.25, 7.0, 4.5],
})
print(df.groupby("city")["sales"].agg(["sum", "count"]).to_string())
regions = pd.DataFrame({"city": ["Paris", "Lyon", "Nice"], "region": ["IDF", "ARA", "PACA"]})
m = df.merge(regions, on="city")
print(m.pivot_table(index="region", columns="year", values="sales", aggfunc="sum").to_string())
dates = pd.date_range("2024-01-01", periods=4, freq="W")
s = pd.Series([1, 2, 3, 4], index=dates)
print(s.resample("MS").sum().to_dict())
buf = io.StringIO()
df.to_csv(buf, index=False)
back = pd.read_csv(io.StringIO(buf.getvalue()))
print(back.dtypes.astype(str).to_dict(), back.equals(df))
print(df.describe().loc["mean"].round(3).to_dict())
