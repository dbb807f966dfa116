"""Start-up benchmark: defer-imports in its global mode (`apply_all=True`).

The activation its documentation gives: `install_import_hook(apply_all=True)`
instruments every module found through its path hook from then on (a
`sys.path_hooks` entry, so the path entries whose finders site.py has cached
already, the stdlib's, stay uninstrumented; clearing
`sys.path_importer_cache` to reach them too breaks every tool earlier, in the
stdlib modules defer-imports itself uses).

defer-imports writes its instrumented bytecode, with its own header, into the
*normal* .pyc path; the harness gives this implementation its own
PYTHONPYCACHEPREFIX so that it and the others do not keep invalidating each
other's caches.
"""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))

import defer_imports

defer_imports.install_import_hook(apply_all=True)
