"""Which mechanism defers the imports: "rewrite" (every Python: PEP 690's transparent
namespace, in generated code) or "native" (3.15+: the planner's lazy imports become
PEP 810 ``lazy`` statements, which the interpreter defers itself).

On every user's start-up path: it imports nothing but ``sys`` and lazify's
settings (:mod:`lazify._settings`, :mod:`lazify._native`).
"""

import sys

from . import _native
from ._settings import settings

#: the mechanisms lazify has
MECHANISMS = ("native", "rewrite")
#: whether this interpreter has PEP 810's lazy imports (3.15+)
NATIVE_AVAILABLE = _native.AVAILABLE


def default_mechanism() -> str:
    """"native" where the interpreter has PEP 810's lazy imports, else "rewrite"."""
    return "native" if NATIVE_AVAILABLE else "rewrite"


def check_mechanism(mechanism) -> str:
    """``mechanism``, or the default for None; ValueError for an unknown one, or
    "native" on an interpreter without PEP 810."""
    if mechanism is None:
        return default_mechanism()
    if mechanism not in MECHANISMS:
        raise ValueError(f"lazify: unknown mechanism {mechanism!r} "
                         f"(one of {', '.join(map(repr, MECHANISMS))})")
    if mechanism == "native" and not NATIVE_AVAILABLE:
        raise ValueError("lazify: the native mechanism needs PEP 810's lazy imports "
                         f"(Python 3.15+); this is {sys.version.split()[0]}: use \"rewrite\"")
    return mechanism


def set_mechanism(name: str) -> None:
    """Compile modules for mechanism ``name`` from now on (checked), and set the
    interpreter up for it: PEP 810's "normal" mode and lazify's filter for
    "native", the interpreter's previous mode and filter otherwise."""
    name = check_mechanism(name)
    settings.mechanism = name
    if name == "native":
        _native.native_on()
    else:
        _native.native_off()
