"""``lazify run``'s targets (-c, -, a console script on PATH) and its own command line,
each against what ``python`` does with the same target."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import zipapp

import pytest

from tests._sample import full_only, sample
from tests._util import ROOT, child_env, run_python, tool_beside_python, write

EXAMPLES = os.path.join(ROOT, "examples")

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


#: (target, body, exit status): four of the eight by default, each body once, with one
#: target or the other (tests/_sample.py); LAZIFY_FULL_TESTS=1 runs all
CODE_AND_STDIN = [(target, body, code) for target in ("-c", "-") for body, code in (
    ("import sys\nsys.exit(4)\n", 4),
    ("import sys\nsys.exit('bye')\n", 1),
    ("def f():\n    return 1 / 0\nf()\n", 1),
    ("x = (\n", 1),
)]


@pytest.mark.parametrize("target, body, code", sample(
    CODE_AND_STDIN, 4, kind=lambda i: i.split(" ", 1)[1],
    ids=lambda case: f"{case[0]} {case[1]!r}", unpack=True))
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


def test_run_console_script_beside_the_interpreter(tree):
    """``venv/bin/lazify run mytool`` from a shell that never activated the venv: the
    program pip installed beside lazify is found, as ``venv/bin/mytool`` runs it."""
    python = tool_beside_python(tree / "venv" / "bin", "mytool", PROBE)
    env = child_env({"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}{os.pathsep}{tree}"})
    proc = subprocess.run([python, "-m", "lazify", "run", "mytool", "-x"], cwd="/", env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    script = str(tree / "venv" / "bin" / "mytool")
    assert lines(proc) == [f"argv [{script!r}, '-x']", "name __main__",
                           f"path0 {os.path.dirname(script)!r}", "lazy True"]


def test_run_unknown_command(tmp_path):
    proc = run_python(["-m", "lazify", "run", "no-such-command-xyz"], cwd=tmp_path,
                      env_extra={"PATH": str(tmp_path)})
    assert proc.returncode == 2
    assert proc.stderr == (f"lazify run: can't open file "
                           f"{str(tmp_path / 'no-such-command-xyz')!r}: "
                           "[Errno 2] No such file or directory, and no command "
                           f"'no-such-command-xyz' on PATH or in {os.path.dirname(sys.executable)}\n")
    proc = run_python(["-m", "lazify", "run", "./missing.py"], cwd=tmp_path)
    assert proc.returncode == 2             # a path, not a command: python's words alone
    assert proc.stderr == (f"lazify run: can't open file {str(tmp_path / 'missing.py')!r}: "
                           "[Errno 2] No such file or directory\n")


def test_run_a_command_that_is_no_python_program(tmp_path):
    """``lazify run ls`` or a shell script on PATH: one line and exit status 2, where
    the file was run as Python source (a SyntaxError about null bytes); a Python
    script named by ``/usr/bin/env python3`` still runs."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, text in (("shtool", "#!/bin/sh\necho hi\n"),
                       ("pytool", "#!/usr/bin/env -S python3 -u\nprint('ran')\n")):
        (bindir / name).write_text(text)
        os.chmod(bindir / name, 0o755)
    shutil.copy(sys.executable, bindir / "binary")     # an executable binary
    env = {"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin"}
    for name, what in (("shtool", "#!/bin/sh"), ("binary", "a binary executable")):
        proc = run_python(["-m", "lazify", "run", name], cwd=tmp_path, env_extra=env)
        assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
        assert proc.stderr == (f"lazify run: {name} ({bindir / name}) is not a Python program "
                               f"({what}): lazify run runs Python programs\n")
    proc = run_python(["-m", "lazify", "run", "pytool"], cwd=tmp_path, env_extra=env)
    assert (proc.returncode, proc.stdout) == (0, "ran\n"), proc.stderr
    # other runners of Python scripts (PyPy, uv's inline-metadata scripts) ran before:
    # only an interpreter known to be no Python's is refused
    for name, line in (("pypytool", "#!/usr/bin/pypy3"),
                       ("uvtool", "#!/usr/bin/env -S uv run --script")):
        (bindir / name).write_text(f"{line}\nprint('{name} ran')\n")
        os.chmod(bindir / name, 0o755)
        proc = run_python(["-m", "lazify", "run", name], cwd=tmp_path, env_extra=env)
        assert (proc.returncode, proc.stdout) == (0, f"{name} ran\n"), proc.stderr
    # pip's form for a Python whose path has a space or is too long for '#!': sh runs
    # the second line, Python reads a string; a Python program, run
    (bindir / "pipstyle").write_text(
        "#!/bin/sh\n'''exec' \"/opt/app venv/bin/python3\" \"$0\" \"$@\"\n' '''\n"
        "print('pip ran')\n")
    os.chmod(bindir / "pipstyle", 0o755)
    proc = run_python(["-m", "lazify", "run", "pipstyle"], cwd=tmp_path, env_extra=env)
    assert (proc.returncode, proc.stdout) == (0, "pip ran\n"), proc.stderr
    # a zip application without a '#!' line (binary, as Windows' console-script
    # launchers are) is one python runs: it runs, not refused
    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text("print('zip ran')\n")
    zipapp.create_archive(app, bindir / "ziptool")
    os.chmod(bindir / "ziptool", 0o755)
    proc = run_python(["-m", "lazify", "run", "ziptool"], cwd=tmp_path, env_extra=env)
    assert (proc.returncode, proc.stdout) == (0, "zip ran\n"), proc.stderr


def test_run_a_script_of_another_python_that_lacks_a_module(tmp_path):
    """A console script of another environment (a pipx-style ``~/.local/bin`` link into
    an application's venv) runs with lazify's Python, as ``python SCRIPT`` would, and
    meets a module that Python has not: after python's traceback, one line says whose
    script it is and how to run it lazily there."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    other = "/opt/app-venv/bin/python3"
    (bindir / "apptool").write_text(
        f"#!{other}\nimport no_such_module_xyz\n\nno_such_module_xyz.main()\n")
    os.chmod(bindir / "apptool", 0o755)
    env = {"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin"}
    proc = run_python(["-m", "lazify", "run", "apptool"], cwd=tmp_path, env_extra=env)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[-2].startswith("ModuleNotFoundError: No module named 'no_such_module_xyz'")
    assert lines[-1] == (f"lazify run: apptool is a script of {other}, and ran with this Python "
                         f"({sys.executable}), which has not its modules: run it as `{other} -m "
                         "lazify run apptool` (lazify installed there) or `LAZIFY=1 apptool`")
    # pip's '#!/bin/sh' form names its Python on the second line
    (bindir / "apptool").write_text(
        "#!/bin/sh\n'''exec' /opt/app-venv/bin/python3 \"$0\" \"$@\"\n' '''\n"
        "import no_such_module_xyz\n\nno_such_module_xyz.main()\n")
    proc = run_python(["-m", "lazify", "run", "apptool"], cwd=tmp_path, env_extra=env)
    assert proc.stderr.splitlines()[-1].startswith(f"lazify run: apptool is a script of {other},")
    # the same script named by path is python's SCRIPT: python's words alone
    proc = run_python(["-m", "lazify", "run", str(bindir / "apptool")], cwd=tmp_path)
    assert proc.stderr.splitlines()[-1].startswith("ModuleNotFoundError"), proc.stderr


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


def test_run_resolves_settings_without_lazify_config_unless_a_variable_is_set(tree):
    """No settings variable: the recorded settings as they are, as lazify.install() takes
    them, without importing lazify._config (its import is 1.4 M instructions of every
    `lazify run`); a variable set: the resolver, and what the variable says applies."""
    script = tree / "script.py"
    script.write_text("import sys\nimport heavy_dep\n"
                      "print('lazify._config' in sys.modules, 'heavy_dep' in sys.modules)\n")
    old = os.stat(script).st_mtime - 60          # not "too fresh" to cache
    os.utime(script, (old, old))
    unset = {"LAZIFY_MECHANISM": None}            # the tests' default setting
    run_python(["-m", "lazify", "run", str(script)], cwd=tree, env_extra=unset)  # the cache
    proc = run_python(["-m", "lazify", "run", str(script)], cwd=tree, env_extra=unset)
    assert proc.stdout == "False False\n", proc.stderr
    proc = run_python(["-m", "lazify", "run", str(script)], cwd=tree,
                      env_extra={"LAZIFY_EXCLUDING": "__main__"})
    assert proc.stdout == "imported heavy_dep\nTrue True\n", proc.stderr


# --------------------------------------------- scripts, modules, the example app


@pytest.mark.parametrize(
    "argv, stdin, expected",
    [
        (["total", "--json"], "1.10\n2.20\n", '{"count": 2, "total": "3.30"}\n'),
        (["db", "b", "a", "b"], None, "   2  b\n   1  a\n"),
        (["xml"], "<a><b/></a>", '<?xml version="1.0" ?>\n<a>\n  <b/>\n</a>\n'),
    ],
)
# plain: a check of the expected outputs themselves (the example's, not lazify's), which
# only LAZIFY_FULL_TESTS=1 makes
@pytest.mark.parametrize("mode", [pytest.param("plain", marks=full_only), "run", "sitecustomize"])
def test_example_app_runs(mode, argv, stdin, expected):
    if mode == "plain":
        args, env = ["-m", "heavyapp", *argv], None
    elif mode == "run":
        args, env = ["-m", "lazify", "run", "-m", "heavyapp", *argv], None
    else:
        site = os.path.join(EXAMPLES, "heavyapp_sitecustomize")
        args = ["-m", "heavyapp", *argv]
        env = {"PYTHONPATH": os.pathsep.join([site, ROOT])}
    proc = run_python(args, cwd=EXAMPLES, env_extra=env, input=stdin)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert proc.stderr == ""


def test_example_app_lazy_imports_only_what_the_command_uses():
    probe = (
        "import sys\n"
        "sys.argv = ['heavyapp', 'total']\n"
        "import heavyapp.cli\n"
        "heavyapp.cli.main()\n"
        "print(sorted(m for m in ('sqlite3', 'asyncio', 'xml.dom.minidom', 'http.client', 'decimal') if m in sys.modules))\n"
    )
    site = os.path.join(EXAMPLES, "heavyapp_sitecustomize")
    eager = run_python(probe, cwd=EXAMPLES, input="1\n")
    lazy = run_python(
        probe, cwd=EXAMPLES, input="1\n", env_extra={"PYTHONPATH": os.pathsep.join([site, ROOT])}
    )
    assert eager.returncode == 0, eager.stderr
    assert lazy.returncode == 0, lazy.stderr
    assert eager.stdout.splitlines()[-1] == "['asyncio', 'decimal', 'http.client', 'sqlite3', 'xml.dom.minidom']"
    assert lazy.stdout.splitlines()[-1] == "['decimal']"


@pytest.fixture
def script_dir(tmp_path):
    write(tmp_path, "heavy_dep.py", "print('imported heavy_dep')\nVALUE = 42\n")
    return tmp_path


def lazify_run(*args: str, cwd=None, input=None, env=None):
    return run_python(["-m", "lazify", "run", *args], cwd=cwd, input=input, env_extra=env)


def test_run_script_argv_name_and_path(script_dir):
    script = write(
        script_dir,
        "script.py",
        """\
        import sys
        import heavy_dep
        print("argv", sys.argv)
        print("name", __name__)
        print("path0", sys.path[0])
        print("file", __file__)
        """,
    )
    proc = lazify_run(script, "a", "--flag", "-m", cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"argv {[script, 'a', '--flag', '-m']!r}" in lines
    assert "name __main__" in lines
    assert f"path0 {os.path.realpath(str(script_dir))}" in lines
    assert f"file {os.path.abspath(script)}" in lines
    # The main script itself is rewritten: heavy_dep is never read, so never imported.
    assert "imported heavy_dep" not in lines


def test_run_script_imports_on_first_use(script_dir):
    script = write(
        script_dir,
        "script.py",
        """\
        import heavy_dep

        def show():
            print(heavy_dep.VALUE)

        print("before")
        show()
        """,
    )
    proc = lazify_run(script, cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["before", "imported heavy_dep", "42"]
    plain = run_python([script], cwd=str(script_dir))
    assert plain.stdout.splitlines() == ["imported heavy_dep", "before", "42"]


@pytest.mark.parametrize(
    "body, code",
    [
        ("import sys\nsys.exit(3)\n", 3),
        ("raise SystemExit\n", 0),
        ("import sys\nsys.exit('bye')\n", 1),
        ("pass\n", 0),
    ],
)
def test_run_script_exit_code(tmp_path, body, code):
    script = write(tmp_path, "script.py", body)
    proc = lazify_run(script)
    assert proc.returncode == code
    plain = run_python([script])
    assert plain.returncode == code
    assert proc.stderr == plain.stderr


def test_run_script_traceback_is_pythons(tmp_path):
    script = write(
        tmp_path,
        "script.py",
        """\
        def f():
            return 1 / 0

        f()
        """,
    )
    proc = lazify_run(script)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert f'File "{script}", line 4, in <module>' in proc.stderr
    assert f'File "{script}", line 2, in f' in proc.stderr
    assert proc.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr and "runpy" not in proc.stderr
    plain = run_python([script])
    assert proc.stderr == plain.stderr


def test_run_script_syntax_error(tmp_path):
    script = write(tmp_path, "script.py", "x = (\n")
    proc = lazify_run(script)
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr


@pytest.fixture(scope="module")
def python_says(tmp_path_factory):
    """``python script.py`` and ``python - < script.py`` for a source, each run once in
    this process whatever the number of modes compared with it: (script, file's run,
    standard input's run)."""
    root = tmp_path_factory.mktemp("scripts")
    said = {}

    def run(data: bytes):
        if data not in said:
            script = root / f"script{len(said)}.py"
            script.write_bytes(data)
            said[data] = script, run_python([str(script)]), run_python(["-"], input=data)
        return said[data]

    return run


#: (id, source, lazy): each source with lazify on and disabled; by default each source
#: once, on or disabled (tests/_sample.py); LAZIFY_FULL_TESTS=1 runs all ten
NOT_COMPILING = [(name, data, lazy) for name, data in (
    ("syntax", b"x = 1\ndef f(:\n    pass\n"),
    ("null-byte", b"x = 1\ny = 2\x00\n"),
    ("undecodable", b"x = 1\ny = '\xff'\n"),
    ("bad-cookie", b"# -*- coding: no-such-codec -*-\nx = 1\n"),
    ("latin-1-cookie", b"# -*- coding: latin-1 -*-\nx = '\xff'\ny = (\n"),
) for lazy in (True, False)]


@pytest.mark.parametrize("_name, data, lazy", sample(
    NOT_COMPILING, 5, kind=lambda i: i.rpartition("-")[0],
    ids=lambda case: f"{case[0]}-{'lazy' if case[2] else 'disabled'}", unpack=True))
def test_run_script_that_does_not_compile_fails_as_python_does(python_says, _name, data, lazy):
    """python compiles the main script with its file tokenizer, whose messages for
    encodings and null bytes differ from compile()'s, and by version: the same output."""
    script, plain, plain_stdin = python_says(data)
    env = None if lazy else {"LAZIFY_DISABLE": "1"}
    proc = lazify_run(str(script), env=env)
    assert (proc.returncode, proc.stdout, proc.stderr) == \
        (plain.returncode, plain.stdout, plain.stderr)
    # the same source on standard input (python -)
    stdin = run_python(["-m", "lazify", "run", "-"], input=data, env_extra=env)
    assert (stdin.returncode, stdin.stdout, stdin.stderr) == \
        (plain_stdin.returncode, plain_stdin.stdout, plain_stdin.stderr)
    if not (sys.version_info < (3, 11) and b"\x00" in data):   # 3.10 stops at the byte
        assert plain.returncode == 1 and "Error" in plain.stderr


#: (lazify run's arguments, the stream closed): python's exit status and silence
CLOSED_STREAMS = [(["-"], "<&-"), (["--help"], ">&-"), (["nope.py"], "2>&-"),
                  (["--bogus"], "2>&-")]


@pytest.mark.parametrize("argv, closed", CLOSED_STREAMS, ids=lambda c: " ".join(c))
def test_run_with_a_closed_standard_stream_exits_as_python(tmp_path, argv, closed):
    """A stream closed from the start (``<&-``, ``>&-``, ``2>&-``: ``None`` in ``sys``)
    is python's business: ``lazify run -`` runs an empty program, and its own messages
    go nowhere, with python's exit status; no AttributeError traceback on another
    stream."""
    def sh(*args):
        return subprocess.run(["sh", "-c", f'"$0" "$@" {closed}', sys.executable, *args],
                              cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                              timeout=120)

    lazy = sh("-m", "lazify", "run", *argv)
    python = 0 if argv == ["--help"] else sh(*argv).returncode
    assert (lazy.returncode, lazy.stderr) == (python, ""), lazy.stderr


def test_run_children_start_as_the_environment_starts_and_lazify_1_makes_them_lazy(tmp_path):
    """docs/usage.md: a multiprocessing ``spawn`` worker of a ``lazify run`` program is a
    new Python, eager in an environment never enabled; with ``LAZIFY=1`` it is lazy too."""
    write(tmp_path, "app.py", textwrap.dedent("""\
        import multiprocessing, sys

        def lazy_here():
            import lazify
            return lazify.is_lazy_imports_enabled()

        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                print(lazy_here(), pool.apply(lazy_here))
        """))
    run = run_python(["-m", "lazify", "run", "app.py"], cwd=tmp_path, env_extra={"LAZIFY": None})
    assert (run.stdout, run.stderr) == ("True False\n", "")
    lazy = run_python(["app.py"], cwd=tmp_path, env_extra={"LAZIFY": "1"})
    assert (lazy.stdout, lazy.stderr) == ("True True\n", "")


def test_run_missing_script(tmp_path):
    proc = lazify_run(str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    assert "No such file or directory" in proc.stderr


def test_run_module_package(script_dir):
    write(script_dir, "app/__init__.py", "")
    write(
        script_dir,
        "app/__main__.py",
        """\
        import sys
        import heavy_dep
        from . import helper
        print("argv", sys.argv[1:])
        print("name", __name__)
        print("helper", helper.X)
        print("path0", sys.path[0])
        sys.exit(7)
        """,
    )
    write(script_dir, "app/helper.py", "X = 'ok'\n")
    proc = lazify_run("-m", "app", "x", "--y", cwd=str(script_dir))
    assert proc.returncode == 7, proc.stderr
    lines = proc.stdout.splitlines()
    assert "argv ['x', '--y']" in lines
    assert "name __main__" in lines
    assert "helper ok" in lines
    assert f"path0 {os.path.realpath(str(script_dir))}" in [
        "path0 " + os.path.realpath(line[6:]) for line in lines if line.startswith("path0 ")
    ]
    assert "imported heavy_dep" not in lines


def test_run_directory_with_main(script_dir):
    write(
        script_dir,
        "appdir/__main__.py",
        """\
        import sys
        import heavy_dep
        print("argv", sys.argv)
        print("name", __name__)
        print("path0", sys.path[0], sys.path.count(sys.path[0]))
        """,
    )
    write(script_dir, "appdir/heavy_dep.py", "print('imported heavy_dep')\n")
    target = str(script_dir / "appdir")
    proc = lazify_run(target, "x", cwd=str(script_dir))
    plain = run_python([target, "x"], cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    assert plain.stdout.splitlines() == ["imported heavy_dep", *proc.stdout.splitlines()]


def test_run_module_traceback(tmp_path):
    write(tmp_path, "boom.py", "def f():\n    raise KeyError('k')\nf()\n")
    proc = lazify_run("-m", "boom", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert "boom.py\", line 3, in <module>" in proc.stderr
    assert proc.stderr.rstrip().endswith("KeyError: 'k'")
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr and "runpy" not in proc.stderr


def test_run_module_not_found(tmp_path):
    proc = lazify_run("-m", "no_such_module_xyz", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "No module named" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_package_without_main(tmp_path):
    write(tmp_path, "lib/__init__.py", "")
    proc = lazify_run("-m", "lib", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "cannot be directly executed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_with_lazify_disable(script_dir):
    script = write(script_dir, "script.py", "import heavy_dep\nprint('main')\n")
    proc = run_python(
        ["-m", "lazify", "run", script], cwd=str(script_dir), env_extra={"LAZIFY_DISABLE": "1"}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["imported heavy_dep", "main"]


def test_run_does_not_import_check_machinery():
    # `lazify run` must not import, eagerly, what the program may want lazily.
    proc = run_python(
        "import sys; import lazify._cli; "
        "print(sorted(m for m in ('json', 'ast', 'lazify._plan') if m in sys.modules))"
    )
    assert proc.stdout.strip() == "[]", proc.stderr


# The frames below the program's first frame: CPython 3.11+ allocates its frame stack in
# 16 KiB chunks, and how deep the program starts decides where a deep recursion crosses a
# chunk boundary (mapping and unmapping one per call: docs/performance.md, "Steady state on
# real test suites").  `lazify run` runs the program from its launcher's frame, so it puts
# no more frames there than `python -m` does.
FRAMES = textwrap.dedent("""\
    import sys
    f = sys._getframe().f_back
    below = []
    while f is not None:
        below.append(f.f_code.co_filename.replace(chr(92), "/").rsplit("/", 1)[-1]
                     + ":" + f.f_code.co_name)
        f = f.f_back
    print(below)
    """)
#: the `lazify` console script, as pip writes it
CONSOLE_SCRIPT = "import sys; from lazify._main import main; sys.exit(main())"


@pytest.mark.parametrize("target", ["script", "-m", "-c", "-"])
def test_run_puts_no_more_frames_below_the_program_than_python_m(tree, target):
    (tree / "frames.py").write_text(FRAMES)
    args = {"script": ["frames.py"], "-m": ["-m", "frames"], "-c": ["-c", FRAMES],
            "-": ["-"]}[target]
    stdin = FRAMES if target == "-" else None
    python_m = eval(run_python(["-m", "frames"], cwd=tree).stdout)   # runpy's two
    # the console script: its module and main(), no more than python -m's runpy
    console = run_python(["-c", CONSOLE_SCRIPT, "run", *args], cwd=tree, input=stdin)
    assert console.returncode == 0, console.stderr
    assert eval(console.stdout) == ["_main.py:main", "<string>:<module>"], console.stdout
    assert len(python_m) == 2
    # python -m lazify: runpy's two and lazify/__main__.py's top level
    module = run_python(["-m", "lazify", "run", *args], cwd=tree, input=stdin)
    assert module.returncode == 0, module.stderr
    assert eval(module.stdout) == ["__main__.py:<module>", *python_m], module.stdout


def test_the_command_line_api_runs_the_program_and_returns_its_status(tree):
    """``lazify._cli.main(["run", ...])``, the library's entry to the whole command line,
    runs the program one frame deeper than the launchers, with the same outcome."""
    (tree / "frames.py").write_text(FRAMES + "raise SystemExit(3)\n")
    api = run_python(["-c", "import sys; from lazify._cli import main; "
                      "sys.exit(main(['run', 'frames.py']))"], cwd=tree)
    assert api.returncode == 3, api.stderr
    assert eval(api.stdout)[:3] == ["_run.py:run", "_run.py:main", "__init__.py:main"], api.stdout


@pytest.mark.skipif(os.name != "posix", reason="ends by a signal on POSIX")
def test_a_programs_keyboardinterrupt_ends_it_by_sigint_as_python_does(tmp_path):
    """A program ended by an uncaught KeyboardInterrupt (Ctrl-C): python prints the
    traceback, runs the atexit handlers and ends itself by SIGINT, so that a shell
    sees the Ctrl-C (a loop over the command stops); ``lazify run``, from either
    launcher, does the same, not a plain exit status 130."""
    write(tmp_path, "prog.py", """
        import atexit
        atexit.register(print, "atexit ran")
        raise KeyboardInterrupt
    """)
    plain = run_python(["prog.py"], cwd=tmp_path)
    assert plain.returncode == -2 and plain.stdout == "atexit ran\n", plain
    for launcher in (["-m", "lazify"],
                     ["-c", "import sys; from lazify._main import main; sys.exit(main())"]):
        lazy = run_python([*launcher, "run", "prog.py"], cwd=tmp_path)
        assert (lazy.returncode, lazy.stdout, lazy.stderr) == \
            (plain.returncode, plain.stdout, plain.stderr), launcher
