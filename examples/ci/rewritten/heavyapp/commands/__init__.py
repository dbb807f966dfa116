"""One module per subcommand; each imports its heavy dependency at the top."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
