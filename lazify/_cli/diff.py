"""``lazify diff``: a unified diff from each file to its rewritten source, or, with
``--check DIR``, from a reviewed tree to what the rewrite prints now (for CI)."""

from __future__ import annotations

import os
import sys

from .common import (SOURCE_MECHANISM_OPTION, files_or_report, label, planned_mechanism,
                     print_diff, relative, rewrite_each, stdout_closed)


def run(args) -> int:
    """``lazify diff PATH... [--check DIR]``: 0 no difference, 1 differences or errors, 2 usage."""
    try:
        return _diff(args)
    except BrokenPipeError:
        # `lazify diff | head`: stop quietly, as diff(1) does.
        stdout_closed()
        return 1


def _diff(args) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        for p in missing:
            print(f"lazify diff: {p}: no such file or directory", file=sys.stderr)
        return 2
    if args.check is not None and not os.path.isdir(args.check):
        print(f"lazify diff: --check {args.check}: not a directory", file=sys.stderr)
        return 2
    mechanism = planned_mechanism(args, "diff")
    if mechanism is None:
        return 2
    failed: list[str] = []
    files = files_or_report("diff", args.paths, failed)
    if files is None:
        return 2
    differs = False
    for file, rel, original, new in rewrite_each("diff", files, failed, mechanism):
        shown = relative(file)
        if args.check is None:
            if new != original:
                print_diff(original, new, label("a", shown), label("b", shown))
            continue
        reviewed_path = os.path.join(args.check, rel)
        try:
            with open(reviewed_path, "rb") as f:
                reviewed = f.read()
        except FileNotFoundError:
            reviewed, old_label = b"", "/dev/null"
        else:
            old_label = label("a", relative(reviewed_path))
        if reviewed != new or old_label == "/dev/null":
            print_diff(reviewed, new, old_label, label("b", shown))
            differs = True
    if args.check is not None:
        # A reviewed file whose source is gone is a difference too.
        from lazify._sources import python_files

        produced = {os.path.normpath(rel) for _file, rel, _excluding in files}
        for file in python_files(args.check):
            if os.path.normpath(os.path.relpath(file, args.check)) not in produced:
                print(f"lazify diff: {relative(file)}: no source file for it any more", file=sys.stderr)
                differs = True
    return 1 if failed or differs else 0


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("diff",
     "unified diff original -> rewritten",
     "Print a unified diff from the original to the rewritten source of every changed "
     "file; with --check DIR, exit 1 when the rewritten output differs from DIR.",
     [(("paths",), {"nargs": "+", "metavar": "PATH", "help": "files or directories"}),
      (("--check",), {"metavar": "DIR", "default": None, "help": "compare with a reviewed tree"}),
      SOURCE_MECHANISM_OPTION]),
)
