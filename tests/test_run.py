"""``lazify run``'s targets (-c, -, a console script on PATH) and its own command line,
each against what ``python`` does with the same target."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from tests._util import child_env, run_python

PROBE = textwrap.dedent("""\
    import sys
    import heavy_dep
    print("argv", sys.argv)
    print("name", __name__)
    print("path0", repr(sys.path[0]))
    print("lazy", "heavy_dep" not in sys.modules)
    """)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "heavy_dep.py").write_text("print('imported heavy_dep')\n")
    return tmp_path


def lines(proc):
    return proc.stdout.splitlines()


def test_run_code_is_python_minus_c(tree):
    lazy = run_python(["-m", "lazify", "run", "-c", PROBE, "a", "-m"], cwd=tree)
    plain = run_python(["-c", PROBE, "a", "-m"], cwd=tree)
    assert lazy.returncode == 0, lazy.stderr
    assert lines(lazy) == ["argv ['-c', 'a', '-m']", "name __main__", "path0 ''", "lazy True"]
    assert lines(plain)[1:4] == lines(lazy)[:3]       # plain imported heavy_dep first


def test_run_code_joined_option(tree):
    proc = run_python(["-m", "lazify", "run", "-cimport sys; print(sys.argv)", "x"], cwd=tree)
    assert proc.stdout == "['-c', 'x']\n", proc.stderr


def test_run_stdin_is_python_minus(tree):
    lazy = run_python(["-m", "lazify", "run", "-", "b"], cwd=tree, input=PROBE)
    plain = run_python(["-", "b"], cwd=tree, input=PROBE)
    assert lazy.returncode == 0, lazy.stderr
    assert lines(lazy) == ["argv ['-', 'b']", "name __main__", "path0 ''", "lazy True"]
    assert lines(plain)[1:4] == lines(lazy)[:3]


@pytest.mark.parametrize("target", ["-c", "-"])
@pytest.mark.parametrize("body, code", [
    ("import sys\nsys.exit(4)\n", 4),
    ("import sys\nsys.exit('bye')\n", 1),
    ("def f():\n    return 1 / 0\nf()\n", 1),
    ("x = (\n", 1),
])
def test_run_code_and_stdin_exit_and_traceback_as_python(tree, target, body, code):
    args = [target, body] if target == "-c" else [target]
    stdin = body if target == "-" else None
    lazy = run_python(["-m", "lazify", "run", *args], cwd=tree, input=stdin)
    plain = run_python(args, cwd=tree, input=stdin)
    assert (lazy.returncode, lazy.stderr) == (plain.returncode, plain.stderr) == (code, plain.stderr)
    assert "lazify" not in lazy.stderr


def make_console_script(bindir, name, body, python=sys.executable):
    bindir.mkdir(exist_ok=True)
    path = bindir / name
    path.write_text(f"#!{python}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_run_console_script_on_path(tree):
    bindir = tree / "bin"
    script = make_console_script(bindir, "mytool", PROBE + "raise SystemExit(3)\n")
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    lazy = run_python(["-m", "lazify", "run", "mytool", "--version"], cwd="/", env_extra=env)
    # the script run as a program: what its shebang's python would give it
    plain = subprocess.run(["mytool", "--version"], cwd=tree, capture_output=True, text=True,
                           env=child_env({**env, "PYTHONPATH": str(tree)}))
    assert lazy.returncode == plain.returncode == 3, lazy.stderr
    assert lines(lazy)[:3] == lines(plain)[1:4] == [
        f"argv [{str(script)!r}, '--version']", "name __main__", f"path0 {str(bindir)!r}"]
    assert lines(lazy)[3] == "lazy True"


def test_run_unknown_command(tmp_path):
    proc = run_python(["-m", "lazify", "run", "no-such-command-xyz"], cwd=tmp_path,
                      env_extra={"PATH": str(tmp_path)})
    assert proc.returncode == 2
    assert proc.stderr == (f"lazify run: can't open file "
                           f"{str(tmp_path / 'no-such-command-xyz')!r}: "
                           "[Errno 2] No such file or directory\n")


@pytest.mark.parametrize("argv, message", [
    ([], "a target is required"),
    (["--bogus", "x.py"], "unrecognized option: --bogus"),
    (["-m"], "argument -m: expected one argument"),
    (["-c"], "argument -c: expected one argument"),
    (["--mechanism"], "argument --mechanism: expected one argument"),
    (["--mechanism", "fast", "x.py"], "invalid choice: 'fast'"),
])
def test_run_usage_errors_come_from_runs_usage_line(tmp_path, argv, message):
    proc = run_python(["-m", "lazify", "run", *argv], cwd=tmp_path)
    assert proc.returncode == 2
    usage, error = proc.stderr.splitlines()
    assert usage.startswith("usage: lazify run ")
    assert error.startswith("lazify run: error: ") and message in error


def test_run_help(tmp_path):
    proc = run_python(["-m", "lazify", "run", "--help"], cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: lazify run ")


def test_run_options_after_target_are_the_programs(tree):
    proc = run_python(["-m", "lazify", "run", "-c", "import sys; print(sys.argv)",
                       "--mechanism", "x", "--summary"], cwd=tree)
    assert proc.stdout == "['-c', '--mechanism', 'x', '--summary']\n", proc.stderr


def test_run_path_imports_neither_argparse_nor_the_rewriter(tree):
    script = tree / "script.py"
    script.write_text("import sys\nprint(sorted(m for m in ('argparse', 'typing', 'ast', "
                      "'lazify._rewrite', 'lazify._cli', 'zipfile') if m in sys.modules))\n")
    old = os.stat(script).st_mtime - 60          # not "too fresh" to cache
    os.utime(script, (old, old))
    run_python(["-m", "lazify", "run", str(script)], cwd=tree)  # writes the cache
    proc = run_python(["-m", "lazify", "run", str(script)], cwd=tree)
    assert proc.stdout == "[]\n", proc.stderr
