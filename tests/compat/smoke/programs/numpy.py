# numpy: arrays, broadcasting, linear algebra, a seeded generator
import numpy as np

a = np.arange(12, dtype=np.float64).reshape(3, 4)
print(a.sum(axis=0), a.mean(), a[:, 1:3].T.tolist())
m = np.array([[2.0, 1.0], [1.0, 3.0]])
print(np.round(np.linalg.solve(m, [3.0, 5.0]), 6), np.round(np.linalg.eigvalsh(m), 6))
rng = np.random.default_rng(42)
x = rng.normal(size=1000)
print(round(float(x.mean()), 6), round(float(x.std()), 6))
print(np.where(a > 5, 1, 0).sum(), np.unique([3, 1, 2, 3, 1]).tolist())
print(np.fft.rfft([1.0, 0.0, -1.0, 0.0]).round(6).tolist())
s = np.array([("a", 1), ("b", 2)], dtype=[("k", "U1"), ("v", "i4")])
print(s["v"].sum(), s.dtype.names, np.__version__.count(".") >= 1)
