"""``lazify enable``/``disable``/``status`` and ``LAZIFY=1``/``LAZIFY=0``, end to end: lazify
installed from its wheel into fresh virtual environments (the running Python, and a
Debian-built 3.15 or 3.14 whose standard library ships its own ``sitecustomize.py``), a
console script started from ``/``.

One wheel per session, one environment per interpreter per module (creating them is the
slow part); nothing is fetched: the wheel is installed with ``--no-deps --no-index`` (the
hook needs nothing but the standard library), and building it without build isolation
where this environment can (else with pip's configured index).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from tests._util import ROOT

pytestmark = pytest.mark.skipif(
    os.environ.get("LAZIFY_VENV_TESTS", "") in ("", "0"),
    reason="fresh-venv scenarios (about 20 s per interpreter): LAZIFY_VENV_TESTS=1 runs "
           "them, as .ci/run does")

#: Debian-built interpreters whose stdlib has a sitecustomize.py (Debian and Ubuntu ship one)
DEBIAN = ["/opt/sid-python/3.15/bin/python3.15", "/opt/sid-python/3.14/bin/python3.14"]
OLD_PYTHON = "/root/.pyenv/versions/3.9.18/bin/python"

APP = {
    "app/__init__.py": "",
    # json is never used: lazy, it is never imported; eager, it is
    "app/cli.py": """
        import json
        import sys

        from app import keep

        def main():
            keep.f()
            import lazify
            probe = ("json", "fractions")
            print(*(m in sys.modules for m in probe), lazify.is_lazy_imports_enabled())
    """,
    # excluded by the project's settings: its imports stay eager, used or not
    "app/keep.py": "import fractions\n\ndef f():\n    return 1\n",
}
PYPROJECT = '[project]\nname = "app"\n\n[tool.lazify]\nexcluding = ["app.keep"]\n'


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LAZIFY") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE",
                                                       "PYTHONPYCACHEPREFIX", "VIRTUAL_ENV")}
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run(args, cwd="/", user=None, **extra):
    preexec = None
    if user is not None:
        def preexec():
            os.setgid(user)
            os.setuid(user)
    return subprocess.run(args, cwd=cwd, env=_env(**extra), capture_output=True, text=True,
                          timeout=300, preexec_fn=preexec)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """lazify's wheel, built once from a copy of the worktree (nothing written into it)."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in ("lazify", "pyproject.toml", "setup.py", "README.md", "lazify-imports.pth"):
        copy = shutil.copytree if os.path.isdir(os.path.join(ROOT, name)) else shutil.copy
        copy(os.path.join(ROOT, name), src / name)
    shutil.rmtree(src / "lazify" / "__pycache__", ignore_errors=True)
    tries = [["--no-build-isolation"], []]     # offline where setuptools and wheel are here
    for extra in tries:
        proc = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *extra,
                     "-w", str(base / "dist"), str(src)], cwd=str(base))
        found = glob.glob(str(base / "dist" / "*.whl"))
        if proc.returncode == 0 and found:
            return found[0]
    pytest.skip(f"cannot build lazify's wheel here: {proc.stderr.strip()[-300:]}")


def _make_venv(python, wheel):
    """A fresh venv of *python* with lazify installed from *wheel* and the app in it; in
    a directory others can read (the unwritable test runs as nobody)."""
    home = tempfile.mkdtemp(prefix="lazify-venv-")
    try:
        return _fill_venv(home, python, wheel)
    except BaseException:                # a skip or a failure half-way: nothing left behind
        shutil.rmtree(home, ignore_errors=True)
        raise


def _fill_venv(home, python, wheel):
    os.chmod(home, 0o755)
    venv = os.path.join(home, "venv")
    # another Python gets its own pip (this one's may not run there: pip 23 on 3.15)
    own_pip = ["--without-pip"] if python == sys.executable else []
    proc = _run([python, "-m", "venv", *own_pip, venv])
    if proc.returncode != 0:
        pytest.skip(f"{python} cannot make a venv: {proc.stderr.strip()[-200:]}")
    exe = os.path.join(venv, "bin", "python")
    site = _run([exe, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    _install(exe, wheel)
    for name, text in APP.items():
        path = os.path.join(site, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        old = time.time() - 3600     # as pip leaves them: not "just modified", so cached
        os.utime(path, (old, old))
    script = os.path.join(venv, "bin", "app")
    with open(script, "w") as f:     # what pip writes for a console_scripts entry point
        f.write(f"#!{exe}\nimport sys\nfrom app.cli import main\nsys.exit(main())\n")
    os.chmod(script, 0o755)
    project = os.path.join(home, "project")
    os.mkdir(project)
    with open(os.path.join(project, "pyproject.toml"), "w") as f:
        f.write(PYPROJECT)
    return {"home": home, "venv": venv, "python": exe, "site": site, "project": project,
            "lazify": os.path.join(venv, "bin", "lazify"), "app": script}


def _pip(exe, *args):
    """pip for the venv of *exe*: its own if it has one, else this one's (``--python``)."""
    if os.path.exists(os.path.join(os.path.dirname(exe), "pip")):
        return _run([exe, "-m", "pip", *args])
    return _run([sys.executable, "-m", "pip", "--python", exe, *args])


def _install(exe, wheel):
    proc = _pip(exe, "install", "-q", "--no-deps", "--no-index", "--force-reinstall", wheel)
    assert proc.returncode == 0, proc.stderr


def _interpreters():
    params = [pytest.param(sys.executable, id=f"{sys.version_info[0]}.{sys.version_info[1]}")]
    debian = next((p for p in DEBIAN if os.path.exists(p)), None)
    params.append(pytest.param(debian, id="debian", marks=pytest.mark.skipif(
        debian is None, reason=f"no Debian-built 3.14/3.15 here ({', '.join(DEBIAN)})")))
    return params


@pytest.fixture(scope="module", params=_interpreters())
def env(request, wheel):
    made = _make_venv(request.param, wheel)
    yield made
    shutil.rmtree(made["home"], ignore_errors=True)



def _app(env, **extra):
    proc = _run([env["app"]], **extra)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split(), proc.stderr


def _enable(env, *args):
    return _run([env["lazify"], "enable", *args], cwd=env["project"])


def _written(env):
    """What ``enable`` writes, where it is (temporary files included)."""
    cache = os.path.join(env["site"], "__pycache__")
    names = os.listdir(env["site"]) + (os.listdir(cache) if os.path.isdir(cache) else [])
    return sorted(n for n in names if n.startswith(("lazify-enabled", "_lazify_enabled")))


def _pth(env):
    return os.path.join(env["site"], "lazify-enabled.pth")


# ------------------------------------------------------------------------------------


def test_enable_then_a_console_script_starts_lazily_from_root(env):
    """``lazify enable`` in the project: the console script, started from ``/``, defers
    json and keeps the project's exclusion (app.keep's import eager); then ``disable``."""
    assert _app(env) == (["True", "True", "False"], "")            # plain: all eager
    proc = _enable(env)
    assert proc.returncode == 0, proc.stderr
    assert "excluding app.keep" in proc.stdout
    assert _app(env) == (["False", "True", "True"], "")
    status = _run([env["lazify"], "status"])
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.startswith("lazify is active: enabled for this environment")
    assert f"+ app.keep (recorded by lazify enable from {env['project']}" in status.stdout
    # enable wrote the cache of every module in site-packages lazify rewrites
    assert re.search(r"^compiled: ([1-9]\d*) of \1 modules in ", status.stdout, re.M), status.stdout
    # again, from elsewhere with other settings: updated
    other = os.path.join(env["home"], "other.toml")
    with open(other, "w") as f:
        f.write("[tool.lazify]\nexcluding = []\n")
    proc = _run([env["lazify"], "enable", "--no-compile", "--settings", other])
    assert proc.returncode == 0 and proc.stdout.startswith("lazify enable: updated"), proc.stderr
    assert _app(env) == (["False", "False", "True"], "")
    # the .pth file, the module it imports and that module's pyc, by the venv's Python
    version = _run([env["python"], "-c", "import sys; print(*sys.version_info[:2])"]).stdout
    for name in ("lazify-enabled.pth", "_lazify_enabled.py",
                 "_lazify_enabled.cpython-%s%s.pyc" % tuple(version.split())):
        assert name in _written(env)
    # the measurement of the rewriter's dependencies, kept beside lazify's bytecode (where
    # no per-user copy answers, as on a first enable): disable removes it, or pip
    # uninstall would leave a lazify directory behind, a namespace package to import
    measured = os.path.join(env["site"], "lazify", "__pycache__", "rewriter-deps.*.txt")
    _run([env["python"], "-c", "from lazify import _hook; _hook.plain_modules()"],
         XDG_CACHE_HOME=os.path.join(env["home"], "fresh-cache"))
    assert glob.glob(measured)
    # the start-up bundle, written by a start that may write bytecode: the same
    bundle = os.path.join(env["site"], "lazify", "__pycache__", "__startup__.*.pyc")
    _run([env["python"], "-c", "import lazify; lazify.install()"], PYTHONDONTWRITEBYTECODE=None)
    assert glob.glob(bundle)
    proc = _run([env["lazify"], "disable"])
    assert proc.returncode == 0, proc.stderr
    assert _written(env) == []
    assert glob.glob(measured) == []
    assert glob.glob(bundle) == []
    assert _app(env) == (["True", "True", "False"], "")
    status = _run([env["lazify"], "status"])
    assert status.returncode == 1 and status.stdout.startswith("lazify is off: not enabled")


def test_lazify_1_in_an_environment_never_enabled(env):
    """The distribution's .pth: LAZIFY=1 is global mode for the program and its children."""
    assert not os.path.exists(_pth(env))
    # the venv's first lazy start (alone, or after other tests): its cache misses
    # written at once, so the runs below find lazify's cache whatever ran before
    _app(env, LAZIFY="1", LAZIFY_DEFER_REWRITE="0")
    assert _app(env, LAZIFY="1") == (["False", "False", "True"], "")
    child = ("import subprocess, sys; "
             "subprocess.run([sys.argv[1]], check=True)")
    proc = _run([env["python"], "-c", child, env["app"]], LAZIFY="yes")
    assert proc.stdout.split() == ["False", "False", "True"], proc.stderr
    assert _app(env, LAZIFY="banana") == (["True", "True", "False"], (
        "lazify: LAZIFY='banana' is not one of 1/0, true/false, yes/no, on/off; taken as unset\n"))


def test_lazify_0_in_an_enabled_environment(env):
    assert _enable(env, "--no-compile").returncode == 0
    try:
        assert _app(env, LAZIFY="0") == (["True", "True", "False"], "")
        assert _app(env, LAZIFY="Off", LAZIFY_DISABLE="1") == (["True", "True", "False"], "")
        # a malformed LAZIFY is read by the .pth file and by install(): one line, not two
        # that differ; taken as unset, the enabled environment stays on
        probes, err = _app(env, LAZIFY="banana")
        assert (probes[-1], err) == ("True", "lazify: LAZIFY='banana' is not one of 1/0, "
                                             "true/false, yes/no, on/off; taken as unset\n")
        status = _run([env["lazify"], "status"], LAZIFY="0")
        assert status.returncode == 1 and status.stdout.startswith("lazify is off: LAZIFY=0")
    finally:
        _run([env["lazify"], "disable"])


@pytest.mark.parametrize("case", ["broken", "unreadable", "python 3.9", "unknown python",
                                  "not a program"])
def test_enable_refuses_bad_input_in_one_line_and_changes_nothing(env, case):
    args, status = [], 2
    if case == "broken":
        bad = os.path.join(env["home"], "bad.toml")
        with open(bad, "w") as f:
            f.write("[tool.lazify]\nexcluding = 3\n")
        args, message = ["--settings", bad], "excluding must be a list of module names"
    elif case == "unreadable":
        args, message = ["--settings", env["home"]], "no such file"
    elif case == "python 3.9":
        if not os.path.exists(OLD_PYTHON):
            pytest.skip(f"no Python 3.9 at {OLD_PYTHON}")
        args, message, status = ["--python", OLD_PYTHON], "lazify needs 3.10 or newer", 1
    elif case == "unknown python":
        args, message = ["--python", "/nonexistent/python"], "no such interpreter (no such file)"
    else:                                # a file that is there, not a typo'd path
        text = os.path.join(env["home"], "notes.txt")
        with open(text, "w") as f:
            f.write("not a program\n")
        args, message = ["--python", text], "no such interpreter (not an executable file)"
    proc = _enable(env, *args)
    assert proc.returncode == status
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert _written(env) == []
    assert _app(env) == (["True", "True", "False"], "")


@pytest.mark.parametrize("how", ["relative", "on PATH"])
def test_enable_python_given_as_a_shell_would(env, how):
    """``--python venv/bin/python`` from the venv's parent and ``--python python`` with
    the venv's bin on PATH: the interpreter a shell would run there (enable asked it from
    "/", where a relative path named nothing: 'not a Python interpreter')."""
    if how == "relative":
        proc = _run([env["lazify"], "enable", "--no-compile", "--python",
                     os.path.join("venv", "bin", "python")], cwd=env["home"])
    else:
        path = os.path.dirname(env["python"]) + os.pathsep + os.environ.get("PATH", "")
        proc = _run([env["lazify"], "enable", "--no-compile", "--python", "python"],
                    cwd=env["home"], PATH=path)
    try:
        assert proc.returncode == 0, proc.stderr
        assert _run([env["lazify"], "status"]).returncode == 0       # active there
    finally:
        _run([env["lazify"], "disable"])


def test_enable_for_a_user_install(tmp_path, wheel):
    """``pip install --user lazify-imports`` into a system Python, then ``lazify enable``
    as that user: the files go into the user's site-packages (site reads it at every start
    of that user's interpreter), not the system's, which the user cannot write (or which
    does not exist: Debian's local/lib/python3.X/dist-packages); disable removes them."""
    # 3.14 first: this pip (23) cannot install for 3.15
    python = next((p for p in reversed(DEBIAN) if os.path.exists(p)), None)
    if python is None:
        pytest.skip(f"no system Python here that a user cannot write ({', '.join(DEBIAN)})")
    nobody = 65534 if os.geteuid() == 0 else None
    home = tempfile.mkdtemp(prefix="lazify-user-")
    try:
        os.chmod(home, 0o755)
        user = {"PYTHONUSERBASE": os.path.join(home, "base"), "HOME": home}
        proc = _run([sys.executable, "-m", "pip", "--python", python, "install", "-q",
                     "--user", "--break-system-packages", "--no-deps", "--no-index", wheel],
                    **user)
        if proc.returncode != 0:
            pytest.skip(f"pip cannot install --user for {python}: {proc.stderr.strip()[-200:]}")
        if nobody is not None:
            for top, dirs, files in os.walk(home):
                for name in [top, *(os.path.join(top, n) for n in dirs + files)]:
                    os.chown(name, nobody, nobody)
        site = _run([python, "-m", "site", "--user-site"], **user).stdout.strip()
        enable = _run([python, "-m", "lazify", "enable", "--no-compile"], user=nobody, **user)
        assert enable.returncode == 0, enable.stderr
        assert f"for this user ({site})" in enable.stdout
        assert os.path.exists(os.path.join(site, "lazify-enabled.pth"))
        probe = "import lazify; print(lazify.is_lazy_imports_enabled())"
        assert _run([python, "-c", probe], user=nobody, **user).stdout == "True\n"
        status = _run([python, "-m", "lazify", "status"], user=nobody, **user)
        assert f"modules in {site}" in status.stdout, status.stdout
        disable = _run([python, "-m", "lazify", "disable"], user=nobody, **user)
        assert disable.returncode == 0, disable.stderr
        assert not os.path.exists(os.path.join(site, "lazify-enabled.pth"))
        assert _run([python, "-c", probe], user=nobody, **user).stdout == "False\n"
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_enable_with_an_unwritable_site_packages(env):
    """As another user (root writes anywhere): one line, exit 1, no file left behind."""
    nobody = 65534 if os.geteuid() == 0 else None
    os.chmod(env["site"], 0o555)
    try:
        proc = _run([env["lazify"], "enable", "--no-compile"], cwd=env["home"], user=nobody)
    except PermissionError as exc:
        pytest.skip(f"nobody cannot run this interpreter ({exc})")
    finally:
        os.chmod(env["site"], 0o755)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"lazify enable: cannot write to {env['site']}: Permission denied")
    assert proc.stderr.count("\n") == 1
    assert _written(env) == []
    assert _app(env) == (["True", "True", "False"], "")


def test_lazify_uninstalled_after_enable(env, wheel):
    """The enabled environment keeps starting, eagerly, with one line saying why."""
    assert _enable(env, "--no-compile").returncode == 0
    proc = _pip(env["python"], "uninstall", "-y", "lazify-imports")
    assert proc.returncode == 0, proc.stderr
    try:
        assert not os.path.exists(os.path.join(env["site"], "lazify-imports.pth"))
        proc = _run([env["python"], "-c", "import sys; print('json' in sys.modules)"])
        assert proc.returncode == 0 and proc.stdout == "False\n"
        assert proc.stderr.count("\n") == 1
        assert proc.stderr.startswith("lazify: this environment was enabled with `lazify enable` "
                                      "but lazify cannot start (ModuleNotFoundError")
        assert _pth(env) in proc.stderr
    finally:
        _install(env["python"], wheel)
        assert _run([env["lazify"], "disable"]).returncode == 0
    assert _written(env) == []


def test_an_editable_install_ships_the_distribution_pth_too(tmp_path):
    """The README's ``pip install -e .``: setuptools builds an editable wheel without
    build_py's outputs; setup.py adds the file to it."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("lazify", "pyproject.toml", "setup.py", "README.md", "lazify-imports.pth"):
        copy = shutil.copytree if os.path.isdir(os.path.join(ROOT, name)) else shutil.copy
        copy(os.path.join(ROOT, name), src / name)
    venv = str(tmp_path / "venv")
    assert _run([sys.executable, "-m", "venv", "--without-pip", venv]).returncode == 0
    exe = os.path.join(venv, "bin", "python")
    for extra in (["--no-build-isolation"], []):
        proc = _pip(exe, "install", "-q", "--no-deps", *extra, "-e", str(src))
        if proc.returncode == 0:
            break
    else:
        pytest.skip(f"cannot make an editable install here: {proc.stderr.strip()[-300:]}")
    probe = ["-c", "import lazify; print(lazify.__file__.startswith(%r), "
                   "lazify.is_lazy_imports_enabled())" % str(src)]
    assert _run([exe, *probe], LAZIFY="1").stdout == "True True\n"
    assert _run([exe, *probe]).stdout == "True False\n"
