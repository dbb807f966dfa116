"""``lazify rewrite``: the rewritten source of a file, or a rewritten tree (``-o``)."""

from __future__ import annotations

import os
import sys

from .common import (SOURCE_MECHANISM_OPTION, files_or_report, planned_mechanism, rewrite_each,
                     write_whole)


def run(args) -> int:
    """``lazify rewrite PATH [-o OUT]``: print one file, or write a rewritten tree."""
    path, out = args.path, args.output
    if not os.path.exists(path):
        print(f"lazify rewrite: {path}: no such file or directory", file=sys.stderr)
        return 2
    if os.path.isdir(path):
        if out is None:
            print(
                f"lazify rewrite: {path} is a directory: give -o OUT to write the rewritten tree",
                file=sys.stderr,
            )
            return 2
        if os.path.exists(out) and not os.path.isdir(out):
            print(f"lazify rewrite: {out} exists and is not a directory", file=sys.stderr)
            return 2
    if out is not None and _replaces(path, out):
        # the rewritten files would take the sources' place: nothing left to rewrite
        # from, and the generated code needs lazify to run (a build step writes a copy)
        print(f"lazify rewrite: -o {out} would replace the sources it reads ({path}) with "
              "the rewritten ones: give another OUT", file=sys.stderr)
        return 2
    mechanism = planned_mechanism(args, "rewrite")
    failed: list[str] = []
    files = files_or_report("rewrite", [path], failed) if mechanism is not None else None
    if files is None:
        return 2
    if os.path.isdir(path):
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            # said once, not once per file
            print(f"lazify rewrite: {e.filename or out}: {e.strerror or e}", file=sys.stderr)
            return 1
    for _file, rel, _original, new in rewrite_each("rewrite", files, failed, mechanism):
        if os.path.isdir(path):
            dest = os.path.join(out, rel)
        elif out is None:
            # The bytes as they are: the file's encoding and newlines survive a `> file`.
            # In blocks: one large write to a pipe closed half way loses the rest
            # without a word (BufferedWriter takes the short write), a closed pipe
            # must end the command as it ends the others (lazify._cli.main).
            sys.stdout.flush()
            for start in range(0, len(new), 8192):
                sys.stdout.buffer.write(new[start:start + 8192])
            sys.stdout.buffer.flush()
            continue
        else:
            dest = os.path.join(out, rel) if os.path.isdir(out) else out
        try:
            _write(dest, new)
        except OSError as e:
            # one line: the path, and what the system said
            print(f"lazify rewrite: {e.filename or dest}: {e.strerror or e}", file=sys.stderr)
            failed.append(dest)
    return 1 if failed else 0


def _replaces(path: str, out: str) -> bool:
    """Whether writing under OUT would overwrite PATH's own files: OUT is PATH's
    directory itself, or (PATH a file) OUT, or OUT/NAME, is that file."""
    if os.path.isdir(path):
        targets = [out]
    else:
        targets = [out, os.path.join(out, os.path.basename(path))]
    for target in targets:
        try:
            if os.path.samefile(target, path):
                return True
        except OSError:
            pass
    return False


def _write(dest: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    write_whole(dest, data)


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("rewrite",
     "print the rewritten source (or write a rewritten tree with -o)",
     "Print the source lazify's rewrite produces, comments and formatting kept; with -o, "
     "write the rewritten tree of a directory under OUT.",
     [(("path",), {"metavar": "PATH", "help": "a file or a directory"}),
      (("-o", "--output"), {"metavar": "OUT", "default": None, "help": "write a tree here"}),
      SOURCE_MECHANISM_OPTION]),
)
