"""A module that adds an audit hook (``sys.addaudithook``): when it is imported, its
top-level package's deferred imports are done and stay eager from then on
(:mod:`lazify._audit`, reason ``audit-hook``).  ``pip install`` adds one that refuses
every import once an install has started (pip 26.3; a warning from 26.2), so pip is
not in the default ``excluding``: ``pip --version`` starts lazily, ``pip install`` works.
"""

from __future__ import annotations

import ast
import os
import sys
import zipfile

import pytest

from lazify._plan import plan_module
from lazify._reasons import Reason
from tests._sample import full
from tests._util import run_python, write

MECHANISMS = ["rewrite"] + (["native"] if sys.version_info >= (3, 15) else [])

#: a package whose ``install`` module adds an audit hook refusing every import outside
#: the standard library; ``app.cli`` (loaded before) defers ``app.wheel``, which
#: defers ``app.record``: both are used only once the hook is in place
APP = {
    "app/__init__.py": "",
    "app/cli.py": """
        from app import wheel
        def main():
            import app.install
            return app.install.run(wheel.install)
    """,
    "app/install.py": '''
        """Installs."""
        import sys
        from app import paths
        def _audit(event, args):
            if event == "import" and args[0].partition(".")[0] not in sys.stdlib_module_names:
                raise ImportError(f"Blocked import of {args[0]!r} after install started")
        def run(step):
            sys.addaudithook(_audit)
            return step(paths.ROOT)
    ''',
    "app/paths.py": "ROOT = '/root'\n",
    "app/wheel.py": "from app import record\ndef install(root):\n"
                    "    return record.write(root)\n",
    "app/record.py": "def write(root):\n    return 'installed in ' + root\n",
    "main.py": """
        import sys
        import app.cli
        main = app.cli.main
        print("before:", sorted(m for m in sys.modules if m.startswith("app.")))
        print(main())
    """,
}


def _run(tmp_path, args, mechanism, defer="0"):
    return run_python(args, cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": mechanism, "LAZIFY_DEFER_REWRITE": defer})


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_package_adding_an_audit_hook_does_its_deferred_imports_first(tmp_path, mechanism):
    for path, text in APP.items():
        write(tmp_path, path, _dedent(text))
        # older than this second: lazify trusts no cache of a source written within it
        os.utime(tmp_path / path, (1e9, 1e9))
    plain = _run(tmp_path, ["main.py"], mechanism)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines() == [
        "before: ['app.cli', 'app.record', 'app.wheel']", "installed in /root"]
    # lazily: app.wheel (and app.record) wait until the install module is imported;
    # then the package's deferred imports are done, before its hook refuses them.
    # Twice: the rewrite written to lazify's cache, then read from it
    for _ in range(2):
        lazy = _run(tmp_path, ["-m", "lazify", "run", "main.py"], mechanism)
        assert lazy.returncode == 0, lazy.stdout + lazy.stderr
        assert lazy.stdout.splitlines() == ["before: ['app.cli']", "installed in /root"]
    # the install module a cache miss served from its plain pyc, the others read from
    # lazify's cache (as after an upgrade of that one module)
    with open(tmp_path / "app" / "install.py", "a") as f:
        f.write("# changed\n")
    os.utime(tmp_path / "app" / "install.py", (1e9 + 1, 1e9 + 1))
    lazy = _run(tmp_path, ["-m", "lazify", "run", "main.py"], mechanism, defer="1")
    assert lazy.returncode == 0, lazy.stdout + lazy.stderr
    assert lazy.stdout.splitlines() == ["before: ['app.cli']", "installed in /root"]
    # without the rule (its call at the install module's start does nothing), the
    # deferred import of app.wheel's record is refused
    broken = _run(tmp_path, ["-c", "import lazify._audit as a, lazify, runpy\n"
                                   "a.imports_done = lambda name: None\n"
                                   "lazify.install()\n"
                                   "runpy.run_path('main.py', run_name='__main__')"],
                  mechanism)
    assert broken.returncode != 0 and "Blocked import of 'app." in broken.stderr, \
        broken.stdout + broken.stderr


def _dedent(text):
    import textwrap

    return textwrap.dedent(text).lstrip("\n")


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_check_says_why_the_imports_stay_eager(tmp_path, mechanism):
    source = _dedent(APP["app/install.py"])
    tree = compile(source, "install.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    plan = plan_module(tree, module="app.install", mechanism=mechanism, source=source)
    assert plan.audit_hook
    assert {(n.name, n.lazy, n.reason) for s in plan.imports for n in s.names} == {
        ("sys", False, Reason.AUDIT_HOOK), ("paths", False, Reason.AUDIT_HOOK)}
    for path, text in APP.items():
        write(tmp_path, path, _dedent(text))
    out = run_python(["-m", "lazify", "check", "--mechanism", mechanism, "app/install.py"],
                     cwd=tmp_path)
    assert "audit hook (sys.addaudithook)" in out.stdout, out.stdout + out.stderr
    assert "app/install.py: adds an audit hook: when it is imported, the deferred imports of " \
           "app's loaded modules are done, and app's imports stay eager from then on " \
           "(audit-hook)" in out.stdout, out.stdout
    # the other modules of the package stay lazy
    other = run_python(["-m", "lazify", "check", "--mechanism", mechanism, "app/cli.py"],
                       cwd=tmp_path)
    assert "audit" not in other.stdout, other.stdout


def _wheel(directory):
    """A one-module wheel, written by hand (no build backend, no network)."""
    path = os.path.join(directory, "tinypkg-1.0-py3-none-any.whl")
    files = {
        "tinypkg/__init__.py": "X = 'tiny'\n",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\n"
                                       "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "tinypkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr("tinypkg-1.0.dist-info/RECORD", record)
    return path


def _modules_at_exit(args, tmp_path, env, lazy):
    code = ("import sys, runpy\n"
            + ("import lazify\nlazify.install()\n" if lazy else "")
            + f"sys.argv = ['pip', *{args!r}]\n"
            "try:\n    runpy.run_module('pip', run_name='__main__', alter_sys=True)\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(len(sys.modules))\n")
    proc = run_python(code, cwd=tmp_path, env_extra=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return int(proc.stdout.splitlines()[-1])


def test_pip_install_of_a_local_wheel(tmp_path):
    """The interpreter's own pip, lazify's default mechanism: ``pip --version`` starts
    lazily; ``pip install`` of a wheel works with the install command a cache miss
    served plain (the rest read from lazify's cache), rewritten at once, and read from
    the cache, with nothing reported about imports (pip 26.3 refuses them once an
    install has started, 26.2 warns; older pips add no audit hook)."""
    try:
        import pip  # noqa: F401
    except ImportError:
        pytest.skip("no pip in this environment")
    wheel = _wheel(str(tmp_path))
    env = {"LAZIFY_MECHANISM": None, "LAZIFY_DEFER_REWRITE": "0",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert _modules_at_exit(["--version"], tmp_path, env, lazy=True) \
        < _modules_at_exit(["--version"], tmp_path, env, lazy=False)
    # the three states of a cold cache: a fresh environment's (.ci/run's). In a reused
    # one pip's rewritten pycs are already beside pip's own, and every round reads them:
    # the default run makes one
    for round, defer in enumerate(("1", "0", "0") if full() else ("0",)):
        target = tmp_path / f"target{round}"
        proc = run_python(["-m", "lazify", "run", "-m", "pip", "install", "--no-index",
                           "--no-deps", "--disable-pip-version-check", "--no-cache-dir",
                           "--target", str(target), wheel], cwd=tmp_path,
                          env_extra={**env, "LAZIFY_DEFER_REWRITE": defer})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "Successfully installed tinypkg-1.0" in proc.stdout
        assert "import of" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
        assert (target / "tinypkg" / "__init__.py").exists()


def test_the_call_the_emitted_code_makes_exists():
    """The module and function the emitted call names (lazify._entry_points: a change
    needs a bump of the cache format)."""
    import importlib

    from lazify import _entry_points as ep

    assert callable(getattr(importlib.import_module(ep.AUDIT), ep.AUDIT_CALL))


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_package_main_adding_an_audit_hook(tmp_path, mechanism):
    """``python -m tool`` whose ``__main__`` adds the hook: the package is the spec's."""
    files = {
        "tool/__init__.py": "",
        "tool/helper.py": "def value():\n    return 'helped'\n",
        "tool/other.py": "from tool import helper\ndef run():\n    return helper.value()\n",
        "tool/__main__.py": """
            import sys
            from tool import other
            def _audit(event, args):
                if event == "import" and args[0].startswith("tool"):
                    raise ImportError(f"Blocked import of {args[0]!r}")
            sys.addaudithook(_audit)
            print(other.run())
        """,
    }
    for path, text in files.items():
        write(tmp_path, path, _dedent(text))
    for args in (["-m", "tool"], ["-m", "lazify", "run", "-m", "tool"]):
        proc = _run(tmp_path, args, mechanism)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout == "helped\n"
