"""``python -m heavyapp``."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_from__('.cli', ('main', None))

raise SystemExit(__lazy__.main())
