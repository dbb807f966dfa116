# lazify mechanism: a warning raised at import time with stacklevel=2 names
# the importing line.  starlette/testclient.py:40 warns
# (StarletteDeprecationWarning, stacklevel=2) while it is imported;
# fastapi/testclient.py:1 imports it.  Plain, the warning names
# fastapi/testclient.py:1; lazily the import runs from lazify's resolver and
# the warning names lazify/_runtime.py:134 (`module = do_import(...)`).
# importlib's own frames are skipped by warnings, lazify's are not.
import os
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import pkg

    print(pkg.Client.__name__)
for w in caught:
    print(f"{os.path.basename(w.filename)}:{w.lineno}: {w.message}")
