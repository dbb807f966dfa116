"""The runtime's fast paths, ``__lazy_import__`` and ``__lazy_from__``, decide in their
own frame what ``register_import``/``register_from`` would: the same scenarios, run
with them switched off (every statement straight to ``register_*``) and on, must give
the same observable results."""

import os
import textwrap
import time

from tests._util import run_python

OLD = time.time() - 3600

TREE = {
    "pkg/__init__.py": "LEVEL = 'pkg'\n",
    "pkg/a.py": "VALUE = 'a.VALUE'\nOTHER = 'a.OTHER'\n",
    "pkg/b.py": "B = 'b'\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/user.py": textwrap.dedent("""\
        from .. import a, b
        from ..a import VALUE, OTHER as other
        from . import nothing_here
        from ... import beyond
        def use():
            return a.VALUE, b.B, VALUE, other
        """),
    "loaded_first.py": "X = 'loaded_first.X'\n",
    "app.py": textwrap.dedent("""\
        import os
        import os.path
        import json
        import xml.dom as dom
        import email.mime.text
        import loaded_first
        from loaded_first import X
        from collections import OrderedDict, defaultdict as dd
        from json import nope
        import missing_module_here
        from pkg import a, b
        from pkg.a import VALUE, OTHER as other
        import pkg.sub.user
        import json
        import odd_nospec, odd_bare, odd_half
        from odd_bare import ATTR as bare_attr
        from odd_half import ATTR as half_attr
        NAMES = ["os", "json", "dom", "email", "loaded_first", "X", "OrderedDict", "dd",
                 "nope", "missing_module_here", "a", "b", "VALUE", "other", "pkg",
                 "odd_nospec", "odd_bare", "odd_half", "bare_attr", "half_attr"]
        """),
}

SCENARIO = """
import sys
import lazify
lazify.install(mechanism="rewrite")
import lazify._importlib_bootstrap as rt

if sys.argv[1] == "off":
    def plain_import(self, *aliases):
        state = self.__lazify_state__
        frame = sys._getframe(1)
        for module, asname in aliases:
            state.register_import(module, asname, frame)

    def plain_from(self, module, *aliases):
        state = self.__lazify_state__
        name = module.lstrip(".")
        shared = [None] if len(aliases) > 1 else None
        frame = sys._getframe(1)
        for attr, asname in aliases:
            state.register_from(name, len(module) - len(name), attr, asname, frame, shared)

    rt._Namespace.__lazy_import__ = plain_import
    rt._Namespace.__lazy_from__ = plain_from

WATCH = ["json", "xml.dom", "email.mime.text", "loaded_first", "pkg", "pkg.a", "pkg.b",
         "pkg.sub", "pkg.sub.user", "missing_module_here"]

def loaded():
    return [m for m in WATCH if m in sys.modules]

import loaded_first
# modules put in sys.modules by hand: no __spec__, a spec without _initializing (the
# fast paths take the AttributeError: bound at once), one still initializing (pending)
import types
from importlib.machinery import ModuleSpec
for name, spec in (("odd_nospec", None), ("odd_bare", ModuleSpec("odd_bare", None)),
                   ("odd_half", ModuleSpec("odd_half", None))):
    odd = types.ModuleType(name)
    odd.__spec__ = spec
    odd.ATTR = name
    sys.modules[name] = odd
sys.modules["odd_half"].__spec__._initializing = True
print("before", loaded())
import app
print("rewritten", "__lazy__" in vars(app))
print("after import", loaded())
def shown(module, name):
    # whether the name was pending, and what reading it gives
    pending = lazify.is_lazy_import(vars(module), name)
    try:
        value = getattr(module, name)
        return pending, getattr(value, "__name__", value)
    except Exception as exc:
        return pending, f"{type(exc).__name__}: {exc}"

for name in app.NAMES:
    print(name, *shown(app, name), loaded())
import pkg.sub.user
user = sys.modules["pkg.sub.user"]
for name in ("a", "b", "VALUE", "other", "nothing_here", "beyond"):
    print("user", name, *shown(user, name))
print(user.use())
lazify.set_lazy_imports(False)
print("eager now")
exec("import html\\nfrom pkg import b as again\\n", vars(app))
print("html" in sys.modules, app.again.__name__)
"""


def _write(root):
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (OLD, OLD))


def _run(tmp_path, switch):
    proc = run_python(["-c", SCENARIO, switch], cwd=tmp_path, check=True,
                      env_extra={"LAZIFY_DEFER_REWRITE": "0"})
    return proc.stdout


def test_the_fast_paths_decide_as_register_does(tmp_path):
    _write(tmp_path)
    # a first run writes the caches: a cold start imports the rewriter (and with it
    # modules such as collections, whose names are then bound at once), a warm one not
    _run(tmp_path, "on")
    off, on = _run(tmp_path, "off"), _run(tmp_path, "on")
    assert "rewritten True" in on
    # the scenarios reach both kinds of decision: bound at once, and pending
    assert "os False os" in on and "json True json" in on
    # modules others put in sys.modules: bound at once unless still initializing
    assert "odd_nospec False odd_nospec" in on and "odd_bare False odd_bare" in on
    assert "bare_attr False odd_bare" in on
    assert "odd_half True odd_half" in on and "half_attr True odd_half" in on
    assert off == on
