"""The ``lazify`` command line: the parser and the dispatch to one module per command.

Each command module (:mod:`.check`, :mod:`.rewrite`, :mod:`.diff`, :mod:`.fix`, :mod:`.run`,
:mod:`.compile`, :mod:`.report`, :mod:`.cache`, :mod:`.activate`) holds its ``COMMANDS``
(name, help, description, arguments) and ``run(args)``, which takes what argparse parsed,
calls the library and prints; what they share is :mod:`.common`; the work is the library's.
Dependencies go one way: this package's ``__init__`` -> commands -> ``common`` -> library.

``check`` never executes the code it reports on.  ``lazify run`` never comes here from the
console script (:mod:`lazify._main`), and :func:`main` hands it on before building the
parser: ``run`` must not import, eagerly, modules the program is meant to import lazily.
Everything that only one command needs (ast, json, the planner) is imported inside the
functions that use it.
"""

from __future__ import annotations

import argparse
import errno
import sys
from typing import Sequence

from . import activate, cache, check, compile, diff, fix, report, rewrite, run
from .common import SUBCOMMANDS, interrupted, stdout_closed, usable_streams

#: a write that no file of the disk can take (``> /dev/full``, a full disk, a quota): the
#: commands' own files say so per file; stdout, or anything else, ends the command
_FULL = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name)}

#: the command modules, in the order ``lazify --help`` lists their commands
_MODULES = (check, rewrite, diff, fix, run, compile, report, cache, activate)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lazify`` command line and return its exit code.

    Output to a closed pipe (``lazify check src | head``) ends the command quietly with
    exit status 1, as pip and black end (:func:`.common.stdout_closed`), and output to a
    full disk with one line and exit status 1; a stdout or stderr closed from the start
    is ``os.devnull``, and a stdout that cannot encode a name escapes it; Ctrl-C ends it
    with one line and exit status 130, not a traceback.
    ``lazify run`` is left alone: the program it runs meets a closed pipe as under
    ``python``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        from lazify._run import main as run_main

        return run_main(argv[1:])
    from .. import _deferred

    _deferred.no_exit_warning = True     # its process's misses are lazify's, not a program's
    usable_streams()
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "run":
        return args.func(args)
    try:
        status = args.func(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        stdout_closed()
        return 1
    except OSError as exc:
        if exc.errno not in _FULL:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"lazify {args.command}: cannot write: {where}{exc.strerror or exc}")
        stdout_closed()
        return 1
    except KeyboardInterrupt:            # Ctrl-C: one line, the shell's 128 + SIGINT
        interrupted(args.command)
        return 130
    except Exception as exc:
        if not _raised_by_ctrl_c(exc):
            raise
        interrupted(args.command)
        return 130


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:                    # stderr on the same full disk: nothing to say it on
        pass


def _raised_by_ctrl_c(exc) -> bool:
    """Whether *exc* was raised while a KeyboardInterrupt was being handled: Ctrl-C can
    land inside a lock's release in the standard library's own clean-up (a process
    pool's, threading's), which then fails with ``RuntimeError: release unlocked lock``
    in its place."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__context__
    return False


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lazify",
        description="PEP 690 lazy imports for stock CPython.",
    )
    parser.add_argument("--version", action="version", version=f"lazify {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _MODULES:
        for name, summary, description, arguments in module.COMMANDS:
            p = sub.add_parser(name, help=summary, description=description)
            if arguments and arguments[0] is SUBCOMMANDS:   # ``lazify cache clean``
                actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
                for action, action_help, action_arguments in arguments[1:]:
                    q = actions.add_parser(action, help=action_help, description=action_help)
                    for flags, options in action_arguments:
                        q.add_argument(*flags, **options)
                arguments = ()
            for flags, options in arguments:
                p.add_argument(*flags, **options)
            p.set_defaults(func=module.run)
    return parser


def _version() -> str:
    from lazify import __version__

    return __version__
