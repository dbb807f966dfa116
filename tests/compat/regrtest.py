"""``python -m test`` for the sweep, with ``warnings`` imported first (both runs).

On 3.11 ``warnings`` is loaded at start-up; on 3.14 it is not, and plain
regrtest gets it from ``traceback``'s top-level ``import warnings``, which
lazify defers (traceback uses it only in functions).  regrtest's
``setup_process`` then iterates ``sys.modules.values()`` calling
``hasattr(module, "__path__")``, and 3.14's ``importlib.machinery`` (loaded by
``inspect``) answers a missing name with a ``__getattr__`` that imports
``warnings``: the dict changes while it is iterated and regrtest dies before
running a test.  Plain 3.14 fails the same way whenever importlib.machinery
is loaded and warnings is not (``import importlib.machinery, sys`` then that
loop).  So this regrtest starts with ``warnings`` loaded, as on 3.11, in the
plain and the lazified run alike; every test process it spawns is unchanged.
"""
import os
import runpy
import sys
import warnings  # noqa: F401  (the point of this file)

sys.path[0] = os.getcwd()     # as ``-m`` has it, not this file's directory
runpy.run_module("test", run_name="__main__", alter_sys=True)
