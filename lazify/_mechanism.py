"""Which mechanism defers the imports: "rewrite" (every Python: PEP 690's transparent
namespace, in generated code) or "native" (3.15+: the planner's lazy imports become
PEP 810 ``lazy`` statements, which the interpreter defers itself).

The functions live in :mod:`lazify._native`, which every start-up loads (one module
less there); the commands and the configuration import them from here.
"""

from ._native import MECHANISMS as MECHANISMS
from ._native import NATIVE_AVAILABLE as NATIVE_AVAILABLE
from ._native import check_mechanism as check_mechanism
from ._native import default_mechanism as default_mechanism
from ._native import set_mechanism as set_mechanism
