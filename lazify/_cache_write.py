"""Writing lazify's bytecode cache: on a cache miss, by ``lazify compile``, and
the rewriter's dependencies once per interpreter.

Apart from :mod:`lazify._cache` (the paths, the format, the read path), which
every start-up imports: this module is imported only when something is written.
"""

import _io
import _thread
import errno
import marshal
import os
import sys

from . import _os
from ._cache import (FLAG_CHECK_SOURCE, FLAG_HASH_BASED, MAGIC_NUMBER, CodeType,
                     cache_from_source, cache_path, fallback_path, fallback_root,
                     fallback_trusted, is_hash_based, is_too_fresh, read_file,
                     rewriter_deps_fallback, rewriter_deps_path, source_hash)

#: OSError types and errnos meaning "this location cannot hold a cache" (the set
#: pytest's assertion rewriter uses); only these trigger the fallback.
_UNWRITABLE_ERRNOS = frozenset((errno.EROFS, errno.ENOSYS))
_UNWRITABLE_TYPES = (FileNotFoundError, NotADirectoryError, FileExistsError, PermissionError)


def want_hash(source_path: str) -> bool:
    """Decide whether a new cache file for this source is checked-hash.

    py_compile's rule (``SOURCE_DATE_EPOCH`` set), plus: follow the plain pyc
    beside the source when that one is hash-based (a distro or a Docker
    image compiled it so, and mtimes cannot be trusted there).
    """
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return True
    try:
        plain = cache_from_source(_os.fspath(source_path))
        return is_hash_based(read_file(plain)[:8])    # read as importlib reads
    except Exception:
        return False


def pyc_bytes(
    code: CodeType,
    *,
    source_mtime: float | None = None,
    source_size: int | None = None,
    source_bytes: bytes | None = None,
    hash_based: bool = False,
) -> bytes:
    """Serialize code with a standard pyc header (timestamp or checked-hash)."""
    data = bytearray(MAGIC_NUMBER)
    if hash_based:
        if source_bytes is None:
            raise ValueError("a hash-based pyc needs the source bytes")
        data += (FLAG_HASH_BASED | FLAG_CHECK_SOURCE).to_bytes(4, "little")
        data += source_hash(source_bytes)
    else:
        if source_mtime is None or source_size is None:
            raise ValueError("a timestamp pyc needs the source mtime and size")
        data += (0).to_bytes(4, "little")
        data += (int(source_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        data += (int(source_size) & 0xFFFFFFFF).to_bytes(4, "little")
    held = _strings(code, [])            # see _strings: kept alive while marshalled
    data += marshal.dumps(code)
    del held
    return bytes(data)


def _strings(code, found):
    """Every string ``code`` holds, its nested code's too, appended to ``found``.

    marshal writes an object that something else references too with a flag
    that lets later copies refer to it, and one referenced once without: before
    3.12 an identifier like ``json`` is shared with whatever else in the process
    interned it (a setting naming the module, say), so the bytes of a pyc would
    depend on the process that wrote it.  Held in ``found`` while marshalled,
    every string is referenced more than once, whatever the process.
    """
    found.extend(code.co_names)
    found.extend(code.co_varnames)
    found.extend(code.co_cellvars)
    found.extend(code.co_freevars)
    found.append(code.co_name)
    found.append(code.co_filename)
    found.append(getattr(code, "co_qualname", code.co_name))
    _constant_strings(code.co_consts, found)
    return found


def _constant_strings(constants, found):
    for constant in constants:
        if isinstance(constant, str):
            found.append(constant)
        elif isinstance(constant, CodeType):
            _strings(constant, found)
        elif isinstance(constant, (tuple, frozenset)):
            _constant_strings(constant, found)


def is_unwritable(exc: OSError) -> bool:
    return isinstance(exc, _UNWRITABLE_TYPES) or exc.errno in _UNWRITABLE_ERRNOS


def _make_dirs(directory: str, mode: int = 0o777) -> None:
    """Create missing directories one at a time, as ``SourceLoader.set_data`` does.

    A concurrent creator is fine (FileExistsError is tolerated); a
    ``__pycache__`` that is a *file* also passes here and fails at the write,
    with NotADirectoryError.
    """
    parts = []
    parent = directory
    while parent and not _os.isdir(parent):
        parent, part = _os.split(parent)
        if not part:
            break
        parts.append(part)
    for part in reversed(parts):
        parent = _os.join(parent, part)
        try:
            _os.mkdir(parent, mode)
        except FileExistsError:
            continue


def write_atomic(path: str, data: bytes, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one.

    The temp name is unique per process *and* thread (a pid suffix alone, as
    pytest's assertion rewriter uses, is not) and is unlinked on any failure, so
    that no ``.tmp`` file is left behind.  Raises OSError.
    """
    tmp = f"{path}.{_os.getpid()}.{_thread.get_ident()}.tmp"
    flags = os.O_EXCL | os.O_CREAT | os.O_WRONLY | getattr(os, "O_BINARY", 0)
    try:
        fd = _os.open_fd(tmp, flags, mode & 0o666)
    except FileExistsError:
        # only a crashed earlier process with our pid and thread id leaves this
        if _os.isdir(_os.dirname(tmp) or "."):
            _os.unlink(tmp)
            fd = _os.open_fd(tmp, flags, mode & 0o666)
        else:
            raise
    try:
        with _io.FileIO(fd, "wb") as f:
            view = memoryview(data)
            while view:
                view = view[f.write(view):]
        _os.replace(tmp, path)
    except BaseException:
        try:
            _os.unlink(tmp)
        except OSError:
            pass
        raise


def fallback_ready(root: str) -> bool:
    """Create the per-user root 0o700; refuse one that is not ours alone."""
    try:
        _os.makedirs(root, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    return fallback_trusted(root)


def write_to(pyc_path: str, data: bytes, mode: int, dir_mode: int = 0o777) -> None:
    _make_dirs(_os.dirname(pyc_path), dir_mode)
    write_atomic(pyc_path, data, mode)


def write_cached(
    source_path: str,
    code: CodeType,
    *,
    source_mtime: float | None = None,
    source_size: int | None = None,
    source_mode: int | None = None,
    source_bytes: bytes | None = None,
    hash_based: bool | None = None,
    pyc_path: str | None = None,
    force: bool = False,
    optimize: int | None = None,
    errors: list | None = None,
) -> str | None:
    """Write the cache file for a source; return its path, or None. Never raises.

    ``hash_based=None`` decides by :func:`want_hash`.  ``sys.dont_write_bytecode``
    is read now, not at import, because it can change at runtime (``force``,
    for ``lazify compile``, ignores it, as compileall does).  A timestamp
    file is not written for a source modified in the last second.  On an
    unwritable ``__pycache__`` the per-user directory is used instead.
    ``errors``, a list, gets the OSError of a write that failed (the
    ``__pycache__`` one's, when the per-user directory failed too).
    """
    if sys.dont_write_bytecode and not force:
        return None
    try:
        source_path = _os.fspath(source_path)
        if source_mtime is None or source_size is None or source_mode is None:
            st = _os.stat(source_path)
            source_mtime, source_size, source_mode = st.st_mtime, st.st_size, st.st_mode
        if hash_based is None:
            hash_based = want_hash(source_path)
        if hash_based:
            if source_bytes is None:
                source_bytes = read_file(source_path)
        elif is_too_fresh(source_mtime):
            return None
        data = pyc_bytes(
            code,
            source_mtime=source_mtime,
            source_size=source_size,
            source_bytes=source_bytes,
            hash_based=hash_based,
        )
        # CPython's _calc_mode: the source's mode, made writable for the owner
        mode = (source_mode | 0o200) & 0o666
        primary = pyc_path if pyc_path is not None else cache_path(source_path, optimize)
    except Exception:
        return None
    if primary is None:
        return None
    try:
        write_to(primary, data, mode)
        return primary
    except OSError as exc:
        if errors is not None:
            errors.append(exc)
        if not is_unwritable(exc) or pyc_path is not None:
            return None
    except Exception:
        return None
    # pytest's errno set says the location cannot hold caches: the fallback
    fallback = fallback_path(source_path, optimize)
    root = fallback_root()
    if fallback is None or root is None or not fallback_ready(root):
        return None
    try:
        write_to(fallback, data, mode & 0o600, 0o700)
        return fallback
    except Exception:
        return None


def write_rewriter_deps(names) -> bool:
    """Keep a measurement beside lazify's bytecode and in the per-user cache.

    The measurement belongs to the interpreter and lazify's version, not to a bytecode
    cache: a ``sys.pycache_prefix`` that is new for a run (a CI job's, a container's)
    would otherwise have it measured again, a child interpreter each time, where the
    per-user copy still answers (:func:`lazify._cache.read_rewriter_deps` reads it
    second)."""
    data = " ".join(sorted(names)).encode("ascii") + b"\n"
    kept = False
    primary = rewriter_deps_path()
    if primary is not None:
        try:
            _make_dirs(_os.dirname(primary))
            write_atomic(primary, data)
            kept = True
        except OSError:
            pass
    root = fallback_root()
    if root is None or not fallback_ready(root):
        return kept
    try:
        path = rewriter_deps_path(rewriter_deps_fallback())
        _make_dirs(_os.dirname(path), 0o700)
        write_atomic(path, data, 0o600)
        return True
    except OSError:
        return kept
