"""The ``lazify`` command line as a whole: dispatch, help, a closed stdout; each command's
own tests are in its file (``test_cli_check.py``, ``test_diff.py`` for ``rewrite`` and
``diff``, ``test_compile.py``, ``test_fix.py``, ``test_run.py``, ``test_report.py``,
``test_cache_clean.py``, ``test_activate.py``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lazify._cli import main
from tests._sample import sample
from tests._util import ROOT, run_python, write


def test_main_without_command_exits_2(capsys):
    assert main([]) == 2


#: each command once by default (check in one of its formats), all under
#: LAZIFY_FULL_TESTS=1 (tests/_sample.py)
CLOSED_PIPE_ARGV = [
    ["check", "big.py"], ["check", "--format", "json", "big.py"],
    ["check", "--format", "github", "--fail-on", "unused", "big.py"],
    ["diff", "wide.py"], ["rewrite", "wide.py"],
]


@pytest.mark.parametrize("argv", sample(CLOSED_PIPE_ARGV, 3, kind=lambda i: i.split(" ")[0],
                                        ids=" ".join))
def test_output_to_a_closed_pipe_ends_quietly(tmp_path, argv):
    """`lazify check ... | head`: no BrokenPipeError traceback, exit status 1."""
    # every format's output larger than a pipe's buffer (64 KiB on Linux; the text one
    # is the shortest, 106 KB): the writer must meet the closed pipe, never finish first
    write(tmp_path, "big.py", "".join(f"import a_module_with_a_rather_long_name_{i:05d}_{'x' * 200}\n"
                                      for i in range(1200)))
    # diff and rewrite print the source: a quarter of the imports, four times as wide,
    # print as much (262 KB and 518 KB) in half the time
    write(tmp_path, "wide.py", "".join(f"import a_module_with_a_rather_long_name_{i:05d}_{'x' * 800}\n"
                                       for i in range(300)))
    # unbuffered: readline takes one line, not a buffer's worth (128 KiB on 3.15, which
    # could drain the whole output before the pipe is closed)
    proc = subprocess.Popen([sys.executable, "-m", "lazify", *argv], cwd=tmp_path, bufsize=0,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": ROOT})
    proc.stdout.readline()
    proc.stdout.close()       # as head does after its lines
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 1
    assert err == ""


@pytest.mark.parametrize("argv, closed, status", [
    (["check", "."], ">&-", 0), (["check", "missing"], ">&- 2>&-", 1),
    (["status"], ">&-", None), (["rewrite", "mod.py"], ">&-", 0),
])
def test_a_command_with_stdout_or_stderr_closed_does_its_work(tmp_path, argv, closed, status):
    """``lazify status >&-`` (cron, a daemon): ``sys.stdout`` is None; the command runs
    to its own exit status (status: the one it has with stdout to a file), not an
    AttributeError traceback."""
    write(tmp_path, "mod.py", "import json\n")

    def sh(redirect):
        return subprocess.run(["sh", "-c", f'"$0" -m lazify "$@" {redirect}', sys.executable,
                               *argv], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)

    proc = sh(closed)
    expected = sh(">/dev/null").returncode if status is None else status
    assert (proc.returncode, proc.stderr) == (expected, ""), proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [["check", "--format", "json", "."], ["status"],
                                  ["diff", "mod.py"]], ids=" ".join)
def test_output_to_a_full_disk_is_one_line(tmp_path, argv):
    """``lazify check --format json . > report.json`` on a full disk (``/dev/full``): one
    line saying so and exit status 1, not an OSError traceback."""
    write(tmp_path, "mod.py", "import json\n\ndef f():\n    return json\n")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "lazify", *argv], cwd=tmp_path,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": ROOT})
    assert (proc.returncode, proc.stderr) == (
        1, f"lazify {argv[0]}: cannot write: No space left on device\n")


def test_a_name_stdout_cannot_encode_is_escaped(tmp_path):
    """An ASCII stdout (the C locale without coercion, ``PYTHONIOENCODING=ascii``) and
    ``import café``: the report says ``caf\\xe9``, not a UnicodeEncodeError traceback."""
    write(tmp_path, "m.py", "import json\nimport café\n\ndef f():\n    return json, café\n")
    proc = subprocess.run([sys.executable, "-m", "lazify", "check", "m.py"], cwd=tmp_path,
                          capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, "PYTHONIOENCODING": "ascii"})
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr.decode()
    assert b"import caf\\xe9" in proc.stdout, proc.stdout


@pytest.mark.parametrize("command, default", [
    ("rewrite", "else rewrite on every Python"),
    ("diff", "else rewrite on every Python"),
    ("check", "else native on 3.15+ and rewrite before"),
    ("compile", "else native on 3.15+ and rewrite before"),
])
def test_help_states_the_real_default_mechanism(command, default, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: LAZIFY_MECHANISM, else [tool.lazify] mechanism, " + default in text


def _lazify_imports(path: str, package: str) -> set[str]:
    """The lazify modules a file imports, at module level or in a function."""
    import ast

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module
            if node.module:
                found.add(module)
            else:                        # ``from . import check``: the submodules
                found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "lazify" or name.startswith("lazify.")}


def test_the_command_line_depends_one_way():
    """``lazify._cli`` -> command modules -> ``common`` -> library, and nothing back: no
    command imports another, ``common`` no command, the library nothing of ``_cli``."""
    cli = os.path.join(ROOT, "lazify", "_cli")
    commands = {name[:-3] for name in os.listdir(cli)
                if name.endswith(".py") and name not in ("__init__.py", "common.py")}
    assert {"check", "rewrite", "diff", "fix", "run", "compile", "report", "cache",
            "activate"} <= commands
    for name in commands:
        imported = _lazify_imports(os.path.join(cli, name + ".py"), "lazify._cli")
        inside = {m for m in imported if m.startswith("lazify._cli")}
        assert inside <= {"lazify._cli.common"}, (name, inside)
    common = _lazify_imports(os.path.join(cli, "common.py"), "lazify._cli")
    assert not {m for m in common if m.startswith("lazify._cli")}, common
    library = os.path.join(ROOT, "lazify")
    for name in os.listdir(library):
        if name.endswith(".py") and name not in ("_main.py", "__main__.py"):
            imported = _lazify_imports(os.path.join(library, name), "lazify")
            assert not {m for m in imported if m.startswith("lazify._cli")}, name


def test_the_wheel_lists_every_package_of_lazify():
    """setuptools installs the packages ``[tool.setuptools] packages`` names, and no
    subpackage of them: ``lazify._cli`` must be named, or an installed ``lazify`` has no
    command line (an editable install hides it)."""
    import ast
    import re

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        listed = re.search(r"^packages = (\[.*\])$", f.read(), re.M)
    packages = {os.path.relpath(directory, ROOT).replace(os.sep, ".")
                for directory, _dirs, files in os.walk(os.path.join(ROOT, "lazify"))
                if "__init__.py" in files}
    assert packages == set(ast.literal_eval(listed.group(1)))


# The child interrupts its own process group (a terminal's Ctrl-C reaches every process
# of the foreground job) from inside the work, at the first file it reaches: the command's
# process and, for compile, its pool's workers all get SIGINT at the same moment.
_CTRL_C = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from lazify import _compile, _sources
def ctrl_c(*args, **kwargs):
    try:                # one Ctrl-C, whichever process reaches its work first
        os.close(os.open("ctrl-c.pressed", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        pass
    else:
        os.killpg(0, signal.SIGINT)
    time.sleep(30)      # the work goes on; a pool's worker ignores SIGINT and is ended by
                        # the pool's terminate
_compile._one = ctrl_c           # compile's work on one file, in a worker or in-process
_sources.read = ctrl_c           # every other command reads its files through this
from lazify._cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("argv", [
    ["compile", "-j", "2", "."],            # a pool of workers (more than 48 files)
    ["compile", "one.py"],                  # in this process
    ["check", "."], ["diff", "."], ["fix", "--diff", "."],
])
def test_ctrl_c_ends_a_command_with_one_line(tmp_path, argv):
    """Ctrl-C mid-command: `lazify <command>: interrupted`, exit status 130, no traceback
    (neither the command's nor one per worker)."""
    for i in range(60):
        write(tmp_path, f"m{i:02d}.py", "import json\n\ndef f():\n    return json\n")
    write(tmp_path, "one.py", "import json\n")
    proc = subprocess.run([sys.executable, "-c", _CTRL_C, *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert (proc.returncode, proc.stderr) == (130, f"lazify {argv[0]}: interrupted\n"), proc.stderr


def test_ctrl_c_while_compiles_pool_starts_is_not_lost(tmp_path):
    """Ctrl-C landing while the pool of workers starts (SIGINT sent to the group as the
    pool is made): the command ends with its one line, as at any other moment; before,
    the signal was ignored there and the command compiled everything (exit status 0)."""
    code = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)   # as at a terminal (see _CTRL_C)
from multiprocessing import context
real = context.BaseContext.Pool
def pool(self, *args, **kwargs):
    os.killpg(0, signal.SIGINT)          # one key press: the whole process group
    return real(self, *args, **kwargs)
context.BaseContext.Pool = pool
from lazify._cli import main
sys.exit(main(sys.argv[1:]))
"""
    for i in range(60):
        write(tmp_path, f"m{i:02d}.py", "import json\n\ndef f():\n    return json\n")
    proc = subprocess.run([sys.executable, "-c", code, "compile", "-j", "2", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          start_new_session=True, env={**os.environ, "PYTHONPATH": ROOT})
    assert (proc.returncode, proc.stderr) == (130, "lazify compile: interrupted\n"), proc.stderr


def test_ctrl_c_during_a_reports_runs_is_the_same_one_line(tmp_path):
    """lazify report, interrupted while it runs the command: the line every command
    says, with no blank line before it where stderr is no terminal (no progress bar)."""
    code = """
import sys
from lazify import _report
def ctrl_c(*args, **kwargs):
    raise KeyboardInterrupt
_report.collect = ctrl_c
from lazify._cli import main
sys.exit(main(sys.argv[1:]))
"""
    proc = subprocess.run([sys.executable, "-c", code, "report", "--", sys.executable, "-c",
                           "pass"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert (proc.returncode, proc.stderr) == (130, "lazify report: interrupted\n"), proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("argv", [["check", "."], ["diff", "."], ["fix", "--diff", "."],
                                  ["compile", "."], ["rewrite", "-o", "out", "."]])
def test_a_fifo_in_a_tree_is_not_a_source_file(tmp_path, argv, lazify_cli):
    """A named pipe (or socket, device) called *.py in a walked tree: reading it would
    block for ever; the walk leaves it out and the command ends.  Run in this process
    (diff, fix and rewrite import libcst), a watchdog ends any read of the pipe, as
    the test's failure: it opens the pipe's other end the moment a reader waits on it."""
    import threading

    a = write(tmp_path, "a.py", "import json\n\ndef f():\n    return json\n")
    os.utime(a, (0, 0))           # not fresh: compile has no second to wait out
    pipe = tmp_path / "pipe.py"
    os.mkfifo(pipe)
    read, done = [], threading.Event()

    def watch():
        while not done.wait(0.005):
            try:        # succeeds only while something has the pipe open to read
                fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            read.append(True)
            os.close(fd)          # the reader meets the end of the file and goes on

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    try:
        proc = lazify_cli(argv, cwd=tmp_path)
    finally:
        done.set()
        watchdog.join()
    assert not read, f"lazify {argv[0]} opened pipe.py to read it"
    assert proc.returncode in (0, 1) and "pipe.py" not in proc.stdout + proc.stderr, proc.stderr
    assert "a.py" in proc.stdout + proc.stderr or argv[0] in ("compile", "rewrite"), proc.stdout


def test_an_error_of_the_clean_up_after_ctrl_c_is_still_an_interrupt(tmp_path):
    """Ctrl-C landing inside a lock's release in the standard library's clean-up (a
    process pool's) raises a RuntimeError in place of the KeyboardInterrupt: still one
    line and exit status 130."""
    code = """
import sys
from lazify import _sources
def ctrl_c_then_clean_up(*args, **kwargs):
    try:
        raise KeyboardInterrupt
    finally:
        raise RuntimeError("release unlocked lock")
_sources.read = ctrl_c_then_clean_up
from lazify._cli import main
sys.exit(main(sys.argv[1:]))
"""
    write(tmp_path, "one.py", "import json\n")
    proc = subprocess.run([sys.executable, "-c", code, "check", "."], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert (proc.returncode, proc.stderr) == (130, "lazify check: interrupted\n"), proc.stderr


def test_status_names_a_sitecustomize_that_python_never_imports(tmp_path):
    """The README's third way, ``lazify.install()`` in a ``sitecustomize.py``, does
    nothing where another one comes first on ``sys.path`` (Debian's and Ubuntu's
    standard library ships one, ahead of site-packages): ``lazify status`` says which
    file would install it and which one Python imports instead."""
    shipped, mine = tmp_path / "stdlib", tmp_path / "site-packages"
    write(shipped, "sitecustomize.py", "# the distribution's own\n")
    write(mine, "sitecustomize.py", "import lazify\nlazify.install()\n")
    proc = run_python(["-m", "lazify", "status"], cwd=tmp_path, env_extra={
        "PYTHONPATH": os.pathsep.join([ROOT, str(shipped), str(mine)])})
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == (
        "lazify is off: not enabled (`lazify enable`, or LAZIFY=1 for one run); "
        f"{mine / 'sitecustomize.py'} would install it, but Python imports one "
        f"sitecustomize, {shipped / 'sitecustomize.py'}, and never this one")
