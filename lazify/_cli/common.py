"""What the commands share: the ``--mechanism`` options, the mechanism a command runs
with, the files ``rewrite`` and ``diff`` work on, unified diffs, and a closed stdout.

Imports only the library (and that inside the functions that need it): every command
module imports this one, and :mod:`lazify._cli` imports every command module.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Iterator

#: first in a command's arguments: the rest are its actions, (name, help, arguments)
SUBCOMMANDS = object()

#: ``--mechanism`` of check, compile and report: what the hook would do on this Python
MECHANISM_OPTION = (("--mechanism",), {
    "choices": ("native", "rewrite"), "default": None,
    "help": "native: PEP 810 lazy statements (3.15+); rewrite: lazify's generated code "
            "(default: LAZIFY_MECHANISM, else [tool.lazify] mechanism, else native on 3.15+ "
            "and rewrite before)"})
#: ``--mechanism`` of rewrite and diff, whose output is the same on every Python
SOURCE_MECHANISM_OPTION = (("--mechanism",), {
    "choices": ("native", "rewrite"), "default": None,
    "help": "native: the source with PEP 810 lazy statements (3.15 syntax); rewrite: "
            "lazify's generated code, runnable on 3.10+ (default: LAZIFY_MECHANISM, else "
            "[tool.lazify] mechanism, else rewrite on every Python)"})

#: :func:`configured_mechanism` after reporting a usage error
BAD = object()


def configured_mechanism(args, command, runs=True):
    """``--mechanism``, else the configured one (``[tool.lazify]``, ``LAZIFY_MECHANISM``)
    this interpreter has, else None (the default); :data:`BAD` after reporting a usage error.

    :param runs: the command compiles code for this interpreter (``compile``, ``run``);
        ``rewrite`` and ``diff`` print native source (``lazy import``) on any version.
    """
    from lazify._config import ConfigError, load_config, resolve, usable_mechanism
    from lazify._mechanism import check_mechanism

    try:
        if args.mechanism is not None:
            return check_mechanism(args.mechanism) if runs else args.mechanism
        # compile and run: the environment's settings; rewrite/diff: the project's
        configured = (resolve() if runs else load_config()).mechanism
        return usable_mechanism(configured) if runs else configured
    except (ConfigError, ValueError) as exc:
        message = str(exc).removeprefix("lazify: ")
        print(f"lazify {command}: {message}", file=sys.stderr)
        return BAD


def planned_mechanism(args, command):
    """The mechanism to plan (and print) for, or None after a usage error: ``--mechanism``,
    else the configured one, else, for ``check``, the interpreter's default (what the hook
    would do here) and, for ``rewrite``/``diff``, the rewrite: their output is source that
    a reviewed tree (``diff --check``) holds, the same whichever Python prints it."""
    from lazify._mechanism import default_mechanism

    mechanism = configured_mechanism(args, command, runs=False)
    if mechanism is BAD:
        return None
    return mechanism or (default_mechanism() if command == "check" else "rewrite")


def usable_streams() -> None:
    """Streams a command can always write to.  Started with stdout or stderr closed
    (``>&-``, a daemon, cron), it finds ``None`` there and does its work all the same: its
    output goes to ``os.devnull`` (``lazify enable >&-`` still enables, ``check`` still
    exits 1 on a failure).  A stdout that cannot encode a name (an ASCII locale,
    ``PYTHONIOENCODING=ascii``: ``import café``) writes it escaped (``caf\\xe9``), as
    stderr does, not a UnicodeEncodeError traceback."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        try:
            sys.stdout.reconfigure(errors="backslashreplace")
        except (ValueError, OSError):    # a stream that does not take it: as it is
            pass


#: no newline translation where the system has it (Windows)
_BINARY = getattr(os, "O_BINARY", 0)


def write_whole(path: str, data: bytes) -> None:
    """Write *data* to *path*, whole or not at all: a full disk or a quota must not leave
    a user's source cut off mid-line (``lazify fix``) or an empty module in a rewritten
    tree (``rewrite -o``).  An existing file is replaced in place (its inode, mode, owner
    and links kept) after the space it grows by is claimed at its end; a new file that
    cannot be written whole is removed.  :raises OSError: as the system said."""
    try:
        fd = os.open(path, os.O_RDWR | _BINARY)
    except FileNotFoundError:
        _write_new(path, data)
        return
    try:
        size = os.fstat(fd).st_size
        if len(data) > size:             # claim the space first: the source is unchanged
            try:
                _write_all(fd, data[size:], size)
            except OSError:
                os.ftruncate(fd, size)
                raise
        _write_all(fd, data, 0)          # the same blocks, or fewer
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def _write_new(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
    try:
        _write_all(fd, data, 0)
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)


def _write_all(fd: int, data: bytes, offset: int) -> None:
    os.lseek(fd, offset, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def stdout_closed() -> None:
    """The reader of stdout is gone (``lazify check | head``): the rest of the output goes
    to ``os.devnull``, so that the interpreter's own flush at exit finds nothing to
    complain about."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def interrupted(command: str) -> None:
    """Ctrl-C ended *command*: one line on stderr, on a line of its own (a progress bar
    may hold the current one)."""
    try:
        sys.stdout.flush()
    except Exception:                    # a closed pipe, or no stdout
        pass
    try:
        newline = "\n" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{newline}lazify {command}: interrupted\n")
        sys.stderr.flush()
    except Exception:
        pass


# ------------------------------------------------------------------ rewrite / diff


def files_or_report(command: str, tops: list[str],
                    failed: list[str]) -> list[tuple[str, str, frozenset]] | None:
    """``(file, path relative to its top, excluding)`` for the files ``check`` would
    analyse; None after reporting malformed settings, as ``check`` does (exit status 2).
    A directory that cannot be read is reported and added to *failed*."""
    from lazify._config import ConfigError
    from lazify._sources import iter_files

    files = []
    unreadable: list = []
    try:
        for top in tops:
            for file, excluding in iter_files([top], (), unreadable):
                rel = os.path.relpath(file, top) if os.path.isdir(top) else os.path.basename(file)
                files.append((file, rel, excluding))
    except ConfigError as e:
        print(f"lazify {command}: {e}", file=sys.stderr)
        return None
    for directory, error in unreadable:
        print(f"lazify {command}: {directory}: cannot read directory: {error}", file=sys.stderr)
        failed.append(directory)
    return files


def rewrite_each(command: str, files, failed: list[str],
                 mechanism: str = "rewrite") -> Iterator[tuple[str, str, bytes, bytes]]:
    """Yield ``(file, rel, original, rewritten)``; report a file that fails, and add it
    to *failed*."""
    from lazify._emit_file import RewriteFailed, rewrite_file

    for file, rel, excluding in files:
        try:
            original, new = rewrite_file(file, excluding, mechanism)
        except RewriteFailed as e:
            print(f"lazify {command}: {e}", file=sys.stderr)
            failed.append(file)
            continue
        yield file, rel, original, new


# -------------------------------------------------------------------------- diffs

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def relative(path: str) -> str:
    """*path* relative to the working directory, unless that climbs out of it."""
    rel = os.path.relpath(path)
    return path if rel.startswith(os.pardir + os.sep) and os.path.isabs(path) else rel


def label(side: str, path: str) -> str:
    """git's ``a/``/``b/`` prefixes (``patch -p1`` applies the diff), for relative paths."""
    path = path.replace(os.sep, "/")
    return path if os.path.isabs(path) else f"{side}/{path}"


def _decode(data: bytes) -> str:
    """Decode with the file's own encoding, newlines kept as they are."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")


def print_diff(old: bytes, new: bytes, old_label: str, new_label: str) -> None:
    """A unified diff of two versions of a file on stdout, as diff(1) and git print it."""
    import difflib

    a = _LINE.findall(_decode(old))
    b = _LINE.findall(_decode(new))
    out = sys.stdout
    for line in difflib.unified_diff(a, b, old_label, new_label):
        if line.endswith(("\n", "\r")):
            out.write(line)
        else:
            # As diff(1) and git show it: a line without its final newline.
            out.write(line + "\n\\ No newline at end of file\n")
