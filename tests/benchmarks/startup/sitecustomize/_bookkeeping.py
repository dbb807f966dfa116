"""Start-up benchmark bookkeeping shared by every implementation's sitecustomize.py.

Not part of any activation: when the harness asks for it (check runs only, never
timed runs), write the number of modules in sys.modules at exit ("total lazy",
lazy = importlib.util._LazyModule objects not yet executed), then the source
files of the executed modules, to the file named by LZBENCH_MODULES_OUT.  Each
sitecustomize.py runs this file before its activation, so that no lazy-import
tool sees these imports.
"""
import atexit as _atexit
import os as _os
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
