# plotly: graph objects and express figures, serialised to JSON
import json

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 3], name="bars"))
fig.update_layout(title_text="demo", template="none")
d = json.loads(fig.to_json())
print(d["data"][0]["type"], d["data"][0]["x"], d["layout"]["title"]["text"])
df = pd.DataFrame({"x": [1, 2, 3], "y": [2, 4, 1], "k": ["p", "q", "p"]})
fig2 = px.scatter(df, x="x", y="y", color="k")
print(len(fig2.data), [t.name for t in fig2.data], fig2.layout.xaxis.title.text)
fig3 = px.line(df, x="x", y="y")
print(fig3.data[0].mode, type(fig3).__name__)
