"""Start-up benchmark: defer-imports in its global mode (`apply_all=True`).

`install_import_hook(apply_all=True)` instruments every module found through
its path hook from then on.  The hook is a `sys.path_hooks` entry, so it only
sees path entries whose finder is not cached yet; by the time sitecustomize
runs, site.py has already cached finders for the stdlib and site-packages
(.pth files import from there).  Clearing `sys.path_importer_cache` lets the
global mode reach every module, which is what a user of global mode wants.

defer-imports writes its instrumented bytecode, with its own header, into the
*normal* .pyc path; the harness gives this implementation its own
PYTHONPYCACHEPREFIX so that it and the others do not keep invalidating each
other's caches.
"""

# Benchmark bookkeeping, not part of the activation: when the harness asks for
# it (check runs only, never timed runs), write the number of modules in
# sys.modules at exit ("total lazy", lazy = importlib.util._LazyModule objects
# not yet executed) to the file named by LZBENCH_MODULES_OUT.  It runs before
# the activation so that no lazy-import tool sees these imports.
import os as _os

if _os.environ.get("LZBENCH_MODULES_OUT"):
    import atexit as _atexit
    import sys as _sys

    def _lzbench_count(path=_os.environ["LZBENCH_MODULES_OUT"], sys=_sys):
        mods = list(sys.modules.values())
        lazy = sum(1 for m in mods if type(m).__name__ == "_LazyModule")
        with open(path, "w") as f:
            f.write(f"{len(mods)} {lazy}\n")

    _atexit.register(_lzbench_count)

import sys

import defer_imports

defer_imports.install_import_hook(apply_all=True)
sys.path_importer_cache.clear()
