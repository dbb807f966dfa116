"""``lazify compile``: write lazify's bytecode cache ahead of time (the batch itself is
:func:`lazify._compile.compile_paths`)."""

from __future__ import annotations

import sys

from .common import BAD, MECHANISM_OPTION, configured_mechanism


def run(args) -> int:
    """``lazify compile``: write lazify's bytecode cache ahead of time."""
    from lazify._compile import compile_paths

    mechanism = configured_mechanism(args, "compile")
    if mechanism is BAD:
        return 2
    if not args.paths and not args.env:
        print("lazify compile: error: give PATHs to compile, or --env", file=sys.stderr)
        return 2
    if args.jobs < 0:
        print("lazify compile: error: -j/--jobs must be 0 (one per core) or more", file=sys.stderr)
        return 2
    return compile_paths(args.paths, hash_based=args.hash_based, mechanism=mechanism,
                         jobs=args.jobs, env=args.env, force=args.force)


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("compile",
     "write the rewritten bytecode cache ahead of time",
     "Write lazify's bytecode cache for files or trees ahead of time (a Docker build step, "
     "a read-only venv), one process per core; --env: everything this environment "
     "imports, the stdlib included.",
     [(("paths",), {"nargs": "*", "metavar": "PATH", "help": "files or directories"}),
      (("--env",), {"action": "store_true",
                    "help": "compile what this environment imports: the stdlib and "
                            "site-packages (sys.path without the script's directory "
                            "and PYTHONPATH)"}),
      (("-j", "--jobs"), {"type": int, "default": 0, "metavar": "N",
                          "help": "processes (default 0: one per core)"}),
      (("-f", "--force"), {"action": "store_true",
                           "help": "rewrite files whose cache is valid already"}),
      (("--hash",), {"dest": "hash_based", "action": "store_true",
                     "help": "checked-hash pycs (not mtime)"}),
      MECHANISM_OPTION]),
)
