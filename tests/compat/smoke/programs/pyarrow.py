# pyarrow: tables, compute functions, parquet and IPC round trips in memory
import io

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

t = pa.table({"city": ["a", "b", "a", "c"], "n": [1, 2, 3, 4], "x": [0.5, None, 1.5, 2.0]})
print(t.schema)
print(pc.sum(t["n"]).as_py(), pc.mean(t["x"]).as_py(), t.group_by("city").aggregate([("n", "sum")]).sort_by("city").to_pydict())
buf = io.BytesIO()
pq.write_table(t, buf)
print(pq.read_table(io.BytesIO(buf.getvalue())).equals(t))
sink = pa.BufferOutputStream()
with pa.ipc.new_stream(sink, t.schema) as w:
    w.write_table(t)
print(pa.ipc.open_stream(sink.getvalue()).read_all().num_rows, t.filter(pc.greater(t["n"], 2)).num_rows)
