"""The operating system's functions lazify calls while a program runs: the
interpreter's own, captured when lazify loads.

Programs patch ``os.stat``, ``os.listdir``, ``os.path.*``, ``open``: blocking-call
detectors in async test suites, sandboxes, fake file systems.  CPython's import
system is not affected by that: importlib calls the ``posix`` (``nt``) module
directly (``_bootstrap_external._os``) and keeps its path functions to itself.
Nor is lazify, on anything it does while a program's import runs (the hook, the
cache, the rewriter's file access, measuring the rewriter's dependencies): it
calls the functions below, taken from that same module when lazify is loaded,
and path functions of its own that call nothing a program can replace.  A
program that patched the functions lazify calls would see lazify's file access
while its own import runs, and could break it (a patched ``os.stat`` that reads
a lazily imported name re-enters the import it is called from).

Paths are the import system's: what ``sys.path``, a finder and ``__file__`` give.
The pure path functions follow ``posixpath`` on POSIX; on Windows ``ntpath``'s
are taken as they are when lazify loads (drives and UNC paths are its business).
Imports nothing that is not loaded at start-up.
"""

import _frozen_importlib_external as _external

#: ``posix`` or ``nt``: the module importlib itself calls
_system = _external._os

# (no generator expression in lazify's start-up modules: each is one more code object
# that every start loads, about 10 k instructions on 3.15)
stat, listdir, mkdir, open_fd, close, read = (
    _system.stat, _system.listdir, _system.mkdir, _system.open, _system.close, _system.read)
unlink, replace, getcwd, getpid, fspath = (
    _system.unlink, _system.replace, _system.getcwd, _system.getpid, _system.fspath)
#: absent from ``nt``: None there
pipe, getuid, posix_spawn, waitpid, waitstatus_to_exitcode = (
    getattr(_system, "pipe", None), getattr(_system, "getuid", None),
    getattr(_system, "posix_spawn", None), getattr(_system, "waitpid", None),
    getattr(_system, "waitstatus_to_exitcode", None))
access = _system.access
#: ``access``'s mode: a file can be created in a directory that has both
W_OK_X_OK = _system.W_OK | _system.X_OK

#: the path separator and every character that separates (``/`` and ``\\`` on Windows)
sep = _external.path_sep
_SEPARATORS = "".join(_external.path_separators)

_S_IFMT = 0o170000
_S_IFDIR = 0o040000
_S_IFREG = 0o100000


def _mode_is(path, kind):
    try:
        return stat(path).st_mode & _S_IFMT == kind
    except (OSError, ValueError):
        return False


def isdir(path):
    """``os.path.isdir``."""
    return _mode_is(path, _S_IFDIR)


def isfile(path):
    """``os.path.isfile``."""
    return _mode_is(path, _S_IFREG)


def exists(path):
    """``os.path.exists``."""
    try:
        stat(path)
    except (OSError, ValueError):
        return False
    return True


if sep == "/":
    def isabs(path):
        """``os.path.isabs``."""
        return path.startswith("/")

    def join(head, *tails):
        """``os.path.join``."""
        path = head
        for tail in tails:
            if tail.startswith("/") or not path:
                path = tail
            elif path.endswith("/"):
                path += tail
            else:
                path += "/" + tail
        return path

    def split(path):
        """``os.path.split``."""
        cut = path.rfind("/") + 1
        head, tail = path[:cut], path[cut:]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head, tail

    def splitdrive(path):
        """``os.path.splitdrive``: no drives on POSIX."""
        return path[:0], path

    _normpath = getattr(_system, "_path_normpath", None)   # 3.11+

    def normpath(path):
        """``os.path.normpath``."""
        if _normpath is not None:
            return _normpath(path) or "."
        if not path:
            return "."
        initial = 2 if path.startswith("//") and not path.startswith("///") else \
            1 if path.startswith("/") else 0
        parts = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part != ".." or (not initial and not parts) or (parts and parts[-1] == ".."):
                parts.append(part)
            elif parts:
                parts.pop()
        path = "/".join(parts)
        if initial:
            path = "/" * initial + path
        return path or "."
else:   # pragma: no cover - Windows
    import ntpath as _ntpath

    isabs = _ntpath.isabs
    join = _ntpath.join
    split = _ntpath.split
    splitdrive = _ntpath.splitdrive
    normpath = _ntpath.normpath


def dirname(path):
    """``os.path.dirname``."""
    return split(path)[0]


def basename(path):
    """``os.path.basename``."""
    return split(path)[1]


def abspath(path):
    """``os.path.abspath``."""
    path = fspath(path)
    if not isabs(path):
        path = join(getcwd(), path)
    return normpath(path)


def makedirs(path, mode=0o777):
    """``os.makedirs(path, mode)``: the parents with the default mode; FileExistsError
    when ``path`` exists."""
    head, tail = split(path)
    if not tail:
        head, tail = split(head)
    if head and tail and not exists(head):
        try:
            makedirs(head)
        except FileExistsError:
            pass
    mkdir(path, mode)


def home():
    """``os.path.expanduser("~")`` on POSIX (HOME, else the password database), or None."""
    import os   # the environment as the program set it (os.environ is a mapping, not a call)

    value = os.environ.get("HOME")
    if not value:
        if getuid is None:
            return None
        try:
            import pwd

            value = pwd.getpwuid(getuid()).pw_dir
        except (ImportError, KeyError):
            return None
    return value.rstrip("/") or "/"
