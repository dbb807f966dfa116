"""``lazify enable``, ``disable`` and ``status``: turn lazify on or off for a Python
environment, and say whether it is on here (:mod:`lazify._activate`)."""

from __future__ import annotations

from .common import stdout_closed


def run(args) -> int:
    """``lazify enable``, ``disable`` or ``status`` (:mod:`lazify._activate`)."""
    from lazify import _activate

    try:
        return getattr(_activate, f"cmd_{args.command}")(args)
    except BrokenPipeError:
        # `lazify status | head -1`: the reader is gone, as with any filter; no traceback
        # now or when the interpreter flushes stdout at exit
        stdout_closed()
        return 1


#: ``--python`` of the three
_PYTHON = (("--python",), {"metavar": "PATH", "default": None,
                           "help": "the environment's interpreter (default: this one)"})

#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("enable",
     "turn lazify on for a Python environment (a .pth file in its site-packages)",
     "Turn lazify on for every start of a Python environment's interpreter: write "
     "lazify-enabled.pth into its site-packages, recording the settings of the "
     "pyproject.toml found from here (or --settings FILE), and write lazify's cache "
     "for it. Again: update the settings.",
     [_PYTHON,
      (("--settings",), {"metavar": "FILE", "default": None,
                         "help": "a TOML file whose [tool.lazify] to record"}),
      (("--no-compile",), {"dest": "compile", "action": "store_false",
                           "help": "do not write the cache ahead of time"})]),
    ("disable",
     "turn lazify off for a Python environment (remove what enable wrote)",
     "Remove the lazify-enabled.pth that `lazify enable` wrote, and nothing else.",
     [_PYTHON]),
    ("status",
     "whether lazify is active here, why, its settings and cache",
     "Say whether lazify is active in this interpreter and why, the mechanism, the "
     "settings and where each comes from, where the cache goes and how much of the "
     "environment is compiled. Exit status 0 when active, 1 when not.",
     []),
)
