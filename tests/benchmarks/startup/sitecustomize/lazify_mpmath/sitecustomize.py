"""Start-up benchmark: lazify in global mode with mpmath added to `excluding`.

Not a separate product: the fix proposed for lazify's default `excluding`
list (mpmath's functions register themselves on its context classes as a
side effect of `from . import zetazeros` and friends, names never read, so
they stay lazy and `import mpmath` fails; cfn-lint imports it via sympy).
"""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))

import lazify

lazify.install(excluding={*lazify.DEFAULT_EXCLUDING, "mpmath"})
