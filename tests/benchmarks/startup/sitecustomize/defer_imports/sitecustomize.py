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

# Benchmark bookkeeping, not part of the activation: when the harness asks for
# it (check runs only, never timed runs), write the number of modules in
# sys.modules at exit ("total lazy", lazy = importlib.util._LazyModule objects
# not yet executed), then the source files of the executed modules, to the
# file named by LZBENCH_MODULES_OUT.  It runs before
# the activation so that no lazy-import tool sees these imports.
import os as _os

if _os.environ.get("LZBENCH_MODULES_OUT"):
    import atexit as _atexit
    import sys as _sys

    def _lzbench_count(path=_os.environ["LZBENCH_MODULES_OUT"], sys=_sys):
        mods = list(sys.modules.values())
        lazy = sum(1 for m in mods if type(m).__name__ == "_LazyModule")
        files = []
        for m in mods:
            try:
                p = vars(m).get("__file__") if type(m).__name__ != "_LazyModule" else None
            except TypeError:
                continue
            if isinstance(p, str) and p.endswith(".py"):
                files.append(p + "\n")
        with open(path, "w") as f:
            f.write(f"{len(mods)} {lazy}\n")
            f.write("".join(files))

    _atexit.register(_lzbench_count)

import defer_imports

defer_imports.install_import_hook(apply_all=True)
