"""The rewritten-bytecode cache: tag, paths, read/validate/write.

No AST knowledge here, and nothing heavier than what the interpreter has
already imported at startup (``importlib.util`` costs about 3 ms on 3.10
because it pulls in ``contextlib``, so the same functions are taken from
``importlib._bootstrap_external``, which ``importlib.util`` re-exports).

The files are standard pycs (16-byte header, marshalled code) under their own
optimization tag, next to the plain pyc: ``mod.cpython-312.opt-lazify0v1v0f2h<hash>.pyc``.
"""

import _imp
import _thread
import errno
import io
import marshal
import os
import sys
import time
import _frozen_importlib_external as _bootstrap_external

#: lazify's version (kept here: importing lazify/__init__.py from the hook
#: would be an import cycle).  Part of the cache tag.
VERSION = "0.1.0"
#: Bumped whenever the generated code calls a renamed/changed runtime helper.
CACHE_FORMAT = 5

MAGIC_NUMBER = _bootstrap_external.MAGIC_NUMBER
_RAW_MAGIC = int.from_bytes(MAGIC_NUMBER, "little")
_cache_from_source = _bootstrap_external.cache_from_source

#: pyc header flags (PEP 552)
FLAG_HASH_BASED = 0b01
FLAG_CHECK_SOURCE = 0b10

#: OSError types and errnos meaning "this location cannot hold a cache"
#: (pytest's set, rewrite.py:1154-1168); only these trigger the fallback.
_UNWRITABLE_ERRNOS = frozenset((errno.EROFS, errno.ENOSYS))
_UNWRITABLE_TYPES = (FileNotFoundError, NotADirectoryError, FileExistsError, PermissionError)

#: wall clock, looked up at call time so tests can move it (post-2038 case)
_now = time.time


def _sources_fingerprint() -> str:
    """Hash (size, mtime_ns) of the modules that shape the generated code.

    Mixed into the tag so that editing the planner, emitter or runtime in a
    development tree (a checkout: ``pyproject.toml`` beside the package) invalidates every cache (beartype needs a fixture that
    deletes all bytecode because its tag does not change between commits).
    The hash is the SipHash CPython uses for hash-based pycs, already in
    ``_imp``, rather than ``zlib.crc32``: importing zlib costs about 0.3 ms.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.exists(os.path.join(os.path.dirname(here), "pyproject.toml")):
        # an installed release, not a source checkout: its sources change only
        # with its version, which the tag carries already (one stat, not three,
        # on every start)
        return "0"
    parts = []
    for name in ("_plan.py", "_emit_ast.py", "_importlib_bootstrap.py"):
        try:
            st = os.stat(os.path.join(here, name))
        except OSError:
            parts.append(f"{name}:-")
        else:
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    digest = _imp.source_hash(_RAW_MAGIC, "|".join(parts).encode())
    return digest.hex()[:8]


_CodeType = type(_sources_fingerprint.__code__)  # types.CodeType, without importing types

#: the format part of the tag: version with dots made alphanumeric, the
#: cache-format number and the sources fingerprint
FORMAT = f"{VERSION.replace('.', 'v')}f{CACHE_FORMAT}h{_sources_fingerprint()}"


def cache_tag(optimize: int | None = None) -> str:
    """Return the ``optimization`` string for ``cache_from_source``.

    The optimization level stays in it: ``-O`` and ``-OO`` get distinct
    files (typeguard and beartype lose the level, pytest conflates them).
    """
    if optimize is None or optimize < 0:
        optimize = sys.flags.optimize
    return f"{optimize or ''}lazify{FORMAT}"


def cache_path(source_path: str, optimize: int | None = None) -> str | None:
    """Return the lazify pyc path for a source, honouring ``sys.pycache_prefix``."""
    try:
        return _cache_from_source(os.fspath(source_path), optimization=cache_tag(optimize))
    except (NotImplementedError, ValueError, TypeError):
        # cache_tag is None on this implementation, or an odd path
        return None


def fallback_root() -> str | None:
    """Return the per-user cache directory used when ``__pycache__`` is unwritable."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        if base and os.path.isabs(base):
            return os.path.join(base, "lazify", "cache")
        return None
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):  # XDG: relative values are ignored
        home = os.path.expanduser("~")
        if not home or home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "lazify")


def fallback_path(source_path: str, optimize: int | None = None) -> str | None:
    """Return the per-user cache path for a source, keyed by its absolute path.

    Laid out like ``sys.pycache_prefix``: the absolute directory of the
    source (drive stripped) mirrored under the root, so that two trees with
    the same relative layout never collide.
    """
    root = fallback_root()
    primary = cache_path(source_path, optimize)
    if root is None or primary is None:
        return None
    src_dir = os.path.dirname(os.path.abspath(os.fspath(source_path)))
    src_dir = os.path.splitdrive(src_dir)[1].lstrip("\\/")
    return os.path.join(root, src_dir, os.path.basename(primary))


def _read_file(path: str) -> bytes:
    # io.open_code, never builtins.open: tests patch open (pytest#2180), and
    # open_code honours PEP 578 audit hooks.
    with io.open_code(path) as f:
        return f.read()


def is_hash_based(data: bytes) -> bool:
    """Whether pyc bytes (at least the first 8) carry a hash-based header."""
    return len(data) >= 8 and bool(int.from_bytes(data[4:8], "little") & FLAG_HASH_BASED)


def want_hash(source_path: str) -> bool:
    """Decide whether a new cache file for this source is checked-hash.

    py_compile's rule (``SOURCE_DATE_EPOCH`` set), plus: follow the plain pyc
    beside the source when that one is hash-based (a distro or a Docker
    image compiled it so, and mtimes cannot be trusted there).
    """
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return True
    try:
        plain = _cache_from_source(os.fspath(source_path))
        with io.open_code(plain) as f:
            return is_hash_based(f.read(8))
    except Exception:
        return False


def source_hash(source_bytes: bytes) -> bytes:
    """Return the 8-byte SipHash CPython puts in hash-based pycs."""
    return _imp.source_hash(_RAW_MAGIC, source_bytes)


def _validate(data: bytes, source_path: str, mtime, size, source_bytes) -> bool:
    """CPython's validation ladder; every failure is just ``False``."""
    if len(data) < 16 or data[:4] != MAGIC_NUMBER:
        return False
    flags = int.from_bytes(data[4:8], "little")
    if flags & ~(FLAG_HASH_BASED | FLAG_CHECK_SOURCE):
        return False
    if flags & FLAG_HASH_BASED:
        check = getattr(_imp, "check_hash_based_pycs", "default")
        if check == "never" or (check != "always" and not flags & FLAG_CHECK_SOURCE):
            return True
        if source_bytes is None:
            source_bytes = _read_file(source_path)
        return data[8:16] == source_hash(source_bytes)
    if flags & FLAG_CHECK_SOURCE:  # check_source without hash_based: invalid
        return False
    if mtime is None or size is None:
        st = os.stat(source_path)
        mtime, size = st.st_mtime, st.st_size
    return (
        int.from_bytes(data[8:12], "little") == (int(mtime) & 0xFFFFFFFF)
        and int.from_bytes(data[12:16], "little") == (int(size) & 0xFFFFFFFF)
    )


def _load(data: bytes):
    try:
        # marshal raises ValueError, EOFError, TypeError, even SystemError
        # (cpython#151830) on a corrupt body: all of them are a cache miss.
        code = marshal.loads(memoryview(data)[16:])
    except Exception:
        return None
    return code if isinstance(code, _CodeType) else None


def read_cached(
    source_path: str,
    pyc_path: str | None = None,
    *,
    source_mtime: float | None = None,
    source_size: int | None = None,
    source_bytes: bytes | None = None,
    optimize: int | None = None,
) -> _CodeType | None:
    """Return the cached rewritten code for a source, or None. Never raises.

    Without ``pyc_path`` the ``__pycache__`` (or ``pycache_prefix``) file is
    tried, then the per-user fallback.  ``source_mtime``/``source_size`` save
    a stat when the caller has them; ``source_bytes`` saves a read for
    hash-based files.  ``co_filename`` is fixed up to the source path when
    the tree was moved (pytest#3968), without rewriting the file.
    """
    return read_cached_from(
        source_path,
        pyc_path,
        source_mtime=source_mtime,
        source_size=source_size,
        source_bytes=source_bytes,
        optimize=optimize,
    )[0]


def _candidates(source_path, pyc_path, primary, optimize):
    """The files to try, in order; the per-user fallback is worked out only if
    the ``__pycache__`` file did not serve (it costs an ``expanduser`` and a stat)."""
    if pyc_path is not None:
        yield pyc_path
        return
    yield primary if primary is not None else cache_path(source_path, optimize)
    root = fallback_root()
    if root is not None and _fallback_trusted(root):
        yield fallback_path(source_path, optimize)


def read_cached_from(
    source_path,
    pyc_path=None,
    *,
    source_mtime=None,
    source_size=None,
    source_bytes=None,
    optimize=None,
    primary=None,
):
    """Like :func:`read_cached`, returning ``(code, the file it came from)`` or ``(None, None)``.

    :param primary: the ``__pycache__`` path, when the caller has it already.
    """
    try:
        source_path = os.fspath(source_path)
        candidates = _candidates(source_path, pyc_path, primary, optimize)
        for candidate in candidates:
            code = _read_candidate(candidate, source_path, source_mtime, source_size,
                                   source_bytes)
            if code is not None:
                return code, candidate
    except Exception:
        pass
    return None, None


def _read_candidate(candidate, source_path, source_mtime, source_size, source_bytes):
    """The code in one cache file if it is valid for the source, else None."""
    if candidate is None:
        return None
    try:
        data = _read_file(candidate)
        if not _validate(data, source_path, source_mtime, source_size, source_bytes):
            return None
    except Exception:  # OSError incl. EIO (pytest#14112), MemoryError, ...
        return None
    code = _load(data)
    if code is None:
        return None
    fix = getattr(_imp, "_fix_co_filename", None)
    if fix is not None:
        try:
            fix(code, source_path)
        except Exception:
            pass
    return code


def is_too_fresh(mtime: float) -> bool:
    """Whether a timestamp pyc for a source with this mtime could be served stale.

    Two edits within the same second with the same size are indistinguishable
    in a timestamp pyc (pytest#13292, cpython#75953), so no timestamp cache is
    written for a source modified in the last second (Nick Coghlan's check
    from cpython#75953, moved from read time to write time).
    """
    return int(mtime) >= int(_now()) - 1


def pyc_bytes(
    code: _CodeType,
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
    data += marshal.dumps(code)
    return bytes(data)


class Unwritable(OSError):
    """The location cannot hold a cache file (read-only, not a directory, ...)."""


def _is_unwritable(exc: OSError) -> bool:
    return isinstance(exc, _UNWRITABLE_TYPES) or exc.errno in _UNWRITABLE_ERRNOS


def _make_dirs(directory: str, mode: int = 0o777) -> None:
    """Create missing directories one at a time, as ``SourceLoader.set_data`` does.

    A concurrent creator is fine (FileExistsError is tolerated); a
    ``__pycache__`` that is a *file* also passes here and fails at the write,
    with NotADirectoryError.
    """
    parts = []
    parent = directory
    while parent and not os.path.isdir(parent):
        parent, part = os.path.split(parent)
        if not part:
            break
        parts.append(part)
    for part in reversed(parts):
        parent = os.path.join(parent, part)
        try:
            os.mkdir(parent, mode)
        except FileExistsError:
            continue


def write_atomic(path: str, data: bytes, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one.

    The temp name is unique per process *and* thread (pytest's pid suffix is
    not, rewrite.py:317) and is unlinked on any failure (pytest leaves
    ``.pyc.<pid>`` behind, 325-332).  Raises OSError.
    """
    tmp = f"{path}.{os.getpid()}.{_thread.get_ident()}.tmp"
    flags = os.O_EXCL | os.O_CREAT | os.O_WRONLY | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(tmp, flags, mode & 0o666)
    except FileExistsError:
        # only a crashed earlier process with our pid and thread id leaves this
        if os.path.isdir(os.path.dirname(tmp) or "."):
            os.unlink(tmp)
            fd = os.open(tmp, flags, mode & 0o666)
        else:
            raise
    try:
        with io.FileIO(fd, "wb") as f:
            view = memoryview(data)
            while view:
                view = view[f.write(view):]
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _fallback_trusted(root: str) -> bool:
    """Whether the per-user root is ours and writable by nobody else.

    Checked before reading too: with XDG_CACHE_HOME=/tmp another user could
    create the root first and plant a pyc keyed to our source path.
    """
    try:
        st = os.stat(root)
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # Windows: LOCALAPPDATA is per-user already
        return True
    return st.st_uid == getuid() and not st.st_mode & 0o022


def _fallback_ready(root: str) -> bool:
    """Create the per-user root 0o700; refuse one that is not ours alone."""
    try:
        os.makedirs(root, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    return _fallback_trusted(root)


def _write_to(pyc_path: str, data: bytes, mode: int, dir_mode: int = 0o777) -> None:
    _make_dirs(os.path.dirname(pyc_path), dir_mode)
    write_atomic(pyc_path, data, mode)


def write_cached(
    source_path: str,
    code: _CodeType,
    *,
    source_mtime: float | None = None,
    source_size: int | None = None,
    source_mode: int | None = None,
    source_bytes: bytes | None = None,
    hash_based: bool | None = None,
    pyc_path: str | None = None,
    force: bool = False,
    optimize: int | None = None,
) -> str | None:
    """Write the cache file for a source; return its path, or None. Never raises.

    ``hash_based=None`` decides by :func:`want_hash`.  ``sys.dont_write_bytecode``
    is read now, not at import, because it can change at runtime (``force``,
    for ``lazify compile``, ignores it, as compileall does).  A timestamp
    file is not written for a source modified in the last second.  On an
    unwritable ``__pycache__`` the per-user directory is used instead.
    """
    if sys.dont_write_bytecode and not force:
        return None
    try:
        source_path = os.fspath(source_path)
        if source_mtime is None or source_size is None or source_mode is None:
            st = os.stat(source_path)
            source_mtime, source_size, source_mode = st.st_mtime, st.st_size, st.st_mode
        if hash_based is None:
            hash_based = want_hash(source_path)
        if hash_based:
            if source_bytes is None:
                source_bytes = _read_file(source_path)
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
        _write_to(primary, data, mode)
        return primary
    except OSError as exc:
        if not _is_unwritable(exc) or pyc_path is not None:
            return None
    except Exception:
        return None
    # pytest's errno set says the location cannot hold caches: the fallback
    fallback = fallback_path(source_path, optimize)
    root = fallback_root()
    if fallback is None or root is None or not _fallback_ready(root):
        return None
    try:
        _write_to(fallback, data, mode & 0o600, 0o700)
        return fallback
    except Exception:
        return None


# ------------------------------------------------------ the rewriter's dependencies
# The measurement lazify._rewriter_deps takes once per interpreter and lazify is
# kept beside lazify's own bytecode (else in the per-user cache), so that later
# starts read one small file and import nothing for it.

def rewriter_deps_path(root: str | None = None) -> str | None:
    """Where the measurement for this interpreter and lazify is kept: beside
    lazify's own bytecode, or under ``root``."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    name = f"rewriter-deps.{tag}.{sys.hexversion:x}.{FORMAT}.txt"
    if root is not None:
        return os.path.join(root, name)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_plan.py")
    try:
        return os.path.join(os.path.dirname(_cache_from_source(here)), name)
    except (NotImplementedError, ValueError):
        return None


def _rewriter_deps_fallback() -> str | None:
    root = fallback_root()
    return None if root is None else os.path.join(root, "meta")


def _read_names(path):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except (OSError, ValueError, TypeError):
        return None
    names = text.split()
    if "lazify" not in names:
        return None                      # truncated or foreign: measure again
    return frozenset(names)


def read_rewriter_deps() -> frozenset | None:
    """The kept measurement, or None."""
    names = _read_names(rewriter_deps_path())
    if names is None:
        root = fallback_root()
        if root is not None and _fallback_trusted(root):
            names = _read_names(rewriter_deps_path(_rewriter_deps_fallback()))
    return names


def write_rewriter_deps(names) -> bool:
    """Keep a measurement beside lazify's bytecode, else in the per-user cache."""
    data = " ".join(sorted(names)).encode("ascii") + b"\n"
    primary = rewriter_deps_path()
    if primary is not None:
        try:
            _make_dirs(os.path.dirname(primary))
            write_atomic(primary, data)
            return True
        except OSError:
            pass
    root = fallback_root()
    if root is None or not _fallback_ready(root):
        return False
    try:
        path = rewriter_deps_path(_rewriter_deps_fallback())
        _make_dirs(os.path.dirname(path), 0o700)
        write_atomic(path, data, 0o600)
        return True
    except OSError:
        return False
