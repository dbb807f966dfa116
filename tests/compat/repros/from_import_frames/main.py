# test_import.ImportTracebackTests.test_broken_from: `from pkg import bar`
# with bar raising.  importlib first probes hasattr(pkg, "bar"); while any
# lazy import is pending anywhere (other.py), lazify's package __getattr__
# answers by importing pkg.bar itself, so the error comes through lazify's
# frame instead of importlib's (whose frames CPython strips).
import traceback

import other

try:
    from pkg import bar
except ZeroDivisionError as e:
    print(sorted({f.filename.rsplit("/", 1)[-1] for f in traceback.extract_tb(e.__traceback__)}))
