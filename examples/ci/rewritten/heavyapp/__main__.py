"""``python -m heavyapp``."""
from lazify._importlib_bootstrap import __lazy_module__ as __lazy__; __lazy__ = __lazy__(globals())
__lazy__.__lazy_from__('.cli', ('main', None))

raise SystemExit(__lazy__.main())
