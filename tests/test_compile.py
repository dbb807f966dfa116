"""``lazify compile`` (lazify._compile): rewritten pycs ahead of time, as the hook writes them."""

from __future__ import annotations

import os
import sys

from lazify import _hook
from lazify._compile import compile_paths
from tests._util import run_python
from tests.test_hook import MOD, debug_lines, lazify_pycs, run, write_tree


def test_compile_paths_writes_caches_and_reports_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # compile writes anyway, as compileall does
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setenv("LAZIFY_STRICT", "1")
    root = write_tree(
        tmp_path / "app",
        {"mod.py": MOD, "pkg/__init__.py": "from . import sub\n", "pkg/sub.py": MOD, "bad.py": "def (:\n"},
    )
    seen = []
    real = _hook._transform

    def spy(data, path, name, is_package, optimize):
        seen.append((name, is_package))
        return real(data, path, name, is_package, optimize)

    monkeypatch.setattr(_hook, "_transform", spy)
    assert compile_paths([str(root), str(root / "missing.py")]) == 1
    err = capsys.readouterr().err
    assert f"{root / 'bad.py'}:1:5: SyntaxError:" in err
    assert "missing.py: no such file or directory" in err
    assert sorted(seen) == [("bad", False), ("mod", False), ("pkg", True), ("pkg.sub", False)]
    assert len(lazify_pycs(root)) == 3
    assert compile_paths([str(root / "mod.py")]) == 0


def test_compile_hash_based_and_then_import_hits(tmp_path):
    root = write_tree(tmp_path / "app", {"mod.py": MOD, "pkg/__init__.py": "", "pkg/sub.py": MOD}, mtime=None)
    proc = run_python(["-m", "lazify", "compile", "--hash", str(root)], cwd=root)
    assert proc.returncode == 0, proc.stderr
    pycs = lazify_pycs(root)
    assert len(pycs) == 3
    for rel in pycs:
        with open(root / rel, "rb") as f:
            assert int.from_bytes(f.read(8)[4:8], "little") == 0b11
    proc = run("import mod, pkg.sub", root)
    lines = debug_lines(proc)
    assert {"lazify: cached mod", "lazify: cached pkg", "lazify: cached pkg.sub"} <= set(lines), lines
    assert not [line for line in lines if line.startswith("lazify: compiled")]


def test_compile_waits_out_a_fresh_timestamp(tmp_path):
    root = write_tree(tmp_path / "app", {"mod.py": MOD}, mtime=None)
    assert compile_paths([str(root)]) == 0
    [rel] = lazify_pycs(root)
    with open(root / rel, "rb") as f:
        assert int.from_bytes(f.read(8)[4:8], "little") == 0  # a timestamp pyc, written safely
    assert "lazify: cached mod" in debug_lines(run("import mod", root))


def test_compile_finds_and_names_files_as_check_does(tmp_path, monkeypatch, capsys):
    """One discovery and one naming for every command: compile writes a pyc for exactly
    the files ``check`` reports, and plans each under the module name ``check`` gives."""
    import json

    from lazify._cli import main

    root = write_tree(tmp_path / "app", {
        "top.py": MOD, "pkg/__init__.py": "", "pkg/q/__init__.py": "", "pkg/q/m.py": MOD,
        "my-script.py": MOD, "build/gen.py": MOD, ".hidden/h.py": MOD,
        "env/pyvenv.cfg": "", "env/lib.py": MOD,
    })
    seen = []
    real = _hook._transform
    monkeypatch.setattr(_hook, "_transform", lambda data, path, name, is_package, optimize: (
        seen.append((os.path.relpath(path, root), name, is_package))
        or real(data, path, name, is_package, optimize)))
    assert compile_paths([str(root)]) == 0
    assert main(["check", "--format", "json", str(root)]) == 0
    checked = json.loads(capsys.readouterr().out)["files"]
    assert sorted(seen) == sorted(
        (os.path.relpath(f["path"], root), f["module"], f["path"].endswith("__init__.py"))
        for f in checked)
    assert sorted(name for _, name, _ in seen) == ["", "pkg", "pkg.q", "pkg.q.m", "top"]
