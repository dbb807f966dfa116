# tabulate: tables in several formats
from tabulate import tabulate

rows = [["Earth", 1, 5.97], ["Mars", 2, 0.642], ["Jupiter", 95, 1898.0]]
for fmt in ("plain", "github", "grid", "html"):
    print(tabulate(rows, headers=["planet", "moons", "mass"], tablefmt=fmt, floatfmt=".2f"))
print(tabulate({"a": [1, 2], "b": ["x", "y"]}, headers="keys"))
