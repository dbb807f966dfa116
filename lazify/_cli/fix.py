"""``lazify fix``: mark the imports ``check`` finds safely lazy as PEP 810 lazy imports,
in place or as a diff (the edit itself is :mod:`lazify._fix`'s)."""

from __future__ import annotations

import os
import sys

from .common import label, print_diff, relative, stdout_closed, write_whole


def run(args) -> int:
    """``lazify fix [--style keyword|lazy-modules] [--diff] PATH...``: 0 done (or, with
    ``--diff``, nothing to change), 1 a file failed (or, with ``--diff``, a change to
    make), 2 usage."""
    from lazify._config import ConfigError
    from lazify._fix import FixFailed, fix_source
    from lazify._sources import SourceError, iter_files, read

    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        print(f"lazify fix: {path}: no such file or directory", file=sys.stderr)
    if missing:
        return 2
    try:
        files = list(iter_files(args.paths, args.excluding))
    except ConfigError as e:
        print(f"lazify fix: {e}", file=sys.stderr)
        return 2
    failed = changed = 0
    for path, excluding in files:
        try:
            data = read(path)
            new = fix_source(data, path, args.style, excluding)
        except SourceError as e:
            print(f"lazify fix: {e.located()}", file=sys.stderr)
            failed += 1
            continue
        except FixFailed as e:
            print(f"lazify fix: {e}", file=sys.stderr)
            failed += 1
            continue
        if new == data:
            continue
        changed += 1
        if args.diff:
            shown = relative(path)
            try:
                print_diff(data, new, label("a", shown), label("b", shown))
            except BrokenPipeError:
                stdout_closed()
                return 1
            continue
        try:
            write_whole(path, new)
        except OSError as e:
            print(f"lazify fix: {path}: {e.strerror or e}", file=sys.stderr)
            failed += 1
            continue
        print(f"fixed {relative(path)}", file=sys.stderr)
    if failed:
        return 1
    return 1 if args.diff and changed else 0


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("fix",
     "mark the safely lazy imports lazy in the source (PEP 810)",
     "Rewrite files in place so that the imports `check` finds safely lazy (lazy, read "
     "somewhere, not while the module is imported) are PEP 810 lazy imports: `lazy` "
     "statements, or one __lazy_modules__ list that earlier Pythons ignore.",
     [(("paths",), {"nargs": "+", "metavar": "PATH", "help": "files or directories"}),
      (("--style",), {"choices": ("keyword", "lazy-modules"), "default": "keyword",
                      "help": "keyword: `lazy import` statements (3.15, or lazify); "
                              "lazy-modules: a __lazy_modules__ list (runs unchanged on "
                              "3.10-3.14) (default: keyword)"}),
      (("--diff",), {"action": "store_true",
                     "help": "print the change as a unified diff instead of writing it"}),
      (("--excluding",), {"action": "append", "default": [], "metavar": "NAME",
                          "help": "module whose own imports stay eager (repeatable)"})]),
)
