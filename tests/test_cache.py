"""lazify._cache: tag, paths, the never-raising reader, the atomic writer."""

from __future__ import annotations

import errno
import importlib.util
import marshal
import multiprocessing
import os
import py_compile
import shutil
import sys
import textwrap
import threading
import time

import pytest

from lazify import _cache, _cache_write, _os
from tests._sample import full
from tests._util import run_python

SOURCE = "X = 1\ndef f():\n    return X\n"
OLD = time.time() - 3600  # an mtime old enough for a timestamp pyc


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """Writes allowed, no prefix, no SOURCE_DATE_EPOCH, fallback under tmp_path."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def make_source(directory, name="mod.py", text=SOURCE, mtime=OLD):
    path = directory / name
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return str(path)


def code_for(path):
    with open(path, "rb") as f:
        return compile(f.read(), path, "exec", dont_inherit=True)


def written(path, **kwargs):
    """Compile and cache a source; return the cache file path."""
    pyc = _cache_write.write_cached(path, code_for(path), **kwargs)
    assert pyc is not None
    return pyc


# ---------------------------------------------------------------------- tag and paths


@pytest.mark.rewrite_only("the rewrite's cache tag (the native one's: tests/test_native.py)")
def test_tag_is_alphanumeric_and_carries_version_format_and_level():
    plain, o1, o2 = (_cache.cache_tag(level) for level in (0, 1, 2))
    assert plain == f"lazify{_cache.FORMAT}"
    assert o1 == f"1lazify{_cache.FORMAT}"
    assert o2 == f"2lazify{_cache.FORMAT}"
    assert all(tag.isalnum() for tag in (plain, o1, o2))
    assert _cache.VERSION.replace(".", "v") in _cache.FORMAT
    assert f"f{_cache.CACHE_FORMAT}" in _cache.FORMAT


def test_version_matches_the_package():
    import lazify

    assert _cache.VERSION == lazify.__version__


@pytest.mark.rewrite_only("the rewrite's cache tag (the native one's: tests/test_native.py)")
def test_cache_path_is_beside_the_plain_pyc(tmp_path):
    src = str(tmp_path / "mod.py")
    path = _cache.cache_path(src, 0)
    assert path == importlib.util.cache_from_source(src, optimization=_cache.cache_tag(0))
    assert os.path.dirname(path) == str(tmp_path / "__pycache__")
    assert os.path.basename(path) == f"mod.{sys.implementation.cache_tag}.opt-lazify{_cache.FORMAT}.pyc"


def test_tag_changes_when_the_rewriter_changes(tmp_path):
    """Editing the rewrite pipeline or the runtime gives a new tag (no stale caches in a
    dev tree, a checkout: pyproject.toml beside the package); an installed release's tag
    is its version and cache format only."""
    # a copy of the whole package: the modules _cache imports must be found in it, not
    # through the environment's install of lazify
    fake = tmp_path / "lazify"
    shutil.copytree(os.path.dirname(_cache.__file__), fake,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "pyproject.toml").write_text("")
    code = "import lazify._cache as c; print(c.FORMAT)"
    first = run_python(code, cwd=tmp_path, env_extra={"PYTHONPATH": str(tmp_path)}, check=True).stdout
    again = run_python(code, cwd=tmp_path, env_extra={"PYTHONPATH": str(tmp_path)}, check=True).stdout
    (fake / "_emit_ast.py").write_text("# changed\n")
    changed = run_python(code, cwd=tmp_path, env_extra={"PYTHONPATH": str(tmp_path)}, check=True).stdout
    assert first == again
    assert first != changed
    (tmp_path / "pyproject.toml").unlink()
    installed = run_python(code, cwd=tmp_path, env_extra={"PYTHONPATH": str(tmp_path)},
                           check=True).stdout
    (fake / "_emit_ast.py").write_text("# changed again\n")
    assert installed.strip().endswith("h0")
    assert run_python(code, cwd=tmp_path, env_extra={"PYTHONPATH": str(tmp_path)},
                      check=True).stdout == installed


@pytest.mark.rewrite_only("the rewrite's cache tag (the native one's: tests/test_native.py)")
@pytest.mark.parametrize("flags", [[], ["-O"], ["-OO"]])
def test_optimization_levels_get_distinct_files(tmp_path, flags):
    code = "import lazify._cache as c; print(c.cache_path('m.py'))"
    out = run_python([*flags, "-c", code], cwd=tmp_path, check=True).stdout.strip()
    level = {(): "", ("-O",): "1", ("-OO",): "2"}[tuple(flags)]
    assert out.endswith(f".opt-{level}lazify{_cache.FORMAT}.pyc")


def test_optimization_level_files_never_collide():
    paths = {_cache.cache_path("m.py", level) for level in (0, 1, 2)}
    plain = {importlib.util.cache_from_source("m.py", optimization=o) for o in ("", "1", "2")}
    assert len(paths) == 3
    assert not paths & plain


def test_pycache_prefix(monkeypatch, tmp_path):
    prefix = tmp_path / "prefix"
    monkeypatch.setattr(sys, "pycache_prefix", str(prefix))
    src = make_source(tmp_path)
    pyc = written(src)
    assert pyc.startswith(str(prefix))
    assert not (tmp_path / "__pycache__").exists()
    assert _cache.read_cached(src) is not None


def test_fallback_path_is_keyed_by_the_absolute_source_path(tmp_path):
    a = _cache.fallback_path(str(tmp_path / "a" / "mod.py"))
    b = _cache.fallback_path(str(tmp_path / "b" / "mod.py"))
    root = str(tmp_path / "xdg" / "lazify")
    assert a.startswith(root) and b.startswith(root)
    assert a != b
    assert a.endswith(os.path.join("a", os.path.basename(_cache.cache_path("mod.py"))))


def test_fallback_root_ignores_a_relative_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _cache.fallback_root() == str(tmp_path / "home" / ".cache" / "lazify")


# -------------------------------------------------------------------------- reading


def test_round_trip_timestamp(tmp_path):
    src = make_source(tmp_path)
    pyc = written(src)
    with open(pyc, "rb") as f:
        data = f.read()
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 0
    assert int.from_bytes(data[8:12], "little") == int(OLD)
    assert int.from_bytes(data[12:16], "little") == len(SOURCE)
    code = _cache.read_cached(src)
    assert code is not None
    namespace = {}
    exec(code, namespace)
    assert namespace["f"]() == 1


def test_round_trip_checked_hash(tmp_path):
    src = make_source(tmp_path, mtime=time.time())  # fresh: hash mode does not care
    pyc = written(src, hash_based=True)
    with open(pyc, "rb") as f:
        data = f.read()
    assert int.from_bytes(data[4:8], "little") == 0b11
    assert data[8:16] == importlib.util.source_hash(SOURCE.encode())
    assert _cache.read_cached(src) is not None
    # same size, same mtime, other bytes: only the hash can tell
    st = os.stat(src)
    with open(src, "w") as f:
        f.write(SOURCE.replace("1", "2"))
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _cache.read_cached(src) is None


@pytest.mark.parametrize("hash_based", [False, True], ids=["timestamp", "checked-hash"])
def test_cpython_itself_accepts_the_files(tmp_path, hash_based):
    """The header is CPython's own: copied to the plain pyc path, the interpreter loads it."""
    src = make_source(tmp_path)
    marked = compile("MARK = 'from the pyc'\n", src, "exec", dont_inherit=True)
    pyc = _cache_write.write_cached(src, marked, hash_based=hash_based)
    plain = importlib.util.cache_from_source(src)
    with open(pyc, "rb") as f, open(plain, "wb") as g:
        g.write(f.read())
    proc = run_python("import mod; print(mod.MARK)", cwd=tmp_path, env_extra={"PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.stdout.strip() == "from the pyc", proc.stderr
    # and CPython rejects it, as lazify does, once the source changes
    with open(src, "a") as f:
        f.write("MARK = 'from the source'\n")
    os.utime(src, (OLD + 5, OLD + 5))
    proc = run_python("import mod; print(mod.MARK)", cwd=tmp_path, env_extra={"PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.stdout.strip() == "from the source", proc.stderr
    assert _cache.read_cached(src) is None


def test_source_date_epoch_selects_checked_hash(monkeypatch, tmp_path):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    src = make_source(tmp_path)
    assert _cache_write.want_hash(src)
    with open(written(src), "rb") as f:
        assert int.from_bytes(f.read(8)[4:8], "little") == 0b11


def test_hash_based_plain_pyc_selects_checked_hash(tmp_path):
    src = make_source(tmp_path)
    assert not _cache_write.want_hash(src)
    py_compile.compile(src, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH, doraise=True)
    assert _cache_write.want_hash(src)
    with open(written(src), "rb") as f:
        assert int.from_bytes(f.read(8)[4:8], "little") == 0b11


def _header(flags, a=0, b=0):
    return (
        importlib.util.MAGIC_NUMBER
        + flags.to_bytes(4, "little")
        + a.to_bytes(4, "little")
        + b.to_bytes(4, "little")
    )


def _timestamp_header():
    return _header(0, int(OLD) & 0xFFFFFFFF, len(SOURCE))


#: (name, function(valid pyc bytes) -> corrupt bytes); pytest's table (1441-1484) and more
CORRUPT = [
    ("empty", lambda d: b""),
    ("magic only", lambda d: d[:4]),
    ("short header", lambda d: d[:12]),
    ("header only", lambda d: d[:16]),
    ("bad magic", lambda d: b"\0\0\r\n" + d[4:]),
    ("other python's magic", lambda d: (int.from_bytes(d[:2], "little") - 1).to_bytes(2, "little") + d[2:]),
    ("unknown flag bit", lambda d: _header(0b100, int(OLD), len(SOURCE)) + d[16:]),
    ("check_source without hash_based", lambda d: _header(0b10, int(OLD), len(SOURCE)) + d[16:]),
    ("mtime mismatch", lambda d: _header(0, int(OLD) + 1, len(SOURCE)) + d[16:]),
    ("size mismatch", lambda d: _header(0, int(OLD), len(SOURCE) + 1) + d[16:]),
    ("hash mismatch", lambda d: _header(0b11) + d[16:]),
    ("garbage body", lambda d: _timestamp_header() + b"\xff" * 40),
    ("truncated body", lambda d: d[: len(d) // 2]),
    ("unknown marshal type", lambda d: _timestamp_header() + b"\x01\x02\x03"),
    ("not a code object", lambda d: _timestamp_header() + marshal.dumps(42)),
    ("a tuple of code", lambda d: _timestamp_header() + marshal.dumps((compile("", "", "exec"),))),
]


@pytest.mark.parametrize("name, corrupt", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_cache_is_a_miss(tmp_path, name, corrupt):
    src = make_source(tmp_path)
    pyc = written(src)
    with open(pyc, "rb") as f:
        data = f.read()
    with open(pyc, "wb") as f:
        f.write(corrupt(data))
    assert _cache.read_cached(src) is None
    assert _cache.read_cached(src, pyc) is None


def test_valid_file_passes_the_same_checks(tmp_path):
    """The control for the table above: the unmodified file is a hit."""
    src = make_source(tmp_path)
    pyc = written(src)
    assert _cache.read_cached(src, pyc) is not None
    with open(pyc, "rb") as f:
        assert f.read()[:16] == _timestamp_header()


@pytest.mark.parametrize(
    "exc",
    [OSError(errno.EIO, "Input/output error"), PermissionError(errno.EACCES, "denied"), MemoryError()],
    ids=["EIO", "EACCES", "MemoryError"],
)
def test_read_error_is_a_miss(monkeypatch, tmp_path, exc):
    """Regression case for pytest#14112 (EIO while reading a pyc)."""
    src = make_source(tmp_path)
    written(src)

    class Reader:                       # importlib's get_data, failing
        @staticmethod
        def get_data(path):
            raise exc

    monkeypatch.setattr(_cache, "_reader", Reader)
    assert _cache.read_cached(src) is None


@pytest.mark.parametrize("exc", [ValueError, EOFError, TypeError, SystemError])
def test_any_marshal_error_is_a_miss(monkeypatch, tmp_path, exc):
    """cpython#151830: marshal.loads can even raise SystemError."""
    src = make_source(tmp_path)
    written(src)

    class Marshal:
        dumps = staticmethod(marshal.dumps)

        @staticmethod
        def loads(data):
            raise exc("bad marshal data")

    monkeypatch.setattr(_cache, "marshal", Marshal)
    assert _cache.read_cached(src) is None


def test_pyc_that_is_a_directory_is_a_miss(tmp_path):
    src = make_source(tmp_path)
    os.makedirs(_cache.cache_path(src))
    assert _cache.read_cached(src) is None


def test_missing_source_or_odd_argument_is_a_miss(tmp_path):
    src = make_source(tmp_path)
    written(src)
    os.unlink(src)
    assert _cache.read_cached(src) is None
    assert _cache.read_cached(None) is None
    assert _cache.read_cached(str(tmp_path / "nope.py")) is None


def test_moved_tree_fixes_co_filename_without_rewriting(tmp_path):
    """Regression case for pytest#3968/#14552: a tree compiled elsewhere (a Docker build)."""
    build = tmp_path / "build"
    build.mkdir()
    src = make_source(build)
    pyc = written(src)
    with open(pyc, "rb") as f:
        before = f.read()
    os.rename(build, tmp_path / "run")
    moved = str(tmp_path / "run" / "mod.py")
    code = _cache.read_cached(moved)
    assert code is not None
    assert code.co_filename == moved
    namespace = {}
    exec(code, namespace)
    assert namespace["f"].__code__.co_filename == moved
    with open(_cache.cache_path(moved), "rb") as f:
        assert f.read() == before


def test_unchecked_hash_pyc_follows_check_hash_based_pycs(tmp_path):
    src = make_source(tmp_path)
    pyc = _cache.cache_path(src)
    os.makedirs(os.path.dirname(pyc))
    with open(pyc, "wb") as f:
        f.write(_header(0b01) + marshal.dumps(code_for(src)))
    # CPython's default: an unchecked hash-based pyc is trusted as it is
    assert _cache.read_cached(src) is not None


# -------------------------------------------------------------------------- writing


def test_same_second_edit_is_not_cached(tmp_path):
    """Regression case for pytest#13292 / cpython#75953."""
    src = make_source(tmp_path, mtime=time.time())
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert not os.path.exists(_cache.cache_path(src))
    # one second ago is still "the last second"
    os.utime(src, (time.time() - 1, time.time() - 1))
    assert _cache_write.write_cached(src, code_for(src)) is None
    os.utime(src, (time.time() - 3, time.time() - 3))
    assert _cache_write.write_cached(src, code_for(src)) is not None


def test_post_2038_mtime(monkeypatch, tmp_path):
    """An mtime past 2**32 seconds is stored modulo 2**32, as CPython does (pytest 1934-1957)."""
    future = 2**32 + 12345
    monkeypatch.setattr(_cache, "clock", lambda: future + 100)  # the clock is in 2106 too
    src = make_source(tmp_path, mtime=future)
    pyc = written(src)
    with open(pyc, "rb") as f:
        assert int.from_bytes(f.read(16)[8:12], "little") == 12345
    assert _cache.read_cached(src) is not None
    os.utime(src, (future + 1, future + 1))
    assert _cache.read_cached(src) is None


def test_future_mtime_is_not_cached_in_timestamp_mode(tmp_path):
    src = make_source(tmp_path, mtime=2**32 + 12345)
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert _cache_write.write_cached(src, code_for(src), hash_based=True) is not None


def test_dont_write_bytecode_is_read_at_write_time(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert not (tmp_path / "__pycache__").exists()
    assert _cache_write.write_cached(src, code_for(src), force=True) is not None  # lazify compile
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert _cache_write.write_cached(src, code_for(src)) is not None


def test_pyc_mode_follows_the_source(tmp_path):
    src = make_source(tmp_path)
    os.chmod(src, 0o444)
    pyc = written(src)
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(pyc).st_mode & 0o777 == (0o644 & ~umask)


def _leftovers(*directories):
    found = []
    for directory in directories:
        for root, _, files in os.walk(directory):
            found += [f for f in files if not f.endswith(".pyc") and not f.endswith(".py")]
    return found


def test_replace_failure_leaves_nothing_behind(monkeypatch, tmp_path):
    """pytest leaves ``.pyc.<pid>`` behind (325-332); lazify unlinks its temp file."""
    src = make_source(tmp_path)

    def replace(a, b):
        raise OSError(errno.EIO, "replace failed")

    monkeypatch.setattr(_os, "replace", replace)  # lazify calls the interpreter's own
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert not os.path.exists(_cache.cache_path(src))
    assert os.listdir(tmp_path / "__pycache__") == []
    assert not (tmp_path / "xdg").exists()  # EIO is not "unwritable": no fallback


def test_replace_permission_error_tries_the_fallback_and_cleans_both(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    calls = []

    def replace(a, b):
        calls.append(a)
        raise PermissionError(errno.EACCES, "denied")

    monkeypatch.setattr(_os, "replace", replace)  # lazify calls the interpreter's own
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert len(calls) == 2
    assert _leftovers(tmp_path) == []


def test_temp_name_is_unique_per_process_and_thread(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    real_replace = os.replace
    temps = []
    both_alive = threading.Barrier(2, timeout=30)  # thread idents are reused once a thread ends

    def replace(a, b):
        temps.append(a)
        both_alive.wait()
        return real_replace(a, b)

    monkeypatch.setattr(_os, "replace", replace)  # lazify calls the interpreter's own
    threads = [threading.Thread(target=written, args=(src,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(temps) == 2
    assert temps[0] != temps[1]
    assert all(f".{os.getpid()}." in t for t in temps)


def test_concurrent_directory_creation_is_tolerated(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    real_mkdir = os.mkdir

    def mkdir(path, mode=0o777):
        real_mkdir(path, mode)  # another process won the race
        raise FileExistsError(errno.EEXIST, "exists", path)

    monkeypatch.setattr(_os, "mkdir", mkdir)
    pyc = written(src)
    assert pyc == _cache.cache_path(src)


def test_directories_are_created_one_at_a_time(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "p"))
    src = make_source(tmp_path)
    made = []
    real_mkdir = os.mkdir

    def mkdir(path, mode=0o777):
        made.append(path)
        return real_mkdir(path, mode)

    monkeypatch.setattr(_os, "mkdir", mkdir)
    pyc = written(src)
    assert made[-1] == os.path.dirname(pyc)
    assert made[0] == str(tmp_path / "p")
    assert len(made) > 2


def test_pycache_that_is_a_file_falls_back_to_the_user_cache(tmp_path):
    """Tests run as root, where chmod stops nothing; a file named __pycache__ stops everyone."""
    src = make_source(tmp_path)
    (tmp_path / "__pycache__").write_text("not a directory")
    pyc = written(src)
    root = tmp_path / "xdg" / "lazify"
    assert pyc == _cache.fallback_path(src)
    assert pyc.startswith(str(root))
    assert os.stat(root).st_mode & 0o777 == 0o700
    assert _cache.read_cached(src) is not None
    assert (tmp_path / "__pycache__").read_text() == "not a directory"


@pytest.mark.parametrize(
    "exc",
    [
        PermissionError(errno.EACCES, "denied"),
        OSError(errno.EROFS, "read-only file system"),
        OSError(errno.ENOSYS, "function not implemented"),  # squashfuse
    ],
    ids=["EACCES", "EROFS", "ENOSYS"],
)
def test_unwritable_pycache_falls_back(monkeypatch, tmp_path, exc):
    src = make_source(tmp_path)
    real_open = os.open
    fallback_root = str(tmp_path / "xdg")

    def fake_open(path, flags, mode=0o777, **kw):
        if str(path).startswith(str(tmp_path / "__pycache__")):
            raise exc
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(_os, "open_fd", fake_open)
    pyc = written(src)
    assert pyc.startswith(fallback_root)
    assert _cache.read_cached(src) is not None


def test_mkdir_permission_error_falls_back(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    real_mkdir = os.mkdir

    def mkdir(path, mode=0o777):
        if str(path).startswith(str(tmp_path / "__pycache__")):
            raise PermissionError(errno.EACCES, "denied", path)
        return real_mkdir(path, mode)

    monkeypatch.setattr(_os, "mkdir", mkdir)
    pyc = written(src)
    assert pyc.startswith(str(tmp_path / "xdg"))


def test_other_errors_do_not_fall_back(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    real_open = os.open

    def fake_open(path, flags, mode=0o777, **kw):
        if str(path).startswith(str(tmp_path / "__pycache__")):
            raise OSError(errno.ENOSPC, "no space left on device")
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(_os, "open_fd", fake_open)
    assert _cache_write.write_cached(src, code_for(src)) is None
    assert not (tmp_path / "xdg").exists()


def test_fallback_owned_by_someone_else_is_refused(monkeypatch, tmp_path):
    src = make_source(tmp_path)
    (tmp_path / "__pycache__").write_text("")
    assert written(src).startswith(str(tmp_path / "xdg"))
    assert _cache.read_cached(src) is not None
    monkeypatch.setattr(_os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    assert _cache.read_cached(src) is None  # a pyc planted by another user is never run
    assert _cache_write.write_cached(src, code_for(src)) is None


def test_fallback_writable_by_others_is_refused(tmp_path):
    src = make_source(tmp_path)
    (tmp_path / "__pycache__").write_text("")
    written(src)
    os.chmod(tmp_path / "xdg" / "lazify", 0o777)
    assert _cache.read_cached(src) is None
    assert _cache_write.write_cached(src, code_for(src)) is None


# ---------------------------------------------------------------- concurrent writers

WORKER = textwrap.dedent(
    """
    import os, threading
    from lazify import _cache, _cache_write

    def work(src):
        import sys
        sys.dont_write_bytecode = False  # the machine sets PYTHONDONTWRITEBYTECODE
        sys.pycache_prefix = None
        with open(src, "rb") as f:
            code = compile(f.read(), src, "exec", dont_inherit=True)
        bad = []

        def loop():
            seen_valid = False
            for _ in range(60):
                _cache_write.write_cached(src, code)
                hit = _cache.read_cached(src) is not None
                seen_valid = seen_valid or hit
                if seen_valid and not hit:
                    bad.append("a valid cache turned invalid")

        threads = [threading.Thread(target=loop) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return bad
    """
)


def test_concurrent_writers_leave_a_valid_cache(monkeypatch, tmp_path):
    """pytest#3008: concurrent pyc writes under xdist corrupted rewritten code."""
    helper = tmp_path / "helper"
    helper.mkdir()
    (helper / "lz_cache_worker.py").write_text(WORKER)
    monkeypatch.syspath_prepend(str(helper))
    import lz_cache_worker

    tree = tmp_path / "tree"
    tree.mkdir()
    src = make_source(tree, text=SOURCE * 200)
    ctx = multiprocessing.get_context("spawn")
    # four processes of three threads each write at once; the full run does it twice over
    tasks = 8 if full() else 4
    with ctx.Pool(4) as pool:
        results = pool.map(lz_cache_worker.work, [src] * tasks)
    assert results == [[]] * tasks
    assert _cache.read_cached(src) is not None
    assert sorted(os.listdir(tree / "__pycache__")) == [os.path.basename(_cache.cache_path(src))]


def test_cache_format_moves_with_the_entry_points():
    """The generated code calls the runtime by the names in lazify._entry_points: when the
    table changes, CACHE_FORMAT must be bumped (pycs of the old format would call names
    that are gone) and the new digest recorded beside it."""
    from lazify import _entry_points

    assert _entry_points.digest() == _cache.ENTRY_POINTS_DIGEST, (
        "lazify._entry_points changed: bump CACHE_FORMAT in lazify/_cache.py and set "
        f"ENTRY_POINTS_DIGEST = {_entry_points.digest()!r}")


@pytest.mark.parametrize("prefix", [None, "/tmp/lazify-prefix"])
def test_cache_path_is_what_cache_from_source_makes(monkeypatch, prefix):
    """cache_path keeps the two halves of a directory's cache path: the result is
    importlib's own, for any file of any directory, under a pycache prefix too."""
    from importlib.util import cache_from_source

    monkeypatch.setattr(sys, "pycache_prefix", prefix)
    tag = _cache.cache_tag()
    for path in ["/srv/app/pkg/mod.py", "/srv/app/pkg/__init__.py", "/srv/app/pkg/other.py",
                 "/srv/a.b.py", "/srv/x.pyw", "/srv/.hidden.py", "/srv/noext", "relative/mod.py"]:
        assert _cache.cache_path(path) == cache_from_source(path, optimization=tag), path
