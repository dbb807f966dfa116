"""Start-up benchmark: the standard library's importlib.util.LazyLoader, globally.

The common recipe: a meta-path finder in front of PathFinder that asks it for
the spec and wraps every source/bytecode file loader in LazyLoader, so a
module's code runs on first attribute access.  Extension modules, builtins
and frozen modules stay eager (LazyLoader cannot defer them meaningfully).
"""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))

import importlib.machinery
import importlib.util
import sys

_LAZY_TYPES = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)


class LazyPathFinder:
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) in _LAZY_TYPES:
            spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec

    @staticmethod
    def invalidate_caches():
        pass


sys.meta_path.insert(sys.meta_path.index(importlib.machinery.PathFinder), LazyPathFinder)
