# sympy: symbols, solving, calculus, simplification, matrices, printing
from sympy import (Matrix, Rational, diff, exp, integrate, latex, limit, oo, pi, sin, solve,
                   sqrt, symbols, simplify, series, Eq)

x, y = symbols("x y")
print(solve(x**2 - 5 * x + 6, x), solve([Eq(x + y, 3), Eq(x - y, 1)], [x, y]))
print(diff(sin(x) * exp(x), x), integrate(x * exp(-x), (x, 0, oo)))
print(limit(sin(x) / x, x, 0), simplify((x**2 - 1) / (x - 1)), series(exp(x), x, 0, 4))
m = Matrix([[1, 2], [3, 4]])
print(m.det(), m.inv(), m.eigenvals())
print(latex(sqrt(x) / 2), Rational(3, 4) + Rational(1, 4), pi.evalf(20))
