"""``lazify rewrite`` and ``lazify diff``: the rewritten source, for review and for CI.

Both run the planner and the libcst emitter (:mod:`lazify._emit_cst`) on each file. The
planner gets ``excluding=None``, as in the import hook: the rewritten program never depends
on settings, the runtime applies them. Files are found and named as ``lazify check``
finds and names them (:mod:`lazify._cli`).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import re
import sys
from typing import Iterator

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class _Failed(Exception):
    """A file that could not be rewritten; the message names the file and the cause."""


def rewrite_file(path: str) -> tuple[bytes, bytes]:
    """Return ``(original, rewritten)`` bytes for one file, in the file's own encoding.

    A file with nothing to rewrite comes back unchanged. Raises :class:`_Failed` with the
    path and the parser's message when the file cannot be read or parsed.
    """
    from lazify import _plan
    from lazify._cli import module_name_for
    from lazify._emit_cst import CannotParse, emit_cst

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise _Failed(f"{path}: {e.strerror or e}") from None
    try:
        # compile() on the bytes, as `check` does: the coding cookie, BOM and every error
        # are Python's own.
        tree = compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:
        where = f":{e.lineno}" if e.lineno else ""
        where += f":{e.offset}" if e.lineno and e.offset else ""
        raise _Failed(f"{path}{where}: {type(e).__name__}: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise _Failed(f"{path}: {type(e).__name__}: {e}") from None
    module, is_package = module_name_for(path)
    try:
        plan = _plan.plan_module(
            tree, module=module, is_package=is_package, source=data,
            extensions=_plan.extension_submodules(path) if is_package else frozenset())
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
        if os.environ.get("LAZIFY_STRICT", "") not in ("", "0"):
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
        status = 0
        for file, rel in _files_under(path):
            try:
                _original, new = rewrite_file(file)
            except _Failed as e:
                print(f"lazify rewrite: {e}", file=sys.stderr)
                status = 1
                continue
            _write(os.path.join(out, rel), new)
        return status
    try:
        _original, new = rewrite_file(path)
    except _Failed as e:
        print(f"lazify rewrite: {e}", file=sys.stderr)
        return 1
    if out is None:
        # The bytes as they are: the file's encoding and newlines survive a `> file`.
        sys.stdout.flush()
        sys.stdout.buffer.write(new)
        sys.stdout.buffer.flush()
    else:
        _write(os.path.join(out, os.path.basename(path)) if os.path.isdir(out) else out, new)
    return 0


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
    status = 0
    produced: set[str] = set()
    for top in args.paths:
        for file, rel in _files_under(top):
            produced.add(os.path.normpath(rel))
            try:
                original, new = rewrite_file(file)
            except _Failed as e:
                print(f"lazify diff: {e}", file=sys.stderr)
                status = 1
                continue
            shown = _relative(file)
            if args.check is None:
                if new != original:
                    _print_diff(original, new, file, _label("a", shown), _label("b", shown))
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
                _print_diff(reviewed, new, file, label, _label("b", shown))
                status = 1
    if args.check is not None:
        # A reviewed file whose source is gone is a difference too.
        for file, rel in _files_under(args.check):
            if os.path.normpath(rel) not in produced:
                print(f"lazify diff: {_relative(file)}: no source file for it any more", file=sys.stderr)
                status = 1
    return status


def _files_under(top: str) -> Iterator[tuple[str, str]]:
    """Yield ``(file, path relative to top)``: the files ``check`` would analyse."""
    from lazify._cli import _iter_files

    for item in _iter_files([top]):
        # check's walker yields (file, excluding) now; rewrite ignores excluding (see above).
        file = item[0] if isinstance(item, tuple) else item
        rel = os.path.relpath(file, top) if os.path.isdir(top) else os.path.basename(file)
        yield file, rel


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


def _decode(data: bytes, path: str) -> str:
    """Decode with the file's own encoding, newlines kept as they are."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")


def _print_diff(old: bytes, new: bytes, path: str, old_label: str, new_label: str) -> None:
    a = _LINE.findall(_decode(old, path))
    b = _LINE.findall(_decode(new, path))
    out = sys.stdout
    for line in difflib.unified_diff(a, b, old_label, new_label):
        if line.endswith(("\n", "\r")):
            out.write(line)
        else:
            # As diff(1) and git show it: a line without its final newline.
            out.write(line + "\n\\ No newline at end of file\n")
