"""Start-up benchmark: Python 3.15's native lazy imports, interpreter-wide.

PEP 810's ``-X lazy_imports=all``, given as ``PYTHON_LAZY_IMPORTS=all`` by
the harness (run.py's IMPL_ENV) because a console script's shebang line
cannot pass ``-X``: the imports of site.py and of this file are lazy too.
This file only does the bookkeeping.
"""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))
