"""lazify._hook: the finder, the loader, install/uninstall.

Most cases run a child interpreter in a temporary tree (``run_python`` drops
PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX and sets LAZIFY_STRICT=1);
the in-process ones restore ``sys.meta_path``, the path importer cache and
``sys.modules`` afterwards.
"""

from __future__ import annotations

import glob
import importlib
import importlib.machinery
import inspect
import os
import sys
import textwrap
import time
import zipfile

import pytest

from lazify import _cache, _hook
from lazify import _api, _settings
from tests._util import ROOT, run_python

OLD = time.time() - 3600

MOD = '''\
"""A module with lazy imports."""
import json
import os.path

def dumps(x):
    return json.dumps(x)

def where():
    return dumps.__code__.co_filename
'''


def write_tree(root, files, mtime=OLD):
    """Write {relative path: text}; date every file an hour back, so it is cacheable."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
        if mtime is not None:
            os.utime(path, (mtime, mtime))
    return root


def lazify_pycs(root):
    """Every lazify cache file under root (either mechanism's tag), relative, sorted."""
    pattern = os.path.join(str(root), "**", f"*.opt-*lazify*{_cache.FORMAT}.pyc")
    return sorted(os.path.relpath(p, root) for p in glob.glob(pattern, recursive=True))


def loaded(module):
    """Its loader's class, ``+lazify`` when its code came from lazify's cache (the loader
    is CPython's own either way, with lazify's ``get_code``)."""
    cached = os.path.basename(getattr(module.__spec__, "cached", None) or "")
    return type(module.__loader__).__name__ + ("+lazify" if ".opt-lazify" in cached else "")


def run(code, cwd, *args, env=None, check=True):
    """Run code in a child with the hook installed first (and :func:`loaded`); LAZIFY_DEBUG on."""
    prelude = ("import lazify; lazify.install()\n"
               + "import os\n" + textwrap.dedent(inspect.getsource(loaded)))
    # the per-user fallback of a stdlib module must not land in the real ~/.cache
    xdg = os.path.join(os.path.dirname(os.path.abspath(cwd)), ".xdg")
    extra = {"LAZIFY_DEBUG": "1", "XDG_CACHE_HOME": xdg, **(env or {})}
    return run_python([*args, "-c", prelude + textwrap.dedent(code)], cwd=cwd, env_extra=extra, check=check)


def debug_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("lazify: ")]


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "app", {"mod.py": MOD, "pkg/__init__.py": "", "pkg/sub.py": "import json\n"})


# ------------------------------------------------------------- cache in a real start


@pytest.mark.rewrite_only("the rewrite's cache tag (the native one's: tests/test_native.py)")
def test_second_start_reads_the_cache_and_parses_nothing(tree):
    code = """
        import sys, mod
        assert loaded(mod) == "SourceFileLoader+lazify", mod.__loader__
        assert lazify.is_lazy_import(vars(mod), "json")
        print(mod.dumps([1]))
        print(mod.__spec__.cached)
        print("lazify._emit_ast" in sys.modules, "ast" in sys.modules)
    """
    first = run(code, tree)
    assert "lazify: compiled mod" in debug_lines(first)
    out = first.stdout.splitlines()
    assert out[0] == "[1]"
    cached = out[1]
    assert "__pycache__" in cached and f".opt-lazify{_cache.FORMAT}.pyc" in cached
    assert os.path.exists(cached)
    assert out[2] == "True True"

    second = run(code, tree)
    lines = debug_lines(second)
    assert "lazify: cached mod" in lines
    assert not [line for line in lines if line.startswith("lazify: compiled")], lines
    assert second.stdout.splitlines()[1] == cached
    assert second.stdout.splitlines()[2] == "False False"  # no parser, no planner


def test_the_second_start_compiles_nothing_from_a_fresh_cache(tmp_path):
    """No cache and no kept measurement of the rewriter's dependencies (a pycache prefix
    of its own, as after an upgrade of lazify): what the first start's rewrites imported
    is cached too.  ``ast.walk`` imports ``collections`` at its first call (Debian's
    3.14, 3.15): the planner called it on a ``name in ("a", "b")`` test, ``collections``,
    ``keyword`` and ``reprlib`` were served plain to the rewriter and rewritten by the
    second start (test_second_start_reads_the_cache_and_parses_nothing failed when it
    ran before any other test had cached them)."""
    tree = write_tree(tmp_path / "app", {"mod.py": MOD + 'if __name__ in ("x", "y"):\n    pass\n'})
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path / "prefix")}
    code = "import mod\nprint(mod.dumps([1]))\n"
    first = run(code, tree, env=env)
    assert "lazify: compiled mod" in debug_lines(first)
    second = run(code, tree, env=env)
    assert second.stdout == "[1]\n"
    assert [line for line in debug_lines(second) if not line.startswith("lazify: cached")] == []


def test_a_warm_start_loads_seven_modules_of_lazify_none_annotated(tree):
    # what every program pays at start: lazify's modules, and no annotation on their
    # functions (on 3.14+ an annotated def makes a second function, its __annotate__:
    # two more objects for the cyclic GC to count and about 150 bytes of pyc each)
    code = """
        import sys
        own = sorted(name for name in sys.modules if name.split(".")[0] == "lazify")
        import mod
        print(mod.dumps([1]))
        print(" ".join(own))
        functions = [value for name in own for value in vars(sys.modules[name]).values()
                     if callable(value) and getattr(value, "__module__", "") in own]
        functions += [member for value in functions if isinstance(value, type)
                      for member in vars(value).values() if callable(member)]
        print([f.__qualname__ for f in functions if getattr(f, "__annotations__", None)])
    """
    # as a program starts: no variable of lazify's settings (the tests set the mechanism)
    run(code, tree, env={"LAZIFY_MECHANISM": None})
    out = run(code, tree, env={"LAZIFY_MECHANISM": None}).stdout.splitlines()
    assert out == ["[1]", "lazify lazify._cache lazify._guarded lazify._hook lazify._native "
                   "lazify._os lazify._settings", "[]"]


def test_edited_source_is_recompiled(tree):
    run("import mod", tree)
    path = tree / "mod.py"
    path.write_text(MOD + "EDITED = True\n")
    os.utime(path, (OLD + 10, OLD + 10))
    proc = run("import mod; print(mod.EDITED)", tree)
    assert "lazify: compiled mod" in debug_lines(proc)
    assert proc.stdout.strip() == "True"
    assert "lazify: cached mod" in debug_lines(run("import mod", tree))


def test_same_second_edit_is_not_cached(tmp_path):
    """Regression case for pytest#13292: a source written just now gets no timestamp pyc."""
    root = write_tree(tmp_path / "app", {"mod.py": MOD}, mtime=None)
    assert "lazify: compiled mod" in debug_lines(run("import mod", root))
    assert lazify_pycs(root) == []
    assert "lazify: compiled mod" in debug_lines(run("import mod", root))


def test_dont_write_bytecode_is_honoured(tree):
    run("import mod", tree, env={"PYTHONDONTWRITEBYTECODE": "1"})
    run("import mod", tree, "-B")
    assert lazify_pycs(tree) == []
    run("import sys; sys.dont_write_bytecode = True; import mod", tree)
    assert lazify_pycs(tree) == []
    run("import mod", tree)
    assert lazify_pycs(tree) == [os.path.join("__pycache__", os.path.basename(_cache.cache_path("mod.py", 0)))]


def test_sitecustomize_activation_and_python_dash_m(tmp_path):
    """The README's activation; runpy gets the main module's code from the loader too."""
    site = write_tree(tmp_path / "site", {"sitecustomize.py": "import lazify\nlazify.install()\n"})
    root = write_tree(
        tmp_path / "app",
        {"app.py": "import json\nimport lazify\nprint(lazify.is_lazy_import(globals(), 'json'), __name__)\n"},
    )
    from tests._util import ROOT

    env = {"PYTHONPATH": os.pathsep.join([str(site), ROOT]), "LAZIFY_DEBUG": "1"}
    for _ in range(2):
        proc = run_python(["-m", "app"], cwd=root, env_extra=env, check=True)
        assert proc.stdout.strip() == "True __main__"
    assert "lazify: cached app" in proc.stderr


def test_pycache_prefix(tree, tmp_path):
    prefix = tmp_path / "prefix"
    code = "import mod; print(mod.__spec__.cached)"
    cached = run(code, tree, "-X", f"pycache_prefix={prefix}").stdout.strip()
    assert cached.startswith(str(prefix))
    assert os.path.exists(cached)
    assert lazify_pycs(tree) == []
    proc = run(code, tree, env={"PYTHONPYCACHEPREFIX": str(prefix)})
    assert "lazify: cached mod" in debug_lines(proc)


@pytest.mark.rewrite_only("the rewrite's cache tag (the native one's: tests/test_native.py)")
@pytest.mark.parametrize("flags, level", [([], ""), (["-O"], "1"), (["-OO"], "2")])
def test_optimization_levels_have_their_own_files(tree, flags, level):
    code = """
        import mod
        print(mod.__spec__.cached)
        print(mod.__doc__)
    """
    proc = run(code, tree, *flags)
    cached, doc = proc.stdout.splitlines()
    assert cached.endswith(f".opt-{level}lazify{_cache.FORMAT}.pyc")
    assert doc == ("None" if level == "2" else "A module with lazy imports.")
    assert [os.path.basename(p) for p in lazify_pycs(tree)] == [os.path.basename(cached)]


def test_moved_tree_reports_the_new_path(tmp_path):
    """pytest#3968: a tree cached at the build path and run from another one."""
    build = write_tree(tmp_path / "build", {"mod.py": MOD})
    run("import mod", build)
    moved = tmp_path / "run"
    os.rename(build, moved)
    proc = run("import mod; print(mod.where()); print(mod.__file__)", moved)
    assert "lazify: cached mod" in debug_lines(proc)
    assert proc.stdout.splitlines() == [str(moved / "mod.py")] * 2


def test_pycache_that_is_a_file_uses_the_user_cache(tmp_path):
    root = write_tree(tmp_path / "app", {"mod.py": MOD, "__pycache__": "a file, not a directory"})
    xdg = tmp_path / "xdg"
    env = {"XDG_CACHE_HOME": str(xdg)}
    code = "import mod; print(mod.__spec__.cached); print(getattr(mod, '__cached__', '-'))"
    first = run(code, root, env=env)
    assert "lazify: compiled mod" in debug_lines(first)
    [rel] = lazify_pycs(xdg / "lazify")
    used = str(xdg / "lazify" / rel)
    # the file actually used (3.15 sets no __cached__: nor does lazify)
    expected = [used, used if sys.version_info < (3, 15) else "-"]
    assert first.stdout.splitlines() == expected
    second = run(code, root, env=env)
    assert "lazify: cached mod" in debug_lines(second)
    assert second.stdout.splitlines() == expected


def _pyc(data: bytes):
    """A pyc as (header, code object).

    The marshalled bytes of equal code can differ: marshal leaves the reference flag off an
    object whose refcount is 1 while it writes, so who else held the code object at that
    moment shows (on 3.14, ``lazify compile`` and the import hook differ in the first byte
    of the body). The header and the code itself are what settings must not change.
    """
    import marshal

    return data[:16], marshal.loads(data[16:])


def test_identical_bytes_whatever_the_settings(tmp_path):
    """typeguard#85: settings never reach the bytecode."""
    source = "__lazy_modules__ = ['json']\n" + MOD
    root = write_tree(tmp_path / "app", {"mod.py": source})
    pyc = _cache.cache_path(str(root / "mod.py"), 0)
    results = []
    for setup in (
        "lazify.install()",
        "lazify.install(excluding={'mod', 'json', 'os'})",
        "lazify.install(enabled=False)",
        "lazify.install(); lazify.set_lazy_imports(False)",
    ):
        code = f"import lazify; {setup}\nimport mod; assert mod.dumps(1) == '1'"
        run_python(["-c", code], cwd=root, check=True)
        with open(pyc, "rb") as f:
            results.append(f.read())
        os.unlink(pyc)
    proc = run_python(["-m", "lazify", "compile", str(root)], cwd=root)
    assert proc.returncode == 0, proc.stderr
    with open(pyc, "rb") as f:
        results.append(f.read())
    # The first four came from the same code path in four processes: the very bytes.
    assert all(r == results[0] for r in results[:4])
    assert all(_pyc(r) == _pyc(results[0]) for r in results)


# ------------------------------------------------------------------ what stays plain


def test_disabled_mode_leaves_modules_plain_unless_they_opt_in(tmp_path):
    root = write_tree(
        tmp_path / "app",
        {
            "plain.py": MOD,
            "optin.py": "__lazy_modules__ = ['json']\n" + MOD,
            "optin2.py": "globals()['__lazy_modules__'] = {'json'}\n" + MOD,
        },
    )
    code = """
        import lazify
        lazify.install(enabled=False)
        import optin, optin2, plain  # the opt-ins first: plain imports json eagerly
        print(lazify.is_lazy_import(vars(plain), "json"), lazify.is_lazy_import(vars(optin), "json"),
              lazify.is_lazy_import(vars(optin2), "json"))
        print(plain.__spec__.cached == __import__("importlib.util").util.cache_from_source(plain.__file__))
    """
    proc = run_python(["-c", textwrap.dedent(code)], cwd=root, env_extra={"LAZIFY_DEBUG": "1"}, check=True)
    assert proc.stdout.splitlines() == ["False True True", "True"]
    assert "lazify: compiled optin" in proc.stderr
    assert "lazify: compiled plain" not in proc.stderr
    assert [os.path.basename(p).split(".")[0] for p in lazify_pycs(root)] == ["optin", "optin2"]


def test_excluded_module_is_plain(tree):
    code = """
        import lazify
        lazify.install(excluding={"mod"})
        import pkg.sub, mod  # pkg.sub first: mod imports json eagerly
        print(lazify.is_lazy_import(vars(mod), "json"), lazify.is_lazy_import(vars(pkg.sub), "json"))
    """
    proc = run_python(["-c", textwrap.dedent(code)], cwd=tree, env_extra={"LAZIFY_DEBUG": "1"}, check=True)
    assert proc.stdout.strip() == "False True"
    assert "lazify: compiled mod" not in proc.stderr


def test_hook_machinery_is_never_rewritten(tree):
    proc = run("import mod", tree)
    names = [line.split()[-1] for line in debug_lines(proc)]
    assert "mod" in names
    for name in names:
        assert name.partition(".")[0] not in ("lazify", "encodings", "codecs")
        # importlib's import system; its package __init__ and libraries are rewritten
        assert name not in ("importlib._bootstrap", "importlib._bootstrap_external",
                            "importlib.machinery", "importlib.util", "importlib.abc")
        # what the rewriter imports on the miss passes through the busy flag
        assert name not in ("ast", "symtable", "dataclasses", "enum", "bisect"), names


@pytest.mark.rewrite_only("looks for the rewrite's __lazy__ in the compiled code")
def test_importlibs_libraries_are_rewritten_its_import_system_is_not(tmp_path):
    """importlib.metadata and importlib.resources use the import system: their own
    imports are deferred like any library's, and they work (a version read, a
    resource read); importlib itself, importlib.util and importlib.machinery stay plain."""
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/data.txt": "hello\n"})
    code = """
        import sys
        import importlib.util, importlib.machinery
        import importlib.metadata, importlib.resources
        print(importlib.metadata.version("pytest"))
        print(importlib.resources.files("pkg").joinpath("data.txt").read_text().strip())
        print(type(importlib.metadata.__dict__.get("__lazy__")).__name__ != "NoneType")
    """
    prefix = tmp_path / "prefix"      # a cold cache, so the debug lines name every module
    proc = run(code, tmp_path, "-X", f"pycache_prefix={prefix}")
    # the child's pytest is this one: its version read, not imported (cold, it is slow)
    assert proc.stdout.split() == [pytest.__version__, "hello", "True"]
    compiled = {line.split()[-1] for line in debug_lines(proc) if line.startswith("lazify: compiled ")}
    assert {"importlib.metadata", "importlib.resources"} <= compiled, sorted(compiled)
    assert not compiled & {"importlib.util", "importlib.machinery", "importlib.abc"}


def test_foreign_loader_subclass_passes_through(tree):
    """typeguard _importhook.py:155-156: isinstance() would take over other tools' loaders."""
    code = """
        import sys
        from importlib.machinery import PathFinder, SourceFileLoader

        class ToolLoader(SourceFileLoader):
            pass

        class ToolFinder:
            def find_spec(self, name, path=None, target=None):
                spec = PathFinder.find_spec(name, path, target)
                if spec is not None and name == "mod":
                    spec.loader = ToolLoader(spec.loader.name, spec.loader.path)
                return spec

        sys.meta_path.insert(1, ToolFinder())  # after lazify, before PathFinder
        import mod, pkg.sub
        print(loaded(mod), loaded(pkg.sub))
        print(lazify.is_lazy_import(vars(mod), "json"))
    """
    proc = run(code, tree)
    assert proc.stdout.splitlines() == ["ToolLoader SourceFileLoader+lazify", "False"]
    assert "lazify: not lazified mod: loaded by __main__.ToolLoader" in debug_lines(proc)


def test_finder_appended_after_path_finder_is_used(tmp_path):
    """Editable installs append their finder after PathFinder (setuptools' _EditableFinder)."""
    elsewhere = write_tree(tmp_path / "src", {"edmod.py": MOD})
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    code = f"""
        import sys
        import importlib.util

        class EditableFinder:
            calls = 0

            @classmethod
            def find_spec(cls, name, path=None, target=None):
                if name != "edmod":
                    return None
                cls.calls += 1
                return importlib.util.spec_from_file_location(name, {str(elsewhere / "edmod.py")!r})

        sys.meta_path.append(EditableFinder)
        import edmod
        print(loaded(edmod), lazify.is_lazy_import(vars(edmod), "json"), EditableFinder.calls)
    """
    proc = run(code, cwd)
    assert proc.stdout.strip() == "SourceFileLoader+lazify True 1"


def test_zip_import_passes_through(tmp_path):
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zmod.py", MOD)
    code = f"""
        import sys
        sys.path.insert(0, {str(archive)!r})
        import zmod
        print(loaded(zmod), zmod.dumps(2), lazify.is_lazy_import(vars(zmod), "json"))
    """
    proc = run(code, tmp_path)
    assert proc.stdout.strip() == "zipimporter 2 False"
    assert not [line for line in debug_lines(proc) if "zmod" in line]


def test_stock_loaders_pass_through(tmp_path):
    """Sourceless (an orphaned pyc), extension, namespace, builtin, frozen: untouched."""
    root = write_tree(tmp_path / "app", {"orphan_src.py": MOD, "nspkg/inner.py": MOD})
    import py_compile

    py_compile.compile(str(root / "orphan_src.py"), cfile=str(root / "orphan.pyc"), doraise=True)
    os.unlink(root / "orphan_src.py")
    # An extension module of this interpreter: which stdlib modules are built in
    # differs between builds (Debian's 3.14 has _csv built in).
    code = """
        import orphan, nspkg, nspkg.inner, sys, zipimport
        ext = next(n for n in ("_csv", "_json", "_ctypes", "_decimal", "_sqlite3", "array")
                   if n not in sys.builtin_module_names)
        ext = __import__(ext)
        for m in (orphan, nspkg, ext, sys, zipimport):
            print(m.__name__, type(m.__spec__.loader).__name__)
        print(loaded(nspkg.inner))
    """
    proc = run(code, root)
    out = proc.stdout.splitlines()
    assert out[0] == "orphan SourcelessFileLoader"
    assert out[1] in ("nspkg _NamespaceLoader", "nspkg NamespaceLoader")
    assert out[2].split()[1] == "ExtensionFileLoader", out[2]
    assert out[3] == "sys type"  # BuiltinImporter, a class
    assert out[4] == "zipimport type"  # FrozenImporter
    assert out[5] == "SourceFileLoader+lazify"  # a module inside a namespace package is an ordinary one
    assert not [line for line in debug_lines(proc) if "not lazified" in line]


def test_syntax_error_is_exactly_pythons(tmp_path):
    root = write_tree(
        tmp_path / "app",
        {"bad.py": "x = 1\ndef f(:\n    pass\n", "bad2.py": "x = (1,\n", "bad3.py": "return 5\n"},
    )
    code = """
        import sys
        for name in ("bad", "bad2", "bad3"):
            try:
                __import__(name)
            except SyntaxError as e:
                print(type(e).__name__, e.msg, e.filename, e.lineno, e.offset, repr(e.text),
                      getattr(e, "end_lineno", None), getattr(e, "end_offset", None))
    """
    plain = run_python(["-c", textwrap.dedent(code)], cwd=root, check=True).stdout
    hooked = run(code, root).stdout
    assert plain.count("\n") == 3
    assert hooked == plain


def test_rewrite_failure_falls_back_and_says_so_once(tree):
    code = """
        import warnings, lazify._rewrite as pipeline
        def boom(*args, **kwargs):
            raise RuntimeError("planner bug")
        pipeline.rewrite_code = boom
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import mod
        print(mod.dumps(3), lazify.is_lazy_import(vars(mod), "json"), len(caught))
    """
    proc = run(code, tree, env={"LAZIFY_STRICT": None})
    out = proc.stdout.splitlines()
    assert out[0] == "3 False 0"      # on stderr, not a warning: -W error would raise it
    said = [line for line in proc.stderr.splitlines() if "could not rewrite" in line]
    assert len(said) == 1 and said[0].startswith("lazify: could not rewrite module 'mod'")
    assert "planner bug" in said[0]
    assert lazify_pycs(tree) == []  # the fallback is not cached as if it were rewritten

    strict = run(code, tree, check=False)
    assert strict.returncode == 1
    assert "RuntimeError: planner bug" in strict.stderr


def test_resources_pkgutil_getsource_on_a_rewritten_module(tmp_path):
    root = write_tree(
        tmp_path / "app",
        {"rpkg/__init__.py": MOD, "rpkg/data.txt": "payload\n", "rpkg/mod.py": MOD},
    )
    code = """
        import importlib.resources, inspect, pkgutil, traceback
        import rpkg, rpkg.mod
        assert loaded(rpkg) == "SourceFileLoader+lazify"
        assert loaded(rpkg.mod) == "SourceFileLoader+lazify"
        assert lazify.is_lazy_import(vars(rpkg.mod), "json")
        print(importlib.resources.files("rpkg").joinpath("data.txt").read_text().strip())
        print(pkgutil.get_data("rpkg", "data.txt").decode().strip())
        print(inspect.getsource(rpkg.mod) == open(rpkg.mod.__file__).read())
        print(inspect.getsource(rpkg.mod.dumps).splitlines()[0])
        print(rpkg.__loader__.get_source("rpkg") == open(rpkg.__file__).read())
        print(rpkg.__loader__.is_package("rpkg"), rpkg.__path__ == rpkg.__spec__.submodule_search_locations)
    """
    proc = run(code, root)
    assert proc.stdout.splitlines() == ["payload", "payload", "True", "def dumps(x):", "True", "True True"]


def test_traceback_has_no_hook_frames(tmp_path):
    root = write_tree(tmp_path / "app", {"failing.py": "import json\n\nraise ValueError(json.dumps('x'))\n"})
    proc = run("import failing", root, check=False)
    assert proc.returncode == 1
    frames = [line for line in proc.stderr.splitlines() if line.strip().startswith("File ")]
    assert len(frames) == 2, proc.stderr  # <string> and failing.py, nothing from lazify
    assert 'failing.py", line 3, in <module>' in frames[1]


def test_threads_importing_on_a_cold_cache(tmp_path):
    """The busy flag is per thread: one thread loading the rewriter does not switch others off."""
    root = write_tree(tmp_path / "app", {f"m{i}.py": MOD for i in range(8)})
    code = """
        import threading
        results = {}
        start = threading.Barrier(8)

        def work(i):
            start.wait()
            module = __import__(f"m{i}")
            results[i] = (loaded(module), module.dumps(i))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(sorted(results.items()))
    """
    proc = run(code, root)
    assert proc.stdout.strip() == repr([(i, ("SourceFileLoader+lazify", str(i))) for i in range(8)])
    assert {f"lazify: compiled m{i}" for i in range(8)} <= set(debug_lines(proc))


# ----------------------------------------------------------------------- in process


@pytest.fixture
def isolated_imports(tmp_path, monkeypatch):
    """Snapshot and restore the import system state the tests touch."""
    meta_path = list(sys.meta_path)
    path_hooks = list(sys.path_hooks)
    importer_cache = dict(sys.path_importer_cache)
    modules = dict(sys.modules)
    settings = (_settings.is_lazy_imports_enabled(), _settings.settings.excluding)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setenv("LAZIFY_STRICT", "1")
    monkeypatch.syspath_prepend(str(tmp_path / "app"))
    in_process = MOD.replace("json", "lzdep")
    yield write_tree(
        tmp_path / "app",
        {
            "lzdep.py": "def dumps(x):\n    return repr(x)\n",
            "lzmod.py": in_process,
            "lzpkg/__init__.py": "X = 1\n",
            "lzpkg/a.py": in_process,
        },
    )
    sys.meta_path[:] = meta_path
    sys.path_hooks[:] = path_hooks
    sys.path_importer_cache.clear()
    sys.path_importer_cache.update(importer_cache)
    for name in list(sys.modules):
        if name not in modules:
            del sys.modules[name]
    _settings.set_lazy_imports(settings[0], excluding=settings[1])
    importlib.invalidate_caches()


def test_install_is_idempotent_and_uninstall_removes(isolated_imports):
    _hook.uninstall()
    _hook.install()
    _hook.install(enabled=True, excluding={"x"})
    assert sys.meta_path[0] is _hook._finder
    assert sum(f is _hook._finder for f in sys.meta_path) == 1
    assert _settings.is_excluded("x.y")
    assert _hook.is_installed()
    _hook.uninstall()
    _hook.uninstall()
    assert not _hook.is_installed()


def test_install_keeps_a_finder_already_present_where_it_is(isolated_imports):
    _hook.uninstall()

    class Other:
        def find_spec(self, *args):
            return None

    sys.meta_path.insert(0, _hook._finder)
    sys.meta_path.insert(0, Other())
    _hook.install()
    assert sys.meta_path[1] is _hook._finder
    assert sum(f is _hook._finder for f in sys.meta_path) == 1


def test_in_process_import_reload_and_spec(isolated_imports):
    _hook.install()
    import lzmod

    spec = lzmod.__spec__
    assert loaded(lzmod) == "SourceFileLoader+lazify" and spec.loader is lzmod.__loader__
    assert spec.origin == str(isolated_imports / "lzmod.py")
    assert spec.cached == _cache.cache_path(spec.origin)
    assert "__pycache__" in spec.cached
    assert _api.is_lazy_import(vars(lzmod), "lzdep")
    assert "lzdep" not in sys.modules
    assert lzmod.dumps({"a": 1}) == repr({"a": 1})
    assert "lzdep" in sys.modules
    reloaded = importlib.reload(lzmod)
    assert reloaded is lzmod
    assert loaded(lzmod) == "SourceFileLoader+lazify"

    import lzpkg.a

    assert lzpkg.__spec__.submodule_search_locations == [str(isolated_imports / "lzpkg")]
    assert lzpkg.__spec__.loader.is_package("lzpkg")
    assert lzpkg.a.dumps(1) == "1"
    assert loaded(sys.modules["lzdep"]) == "SourceFileLoader+lazify"


def test_finder_asks_each_later_finder_once(isolated_imports):
    """The first non-None spec is returned, so the import system does not ask again (pytest 1994-2023)."""
    calls = []

    class Spy:
        def find_spec(self, name, path=None, target=None):
            calls.append(name)
            return None

    _hook.install()
    sys.meta_path.insert(1, Spy())
    import lzmod  # noqa: F401

    # (the rewriter's own imports on the miss go through the import system as usual)
    assert [name for name in calls if not name.startswith("lazify.")] == ["lzmod"]


def test_a_missing_module_is_searched_once_per_failed_import(isolated_imports):
    """Each finder is asked once per failed import (twice on the first: lazify's
    finder asks the later ones, then the import system does); a module that
    appears after importlib.invalidate_caches() is lazified."""
    calls = []

    class Spy:
        def find_spec(self, name, path=None, target=None):
            if name == "lzlater":
                calls.append(name)
            return None

    _hook.install()
    # right after lazify's finder, wherever it is (pytest's own hook comes first when
    # the suite runs under lazify run)
    sys.meta_path.insert(sys.meta_path.index(_hook._finder) + 1, Spy())
    for _ in range(3):
        with pytest.raises(ModuleNotFoundError):
            import lzlater  # noqa: F401
    assert len(calls) == 4
    (isolated_imports / "lzlater.py").write_text("import lzdep\n")
    importlib.invalidate_caches()
    import lzlater

    assert loaded(lzlater) == "SourceFileLoader+lazify"
    assert _api.is_lazy_import(vars(lzlater), "lzdep")


MECHANISMS = ["rewrite"] + (["native"] if sys.version_info >= (3, 15) else [])


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_guarded_modules_package_is_searched_once_until_caches_are_invalidated(
        tmp_path, mechanism):
    """Deferred imports of a package not loaded yet, in modules imported where an
    ImportError is caught, find it once (not once per statement); after the package
    is gone and importlib.invalidate_caches() ran, the next such statement raises
    inside the try, as eagerly."""
    for name in ("a", "b", "c"):
        (tmp_path / f"lz{name}.py").write_text("import lzdep\n")
    (tmp_path / "lzdep.py").write_text("")
    (tmp_path / "main.py").write_text(textwrap.dedent("""\
        import importlib, os, sys, lazify
        lazify.install()
        from lazify import _hook
        calls = []
        class Spy:
            def find_spec(self, name, path=None, target=None):
                if name == "lzdep":
                    calls.append(name)
        sys.meta_path.insert(sys.meta_path.index(_hook._finder) + 1, Spy())
        for name in ("lza", "lzb"):
            try:
                __import__(name)
            except ImportError as e:
                print("fallback", e.name)
        print(len(calls), "lzdep" in sys.modules)
        os.remove("lzdep.py")
        importlib.invalidate_caches()
        try:
            import lzc
        except ImportError as e:
            print("fallback", e.name)
    """))
    proc = run_python(["main.py"], cwd=tmp_path, env_extra={"LAZIFY_MECHANISM": mechanism},
                      check=True)
    assert proc.stdout == "1 False\nfallback lzdep\n"


def test_a_module_found_on_a_new_path_entry_after_failing_is_lazified(isolated_imports, tmp_path):
    """A plugin directory added to sys.path after a failed import: no invalidate_caches()
    needed (a new path entry gets a new finder in the import system too)."""
    _hook.install()
    with pytest.raises(ModuleNotFoundError):
        import lzplugin  # noqa: F401
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "lzplugin.py").write_text("import lzdep\n")
    sys.path.append(str(plugins))
    import lzplugin

    assert loaded(lzplugin) == "SourceFileLoader+lazify"
    assert _api.is_lazy_import(vars(lzplugin), "lzdep")


def test_busy_flag_passes_everything_through(isolated_imports):
    _hook.install()
    _hook._state.busy = True
    try:
        assert _hook._finder.find_spec("lzmod") is None
    finally:
        _hook._state.busy = False
    spec = _hook._finder.find_spec("lzmod")
    assert type(spec.loader) is importlib.machinery.SourceFileLoader
    assert type(spec.loader.get_code) is _hook.LazifyLoader
    assert _hook._finder.find_spec("lazify._plan") is None
    assert _hook._finder.find_spec("encodings.idna") is None
    assert _hook._finder.find_spec("no_such_module_xyz") is None


@pytest.mark.rewrite_only("looks for the rewrite's __lazy__ in the compiled code")
def test_source_to_code_keeps_cpython_signature(isolated_imports):
    loader = _hook.LazifyLoader("lzmod", str(isolated_imports / "lzmod.py"))
    data = loader.get_data(loader.path)
    code = loader.source_to_code(data, loader.path)
    assert "__lazy__" in code.co_names
    assert loader.source_to_code(data, loader.path, _optimize=2).co_consts[0] != "A module with lazy imports."
    with pytest.raises(SyntaxError):
        loader.source_to_code(b"def (", loader.path)


# --------------------------------------------------------------------- start-up cost


def test_rewriter_dependencies_are_measured(tmp_path):
    """Every module the rewriter imports stays plain (else: a circular import on a miss),
    whether the measurement is kept (a child interpreter) or taken in the process."""
    code = """
        import sys
        from importlib.machinery import SourceFileLoader
        import lazify, lazify._hook, lazify._config
        before = set(sys.modules)
        lazify.install()
        import lazify._rewrite, lazify._plan
        from lazify._hook import plain_modules
        new = [n for n in set(sys.modules) - before
               if type(getattr(sys.modules[n].__spec__, "loader", None)) is SourceFileLoader]
        print(sorted(n for n in new if n.partition(".")[0] not in plain_modules()))
    """
    flags = ["-S", "-X", "frozen_modules=off"] if sys.version_info >= (3, 11) else ["-S"]
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    for args, extra in (([], {}), (flags, {}), (flags, {"PYTHONDONTWRITEBYTECODE": "1"})):
        proc = run_python([*args, "-c", textwrap.dedent(code)], cwd=tmp_path,
                          env_extra={**env, **extra}, check=True)
        assert proc.stdout.strip() == "[]"


def test_a_rewriter_dependency_as_the_first_miss_with_nothing_measured(tmp_path):
    """Rewriting at once (``lazify run``) with no measurement kept, the first module to
    miss is one the rewriter itself needs (``enum``, imported by ``re`` after ``-S``):
    the measurement is taken in a child and kept, so ``enum`` is served plain; where the
    child cannot tell, the rewriter imported in the process meets ``enum`` half
    initialised, and ``enum`` is served plain too.  Both failed with 'cannot import
    name ... from partially initialized module 'enum'' (the second start of ``python -S
    -m lazify run`` of a program importing json, installed lazify, 3.11)."""
    code = """
        import sys
        from lazify import _cache, _rewriter_deps
        _cache.read_rewriter_deps = lambda shared_only=False: None   # nothing kept yet
        if sys.argv[1] == "no-child":
            _rewriter_deps.measure = lambda: None                    # the child cannot tell
        import lazify
        from lazify import _hook
        _hook.set_defer_rewrite(_hook.WHERE_UNCACHED)                # as lazify run does
        lazify.install()
        assert "enum" not in sys.modules
        import enum
        print(enum.IntEnum.__name__, enum.__spec__.loader.__class__.__name__)
    """
    for how in ("child", "no-child"):
        proc = run_python(["-S", "-c", textwrap.dedent(code), how], cwd=tmp_path,
                          env_extra={"XDG_CACHE_HOME": str(tmp_path / "xdg"),
                                     "PYTHONDONTWRITEBYTECODE": None})
        assert (proc.returncode, proc.stdout.split()[:1], proc.stderr) == (0, ["IntEnum"], ""), how


def test_rewriter_dependency_measurement_is_kept_and_remeasured_when_bad(tmp_path):
    code = """
        import os, lazify
        from lazify import _cache
        path = _cache.rewriter_deps_path()
        if {bad!r}:   # both copies: beside lazify's bytecode and the per-user one
            for kept_at in (path, _cache.rewriter_deps_path(_cache.rewriter_deps_fallback())):
                os.makedirs(os.path.dirname(kept_at), 0o700, exist_ok=True)
                with open(kept_at, "w") as f:
                    f.write("garbage")
        lazify.install()
        from lazify._hook import plain_modules
        with open(path) as f:
            kept = set(f.read().split())
        print("ast" in plain_modules(), kept <= plain_modules(), "ast" in kept)
    """
    for bad in (False, True):
        proc = run_python(["-c", textwrap.dedent(code.format(bad=bad))], cwd=tmp_path, check=True,
                          env_extra={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
        assert proc.stdout.split() == ["True", "True", "True"]


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="subprocess where no posix_spawn")
def test_measuring_the_rewriter_dependencies_imports_nothing_for_the_child(tmp_path):
    """The first start (nothing kept yet) measures in a child interpreter without
    importing subprocess (and its signal, selectors, locale, re, enum) into the user's
    process; the second start reads what the first kept."""
    code = """
        import sys, lazify
        from lazify import _cache
        kept = _cache.read_rewriter_deps() is not None
        lazify.install()
        print(kept, _cache.read_rewriter_deps() is not None, "subprocess" in sys.modules)
    """
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path / "cache"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    outputs = [run_python(["-S", "-c", textwrap.dedent(code)], cwd=tmp_path, env_extra=env,
                          check=True).stdout.split() for _ in range(2)]
    assert outputs == [["False", "True", "False"], ["True", "True", "False"]]


def test_the_rewriter_dependencies_are_not_measured_again_for_a_new_bytecode_prefix(tmp_path):
    """A sys.pycache_prefix new for each run (a CI job's) finds the measurement kept in
    the per-user cache: no child interpreter at every start."""
    code = """
        import lazify
        from lazify import _cache
        kept = _cache.read_rewriter_deps() is not None
        lazify.install()
        print(kept)
    """
    outputs = [run_python(["-c", textwrap.dedent(code)], cwd=tmp_path, check=True, env_extra={
        "PYTHONPYCACHEPREFIX": str(tmp_path / f"cache{run}"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg")}).stdout.split() for run in range(2)]
    assert outputs == [["False"], ["True"]]


def test_sitecustomize_install_then_the_stdlib_first_thing(tmp_path):
    """install() in sitecustomize.py, then the modules the rewriter once depended on, on a
    cold cache and a warm one: every version's own set of dependencies stays plain."""
    write_tree(tmp_path, {"site/sitecustomize.py": "import lazify\nlazify.install()\n",
                          "main.py": """
        import sys
        import inspect, dataclasses, typing, asyncio
        if sys.version_info >= (3, 14):
            import annotationlib
            print(annotationlib.get_annotations(lambda x: None) == {})
        else:
            print(True)

        @dataclasses.dataclass
        class Point:
            x: int
            limit: typing.ClassVar[int] = 3

        print(inspect.signature(Point), Point(1), asyncio.run(asyncio.sleep(0, "slept")))
        print(type(sys.modules["main"].__loader__).__name__ if "main" in sys.modules else "")
    """})
    env = {"PYTHONPATH": str(tmp_path / "site") + os.pathsep + ROOT,
           "PYTHONPYCACHEPREFIX": str(tmp_path / "cache"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    for _run in ("cold", "warm"):
        proc = run_python(["-W", "error", "main.py"], cwd=tmp_path, env_extra=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == ["True", "(x: int) -> None Point(x=1) slept", ""]
    assert any(name.endswith(".pyc") and "lazify" in name
               for _dir, _dirs, names in os.walk(tmp_path / "cache") for name in names)


def test_stdlib_module_importing_the_rewriters_dependencies(tmp_path):
    """inspect imports ast; with a cold cache that once meant a circular import."""
    code = """
        import inspect, dataclasses, json, email.message
        print(json.dumps(inspect.isfunction(len)))
    """
    prefix = tmp_path / "prefix"  # a cold cache, and none written into the stdlib
    proc = run(code, tmp_path, "-X", f"pycache_prefix={prefix}")
    assert proc.stdout.strip() == "false"
    assert "lazify: compiled json" in debug_lines(proc)


def test_install_imports_nothing_heavy(tmp_path):
    code = """
        import sys
        before = set(sys.modules)
        import lazify
        lazify.install()
        new = sorted(set(sys.modules) - before)
        heavy = {"ast", "symtable", "dataclasses", "typing", "enum", "contextlib", "importlib.util",
                 "importlib.abc", "tokenize", "lazify._emit_ast", "lazify._plan", "libcst"}
        print(sorted(heavy & set(new)))
    """
    proc = run_python(["-c", textwrap.dedent(code)], cwd=tmp_path, check=True)
    assert proc.stdout.strip() == "[]"


def test_the_rewrites_runtime_is_imported_by_the_first_rewritten_module(tmp_path):
    """install() needs only the settings (lazify._settings); the rewrite's runtime comes
    with the first module whose code calls it."""
    write_tree(tmp_path, {"app.py": "import json\ndef f():\n    return json\n"})
    code = """
        import sys, lazify
        lazify.install(mechanism="rewrite")
        print("lazify._importlib_bootstrap" in sys.modules)
        import app
        print("lazify._importlib_bootstrap" in sys.modules, "json" in sys.modules)
    """
    proc = run_python(["-c", textwrap.dedent(code)], cwd=tmp_path, check=True)
    assert proc.stdout.split() == ["False", "True", "False"]


def test_the_public_helpers_are_imported_when_first_asked_for(tmp_path):
    """lazify._api is no part of a start-up: ``lazify.resolve_all`` and the others come
    from it at their first use (PEP 562), ``from lazify import *`` and ``dir`` too;
    lazify._names and lazify._mechanism re-export what the start-up takes elsewhere."""
    code = """
        import sys, lazify
        lazify.install()
        # nor the modules whose functions a start-up needs, kept where it has them (with
        # no LAZIFY_ setting: a start-up that has one reads it with lazify._config)
        assert not {"lazify._names", "lazify._mechanism"} & set(sys.modules)
        print("lazify._api" in sys.modules, "resolve_all" in dir(lazify))
        from lazify import *
        print("lazify._api" in sys.modules, eager_imports.__module__, resolve_all.__name__)
        print(hasattr(lazify, "nothing"))
    """
    proc = run_python(["-c", textwrap.dedent(code)], cwd=tmp_path, check=True,
                      env_extra={"LAZIFY_MECHANISM": None})
    assert proc.stdout.split() == ["False", "True", "True", "lazify._api", "resolve_all",
                                   "False"]


def test_typing_first_on_a_cold_cache(tmp_path):
    """The first module to rewrite is imported by typing-less code that needs typing: the
    planner's dataclasses must not meet a half-initialised typing."""
    code = ("import sys; assert 'typing' not in sys.modules, 'imported at start-up'\n"
            "import lazify; lazify.install()\nimport typing\nprint(typing.ClassVar)\n")
    proc = run_python(["-c", code], cwd=tmp_path,
                      env_extra={"PYTHONPYCACHEPREFIX": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "typing.ClassVar"


@pytest.mark.skipif(sys.version_info < (3, 15), reason="PEP 810 lazy import syntax is 3.15+")
def test_explicit_lazy_imports_are_left_to_the_interpreter(tmp_path):
    """A module with ``lazy import`` statements: the hook rewrites its other imports and
    leaves those to the interpreter; a rewritten module importing a name another module
    imported explicitly lazily gets the real object, not the placeholder."""
    root = write_tree(
        tmp_path / "app",
        {
            "a.py": "lazy from decimal import Decimal\nlazy import json\nimport csv\n"
            "def f():\n    return Decimal('1'), json.dumps(1), csv.QUOTE_ALL\n",
            "b.py": "from a import Decimal, json\ndef g():\n    return Decimal('2'), json.dumps(2)\n",
        },
    )
    code = """
        import sys
        import a
        print(type(vars(a)["Decimal"]).__name__, "decimal" in sys.modules, "csv" in sys.modules)
        import b
        print(b.g(), a.f())
        print(type(vars(a)["Decimal"]).__name__, type(vars(b)["Decimal"]).__name__)
    """
    plain = run_python(["-c", textwrap.dedent(code)], cwd=root, check=True).stdout.splitlines()
    hooked = run(code, root)
    out = hooked.stdout.splitlines()
    assert plain[0] == "lazy_import False True"
    assert out[0] == "lazy_import False False"  # csv is lazify's
    assert out[1:] == plain[1:] == ["(Decimal('2'), '2') (Decimal('1'), '1', 1)", "type type"]
    assert any("compiled a" in line for line in debug_lines(hooked))


@pytest.mark.skipif(sys.version_info < (3, 15), reason="the native mechanism's cache-miss check")
def test_opcode_as_the_first_cache_miss_imports(tmp_path):
    """A cache miss served plain is checked for ``lazy`` statements with the opcode table;
    when the module missed is ``opcode`` itself (``import dis`` first, on a fresh cache),
    the check must not import the module being loaded (AttributeError: partially
    initialized module 'opcode')."""
    code = ("import lazify; lazify.install()\nimport opcode, dis\n"
            "print(opcode.opmap['NOP'] >= 0, dis.dis.__name__)")
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path / "cache"), "LAZIFY_DEFER_REWRITE": "1",
           "LAZIFY_MECHANISM": "native"}
    for _ in range(2):                  # a fresh cache, then the rewrite the first run kept
        proc = run_python(["-c", code], cwd=tmp_path, env_extra=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["True", "dis"]
