# regrtest's setup_process (3.14): hasattr(module, "__path__") over
# sys.modules.values().  3.14's importlib.machinery (here: shim) answers a
# missing name with a __getattr__ that imports warnings (here: helper), which
# plain regrtest has loaded by then through traceback's top-level import (here:
# user) and lazify defers, because traceback uses it only in functions.  The
# loop then changes the dict it iterates.  Plain Python fails the same way
# whenever shim is loaded and helper is not, and CPython 3.15's native
# `-X lazy_imports=all` prints the same RuntimeError: lazy-import semantics,
# not lazify's mechanism.  The sweep starts regrtest with warnings imported
# (tests/compat/regrtest.py).
import sys

import shim
import user

loaded = [shim.__name__, user.__name__]   # both loaded, as in regrtest
try:
    for module in sys.modules.values():
        hasattr(module, "__path__")
except RuntimeError as exc:
    print("RuntimeError:", exc)
else:
    print("loop done")
