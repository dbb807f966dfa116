"""``lazify rewrite`` and ``lazify diff``: the rewritten source, for review and for CI.

Both run the planner and the libcst emitter (:mod:`lazify._emit_cst`) on each file. Files
are found, named, read and excluded as ``lazify check`` finds, names, reads and excludes
them (:mod:`lazify._sources`): a module the settings exclude comes back as it is, as the
import hook leaves it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from typing import Iterator

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _mechanism(args, command):
    """The mechanism to plan (and print) for, or None after a usage error: ``--mechanism``,
    else the configured one, else, for ``check``, the interpreter's default (what the hook
    would do here) and, for ``rewrite``/``diff``, the rewrite: their output is source that
    a reviewed tree (``diff --check``) holds, the same whichever Python prints it."""
    from lazify._cli import _BAD, _mechanism as configured
    from lazify._mode import default_mechanism

    mechanism = configured(args, command, runs=False)
    if mechanism is _BAD:
        return None
    return mechanism or (default_mechanism() if command == "check" else "rewrite")


class _Failed(Exception):
    """A file that could not be rewritten; the message names the file and the cause."""


def rewrite_file(path: str, excluding=None, mechanism: str = "rewrite") -> tuple[bytes, bytes]:
    """Return ``(original, rewritten)`` bytes for one file, in the file's own encoding.

    A file with nothing to rewrite, or that *excluding* names, comes back unchanged.
    Raises :class:`_Failed` with the path and the parser's message when the file cannot
    be read or parsed.
    """
    from lazify import _sources
    from lazify._emit_cst import CannotParse, emit_cst
    from lazify._rewrite import plan_source

    try:
        data, tree = _sources.read_and_parse(path)
    except _sources.SourceError as e:
        raise _Failed(e.located()) from None
    module, is_package = _sources.module_name_for(path)
    try:
        plan = plan_source(tree, data, path, module=module, is_package=is_package,
                           excluding=excluding, mechanism=mechanism)
        if not plan.rewrite:
            return data, data
        return data, emit_cst(data, plan)
    except CannotParse as e:
        # Valid for this Python, but libcst cannot parse it (newer syntax than it knows,
        # or a libcst bug): not rewritable here; the import hook rewrites it at run time.
        where = "" if str(e)[:1].isdigit() else " "
        raise _Failed(
            f"{path}:{where}{e}; not rewritable by `lazify rewrite`/`diff` (the import hook, "
            "which uses ast, still rewrites it)") from None
    except Exception as e:
        # A lazify bug (the planner, or a plan the emitter cannot apply): as `check`
        # reports it, unless LAZIFY_STRICT asks for the traceback.
        from lazify._mode import env_flag

        if env_flag("LAZIFY_STRICT"):
            raise
        raise _Failed(f"{path}: lazify internal error: {type(e).__name__}: {e} (please report it)") from None


def cmd_rewrite(args: argparse.Namespace) -> int:
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
    mechanism = _mechanism(args, "rewrite")
    files = _files_or_report("rewrite", [path]) if mechanism is not None else None
    if files is None:
        return 2
    failed: list[str] = []
    for _file, rel, _original, new in _rewrite_each("rewrite", files, failed, mechanism):
        if os.path.isdir(path):
            _write(os.path.join(out, rel), new)
        elif out is None:
            # The bytes as they are: the file's encoding and newlines survive a `> file`.
            sys.stdout.flush()
            sys.stdout.buffer.write(new)
            sys.stdout.buffer.flush()
        else:
            _write(os.path.join(out, rel) if os.path.isdir(out) else out, new)
    return 1 if failed else 0


def cmd_diff(args: argparse.Namespace) -> int:
    """``lazify diff PATH... [--check DIR]``: 0 no difference, 1 differences or errors, 2 usage."""
    try:
        return _diff(args)
    except BrokenPipeError:
        # `lazify diff | head`: stop quietly, as diff(1) does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _diff(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        for p in missing:
            print(f"lazify diff: {p}: no such file or directory", file=sys.stderr)
        return 2
    if args.check is not None and not os.path.isdir(args.check):
        print(f"lazify diff: --check {args.check}: not a directory", file=sys.stderr)
        return 2
    mechanism = _mechanism(args, "diff")
    if mechanism is None:
        return 2
    files = _files_or_report("diff", args.paths)
    if files is None:
        return 2
    failed: list[str] = []
    differs = False
    for file, rel, original, new in _rewrite_each("diff", files, failed, mechanism):
        shown = _relative(file)
        if args.check is None:
            if new != original:
                _print_diff(original, new, _label("a", shown), _label("b", shown))
            continue
        reviewed_path = os.path.join(args.check, rel)
        try:
            with open(reviewed_path, "rb") as f:
                reviewed = f.read()
        except FileNotFoundError:
            reviewed, label = b"", "/dev/null"
        else:
            label = _label("a", _relative(reviewed_path))
        if reviewed != new or label == "/dev/null":
            _print_diff(reviewed, new, label, _label("b", shown))
            differs = True
    if args.check is not None:
        # A reviewed file whose source is gone is a difference too.
        from lazify._sources import walk

        produced = {os.path.normpath(rel) for _file, rel, _excluding in files}
        for file in walk(args.check):
            if os.path.normpath(os.path.relpath(file, args.check)) not in produced:
                print(f"lazify diff: {_relative(file)}: no source file for it any more", file=sys.stderr)
                differs = True
    return 1 if failed or differs else 0


def _files_or_report(command: str, tops: list[str]) -> list[tuple[str, str, frozenset]] | None:
    """``(file, path relative to its top, excluding)`` for the files ``check`` would
    analyse; None after reporting malformed settings, as ``check`` does (exit status 2)."""
    from lazify._config import ConfigError
    from lazify._sources import iter_files

    files = []
    try:
        for top in tops:
            for file, excluding in iter_files([top], ()):
                rel = os.path.relpath(file, top) if os.path.isdir(top) else os.path.basename(file)
                files.append((file, rel, excluding))
    except ConfigError as e:
        print(f"lazify {command}: {e}", file=sys.stderr)
        return None
    return files


def _rewrite_each(command: str, files, failed: list[str],
                  mechanism: str = "rewrite") -> Iterator[tuple[str, str, bytes, bytes]]:
    """Yield ``(file, rel, original, rewritten)``; report a file that fails, and add it
    to *failed*."""
    for file, rel, excluding in files:
        try:
            original, new = rewrite_file(file, excluding, mechanism)
        except _Failed as e:
            print(f"lazify {command}: {e}", file=sys.stderr)
            failed.append(file)
            continue
        yield file, rel, original, new


def _relative(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith(os.pardir + os.sep) and os.path.isabs(path) else rel


def _label(side: str, path: str) -> str:
    """git's ``a/``/``b/`` prefixes (``patch -p1`` applies the diff), for relative paths."""
    path = path.replace(os.sep, "/")
    return path if os.path.isabs(path) else f"{side}/{path}"


def _write(dest: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    with open(dest, "wb") as f:
        f.write(data)


def _decode(data: bytes) -> str:
    """Decode with the file's own encoding, newlines kept as they are."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")


def _print_diff(old: bytes, new: bytes, old_label: str, new_label: str) -> None:
    a = _LINE.findall(_decode(old))
    b = _LINE.findall(_decode(new))
    out = sys.stdout
    for line in difflib.unified_diff(a, b, old_label, new_label):
        if line.endswith(("\n", "\r")):
            out.write(line)
        else:
            # As diff(1) and git show it: a line without its final newline.
            out.write(line + "\n\\ No newline at end of file\n")
