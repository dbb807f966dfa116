# tqdm: progress bars written to a buffer, the static meter, manual updates
import io

from tqdm import tqdm, trange
from tqdm.contrib import tenumerate

buf = io.StringIO()
total = 0
for i in tqdm(range(100), file=buf, mininterval=0, ncols=60, desc="sum"):
    total += i
print(total, "sum: 100%" in buf.getvalue())
print(tqdm.format_meter(50, 100, 10, ncols=60, prefix="half"))
with tqdm(total=10, file=io.StringIO(), disable=False) as bar:
    bar.update(4)
    bar.set_postfix(stage="x")
    print(bar.n, bar.postfix)
print(sum(trange(5, file=io.StringIO())), [i for i, _ in tenumerate("ab", file=io.StringIO())])
