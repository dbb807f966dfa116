"""``lazify run``'s entry in the parser, for ``lazify --help``.

``lazify run ...`` itself never comes here: :mod:`lazify._main` (and
:func:`lazify._cli.main`) hand it to :mod:`lazify._run` before anything imports argparse,
since it is on the start-up path of the program it runs.
"""

from __future__ import annotations

import argparse


def run(args) -> int:
    """``lazify run``: parsed by :mod:`lazify._run` itself (no argparse on its path)."""
    from lazify._run import main

    return main(args.run_argv)


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("run",
     "run a program with global lazy imports (the PEP's -L)",
     "Run a program as python would (-m MODULE, -c CODE, -, SCRIPT, or a console script "
     "on PATH or beside lazify's interpreter) with lazify's import hook in global mode; "
     "`lazify run --help` for its options.",
     [(("run_argv",), {"nargs": argparse.REMAINDER, "metavar": "ARGS",
                       "help": "see `lazify run --help`"})]),
)
