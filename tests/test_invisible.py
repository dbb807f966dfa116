"""lazify's machinery is invisible to the program: patched ``os`` functions, lazify's own
diagnostics, names shadowing builtins, tracebacks.

Subprocess scenarios: each runs the same program plain and through lazify (both
mechanisms where the interpreter has the native one) and expects plain Python's result.
"""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

from tests._sample import full_only
from tests._util import run_python

OLD = 1_600_000_000  # sources dated in the past: their bytecode is cacheable

MECHANISMS = [
    "rewrite",
    pytest.param("native", marks=pytest.mark.skipif(
        sys.version_info < (3, 15), reason="PEP 810 lazy imports are 3.15+")),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        os.utime(path, (OLD, OLD))
    return root


def run_lazy(args, cwd, mechanism, env=None, check=False):
    """``python -m lazify run ARGS`` with the mechanism given (LAZIFY_STRICT=1)."""
    return run_python(["-m", "lazify", "run", *args], cwd=cwd, check=check,
                      env_extra={"LAZIFY_MECHANISM": mechanism, **(env or {})})


# ------------------------------------------------------------ patched os functions

PATCHER = """\
import asyncio
import os

_real_stat = os.stat


def checked_stat(*args, **kwargs):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    return _real_stat(*args, **kwargs)


def activate():
    os.stat = checked_stat


def deactivate():
    os.stat = _real_stat
"""

PATCHER_MAIN = """\
import patcher

patcher.activate()
try:
    import json
    json.dumps
finally:
    patcher.deactivate()
print("ok", json.dumps([1]))
"""


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_patched_stat_that_reads_a_lazy_name_does_not_break_an_import(tmp_path, mechanism):
    # a blocking-call detector's os.stat reads asyncio, which patcher imported lazily:
    # were the hook calling os.stat, asyncio's import would re-enter itself
    root = write_tree(tmp_path, {"patcher.py": PATCHER, "main.py": PATCHER_MAIN})
    assert run_python(["main.py"], cwd=root, check=True).stdout == "ok [1]\n"
    for _ in ("cold", "warm"):
        proc = run_lazy(["main.py"], root, mechanism, check=True)
        assert proc.stdout == "ok [1]\n"


#: every function of os, os.path, io and builtins that touches the file system or
#: the process, patched to raise while the program imports
PATCHED = """\
import builtins, io, os, sys

def boom(*args, **kwargs):
    raise AssertionError("a patched function was called")

TARGETS = [(os, name) for name in (
    "stat", "lstat", "fstat", "listdir", "scandir", "open", "read", "write", "close",
    "mkdir", "makedirs", "replace", "rename", "unlink", "remove", "getcwd", "getpid",
    "getuid", "fspath", "pipe", "posix_spawn", "waitpid", "waitstatus_to_exitcode",
    "walk", "access", "chmod", "utime")]
TARGETS += [(os.path, name) for name in (
    "abspath", "join", "dirname", "basename", "split", "splitdrive", "isdir", "isfile",
    "exists", "isabs", "expanduser", "realpath", "normpath", "getmtime", "getsize")]
TARGETS += [(builtins, "open"), (io, "open"), (io, "open_code")]
saved = [(owner, name, getattr(owner, name)) for owner, name in TARGETS
         if hasattr(owner, name)]
for owner, name, _ in saved:
    setattr(owner, name, boom)
try:
    import app
    result = app.run()
finally:
    for owner, name, real in saved:
        setattr(owner, name, real)
print(result)
"""

APP = {
    "main.py": PATCHED,
    "app/__init__.py": """\
        import json
        from app import helpers
        from app.sub import thing

        def run():
            return json.dumps([helpers.double(2), thing.VALUE, sorted(globals())[:2]])
        """,
    "app/helpers.py": """\
        import collections

        def double(x):
            return collections.Counter(x=x)["x"] * 2
        """,
    "app/sub/__init__.py": "from . import thing\n",
    "app/sub/thing.py": "import decimal\nVALUE = str(decimal.Decimal('1.5'))\n",
}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_imports_through_lazify_call_no_function_a_program_can_patch(tmp_path, mechanism):
    """Cold and warm cache, the cache written to the per-user fallback (``__pycache__``
    is a file: the fallback directories are made), read back from it."""
    root = write_tree(tmp_path / "tree", APP)
    for pycache in ("", "app/", "app/sub/"):
        (root / pycache / "__pycache__").write_text("not a directory\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_CACHE_HOME": None, "LAZIFY_DEBUG": "1"}
    plain = run_python(["main.py"], cwd=root, check=True).stdout
    assert plain.startswith("[4, ")
    cold = run_lazy(["main.py"], root, mechanism, env=env, check=True)
    assert cold.stdout == plain
    assert "lazify: compiled app.helpers" in cold.stderr
    written = [f for _, _, files in os.walk(home / ".cache" / "lazify") for f in files
               if "lazify" in f and f.endswith(".pyc")]
    assert len(written) == 5, cold.stderr      # main, app, helpers, sub, thing
    warm = run_lazy(["main.py"], root, mechanism, env=env, check=True)
    assert warm.stdout == plain
    assert "lazify: cached app.sub.thing" in warm.stderr
    assert "compiled" not in warm.stderr


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_the_runtime_record_calls_no_function_a_program_can_patch(tmp_path, mechanism):
    """With the record of deferred imports on (the pytest plugin's summary, ``lazify
    report``), a deferred import resolved while the functions are patched notes its
    first user: starlette's suite under blockbuster failed on ``os.path.abspath``."""
    files = dict(APP, **{"main.py": "from lazify import _import_record\n"
                                    "_import_record.start()\n" + PATCHED})
    root = write_tree(tmp_path / "tree", files)
    plain = run_python(["main.py"], cwd=root, check=True).stdout
    for _ in ("cold", "warm"):
        proc = run_lazy(["main.py"], root, mechanism, check=True)
        assert proc.stdout == plain


# ------------------------------------------------------------ lazify's diagnostics

BROKEN_REWRITER = """\
import lazify._rewrite as pipeline
from lazify import _hook

def boom(*args, **kwargs):
    raise RuntimeError("planner bug")

pipeline.rewrite_code = boom
"""

FAILING = {
    "mod.py": """\
        import json

        def dumps(x):
            return json.dumps(x)
        """,
    "main.py": BROKEN_REWRITER + """\
import lazify, mod
print(mod.dumps(3), lazify.is_lazy_import(vars(mod), "json"), _hook.stats["failed"])
""",
}


def _said(proc):
    return [line for line in proc.stderr.splitlines() if "could not rewrite" in line]


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("flags, env", [
    pytest.param(["-W", "error"], {}, id="W-error"),
    # the same filter set another way: LAZIFY_FULL_TESTS=1 (tests/_sample.py)
    pytest.param(["-X", "dev"], {}, id="X-dev", marks=full_only),
    pytest.param([], {"PYTHONWARNINGS": "error"}, id="PYTHONWARNINGS", marks=full_only),
    pytest.param([], {}, id="default"),
])
def test_a_failed_rewrite_imports_eagerly_whatever_the_warning_filters(
        tmp_path, mechanism, flags, env):
    root = write_tree(tmp_path, FAILING)
    env = {"LAZIFY_STRICT": None, **env}
    first = run_python([*flags, "-m", "lazify", "run", "main.py"], cwd=root, check=True,
                       env_extra={"LAZIFY_MECHANISM": mechanism, **env})
    assert first.stdout == "3 False 1\n"
    said = _said(first)
    assert len(said) == 1, first.stderr
    assert said[0].startswith("lazify: could not rewrite module 'mod' (")
    assert "RuntimeError: planner bug; importing it eagerly until the file changes" in said[0]
    # remembered: the next start imports it eagerly at once, says nothing, rewrites nothing
    second = run_python([*flags, "-m", "lazify", "run", "main.py"], cwd=root, check=True,
                        env_extra={"LAZIFY_MECHANISM": mechanism, **env})
    assert second.stdout == "3 False 0\n"
    assert _said(second) == []
    # a changed source is tried again
    (root / "mod.py").write_text((root / "mod.py").read_text() + "\n")
    os.utime(root / "mod.py", (OLD + 10, OLD + 10))
    third = run_python([*flags, "-m", "lazify", "run", "main.py"], cwd=root, check=True,
                       env_extra={"LAZIFY_MECHANISM": mechanism, **env})
    assert third.stdout == "3 False 1\n" and len(_said(third)) == 1
    # LAZIFY_STRICT=1 raises, remembered or not
    strict = run_lazy(["main.py"], root, mechanism, env={"LAZIFY_STRICT": "1"})
    assert strict.returncode == 1 and "RuntimeError: planner bug" in strict.stderr


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_failed_rewrite_under_pytests_filterwarnings_error(tmp_path, mechanism):
    root = write_tree(tmp_path, {
        "mod.py": FAILING["mod.py"],
        "pytest.ini": "[pytest]\nfilterwarnings =\n    error\n",
        "test_it.py": BROKEN_REWRITER + "import mod\n\n\ndef test_it():\n"
                      "    assert mod.dumps(3) == '3'\n",
    })
    proc = run_lazy(["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"], root,
                    mechanism, env={"LAZIFY_STRICT": None})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_an_ignore_filter_silences_lazifys_diagnostics(tmp_path, mechanism):
    root = write_tree(tmp_path, FAILING)
    proc = run_python(["-W", "ignore::RuntimeWarning", "-m", "lazify", "run", "main.py"],
                      cwd=root, check=True,
                      env_extra={"LAZIFY_MECHANISM": mechanism, "LAZIFY_STRICT": None})
    assert proc.stdout == "3 False 1\n" and _said(proc) == []


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_lazify_issues_no_warning_under_w_error_and_dev_mode(tmp_path, mechanism):
    """Cold and warm: the rewriter, the cache and the runtime warn about nothing."""
    root = write_tree(tmp_path / "tree", {k: v for k, v in APP.items() if k != "main.py"})
    (root / "main.py").write_text("import sys, app, lazify\nprint(app.run(), "
                                  "'decimal' in sys.modules)\n")
    plain = run_python(["-W", "error", "-X", "dev", "main.py"], cwd=root, check=True)
    for _ in ("cold", "warm"):
        proc = run_python(["-W", "error", "-X", "dev", "-m", "lazify", "run", "main.py"],
                          cwd=root, check=True, env_extra={"LAZIFY_MECHANISM": mechanism})
        assert proc.stdout == plain.stdout
        assert proc.stderr == ""


# ------------------------------------------------------------ names shadowing builtins

SHADOWED = {
    "mod.py": """\
        import json


        def lookup(name):
            return globals().get(name)


        def whole():
            return sorted(globals())[:3], "json" in globals(), len(globals()) > 5


        def names():
            return sorted(globals())[:3]


        def count():
            return len(globals())


        def run(src):
            return eval(src)


        def run2(src):
            return eval(src, None)


        def run3(src, namespace):
            return eval(src, None, namespace)


        def execute(src):
            exec(src)
            return "done"
        """,
    "main.py": """\
        import builtins
        from unittest import mock

        import mod

        with mock.patch.object(mod, "globals", lambda: {"answer": 42}, create=True):
            print("lookup:", mod.lookup("answer"))
            print("whole:", mod.whole())
        print("lookup:", mod.lookup("json").__name__)
        seen = []
        fake = lambda it: seen.append((type(it).__name__, it.get("json"))) or [99]
        with mock.patch.object(mod, "sorted", fake, create=True):
            print("sorted:", mod.names(), seen.pop())
        with mock.patch.object(mod, "len", fake, create=True):
            print("len:", mod.count(), seen.pop())
        with mock.patch.object(mod, "eval", lambda *a: ("fake", len(a)), create=True):
            print("eval:", mod.run("1"), mod.run2("2"), mod.run3("3", {}))
        with mock.patch.object(mod, "locals", lambda: {"x": 5}, create=True):
            print("locals:", mod.run("json.dumps(2)"))
        with mock.patch.object(builtins, "exec", lambda *a: print("fake exec", len(a))):
            print("exec:", mod.execute("pass"))
        mod.eval = lambda *a: ("module global", len(a))
        print("global:", mod.run("1"), mod.run2("2"))
        del mod.eval
        print("eval:", mod.run("json.dumps(1)"), mod.run2("json.dumps(2)"),
              mod.run3("json.dumps(3)", {}))
        print("whole:", mod.whole())
        """,
}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_module_global_or_patch_shadowing_a_builtin_wins_as_in_python(tmp_path, mechanism):
    root = write_tree(tmp_path, SHADOWED)
    plain = run_python(["main.py"], cwd=root, check=True).stdout
    assert plain.splitlines()[0] == "lookup: 42"
    for _ in ("cold", "warm"):
        assert run_lazy(["main.py"], root, mechanism, check=True).stdout == plain


# ------------------------------------------------------------ tracebacks as Python's

BROKEN = {
    "bad.py": "x = 1\ndef f(:\n    pass\n",
    "enc.py": b"# -*- coding: utf-8 -*-\nx = '\xff'\n",
    "nul.py": b"x = 1\ny = 2\x00\n",
    "failing.py": "import json\n\nraise ValueError(json.dumps('boom'))\n",
    "user.py": "import failing\n\n\ndef use():\n    return failing.x\n",
    "main.py": """\
        import sys
        if sys.argv[1] == "user":
            import user
            user.use()
        else:
            __import__(sys.argv[1])
        """,
}


def _write_broken(root):
    for name, text in BROKEN.items():
        path = root / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text))
        os.utime(path, (OLD, OLD))
    return root


def frames(stderr):
    """The traceback's frames: (file name, line, function), and what is said below them."""
    out = []
    for line in stderr.splitlines():
        if line.startswith('  File "'):
            filename, _, rest = line[len('  File "'):].partition('", line ')
            out.append((os.path.basename(filename), rest))
    return out


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("name", ["bad", "enc", "nul"])
def test_an_error_importing_through_the_hook_shows_pythons_frames(tmp_path, mechanism, name):
    root = _write_broken(tmp_path)
    plain = run_python(["main.py", name], cwd=root)
    assert plain.returncode == 1
    for _ in ("cold", "again"):
        lazy = run_lazy(["main.py", name], root, mechanism)
        assert lazy.stderr == plain.stderr      # the frame list and the error, as Python's
    assert frames(plain.stderr) == [("main.py", "6, in <module>")] + (
        [(f"{name}.py", "2")] if name != "nul" else [])


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("name", ["bad", "enc", "nul"])
def test_lazify_run_of_a_broken_script_reports_as_python(tmp_path, mechanism, name):
    if name == "nul" and sys.version_info < (3, 11):
        pytest.skip("python 3.10 runs a script up to its first null byte")
    root = _write_broken(tmp_path)
    plain = run_python([f"{name}.py"], cwd=root)
    lazy = run_lazy([f"{name}.py"], root, mechanism)
    assert plain.returncode == lazy.returncode == 1
    assert frames(lazy.stderr) == frames(plain.stderr) == [(f"{name}.py", "2")]
    if name != "enc" or sys.version_info < (3, 14):
        # (3.14+: python's own file reader words an undecodable script's error its way)
        assert lazy.stderr == plain.stderr


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_deferred_imports_error_shows_the_users_frames_and_the_note(tmp_path, mechanism):
    root = _write_broken(tmp_path)
    lazy = run_lazy(["main.py", "user"], root, mechanism)
    assert lazy.returncode == 1
    if mechanism == "native":
        # PEP 810's own traceback, exactly
        native = run_python(["-X", "lazy_imports=all", "main.py", "user"], cwd=root)
        assert lazy.stderr == native.stderr
        return
    # where the name is first used, then the imported module; of lazify, only the frame
    # the read called (a frame that raises is always in a traceback)
    assert frames(lazy.stderr) == [("main.py", "4, in <module>"), ("user.py", "5, in use"),
                                   ("_importlib_bootstrap.py", frames(lazy.stderr)[2][1]),
                                   ("failing.py", "3, in <module>")]
    assert frames(lazy.stderr)[2][1].endswith("in __get__")
    note = [f"lazify: raised by the deferred import at {root / 'user.py'}:1 (import failing)"]
    if sys.version_info < (3, 11):
        note = []                                   # exception notes are 3.11+
    assert lazy.stderr.splitlines()[-1 - len(note):] == ['ValueError: "boom"', *note]


def test_a_deferred_import_raising_through_a_modules_getattr_shows_one_frame(tmp_path):
    root = write_tree(tmp_path, {
        "failing.py": "raise KeyError('boom')\n",
        "pkg/__init__.py": "from failing import thing\n",
        "main.py": "import pkg\ngetattr(pkg, 'thing')\n",
    })
    lazy = run_lazy(["main.py"], root, "rewrite")
    listed = [name for name, _ in frames(lazy.stderr)]
    assert listed == ["main.py", "_importlib_bootstrap.py", "failing.py"], lazy.stderr


# ------------------------------------------------------------ the module's loader

LOADER_PROBE = """\
import importlib.machinery
import json

import {pkg}

loader = type({pkg}.__loader__)
# distlib's resource finders (pip's vendored copy too) look loaders up by exact type
print(loader is importlib.machinery.SourceFileLoader,
      type({pkg}.__spec__.loader) is loader,
      {pkg}.__spec__.loader.get_source("{pkg}") == open({pkg}.__file__).read(),
      json.dumps(1))
"""


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_rewritten_module_names_cpythons_own_loader(tmp_path, mechanism):
    """A program sees the loader it would see without lazify: the rewrite is lazify's,
    the loader object the module keeps is ``SourceFileLoader``."""
    write_tree(tmp_path, {"probe.py": LOADER_PROBE.format(pkg="lpkg"),
                          "lpkg/__init__.py": "import json\nVALUE = json.dumps(2)\n",
                          "lpkg/main.py": LOADER_PROBE.format(pkg="__main__").replace(
                              "import __main__\n", "import __main__, lpkg\n").replace(
                              '__main__.__spec__.loader.get_source("__main__")',
                              '__main__.__spec__.loader.get_source("lpkg.main")')})
    plain = run_python(["probe.py"], cwd=tmp_path)
    lazy = run_lazy(["probe.py"], tmp_path, mechanism,
                    env={"LAZIFY_DEFER_REWRITE": "0", "LAZIFY_DEBUG": "1"})
    assert lazy.stdout == plain.stdout == "True True True 1\n", lazy.stderr
    assert "lazify: compiled lpkg" in lazy.stderr
    # runpy's __main__ (python -m) keeps the loader of the spec it found, lazify's finder's
    plain = run_python(["-m", "lpkg.main"], cwd=tmp_path)
    lazy = run_lazy(["-m", "lpkg.main"], tmp_path, mechanism, env={"LAZIFY_DEFER_REWRITE": "0"})
    assert lazy.stdout == plain.stdout == "True True True 1\n", lazy.stderr


def test_pips_vendored_distlib_finds_its_resources(tmp_path):
    """Real code that looks its loader up by exact type: pip's ``distlib.scripts`` reads
    its launchers through ``resources.finder`` at import (pip install and uninstall
    import it), which raised ``DistlibException: Unable to locate finder`` under lazify."""
    pytest.importorskip("pip._vendor.distlib")
    code = ("from pip._vendor.distlib import resources, scripts\n"
            "import pip._vendor.distlib as d\n"
            "print(type(resources.finder('pip._vendor.distlib')).__name__)\n")
    plain = run_python(["-c", code], cwd=tmp_path)
    lazy = run_lazy(["-c", code], tmp_path, "rewrite", env={"LAZIFY_DEFER_REWRITE": "0"})
    assert lazy.returncode == plain.returncode == 0, lazy.stderr
    assert lazy.stdout == plain.stdout == "ResourceFinder\n"


# ------------------------------------------------- reads in importlib's own frame

#: a profiler that notes which function reads a file through io.BufferedReader.read
#: while the program imports: blockbuster allows it from importlib's ``get_data`` only
READS = """\
import sys

callers = set()

def profile(frame, event, arg):
    if event == "c_call" and getattr(arg, "__qualname__", "") == "BufferedReader.read":
        callers.add((frame.f_code.co_filename, frame.f_code.co_name))

sys.setprofile(profile)
import app
result = app.run()
sys.setprofile(None)
print(result, sorted(callers))
"""


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_lazify_reads_files_in_importlibs_own_frame(tmp_path, mechanism):
    """Cold cache (the plain pyc's header read when the rewrite is written, and on 3.15
    the native planner's read of a sibling module's source: ``app.helpers`` imports
    ``app.util`` lazily, which imports it back) and warm (lazify's pyc read): every read
    is importlib's ``get_data``, as in plain Python."""
    root = write_tree(tmp_path / "tree", dict(APP, **{
        "main.py": READS,
        "app/helpers.py": """\
            import collections
            from app import util

            def double(x):
                return collections.Counter(x=x)["x"] * util.ONE * 2
            """,
        "app/util.py": "import app.helpers\nONE = 1\n"}))
    env = {"LAZIFY_DEFER_REWRITE": "0"}
    plain = run_python(["main.py"], cwd=root, check=True).stdout
    assert "'get_data'" in plain
    for _ in ("cold", "warm"):
        assert run_lazy(["main.py"], root, mechanism, env=env, check=True).stdout == plain


# ------------------------- a function the import system calls, patched

#: blockbuster's shape: a function importlib itself calls for every file it reads
#: (``_io.open_code``; blockbuster patches ``io.BufferedReader.read``), replaced by code
#: that reads a module the patcher imports at top level
IMPORT_SYSTEM_PATCHER = {
    "patcher.py": """\
        import _io
        import asyncio

        _real_open_code = _io.open_code


        def checked_open_code(path):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            return _real_open_code(path)


        def activate():
            _io.open_code = checked_open_code


        def deactivate():
            _io.open_code = _real_open_code
        """,
    "mod.py": "VALUE = 1\n",
    "main.py": """\
        import patcher

        patcher.activate()
        try:
            import mod
            mod.VALUE
        finally:
            patcher.deactivate()
        print("ok", mod.VALUE)
        """,
}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_patched_import_system_function_keeps_the_imports_it_reads_eager(
        tmp_path, mechanism):
    """Plain Python imported asyncio before the patch; deferred, the first import under
    the patch would read asyncio inside asyncio's own import (3.15's ``-X
    lazy_imports=all``: ImportCycleError).  The planner sees ``_io.open_code =
    checked_open_code`` and keeps asyncio eager (``import-system-patch``): the program
    runs as plainly, and ``check`` says why."""
    root = write_tree(tmp_path / "tree", IMPORT_SYSTEM_PATCHER)
    assert run_python(["main.py"], cwd=root).stdout == "ok 1\n"
    env = {"LAZIFY_DEFER_REWRITE": "0"}
    for _ in ("cold", "warm"):
        lazy = run_lazy(["main.py"], root, mechanism, env=env)
        assert lazy.stdout == "ok 1\n" and lazy.returncode == 0, lazy.stderr
    if mechanism == "native":
        pep810 = run_python(["-X", "lazy_imports=all", "main.py"], cwd=root)
        assert "ImportCycleError: cannot import name 'asyncio'" in pep810.stderr
    check = run_python(["-m", "lazify", "check", "--mechanism", mechanism,
                        str(root / "patcher.py")], cwd=root,
                       env_extra={"LAZIFY_MECHANISM": mechanism})
    assert "import-system-patch" in check.stdout, check.stdout + check.stderr
    line = next(ln for ln in check.stdout.splitlines() if "asyncio" in ln)
    assert line.endswith("import asyncio  EAGER:import-system-patch"), check.stdout


#: the same patch made through variables, as blockbuster does (a table of modules and
#: function names, ``setattr(module, name, wrapper)``): not seen statically
HIDDEN_PATCHER = dict(IMPORT_SYSTEM_PATCHER, **{"patcher.py": """\
        import _io
        import asyncio

        _real_open_code = _io.open_code
        PATCHES = [(_io, "open_code")]


        def checked_open_code(path):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            return _real_open_code(path)


        def activate():
            for module, name in PATCHES:
                setattr(module, name, checked_open_code)


        def deactivate():
            _io.open_code = _real_open_code
        """})


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_patch_made_through_variables_is_pep_810s_limitation(tmp_path, mechanism):
    """Not seen statically: fails as 3.15's ``-X lazy_imports=all`` does
    (ImportCycleError) on the native mechanism, with PEP 690's half-imported module under
    the rewrite; excluding the patcher is the cure.  docs/how-it-works.md, limitations."""
    root = write_tree(tmp_path / "tree", HIDDEN_PATCHER)
    assert run_python(["main.py"], cwd=root).stdout == "ok 1\n"
    env = {"LAZIFY_DEFER_REWRITE": "0"}
    expected = {"native": "ImportCycleError: cannot import name 'asyncio'",
                "rewrite": "AttributeError: module 'asyncio' has no attribute"}[mechanism]
    for _ in ("cold", "warm"):
        lazy = run_lazy(["main.py"], root, mechanism, env=env)
        assert lazy.returncode == 1 and expected in lazy.stderr, lazy.stderr
    if mechanism == "native":
        pep810 = run_python(["-X", "lazy_imports=all", "main.py"], cwd=root)
        assert "ImportCycleError: cannot import name 'asyncio'" in pep810.stderr
    cured = run_lazy(["main.py"], root, mechanism, env=dict(env, LAZIFY_EXCLUDING="patcher"))
    assert cured.stdout == "ok 1\n", cured.stderr
