"""One module per subcommand; each imports its heavy dependency at the top."""
from lazify._importlib_bootstrap import __lazy_module__ as __lazy__; __lazy__ = __lazy__(globals())
