# seaborn (Agg backend): plots from a DataFrame built in the program
import io

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

rng = np.random.default_rng(0)
df = pd.DataFrame({"group": np.repeat(["a", "b", "c"], 20), "value": rng.normal(size=60)})
sns.set_theme(style="whitegrid")
ax = sns.boxplot(data=df, x="group", y="value")
print(ax.get_xlabel(), ax.get_ylabel(), [t.get_text() for t in ax.get_xticklabels()])
g = sns.FacetGrid(df, col="group")
g.map(sns.histplot, "value", bins=5)
print(len(g.axes.flat))
buf = io.BytesIO()
g.savefig(buf, format="png", dpi=30)
print(buf.getvalue()[:4])
print(sns.color_palette("deep", 3).as_hex())
