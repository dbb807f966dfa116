"""``lazify compile`` (lazify._compile): rewritten pycs ahead of time, as the hook writes them."""

from __future__ import annotations

import os
import re
import sys
import time

from lazify import _hook
from lazify._cli import main
from lazify._compile import compile_paths
from tests._util import ROOT, run_python, write
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
    # modified in the second before this one: still too fresh, and the wait is shortest
    root = write_tree(tmp_path / "app", {"mod.py": MOD}, mtime=int(time.time()) - 1)
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
    capsys.readouterr()                  # compile's summary
    assert main(["check", "--format", "json", str(root)]) == 0
    checked = json.loads(capsys.readouterr().out)["files"]
    assert sorted(seen) == sorted(
        (os.path.relpath(f["path"], root), f["module"], f["path"].endswith("__init__.py"))
        for f in checked)
    assert sorted(name for _, name, _ in seen) == ["", "pkg", "pkg.q", "pkg.q.m", "top"]


# ------------------------------------------------- processes, summary, errors, --env


def _compile(args, **kw):
    return run_python(["-m", "lazify", "compile", *args], **kw)


def test_compile_summary_counts_and_times(tmp_path):
    from tests.test_hook import write_tree

    files = {f"m{i}.py": MOD for i in range(60)}        # enough for the process pool
    root = write_tree(tmp_path / "app", {**files, "bad.py": "def (:\n"})
    proc = _compile([str(root)])
    assert proc.returncode == 1, proc.stderr             # a file Python cannot compile
    summary = proc.stdout.strip().splitlines()[-1]
    assert summary.startswith("lazify compile: 60 compiled, 0 up to date, 1 skipped "
                              "(1 not valid Python), 0 failed; "), summary
    assert summary.endswith((" process", " processes")) and " s, " in summary
    assert f"{root / 'bad.py'}:1:5: SyntaxError:" in proc.stderr
    assert len(lazify_pycs(root)) == 60
    again = _compile([str(root / f"m{i}.py") for i in range(60)])
    assert again.returncode == 0, again.stderr
    assert "0 compiled, 60 up to date, 0 skipped, 0 failed" in again.stdout
    forced = _compile(["-f", "-j", "1", str(root / "m0.py")])
    assert "1 compiled, 0 up to date" in forced.stdout and "1 process" in forced.stdout


def test_compile_write_error_is_one_line_with_the_path_and_the_os_error(tmp_path):
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {"good.py": MOD, "pkg/__init__.py": "", "pkg/mod.py": MOD})
    (root / "pkg" / "__pycache__").write_text("a file where the directory goes\n")
    # and no per-user directory to fall back to
    proc = _compile([str(root)], env_extra={"XDG_CACHE_HOME": None, "HOME": "/dev/null"})
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if "cannot write" in line]
    assert len(lines) == 2, proc.stderr
    for line in lines:
        assert line.startswith(f"lazify compile: {root / 'pkg'}")
        assert "[Errno 20] Not a directory" in line and "__pycache__" in line, line
    assert "Traceback" not in proc.stderr
    assert "1 compiled, 0 up to date, 0 skipped, 2 failed" in proc.stdout, proc.stdout


def test_compile_says_why_the_per_user_directory_took_nothing(tmp_path):
    """``__pycache__`` unwritable and the per-user directory shared (XDG_CACHE_HOME of
    several users, made by another or writable by all): one line says so, where the
    failures alone named only ``__pycache__``."""
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {"mod.py": MOD})
    (root / "__pycache__").write_text("a file where the directory goes\n")
    shared = tmp_path / "shared" / "lazify"
    shared.mkdir(parents=True)
    os.chmod(shared, 0o777)
    proc = _compile([str(root)], env_extra={"XDG_CACHE_HOME": str(tmp_path / "shared")})
    assert proc.returncode == 1
    assert (f"lazify compile: the per-user cache directory {shared} is not used either: it is "
            "not this user's alone (another user's, or writable by others)") in \
        proc.stderr.splitlines(), proc.stderr


def test_compile_rewrites_nothing_more_where_the_cache_cannot_be_written(tmp_path):
    """Once a directory's cache file could not be written (nor the per-user one), its
    other files fail the same way without being rewritten first: a read-only stdlib
    as nobody (compile --env) is not minutes of rewriting for nothing."""
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {f"m{i}.py": MOD for i in range(5)})
    (root / "__pycache__").write_text("a file where the directory goes\n")
    count = ("import sys\nfrom lazify import _compile, _hook\ncalls = []\n"
             "real = _hook.rewritten_code\n"
             "_hook.rewritten_code = lambda *a, **k: calls.append(a[1]) or real(*a, **k)\n"
             "status = _compile.compile_paths(sys.argv[1:], jobs=1, progress=False)\n"
             "print('rewritten', len(calls), 'status', status)\n")
    proc = run_python(["-c", count, str(root)],
                      env_extra={"XDG_CACHE_HOME": None, "HOME": "/dev/null"})
    assert "rewritten 1 status 1" in proc.stdout, proc.stdout + proc.stderr
    assert "0 compiled, 0 up to date, 0 skipped, 5 failed" in proc.stdout, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if "cannot write" in line]
    assert len(lines) == 5, proc.stderr
    # each line its own file's, in the directory's words: not the temporary file the
    # first write tried (m0's, said on every line before)
    pattern = re.compile(rf"lazify compile: {re.escape(str(root))}/(m\d)\.py: cannot write "
                         rf"{re.escape(str(root))}/__pycache__/\1\.[^ /]+\.pyc: "
                         r"\[Errno 20\] Not a directory")
    assert all(pattern.fullmatch(line) for line in lines), lines


def test_a_syntax_error_where_the_cache_cannot_be_written_is_said_as_one(tmp_path):
    """A file with a syntax error in a directory already known unwritable is reported
    with its SyntaxError, as compileall reports it, not as 'cannot write'."""
    root = write_tree(tmp_path / "app", {"a.py": MOD, "b.py": "def (:\n", "c.py": MOD})
    (root / "__pycache__").write_text("a file where the directory goes\n")
    proc = run_python(["-m", "lazify", "compile", str(root)],
                      env_extra={"XDG_CACHE_HOME": None, "HOME": "/dev/null"})
    assert proc.returncode == 1
    said = {line.split(": ")[1].rpartition("/")[2].partition(":")[0]: line
            for line in proc.stderr.splitlines() if line.startswith("lazify compile: /")}
    assert sorted(said) == ["a.py", "b.py", "c.py"], proc.stderr
    assert "SyntaxError" in said["b.py"] and "cannot write" not in said["b.py"], proc.stderr
    assert "0 compiled, 0 up to date, 1 skipped (1 not valid Python), 2 failed" in proc.stdout


def test_one_files_own_write_error_does_not_fail_its_directory(tmp_path, monkeypatch, capsys):
    """A write error of one file's own (its pyc's name too long for the file system) is
    that file's: the other files of its directory are still compiled, not failed with
    its error without being tried."""
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "app"
    root.mkdir()
    try:
        longest = os.pathconf(root, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        longest = 255
    # the longest source name there is: its pyc's name (with the cache tag) is longer
    long_name = "a" * (longest - len(".py")) + ".py"
    for name in (long_name, "b.py", "c.py"):
        write(root, name, MOD)
        os.utime(root / name, (time.time() - 3600,) * 2)   # not too fresh to cache
    assert compile_paths([str(root)], jobs=1, progress=False) == 1
    out, err = capsys.readouterr()
    # the files a line is about, by its start: a substring test would also find 'b.py'
    # in the long file's own line, whose pyc's tag may end in 'b' ('...h1f2e3a4b.pyc')
    failed = [line for line in err.splitlines() if ": cannot write " in line]
    assert [line.startswith(f"lazify compile: {root / long_name}: ") for line in failed] == [True], err
    assert sorted(os.path.basename(p).split(".")[0] for p in lazify_pycs(root)) == ["b", "c"]
    assert "2 compiled, 0 up to date, 0 skipped, 1 failed" in out, out


def test_compile_lists_ten_failures_and_counts_the_rest(tmp_path):
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {f"m{i:02d}.py": MOD for i in range(14)})
    (root / "__pycache__").write_text("a file where the directory goes\n")
    proc = _compile(["-j", "1", str(root)], env_extra={"XDG_CACHE_HOME": None, "HOME": "/dev/null"})
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len([line for line in lines if "cannot write" in line]) == 10, proc.stderr
    assert "lazify compile: 4 more files failed (not listed)" in lines, proc.stderr
    assert "0 compiled, 0 up to date, 0 skipped, 14 failed" in proc.stdout, proc.stdout


def test_compile_reports_unreadable_and_missing_files(tmp_path):
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {"ok.py": MOD})
    (root / "dir.py").mkdir()                                    # a directory named *.py
    proc = _compile([str(root / "ok.py"), str(root / "nothere.py"), str(root / "dir.py")])
    assert proc.returncode == 1
    assert f"lazify compile: {root / 'nothere.py'}: no such file or directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_compile_progress_on_a_terminal_and_lines_otherwise(tmp_path, monkeypatch, capsys):
    from lazify import _compile as compile_module

    bar = compile_module._Progress(250)
    bar.tty = False
    for _ in range(250):
        bar.step()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "lazify compile: 25/250 files" and lines[-1] == "lazify compile: 250/250 files"
    assert len(lines) == 10
    bar = compile_module._Progress(3)
    bar.tty = True
    for _ in range(3):
        bar.step()
    bar.clear()
    err = capsys.readouterr().err
    assert "\rlazify compile [" in err and "3/3" in err and err.endswith("\r\033[K")


def test_enable_counts_files_it_could_not_compile_not_progress_lines(tmp_path):
    """``lazify enable`` compiles the environment in its Python and says how many files
    could not be: its progress lines (a tree of 200 files or more) are not files."""
    from lazify._activate import _compile_environment

    # dated an hour back (write_tree), as the compile-only tests' trees are: no second
    # to wait out before the timestamp pycs can be written
    write_tree(tmp_path, {f"m{i}.py": "import json\n" for i in range(210)})
    info = {"python": sys.executable, "purelib": str(tmp_path)}
    assert _compile_environment(info, None) == f"written for {tmp_path}"
    write(tmp_path, "bad.py", "def (:\n")
    said = _compile_environment(info, None)
    assert said.startswith(f"written for {tmp_path}, but for 1 file(s) it could not be"), said


def test_compile_needs_paths_or_env():
    proc = _compile([])
    assert proc.returncode == 2 and "give PATHs to compile, or --env" in proc.stderr


def test_environment_paths_are_the_stdlib_and_site_packages():
    import sysconfig

    from lazify._compile import environment_paths

    proc = run_python(["-c", "import json, sys; from lazify._compile import environment_paths; "
                       "print(json.dumps(environment_paths()))"], cwd="/")
    roots, skipped = __import__("json").loads(proc.stdout)
    stdlib = sysconfig.get_paths()["stdlib"]
    assert stdlib in roots
    assert sysconfig.get_paths()["purelib"] in roots
    assert "/" not in roots                                     # the working directory
    from tests._util import ROOT
    assert ROOT not in roots                                    # PYTHONPATH's entry
    assert os.path.join(stdlib, "test") + os.sep in skipped
    assert environment_paths()                                  # and in this process


def test_compile_env_dispatch(monkeypatch):
    import lazify._compile
    from lazify._cli import main

    calls = []
    monkeypatch.setattr(lazify._compile, "compile_paths",
                        lambda paths, **kw: calls.append((list(paths), kw)) or 0)
    assert main(["compile", "--env", "-j", "3"]) == 0
    assert calls[0][0] == [] and calls[0][1]["env"] is True and calls[0][1]["jobs"] == 3


# ------------------------------------------------------------ the command line


def test_compile_dispatches_to_the_batch_driver(tmp_path, monkeypatch):
    calls = []

    def compile_paths(paths, *, hash_based=False, mechanism=None, **options):
        calls.append((list(paths), hash_based))
        return 1

    import lazify._compile

    monkeypatch.setattr(lazify._compile, "compile_paths", compile_paths)
    assert main(["compile", "a.py", "b"]) == 1
    assert main(["compile", "--hash", "c"]) == 1
    assert calls == [(["a.py", "b"], False), (["c"], True)]


def test_compile_writes_cache(tmp_path):
    write_tree(tmp_path, {"mod.py": "import json\n"})   # dated back: no second to wait out
    proc = run_python(["-m", "lazify", "compile", str(tmp_path)])
    assert proc.returncode == 0, proc.stderr
    assert any("lazify" in name for name in os.listdir(tmp_path / "__pycache__"))


def test_compile_keeps_the_rewriter_dependencies_for_every_user(tmp_path):
    """compile keeps the measurement of the rewriter's dependencies beside lazify's
    bytecode even where the compiling user's per-user cache holds a copy: a container
    compiled as root and run as another user with no home found none, and every start
    served ``ast`` (a dependency, never rewritten) as a cache miss, with a warning to
    run the ``lazify compile --env`` just run."""
    from tests.test_hook import write_tree

    root = write_tree(tmp_path / "app", {"app.py": "import ast\n\n\ndef f():\n    return ast\n"})
    builder = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONDONTWRITEBYTECODE": "1"}
    # the builder's per-user copy, kept by an earlier start under another bytecode prefix
    run_python(["-c", "import lazify; lazify.install()"], cwd=tmp_path, check=True, env_extra={
        **builder, "PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(tmp_path / "c0")})
    cache = str(tmp_path / "cache")
    run_python(["-m", "lazify", "compile", str(root)], cwd=tmp_path, check=True,
               env_extra={**builder, "PYTHONPYCACHEPREFIX": cache})
    (tmp_path / "tmp").mkdir()
    other = {"XDG_CACHE_HOME": None, "HOME": "/nonexistent", "TMPDIR": str(tmp_path / "tmp"),
             "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": cache,
             "LAZIFY_DEFER_REWRITE": None, "PYTHONPATH": f"{ROOT}{os.pathsep}{root}"}
    # -S: no site, so no sitecustomize of the stdlib's (Debian's), not compiled here
    proc = run_python(["-S", "-c", "import lazify; lazify.install(); import app; "
                       "print(app.f().__name__)"], cwd="/", env_extra=other)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ast\n", "")
