"""Start-up benchmark: Python 3.15's native lazy imports (PEP 810) in global mode.

The switch thrown from sitecustomize, where the other implementations are
activated: every module-level import executed from here on is potentially
lazy (PEP 810's "all" mode); what site.py imported before stays loaded.
"""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))

import sys

sys.set_lazy_imports("all")
