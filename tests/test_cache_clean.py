"""``lazify cache clean``: lazify's cache files go, and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys

from lazify import _cache
from tests._util import ROOT, run_python
from tests.test_hook import MOD, lazify_pycs, write_tree


def test_clean_removes_lazify_files_and_leaves_plain_pycs(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "app", {"mod.py": MOD, "pkg/__init__.py": "", "pkg/sub.py": MOD})
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    env = {"XDG_CACHE_HOME": str(xdg)}
    # plain pycs, as Python writes them; lazify's, as lazify compile writes them
    run_python(["-c", "import mod, pkg.sub"], cwd=root, env_extra=env, check=True)
    run_python(["-m", "lazify", "compile", str(root)], env_extra=env, check=True)
    plain = sorted(p for p in os.listdir(root / "__pycache__") if "lazify" not in p)
    assert plain == [f"mod.{sys.implementation.cache_tag}.pyc"]
    assert len(lazify_pycs(root)) == 3
    # a temporary file a killed write left, one in the per-user directory, and files
    # that only look alike
    pyc = _cache.cache_path(str(root / "mod.py"))
    open(pyc + ".123.456.tmp", "wb").close()
    user = _cache.fallback_path(str(root / "mod.py"))
    os.makedirs(os.path.dirname(user), mode=0o700)
    os.chmod(xdg / "lazify", 0o700)
    open(user, "wb").close()
    keep = [root / "__pycache__" / "notes.txt", root / "lazify.pyc", root / "opt-lazify.py"]
    for path in keep:
        path.write_text("mine\n")
    dry = run_python(["-m", "lazify", "cache", "clean", "--dry-run", str(root)], env_extra=env)
    assert dry.returncode == 0, dry.stderr
    listed = sorted(dry.stdout.split())
    assert listed == sorted([*(str(root / p) for p in lazify_pycs(root)), pyc + ".123.456.tmp", user])
    assert "would remove 5 files" in dry.stderr
    assert len(lazify_pycs(root)) == 3 and os.path.exists(user)      # nothing removed
    done = run_python(["-m", "lazify", "cache", "clean", str(root)], env_extra=env)
    assert done.returncode == 0, done.stderr
    assert "removed 5 files" in done.stdout
    assert lazify_pycs(root) == [] and not os.path.exists(user)
    assert not os.path.exists(pyc + ".123.456.tmp")
    assert sorted(p for p in os.listdir(root / "__pycache__") if "lazify" not in p) == \
        sorted([*plain, "notes.txt"])
    assert all(path.exists() for path in keep)
    assert os.path.isdir(xdg / "lazify")                               # the root stays
    again = run_python(["-m", "lazify", "cache", "clean", str(root)], env_extra=env)
    assert "removed 0 files" in again.stdout


def test_clean_a_missing_path_is_one_line(tmp_path):
    # a lazify cache file in the per-user directory, which a clean without PATH removes
    kept = tmp_path / "xdg" / "lazify" / "x" / "m.cpython-311.opt-lazify0v1v0f8h0.pyc"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"")
    proc = run_python(["-m", "lazify", "cache", "clean", str(tmp_path / "nope")],
                      env_extra={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[0] == \
        f"lazify cache clean: {tmp_path / 'nope'}: no such file or directory"
    # a mistyped PATH is not "no PATH": the environment's caches are left alone
    assert proc.stdout == "lazify cache clean: removed 0 files (0.0 MB)\n"
    assert kept.exists()


def test_clean_recognises_every_tag():
    from lazify._cache_clean import is_lazify_file

    for name in ("m.cpython-311.opt-lazify0v1v0f8h0.pyc", "m.cpython-315.opt-lazifyn0v1v0f8habc.pyc",
                 "m.cpython-312.opt-2lazify0v2v0f9h12345678.pyc",
                 "m.cpython-312.opt-1lazify0v1v0f8h0.pyc.99.12345.tmp"):
        assert is_lazify_file(name), name
    for name in ("m.cpython-311.pyc", "m.cpython-311.opt-1.pyc", "lazify.cpython-311.pyc",
                 "m.cpython-311.opt-lazify.pyc.txt", "rewriter-deps.x.txt"):
        assert not is_lazify_file(name), name
    assert is_lazify_file("rewriter-deps.cpython-311.30b07f0.0v1v0f8h0.txt", in_lazify_dir=True)
    # the start-up bundle, in lazify's own __pycache__ only (a program may have a
    # __startup__ module of its own)
    for name in ("__startup__.cpython-315.pyc", "__startup__.cpython-311.opt-1.pyc",
                 "__startup__.cpython-314.pyc.99.12345.tmp"):
        assert is_lazify_file(name, in_lazify_dir=True), name
        assert not is_lazify_file(name), name


def test_clean_counts_only_what_it_removed(tmp_path, monkeypatch, capsys):
    """A file it cannot remove (another user's, as nobody in a container) is one line,
    and neither its count nor its size goes into what was removed."""
    from lazify import _cache_clean

    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for name in ("a", "b"):
        (cache / f"{name}.cpython-311.opt-lazify0v1v0f8h0.pyc").write_bytes(b"x" * 1_000_000)
    theirs = str(cache / "b.cpython-311.opt-lazify0v1v0f8h0.pyc")
    unlink = os.unlink

    def refuse(path, *args, **kwargs):
        if os.fspath(path) == theirs:
            raise PermissionError(13, "Permission denied", path)
        return unlink(path, *args, **kwargs)

    monkeypatch.setattr(_cache_clean.os, "unlink", refuse)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _cache_clean.clean([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "lazify cache clean: removed 1 file (1.0 MB); 1 could not be removed\n"
    assert err == f"lazify cache clean: cannot remove {theirs}: [Errno 13] Permission denied\n"


def test_clean_finds_the_files_below_pycache_prefix(tmp_path):
    """With ``PYTHONPYCACHEPREFIX`` lazify's pycs mirror the sources' directories below
    the prefix, with no ``__pycache__`` level: ``cache clean`` of a tree, of a file, and
    a plain pyc there left alone (it listed none of them: 'removed 0 files')."""
    root = write_tree(tmp_path / "app", {"mod.py": MOD, "pkg/__init__.py": "", "pkg/sub.py": MOD})
    prefix = tmp_path / "prefix"
    env = {"PYTHONPYCACHEPREFIX": str(prefix), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    run_python(["-c", "import mod"], cwd=root, env_extra={**env, "PYTHONDONTWRITEBYTECODE": None},
               check=True)
    run_python(["-m", "lazify", "compile", str(root)], env_extra=env, check=True)
    below = str(prefix) + os.path.abspath(str(root))
    ours = sorted(os.path.join(d, n) for d, _, names in os.walk(below) for n in names
                  if "lazify" in n)
    assert len(ours) == 3 and not os.path.exists(root / "__pycache__")
    one = run_python(["-m", "lazify", "cache", "clean", "-n", str(root / "mod.py")], env_extra=env)
    assert one.stdout.split() == [p for p in ours if os.path.basename(p).startswith("mod.")]
    done = run_python(["-m", "lazify", "cache", "clean", str(root)], env_extra=env)
    assert "removed 3 files" in done.stdout, done.stdout + done.stderr
    left = [n for d, _, names in os.walk(below) for n in names]
    assert left == [f"mod.{sys.implementation.cache_tag}.pyc"]          # python's own


def test_clean_dry_run_to_a_closed_pipe_ends_quietly(tmp_path):
    """``lazify cache clean --dry-run | head -1``: the closed stdout ends the command
    quietly (exit 1), as every command's; it was taken for a file that could not be
    removed, one 'Broken pipe' line on stderr per file."""
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    # more names than a pipe's buffer holds (64 KiB on Linux): the listing meets the close
    for i in range(1500):
        (tmp_path / f"m{i:04d}_{'x' * 60}.py").write_text("")
        (cache / f"m{i:04d}_{'x' * 60}.cpython-311.opt-lazify0v1v0f8h0.pyc").write_bytes(b"")
    proc = subprocess.Popen([sys.executable, "-m", "lazify", "cache", "clean", "--dry-run",
                             str(tmp_path)], bufsize=0, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": ROOT})
    proc.stdout.readline()
    proc.stdout.close()       # as head does after its line
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert (proc.wait(timeout=120), err) == (1, "")
    assert len(list(cache.iterdir())) == 1500


def test_clean_lists_ten_files_it_cannot_remove_and_counts_the_rest(tmp_path, monkeypatch,
                                                                      capsys):
    """As nobody in a read-only environment every file fails alike: ten lines, then
    one that counts the rest (as ``lazify compile`` lists its failures), not a line
    for each of thousands of files."""
    from lazify import _cache_clean

    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for i in range(25):
        (cache / f"m{i:02d}.cpython-311.opt-lazify0v1v0f8h0.pyc").write_bytes(b"x")

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(_cache_clean.os, "unlink", refuse)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _cache_clean.clean([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "lazify cache clean: removed 0 files (0.0 MB); 25 could not be removed\n"
    lines = err.splitlines()
    assert lines[:10] == [f"lazify cache clean: cannot remove {cache}/m{i:02d}.cpython-311."
                          "opt-lazify0v1v0f8h0.pyc: [Errno 13] Permission denied"
                          for i in range(10)]
    assert lines[10:] == ["lazify cache clean: 15 more files could not be removed (not listed)"]
