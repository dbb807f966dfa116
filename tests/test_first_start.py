"""The cache in real environments: a first start with lazify's cache empty is served from
the plain pycs and rewritten after the program (lazify._deferred); with no writable cache
nothing is rewritten and one warning per environment says what to do; concurrent first
starts stay correct and leave no temporary files."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from tests._sample import full_only
from tests._util import child_env, run_python
from tests.test_hook import write_tree

#: the program: imports an application module whose own import of ``heavy`` is lazy
#: under lazify; prints what plain Python prints, then (on stderr) what lazify did
APP = """\
import sys
import lazify._hook
lazify.install()
import mod
print("heavy loaded:", "heavy" in sys.modules, "rewriter loaded:", "ast" in sys.modules,
      file=sys.stderr)
print(mod.double(21))
print("stats:", sorted((k, v) for k, v in lazify._hook.stats.items() if v), file=sys.stderr)
"""
MOD = """\
import heavy

def double(x):
    return heavy.twice(x)
"""
HEAVY = "def twice(x):\n    return 2 * x\n"

#: the first start as users get it: the rewrite deferred (tests/_util.py turns that off)
DEFERRED = {"LAZIFY_DEFER_REWRITE": None}


def lazify_pycs(root):
    """lazify's pycs under root (either mechanism's tag), relative, sorted."""
    pattern = os.path.join(str(root), "**", "*.opt-*lazify*.pyc")
    return sorted(os.path.relpath(p, root) for p in glob.glob(pattern, recursive=True))


def make_app(root):
    write_tree(root, {"app.py": APP, "mod.py": MOD, "heavy.py": HEAVY})
    return root


def start(root, env=None, **kw):
    extra = {**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg"), "TMPDIR": str(root / ".tmp"),
             **(env or {})}
    os.makedirs(root / ".tmp", exist_ok=True)
    return run_python(["app.py"], cwd=root, env_extra=extra, **kw)


def wait_for_cache(root, names, timeout=60):
    """Wait until the detached rewrite wrote lazify's pycs for ``names`` under root."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        have = lazify_pycs(root)
        if all(any(os.path.basename(p).startswith(f"{n}.") for p in have) for n in names):
            return have
        time.sleep(0.05)
    raise AssertionError(f"no lazify pycs for {names} after {timeout}s: {lazify_pycs(root)}")


def leftovers(*roots):
    """Temporary files of lazify's atomic writes under the roots."""
    return [p for r in roots for p in glob.glob(os.path.join(str(r), "**", "*.tmp"), recursive=True)]


def plain_output(root):
    """What the program prints without lazify."""
    code = open(root / "app.py").read().replace("lazify.install()", "pass")
    return run_python(["-c", code], cwd=root, env_extra=DEFERRED, check=True).stdout


# ------------------------------------------------------------- first start after install


def test_first_start_is_plain_then_the_cache_is_written_after_the_program(tmp_path):
    root = make_app(tmp_path / "app")
    first = start(root, check=True)
    assert first.stdout == plain_output(root) == "42\n"
    # served from the plain pyc: eager as plain Python, and the rewriter never imported
    assert "heavy loaded: True rewriter loaded: False" in first.stderr, first.stderr
    assert "('compiled'" not in first.stderr and "('deferred'" in first.stderr, first.stderr
    # the plain pyc of each module, as plain Python writes it
    assert os.path.exists(root / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc")
    wait_for_cache(root, ["mod", "heavy"])
    second = start(root, check=True)
    assert second.stdout == first.stdout
    assert "heavy loaded: False rewriter loaded: False" in second.stderr, second.stderr
    assert "('deferred'" not in second.stderr, second.stderr
    assert not leftovers(root)


def test_first_start_rewrites_at_once_when_asked(tmp_path):
    root = make_app(tmp_path / "app")
    proc = start(root, env={"LAZIFY_DEFER_REWRITE": "0"}, check=True)
    assert "heavy loaded: False" in proc.stderr, proc.stderr
    assert "('compiled'" in proc.stderr and "('deferred'" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("value", ["no", "OFF", "False"])
def test_defer_rewrite_accepts_the_boolean_spellings(tmp_path, value):
    root = make_app(tmp_path / "app")
    proc = start(root, env={"LAZIFY_DEFER_REWRITE": value}, check=True)
    assert "heavy loaded: False" in proc.stderr, proc.stderr


def test_defer_rewrite_rejects_a_non_boolean_with_one_line(tmp_path):
    root = make_app(tmp_path / "app")
    proc = start(root, env={"LAZIFY_DEFER_REWRITE": "banana"}, check=True)
    lines = [line for line in proc.stderr.splitlines() if "banana" in line]
    assert len(lines) == 1 and "1/0, true/false, yes/no, on/off" in lines[0], proc.stderr
    assert "heavy loaded: True" in proc.stderr          # the default: deferred


def test_explicitly_lazy_module_is_rewritten_on_first_start(tmp_path):
    """A module that asks for lazy imports itself is never served eagerly: rewritten
    at once before 3.15; served plain on 3.15, whose interpreter defers them itself
    (nothing rewritten in the program, the rewriter not imported)."""
    root = make_app(tmp_path / "app")
    (root / "mod.py").write_text('__lazy_modules__ = ["heavy"]\n' + MOD)
    os.utime(root / "mod.py", (time.time() - 3600,) * 2)
    proc = start(root, check=True)
    assert proc.stdout == "42\n"
    if sys.version_info >= (3, 15):
        assert "heavy loaded: False rewriter loaded: False" in proc.stderr, proc.stderr
        assert "('compiled'" not in proc.stderr, proc.stderr
    else:
        assert "heavy loaded: False" in proc.stderr, proc.stderr
        assert "('compiled', 1)" in proc.stderr, proc.stderr


def test_explicitly_lazy_module_is_plain_where_its_rewrite_cannot_be_kept(tmp_path):
    """Rewritten at every start it would make every start slower than plain: served as
    the interpreter serves it (before 3.15 ``__lazy_modules__`` is ignored), and counted
    by the warning."""
    root = make_app(tmp_path / "app")
    (root / "mod.py").write_text('__lazy_modules__ = ["heavy"]\n' + MOD)
    os.utime(root / "mod.py", (time.time() - 3600,) * 2)
    proc = start(root, env={"PYTHONDONTWRITEBYTECODE": "1"}, check=True)
    assert proc.stdout == "42\n"
    # 3.15 honours __lazy_modules__ itself
    eager = sys.version_info < (3, 15)
    assert f"heavy loaded: {eager} rewriter loaded: False" in proc.stderr, proc.stderr
    assert "('compiled'" not in proc.stderr
    assert "2 modules imported eagerly" in proc.stderr, proc.stderr
    # no directory would hold the cache: the one remedy is writing it ahead of time
    assert "lazify compile --env" in proc.stderr and "XDG_CACHE_HOME" not in proc.stderr


@pytest.mark.skipif(sys.version_info < (3, 15), reason="PEP 810's lazy import statement: 3.15+")
def test_lazy_statement_module_is_lazy_on_first_start(tmp_path):
    """3.15 compiles the statement itself: served plain, its lazy imports lazy, nothing
    rewritten in the program."""
    root = make_app(tmp_path / "app")
    (root / "mod.py").write_text("lazy import json\n" + MOD.replace("import heavy",
                                                                     "lazy import heavy"))
    os.utime(root / "mod.py", (time.time() - 3600,) * 2)
    proc = start(root, check=True)
    assert proc.stdout == "42\n"
    assert "heavy loaded: False rewriter loaded: False" in proc.stderr, proc.stderr
    assert "('compiled'" not in proc.stderr and "json" not in proc.stderr, proc.stderr


def test_syntax_error_on_first_start_is_pythons(tmp_path):
    root = make_app(tmp_path / "app")
    (root / "mod.py").write_text("def (:\n")
    proc = start(root)
    plain = run_python(["-c", "import mod"], cwd=root, env_extra=DEFERRED)
    assert proc.returncode == plain.returncode == 1
    assert proc.stderr.splitlines()[-1] == plain.stderr.splitlines()[-1]
    assert "lazify" not in proc.stderr.splitlines()[-1]


def test_forked_child_leaves_the_rewrite_to_its_parent(tmp_path):
    """The handler runs once per process that noted the misses: a fork that exits
    normally does not start a second rewrite (nor warn)."""
    root = make_app(tmp_path / "app")
    (root / "app.py").write_text(APP + "import os\npid = os.fork()\nif pid == 0:\n"
                                 "    import lazify._deferred as d\n"
                                 "    d.spawn = lambda missed: print('CHILD SPAWNED')\n"
                                 "    sys.exit(0)\nos.waitpid(pid, 0)\n")
    proc = start(root, check=True)
    assert "CHILD SPAWNED" not in proc.stdout
    wait_for_cache(root, ["mod", "heavy"])


#: a process that keeps running: its misses are cached while it runs, without exiting
SERVER = """\
import glob, os, sys, time
import lazify, lazify._miss
lazify._miss.QUIET = 0.3
lazify.install()
import mod
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    garbage = [[i] for i in range(10000)]          # a running program allocates
    if len(glob.glob("**/heavy.*lazify*.pyc", recursive=True)) and \\
            len(glob.glob("**/mod.*lazify*.pyc", recursive=True)):
        print("cached while running")
        break
    time.sleep(0.05)
print(mod.double(21))
"""


def make_server(root, tail=""):
    """The app's modules and a server; sources dated an hour ago (a source modified
    in the last second gets no timestamp pyc, and the handover comes sooner)."""
    make_app(root)
    (root / "later.py").write_text("X = 1\n")
    (root / "server.py").write_text(SERVER + tail)
    for name in ("mod.py", "heavy.py", "later.py"):
        os.utime(root / name, (time.time() - 3600,) * 2)
    return root


def test_long_running_process_gets_its_cache_written_while_it_runs(tmp_path):
    root = make_server(tmp_path / "app")
    proc = run_python(["server.py"], cwd=root, check=True, env_extra={
        **DEFERRED, "LAZIFY_DEBUG": "1", "XDG_CACHE_HOME": str(root / ".xdg")})
    assert proc.stdout == "cached while running\n42\n", proc.stderr
    # handed over once, while it ran; nothing left for the exit
    assert proc.stderr.count("cache misses out of the program") == 1, proc.stderr
    assert "(while it runs, child" in proc.stderr, proc.stderr
    second = start(root, check=True)
    assert "heavy loaded: False" in second.stderr, second.stderr


def test_misses_after_the_handover_wait_for_the_exit(tmp_path):
    """A miss after the handover (a module imported later) is handed over on its own."""
    root = make_server(tmp_path / "app", "import later\nprint(later.X)\n")
    proc = run_python(["server.py"], cwd=root, check=True, env_extra={
        **DEFERRED, "LAZIFY_DEBUG": "1", "XDG_CACHE_HOME": str(root / ".xdg")})
    assert proc.stdout == "cached while running\n42\n1\n", proc.stderr
    assert "rewriting 2 cache misses out of the program (while it runs" in proc.stderr
    assert "rewriting 1 cache misses out of the program (at exit" in proc.stderr
    wait_for_cache(root, ["later"])


# --------------------------------------------------------------- no writable cache


def test_dont_write_bytecode_serves_plain_and_warns_once_per_environment(tmp_path):
    root = make_app(tmp_path / "app")
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    first = start(root, env=env, check=True)
    assert first.stdout == "42\n"
    assert "heavy loaded: True rewriter loaded: False" in first.stderr, first.stderr
    warnings = [line for line in first.stderr.splitlines() if "cannot be written" in line]
    assert len(warnings) == 1, first.stderr
    assert "PYTHONDONTWRITEBYTECODE" in warnings[0] and "lazify compile --env" in warnings[0]
    # the script's directory, which --env leaves out, is named: the command compiles mod
    assert f"Run `lazify compile --env {root}` where" in warnings[0], warnings[0]
    second = start(root, env=env, check=True)
    assert "cannot be written" not in second.stderr, second.stderr
    # the per-user cache directory appears (any lazify command can make it): still said once
    os.makedirs(root / ".xdg" / "lazify", mode=0o700)
    second = start(root, env=env, check=True)
    assert "cannot be written" not in second.stderr, second.stderr
    # the same environment's interpreter under another of its names (python3, python3.X)
    bindir = os.path.dirname(sys.executable)
    other = next((os.path.join(bindir, name) for name in
                  ("python3", f"python{sys.version_info[0]}.{sys.version_info[1]}", "python")
                  if os.path.join(bindir, name) != sys.executable
                  and os.path.exists(os.path.join(bindir, name))), None)
    if other is not None:
        third = subprocess.run([other, "app.py"], cwd=root, capture_output=True, text=True,
                               env=child_env({**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg"),
                                              "TMPDIR": str(root / ".tmp"), **env}))
        assert third.returncode == 0 and "cannot be written" not in third.stderr, third.stderr
    time.sleep(0.5)                                     # (no child was started)
    assert lazify_pycs(root) == [] and lazify_pycs(root / ".xdg") == []
    # lazify compile at build time: then every start is lazy, with nothing written
    run_python(["-m", "lazify", "compile", str(root)], env_extra=env, check=True)
    third = start(root, env=env, check=True)
    assert "heavy loaded: False rewriter loaded: False" in third.stderr, third.stderr
    assert "cannot be written" not in third.stderr


def test_the_warning_is_remembered_only_once_it_is_said(tmp_path):
    """A start with standard error closed (``2>&-``, cron) cannot say the warning: it is
    not remembered as said, and the next start with standard error says it."""
    root = make_app(tmp_path / "app")
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    os.makedirs(root / ".tmp", exist_ok=True)
    closed = subprocess.run(
        [sys.executable, "app.py"], cwd=root, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, preexec_fn=lambda: os.close(2),
        env=child_env({**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg"),
                       "TMPDIR": str(root / ".tmp"), **env}))
    assert closed.returncode == 0 and "42" in closed.stdout
    second = start(root, env=env, check=True)
    warnings = [line for line in second.stderr.splitlines() if "cannot be written" in line]
    assert len(warnings) == 1, second.stderr


def _nobody_can_run_python():
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "not root: cannot run as nobody"
    try:
        proc = subprocess.run([sys.executable, "-c", "import lazify"], user="nobody",
                              env=child_env(), capture_output=True, timeout=60, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot start a child as nobody: {exc}"
    if proc.returncode:
        return f"user nobody cannot run {sys.executable} with lazify (a home directory " \
               f"only root can read?): {proc.stderr.decode()[-200:]}"
    return None


def test_read_only_tree_as_nobody_serves_plain_and_warns_once(tmp_path):
    why = _nobody_can_run_python()
    if why:
        pytest.skip(why)
    base = tempfile.mkdtemp(prefix="lazify-ro-")
    try:
        os.chmod(base, 0o755)
        root = make_app(__import__("pathlib").Path(base) / "app")
        for d in (root,):
            os.chmod(d, 0o755)
        home = os.path.join(base, "home")                # read-only HOME
        os.mkdir(home, 0o555)
        tmp = os.path.join(base, "tmp")                  # where the warning is remembered
        os.mkdir(tmp)
        os.chmod(tmp, 0o1777)
        env = child_env({**DEFERRED, "HOME": home, "XDG_CACHE_HOME": None, "TMPDIR": tmp})

        def as_nobody():
            return subprocess.run([sys.executable, "app.py"], cwd=root, env=env, user="nobody",
                                  capture_output=True, text=True, timeout=120)

        first = as_nobody()
        assert first.returncode == 0, first.stderr
        assert first.stdout == "42\n"
        assert "heavy loaded: True rewriter loaded: False" in first.stderr, first.stderr
        warnings = [line for line in first.stderr.splitlines() if "cannot be written" in line]
        assert len(warnings) == 1 and "lazify compile --env" in warnings[0], first.stderr
        assert "set XDG_CACHE_HOME" in warnings[0]      # a writable one would hold it
        second = as_nobody()
        assert second.returncode == 0 and "cannot be written" not in second.stderr, second.stderr
        time.sleep(0.5)
        assert lazify_pycs(root) == [] and not os.listdir(home)
        assert not leftovers(root, tmp)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_read_only_tree_with_a_writable_home_uses_the_per_user_cache(tmp_path):
    """chmod (not as root: root writes anyway): the rewrite after the first start goes
    to the per-user directory, and no warning is given."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root writes into a read-only tree (the nobody test covers it)")
    root = make_app(tmp_path / "app")
    run_python(["-c", "import mod"], cwd=root, env_extra=DEFERRED, check=True)  # plain pycs
    for d in (root, root / "__pycache__"):
        os.chmod(d, 0o555)
    try:
        first = start(root, check=True)
        assert "cannot be written" not in first.stderr
        wait_for_cache(root / ".xdg", ["mod", "heavy"])
        second = start(root, check=True)
        assert "heavy loaded: False" in second.stderr, second.stderr
    finally:
        for d in (root, root / "__pycache__"):
            os.chmod(d, 0o755)


# ------------------------------------------------------ lazify run: lazy from the first


@pytest.mark.parametrize("env, lazy", [({}, True), ({"PYTHONDONTWRITEBYTECODE": "1"}, False)],
                         ids=["cache-writable", "no-writable-cache"])
def test_lazify_run_is_lazy_from_its_first_run_where_the_cache_can_be_written(
        tmp_path, env, lazy):
    """``lazify run`` asks for a lazy run: a miss is rewritten at once and cached where
    it can be (the first run lazy), served plain where it cannot; LAZIFY_DEFER_REWRITE=1
    gives the default of an enabled environment's starts back."""
    root = tmp_path / "app"
    write_tree(root, {"main.py": "import sys, mod\nprint('heavy' in sys.modules, mod.double(2))\n",
                      "mod.py": MOD, "heavy.py": HEAVY})
    extra = {**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg"), **env}
    first = run_python(["-m", "lazify", "run", "main.py"], cwd=root, env_extra=extra, check=True)
    assert first.stdout == f"{not lazy} 4\n"
    assert bool(lazify_pycs(root)) is lazy            # written by the run itself, at once
    shutil.rmtree(root / "__pycache__", ignore_errors=True)
    asked = run_python(["-m", "lazify", "run", "main.py"], cwd=root,
                       env_extra={**extra, "LAZIFY_DEFER_REWRITE": "1"}, check=True)
    assert asked.stdout == "True 4\n"                  # served plain: heavy imported eagerly


# ---------------------------------------------------------- concurrent first starts


#: "0" (each start rewrites at once) under LAZIFY_FULL_TESTS=1: concurrent writers of one
#: cache file are tested in-process by tests/test_cache.py by default
@pytest.mark.parametrize("defer", ["1", pytest.param("0", marks=full_only)])
def test_concurrent_first_starts_are_correct_and_leave_no_temporary_files(tmp_path, defer):
    root = make_app(tmp_path / "app")
    for i in range(12):
        (root / f"m{i}.py").write_text(f"import heavy\nVALUE = {i}\n")
        os.utime(root / f"m{i}.py", (time.time() - 3600,) * 2)
    (root / "app.py").write_text(APP + "".join(f"import m{i}\n" for i in range(12))
                                 + "print(sum(__import__(f'm{i}').VALUE for i in range(12)))\n")
    env = child_env({"LAZIFY_DEFER_REWRITE": defer, "XDG_CACHE_HOME": str(root / ".xdg")})
    procs = [subprocess.Popen([sys.executable, "app.py"], cwd=root, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(6)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out == "42\n66\n"
    names = ["mod", "heavy", *(f"m{i}" for i in range(12))]
    wait_for_cache(root, names)
    time.sleep(0.5)
    assert not leftovers(root, root / ".xdg")
    again = start(root, env={"LAZIFY_DEFER_REWRITE": defer}, check=True)
    assert "heavy loaded: False" in again.stderr and "('deferred'" not in again.stderr, again.stderr


def test_lazify_run_first_start_writes_no_plain_pyc_for_the_script(tmp_path):
    """``python script.py`` writes no pyc for the script; nor does ``lazify run``'s
    deferred first start (the rewrite after it writes lazify's own, as before)."""
    root = make_app(tmp_path / "app")
    env = {**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg")}
    proc = run_python(["-m", "lazify", "run", "app.py"], cwd=root, env_extra=env, check=True)
    assert proc.stdout == "42\n"
    wait_for_cache(root, ["app", "mod", "heavy"])
    assert not any(name.startswith("app.") and "lazify" not in name
                   for name in os.listdir(root / "__pycache__"))


def test_lazify_commands_leave_the_warning_to_the_program(tmp_path):
    """A lazify command (not ``run``) in an environment where lazify is active at
    start-up, with nothing writable: the modules it imported eagerly are its own, so it
    neither warns ('run `lazify compile --env`' at the end of ``lazify compile --env``
    itself, after an upgrade of lazify) nor uses up the warning, which the program gets."""
    root = make_app(tmp_path / "app")
    env = {"PYTHONDONTWRITEBYTECODE": "1", "LAZIFY": "1", "XDG_CACHE_HOME": str(root / ".xdg"),
           "TMPDIR": str(root / ".tmp"), "PYTHONPYCACHEPREFIX": str(tmp_path / "empty"),
           **DEFERRED}
    os.makedirs(root / ".tmp")
    for command in (["check", "mod.py"], ["status"]):
        proc = run_python(["-m", "lazify", *command], cwd=root, env_extra=env)
        assert "cannot be written" not in proc.stderr, (command, proc.stderr)
    first = start(root, env=env, check=True)
    assert "cannot be written" in first.stderr, first.stderr


def test_the_warning_under_o_names_the_compile_that_helps(tmp_path):
    """lazify's pycs are per optimization level: a program run with -O is told to run
    ``python -O -m lazify compile --env`` (the plain command writes -O's cache no more
    than before), and after that command its starts are lazy."""
    root = make_app(tmp_path / "app")
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    extra = {**DEFERRED, "XDG_CACHE_HOME": str(root / ".xdg"), "TMPDIR": str(root / ".tmp"), **env}
    os.makedirs(root / ".tmp")
    first = run_python(["-O", "app.py"], cwd=root, env_extra=extra, check=True)
    assert f"Run `python -O -m lazify compile --env {root}` where" in first.stderr, first.stderr
    run_python(["-O", "-m", "lazify", "compile", str(root)], env_extra=env, check=True)
    second = run_python(["-O", "app.py"], cwd=root, env_extra=extra, check=True)
    assert "heavy loaded: False" in second.stderr, second.stderr
