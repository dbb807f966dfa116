# scipy: optimisation, integration, statistics, sparse matrices, interpolation
import numpy as np
from scipy import integrate, interpolate, optimize, sparse, stats

res = optimize.minimize(lambda v: (v[0] - 1) ** 2 + (v[1] + 2) ** 2, x0=[0.0, 0.0])
print(np.round(res.x, 4).tolist(), res.success)
val, err = integrate.quad(np.sin, 0, np.pi)
print(round(val, 8))
print(round(stats.norm.cdf(1.96), 6), round(stats.ttest_1samp([1.0, 2.0, 3.0, 4.0], 2.0).pvalue, 6))
m = sparse.csr_matrix(np.eye(4) * 2)
print(m.nnz, (m @ np.ones(4)).tolist())
f = interpolate.interp1d([0, 1, 2], [0, 10, 40])
print(float(f(1.5)))
print(round(optimize.brentq(lambda x: x ** 3 - 2, 0, 2), 8))
