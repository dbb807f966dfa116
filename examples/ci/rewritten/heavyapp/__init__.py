"""heavyapp: a small command-line tool whose subcommands each need a heavy module.

Run it with ``python -m heavyapp COMMAND`` from the ``examples`` directory. Every
command module is imported at the top of ``heavyapp.cli``, as in most real CLIs, so
an eager start-up pays for all of them; with lazify only the command that runs
imports its dependency.
"""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__version__ = "1.0"
