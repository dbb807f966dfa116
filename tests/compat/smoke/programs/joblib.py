# joblib: Parallel with threads, Memory caching in a local directory, dump/load
import math

import joblib
from joblib import Memory, Parallel, delayed

print(Parallel(n_jobs=2, backend="threading")(delayed(math.factorial)(i) for i in range(8)))
mem = Memory("cache", verbose=0)


@mem.cache
def slow_square(x):
    print("computing", x)
    return x * x


print(slow_square(4), slow_square(4))
joblib.dump({"a": [1, 2, 3]}, "obj.pkl")
print(joblib.load("obj.pkl"))
