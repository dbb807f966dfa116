"""Subprocess scenarios: a program prints the same plain and under lazify.

Each test writes a small tree into tmp_path and runs ``python main.py`` and
``python -m lazify run main.py`` there; both print what the program sees
(values, warnings' locations, frames, which modules are loaded), and the test
compares the two, or states the one documented difference.
"""

from __future__ import annotations


import pytest

from tests._sample import sample
from tests._scenario import write_tree
from tests._util import child_mechanism, run_python


def run_both(tmp_path, files):
    """``(plain stdout, lazified stdout)`` of main.py; both must exit 0."""
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert lazy.returncode == 0, lazy.stdout + lazy.stderr
    return plain.stdout.splitlines(), lazy.stdout.splitlines()


#: jsonschema's shape: the package's own __getattr__ (a deprecation shim defined
#: after the imports) reads names the package imports from a submodule, and that
#: submodule imports a sibling through the package (importlib's fromlist probe).
PROBED_PACKAGE = {
    "pkg/__init__.py": """
        from pkg.validators import A, B
        import warnings

        def __getattr__(name):
            checkers = {"a_checker": A}
            if name in checkers:
                warnings.warn(f"{name} is deprecated", DeprecationWarning, stacklevel=2)
                return checkers[name]
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    """,
    "pkg/_utils.py": "VALUE = 42\n",
    "pkg/validators.py": """
        from pkg import _utils
        X = _utils.VALUE
        class A: pass
        class B: pass
    """,
}


def test_package_getattr_is_not_run_by_a_probe_during_its_own_deferred_import(tmp_path):
    plain, lazy = run_both(tmp_path, {**PROBED_PACKAGE, "main.py": """
        import sys
        import pkg
        print(sorted(m for m in sys.modules if m.startswith("pkg")))
        if True: print(pkg.B.__name__, pkg.validators.X)  # conditional: not read-at-import
        print(sorted(m for m in sys.modules if m.startswith("pkg")))
    """})
    assert plain == ["['pkg', 'pkg._utils', 'pkg.validators']", "B 42",
                     "['pkg', 'pkg._utils', 'pkg.validators']"]
    assert lazy == ["[]", "B 42", "['pkg', 'pkg._utils', 'pkg.validators']"]


WHERE = """
        import inspect, logging, sys, traceback, warnings
        logging.basicConfig(stream=sys.stdout, format="log %(filename)s:%(lineno)d %(message)s")
"""


def test_user_getattr_runs_in_its_own_frame(tmp_path):
    # warnings (stacklevel=2, and filters keyed on the module), sys._getframe(1),
    # inspect.stack(), logging's stacklevel and tracebacks see the caller, as eagerly
    plain, lazy = run_both(tmp_path, {**PROBED_PACKAGE, "pkg/frames.py": WHERE + """
        import json

        def __getattr__(name):
            if name == "caller":
                return sys._getframe(1).f_code.co_filename.rsplit("/", 1)[-1]
            if name == "stack":
                return inspect.stack()[1].filename.rsplit("/", 1)[-1]
            if name == "logged":
                logging.getLogger("x").warning("logged", stacklevel=2)
                return None
            raise AttributeError(name)

        def dumps(value):
            return json.dumps(value)
    """, "main.py": WHERE + """
        import pkg, pkg.frames
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pkg.a_checker
        print([(w.filename.rsplit("/", 1)[-1], w.lineno, str(w.message)) for w in caught])
        with warnings.catch_warnings():
            warnings.filterwarnings("error", category=DeprecationWarning, module="__main__")
            try:
                pkg.a_checker
            except DeprecationWarning as exc:
                print("error:", exc)
        print(pkg.frames.caller, pkg.frames.stack, pkg.frames.logged)
        try:
            pkg.frames.missing
        except AttributeError as exc:
            print([f.filename.rsplit("/", 1)[-1] for f in traceback.extract_tb(exc.__traceback__)])
        print(pkg.frames.dumps([1]))
    """})
    assert plain == lazy
    assert lazy[0] == "[('main.py', 8, 'a_checker is deprecated')]"
    assert lazy[1] == "error: a_checker is deprecated"
    assert lazy[2:] == ["log main.py:16 logged", "main.py main.py None",
                        "['main.py', 'frames.py']", "[1]"]


def test_warning_of_a_lazily_imported_module_points_at_user_code(tmp_path):
    # Eagerly stacklevel=2 names the importing line; lazily the line that first
    # uses the module (the import runs there), never lazify's own frames.
    plain, lazy = run_both(tmp_path, {"optional.py": """
        import warnings
        warnings.warn("optional dependency missing", UserWarning, stacklevel=2)
        VALUE = 1
    """, "main.py": WHERE + """
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, filename, lineno, *a: print(
            "warning", filename.rsplit("/", 1)[-1], lineno, message)
        import optional
        if True: print("used", optional.VALUE)  # conditional: not read-at-import
    """})
    assert plain == ["warning main.py 8 optional dependency missing", "used 1"]
    assert lazy == ["warning main.py 9 optional dependency missing", "used 1"]


def test_getattr_read_back_and_wrapped_by_a_def(tmp_path):
    # plotly's generated package __init__: an assigned __getattr__, read back
    # and wrapped by a def that falls back to it
    plain, lazy = run_both(tmp_path, {"pkg/__init__.py": """
        import json
        from ._importers import relative_import

        __all__, __getattr__, __dir__ = relative_import(__name__, ["sub"])

        orig_getattr = __getattr__

        def __getattr__(import_name):
            if import_name == "served":
                return "served by the def"
            return orig_getattr(import_name)

        def dumps(value):
            return json.dumps(value)
    """, "pkg/_importers.py": """
        import importlib

        def relative_import(name, subs):
            def __getattr__(attr):
                if attr in subs:
                    return importlib.import_module(f"{name}.{attr}")
                raise AttributeError(f"module {name!r} has no attribute {attr!r}")
            def __dir__():
                return sorted(subs)
            return list(subs), __getattr__, __dir__
    """, "pkg/sub.py": "WHO = 'pkg.sub'\n", "main.py": """
        import sys
        import pkg
        print(pkg.served, pkg.sub.WHO, dir(pkg))
        print(hasattr(pkg, "nothing"), pkg.dumps({}))
        print("json" in sys.modules)
    """})
    assert plain == lazy == ["served by the def pkg.sub ['sub']", "False {}", "True"]


REENTRANT = {
    "a.py": """
        from b import X
        def get():
            return X
        if True:  # read conditionally: not read-at-import, which would run it as plainly
            VALUE = X + 1
    """,
    "main.py": """
        import a
        print("VALUE", a.VALUE)
    """,
}


def test_name_read_again_while_its_own_import_runs(tmp_path):
    # b binds X, then calls back into a, which reads X: PEP 690 runs the import
    # statement again at that moment, and importlib hands the half-initialised b
    # to the same thread, so it works (eagerly: a.get does not exist yet)
    write_tree(tmp_path, {**REENTRANT, "b.py": """
        X = 41
        import a
        print("inner", a.get())
    """})
    plain = run_python(["main.py"], cwd=tmp_path)
    assert "AttributeError" in plain.stderr and "'a' has no attribute 'get'" in plain.stderr
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    if child_mechanism() == "native":
        # natively a's import of b, which imports a back, stays eager (import-cycle): the
        # program runs as plainly
        assert_as_plain(plain, lazy)
        return
    assert lazy.returncode == 0, lazy.stderr
    assert lazy.stdout.splitlines() == ["inner 41", "VALUE 42"]


def assert_as_plain(plain, lazy):
    """The lazy run ends as the plain one: the same output, status and error."""
    assert (lazy.returncode, lazy.stdout) == (plain.returncode, plain.stdout), lazy.stderr
    assert lazy.stderr.splitlines()[-1:] == plain.stderr.splitlines()[-1:], lazy.stderr


def test_name_read_again_before_it_exists_raises_as_a_statement_would(tmp_path):
    write_tree(tmp_path, {**REENTRANT, "b.py": """
        import a
        try:
            a.get()
        except ImportError as exc:
            print(type(exc).__name__, exc.msg if hasattr(exc, "msg") else exc)
        X = 41
    """})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    if child_mechanism() == "native":     # a's import of b stays eager, as above
        assert_as_plain(run_python(["main.py"], cwd=tmp_path), lazy)
        return
    assert lazy.returncode == 0, lazy.stderr
    first, second = lazy.stdout.splitlines()
    assert first.startswith("ImportError cannot import name 'X' from partially initialized "
                            "module 'b' (most likely due to a circular import)")
    assert second == "VALUE 42"



def test_an_attribute_the_cycle_reads_back_before_it_is_bound_is_missing_as_plainly(tmp_path):
    # b, imported by a's deferred ``from b import helper``, asks the half-initialised a
    # for helper: plainly a has not bound it yet (AttributeError: getattr's default,
    # hasattr False, ``from a import`` an ImportError), not the error of running a's
    # statement again
    write_tree(tmp_path, {
        "a.py": "from b import helper\nVALUE = helper()\n",
        "b.py": """
            import a
            SEEN = getattr(a, "helper", None)
            HAS = hasattr(a, "helper")
            try:
                from a import helper as h
            except ImportError as exc:
                ERR = type(exc).__name__ + ": " + str(exc).split(" (/")[0]
            def helper():
                return 41
        """,
        "main.py": "import a, b\nprint(a.VALUE, b.SEEN, b.HAS, b.ERR)\n",
    })
    plain = run_python(["main.py"], cwd=tmp_path)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    # (the ImportError's words after the name vary between Pythons)
    assert plain.stdout.startswith("41 None False ImportError: cannot import name 'helper' "
                                   "from "), plain.stderr
    assert (lazy.stdout, lazy.stderr) == (plain.stdout, "")

PLUGINS = {
    "lib/__init__.py": """
        import importlib
        plugins = []
        for name in ["lib.plug_ok", "lib.plug_missing", "lib.plug_deep"]:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                print("skipped", name, exc)
            else:
                plugins.append(name)
        try:
            __import__("lib.plug_missing2")
        except ImportError as exc:
            print("skipped lib.plug_missing2", exc)
        try:
            import lib.plug_ok2 as ok2
        except ImportError:
            ok2 = None
        print(plugins, ok2.run())
    """,
    "lib/plug_ok.py": "import colorsys\ndef run():\n    return colorsys.rgb_to_hsv(0, 0, 0)\n",
    "lib/plug_ok2.py": "import json\ndef run():\n    return json.dumps(2)\n",
    "lib/plug_missing.py": "import not_installed_dep\ndef run():\n    return not_installed_dep.x\n",
    "lib/plug_missing2.py": "from not_installed_two.sub import thing\n",
    "lib/plug_deep.py": "from . import helper\nVALUE = helper.VALUE\n",
    "lib/helper.py": "import json, not_installed_four\nVALUE = json.dumps(3)\n",
}


def test_an_optional_plugins_missing_dependency_raises_inside_the_try(tmp_path):
    # the library imports plugins in try/except ImportError; a plugin's own
    # top-level import of a missing module must fail there, as eagerly, and not
    # at first use for every user of the library
    plain, lazy = run_both(tmp_path, {**PLUGINS, "main.py": """
        import sys
        import lib
        print(lib.plugins, "colorsys" in sys.modules)
    """})
    assert plain[:4] == lazy[:4] == [
        "skipped lib.plug_missing No module named 'not_installed_dep'",
        "skipped lib.plug_deep No module named 'not_installed_four'",
        "skipped lib.plug_missing2 No module named 'not_installed_two'",
        "['lib.plug_ok'] 2"]
    # the plugins' own imports stay deferred: found, not executed
    assert plain[4:] == ["['lib.plug_ok'] True"]
    assert lazy[4:] == ["['lib.plug_ok'] False"]


def test_a_missing_module_outside_any_try_still_fails_at_first_use(tmp_path):
    write_tree(tmp_path, {"mod.py": "import not_installed_dep\ndef f():\n    return not_installed_dep\n",
                          "main.py": "import mod\nprint('imported')\nmod.f()\n"})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert lazy.stdout == "imported\n"
    assert "ModuleNotFoundError: No module named 'not_installed_dep'" in lazy.stderr


def test_code_that_catches_importerror_elsewhere_does_not_guard_its_imports(tmp_path):
    # the importer and the module both handle ImportError, but not around these
    # statements: the missing module still fails at first use (3.10 has no
    # exception table; its try blocks are read from the bytecode)
    write_tree(tmp_path, {
        "mod.py": """
            import not_installed_dep
            try:
                import json
            except ImportError:
                json = None
            VALUE = 1
            def f():
                return not_installed_dep
        """,
        "main.py": """
            import mod
            try:
                import colorsys
            except ModuleNotFoundError:
                pass
            print('imported', mod.VALUE)
            mod.f()
        """})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert lazy.stdout == "imported 1\n"
    assert "ModuleNotFoundError: No module named 'not_installed_dep'" in lazy.stderr


def test_a_package_imports_its_own_submodules_in_its_order(tmp_path):
    # pandas.io.excel: _openpyxl imports from _base, and _base's class body imports
    # from _openpyxl; the package imports _base first, which settles the cycle.
    # The first use of a later name must not import _openpyxl first.
    plain, lazy = run_both(tmp_path, {
        "excel/__init__.py": """
            from excel._base import ExcelFile, ExcelWriter
            from excel._openpyxl import OpenpyxlWriter as _OpenpyxlWriter
            WRITERS = [_OpenpyxlWriter.engine]
        """,
        "excel/_base.py": """
            class ExcelWriter:
                engine = "base"
            class ExcelFile:
                from excel._openpyxl import OpenpyxlReader
                readers = [OpenpyxlReader.engine]
        """,
        "excel/_openpyxl.py": """
            from excel._base import ExcelWriter
            class OpenpyxlWriter(ExcelWriter):
                engine = "openpyxl"
            class OpenpyxlReader:
                engine = "openpyxl-reader"
        """,
        "main.py": """
            import excel
            print(excel.WRITERS, excel.ExcelFile.readers)
        """})
    assert plain == lazy == ["['openpyxl'] ['openpyxl-reader']"]


def test_a_package_getattr_of_its_own_answers_for_its_submodules(tmp_path):
    # numpy's np.random: no pending import aims at the submodule, and the package's
    # own __getattr__ imports it; the rest of the program's pending imports stay pending
    plain, lazy = run_both(tmp_path, {
        "npy/__init__.py": """
            import json
            def __getattr__(attr):
                if attr == "random":
                    import npy.random as random
                    return random
                raise AttributeError(attr)
        """,
        "npy/random.py": "SEED = 1\n",
        "other.py": "import colorsys\n",
        "main.py": """
            import sys
            import npy, other
            print(npy.random.SEED, "colorsys" in sys.modules)
        """})
    assert plain == ["1 True"]
    assert lazy == ["1 False"]


def test_from_package_import_submodule_runs_no_other_pending_import(tmp_path):
    # `from pkg import sub`: importlib probes hasattr(pkg, "sub") before it
    # imports the submodule itself; the probe must import nothing else, also
    # when the importlib package was never imported (install() first thing,
    # as from sitecustomize: the frozen bootstrap's globals say "_frozen_importlib")
    from tests._util import ROOT
    write_tree(tmp_path, {
        "pkg/__init__.py": "import colorsys\n",
        "pkg/sub.py": "VALUE = 1\n",
        "other.py": "import json\n",
        "main.py": f"""
            import sys
            if sys.argv[1:] == ["lazify"]:
                sys.path.insert(0, {ROOT!r})
                import lazify
                lazify.install()
                print("importlib" in sys.modules)
            import other
            from pkg import sub
            print(sub.VALUE, "colorsys" in sys.modules, "json" in sys.modules)
        """})
    plain = run_python(["-S", "main.py"], cwd=tmp_path, check=True)
    lazy = run_python(["-S", "main.py", "lazify"], cwd=tmp_path, check=True)
    assert plain.stdout.split() == ["1", "True", "True"]
    assert lazy.stdout.split() == ["False", "1", "False", "False"]


def test_check_reports_a_packages_own_extension_modules_eager(tmp_path):
    import _imp
    import json as json_module

    suffix = _imp.extension_suffixes()[0]
    write_tree(tmp_path, {"pkg/__init__.py": """
        from pkg.fast import speedup
        from . import helpers
        from .slow import fallback
    """, "pkg/slow.py": "", "pkg/helpers.py": ""})
    (tmp_path / "pkg" / f"fast{suffix}").write_bytes(b"")
    (tmp_path / "pkg" / f"helpers{suffix}").write_bytes(b"")
    proc = run_python(["-m", "lazify", "check", "--format", "json", "pkg"], cwd=tmp_path)
    verdicts = {row["name"]: (row["verdict"], row["reason"])
                for row in json_module.loads(proc.stdout)["files"][0]["imports"]}
    assert verdicts == {"speedup": ("eager", "extension-module"),
                        "helpers": ("eager", "extension-module"),
                        "fallback": ("lazy", None)}


#: Shapes of the packages in lazify's default excluding list, under their names:
#: each breaks under global lazy imports unless the package is excluded.
DEFAULT_EXCLUDED = {
    "alembic": {
        "alembic/__init__.py": "from . import context\nfrom . import op\n",
        "alembic/context.py": "from .environment import EnvironmentContext\n"
                              "EnvironmentContext.setup()\n",
        "alembic/environment.py": """
            from .migration import MigrationContext
            class EnvironmentContext:
                @classmethod
                def setup(cls):
                    return None
                def run(self):
                    return MigrationContext
        """,
        "alembic/migration.py": "from . import ddl\nclass MigrationContext:\n    pass\n",
        "alembic/op.py": "from .operations import Operations\nOperations.setup()\n",
        "alembic/operations.py": """
            try:
                from .ddl import base
            except ImportError:
                raise
            class Operations:
                registry = []
                @classmethod
                def setup(cls):
                    return None
                @classmethod
                def register(cls, name):
                    cls.registry.append(name)
        """,
        "alembic/ddl/__init__.py": "from . import postgresql\n",
        "alembic/ddl/base.py": "X = 1\n",
        "alembic/ddl/postgresql.py": "from ..operations import Operations\n"
                                     "Operations.register('postgresql')\n",
        "main.py": "import alembic.op\nprint(alembic.operations.Operations.registry)\n",
    },
    "sqlalchemy.orm": {
        "sqlalchemy/__init__.py": "",
        "sqlalchemy/orm/__init__.py": "from .attributes import QueryableAttribute\n"
                                      "from .mapped_collection import KeyFuncDict as KeyFuncDict\n"
                                      "NAMES = sorted(globals())\n",
        "sqlalchemy/orm/collections.py": """
            class collection:
                @staticmethod
                def appender(fn):
                    return fn
            def __go():
                global KeyFuncDict
                from .mapped_collection import KeyFuncDict
            __go()
        """,
        "sqlalchemy/orm/mapped_collection.py": """
            from .collections import collection
            class KeyFuncDict(dict):
                @collection.appender
                def set(self, value):
                    return value
        """,
        "sqlalchemy/orm/attributes.py": "from . import collections\n"
                                        "class QueryableAttribute:\n"
                                        "    def adapter(self):\n"
                                        "        return collections.collection\n",
        "main.py": "import sqlalchemy.orm\nprint(sqlalchemy.orm.KeyFuncDict.__name__)\n",
    },
    "pandas._config": {
        "pandas/__init__.py": "from pandas._config import get_option\n",
        "pandas/_config/__init__.py": """
            __all__ = ["get_option", "detect_console_encoding"]
            from pandas._config import dates  # noqa: F401
            from pandas._config.config import get_option
            from pandas._config.display import detect_console_encoding
        """,
        "pandas/_config/config.py": """
            options = {}
            def register_option(key, value):
                options[key] = value
            def get_option(key):
                return options[key]
        """,
        "pandas/_config/dates.py": "from pandas._config import config\nconfig.register_option('dates', 1)\n",
        "pandas/_config/display.py": """
            from pandas._config import config
            def detect_console_encoding():
                return "utf-8"
            config.register_option("encoding", detect_console_encoding())
        """,
        "main.py": "import pandas\nprint(pandas.get_option('encoding'))\n",
    },
    "matplotlib": {
        "matplotlib/__init__.py": "",
        "matplotlib/artist.py": "class Artist:\n    pass\n",
        "matplotlib/_docstring.py": """
            class _Loader(dict):
                def __missing__(self, key):
                    from matplotlib.artist import Artist
                    try:
                        cls, = (c for c in Artist.__subclasses__() if c.__name__ == key[:-6])
                    except ValueError as e:
                        raise KeyError(key) from e
                    return self.setdefault(key, f"{cls.__name__} properties")
            params = _Loader()
            def interpd(func):
                func.__doc__ = func.__doc__ % params
                return func
        """,
        "matplotlib/axes.py": "from matplotlib.artist import Artist\nclass Axes(Artist):\n    pass\n",
        "matplotlib/figure.py": """
            from matplotlib import _docstring
            from matplotlib.axes import Axes
            class Figure:
                @_docstring.interpd
                def add_axes(self):
                    '''%(Axes:kwdoc)s'''
                    return Axes()
        """,
        "main.py": "import matplotlib.figure\nprint(matplotlib.figure.Figure.add_axes.__doc__)\n",
    },
    "_pytest.assertion": {
        # pytest's assertion rewriter: a meta-path finder whose find_spec uses a name its
        # package imported (_pytest.pathlib's fnmatch), met while that name's own import
        # is being found
        "_pytest/__init__.py": "",
        "_pytest/pathlib.py": "import fnm\ndef match(name):\n    return fnm.match(name)\n",
        "_pytest/assertion/__init__.py": "",
        "_pytest/assertion/rewrite.py": """
            import sys
            from _pytest import pathlib
            class Finder:
                def find_spec(self, name, path=None, target=None):
                    pathlib.match(name)
                    return None
            def install():
                sys.meta_path.insert(0, Finder())
        """,
        "fnm.py": "X = 'fnm'\ndef match(name):\n    return False\n",
        "main.py": "import _pytest.assertion.rewrite as hook\nhook.install()\nimport fnm\n"
                   "print(fnm.X)\n",
    },
    "_pytest.pathlib": {
        # the same, the rewriter's own imports eager: the module it calls defers fnm
        "_pytest/__init__.py": "",
        "_pytest/pathlib.py": "import fnm\ndef match(name):\n    return fnm.match(name)\n",
        "_pytest/assertion/__init__.py": "",
        "_pytest/assertion/rewrite.py": """
            import sys
            from _pytest import pathlib
            pathlib.match
            class Finder:
                def find_spec(self, name, path=None, target=None):
                    pathlib.match(name)
                    return None
            def install():
                sys.meta_path.insert(0, Finder())
        """,
        "fnm.py": "X = 'fnm'\ndef match(name):\n    return False\n",
        "main.py": "import _pytest.assertion.rewrite as hook\nhook.install()\nimport fnm\n"
                   "print(fnm.X)\n",
    },
}


#: three of the exclusions by default (tests/_sample.py), every one under LAZIFY_FULL_TESTS=1
@pytest.mark.parametrize("package", sample(sorted(DEFAULT_EXCLUDED), 3))
def test_each_default_exclusion_is_needed(tmp_path, package):
    import lazify

    assert package in lazify.DEFAULT_EXCLUDING
    plain, lazy = run_both(tmp_path, DEFAULT_EXCLUDED[package])
    assert plain == lazy
    without = run_python(["-c", "import lazify, runpy; lazify.install(excluding=());"
                                "runpy.run_path('main.py', run_name='__main__')"], cwd=tmp_path)
    assert without.returncode != 0, without.stdout



def test_from_package_import_submodule_outcomes(tmp_path):
    # ``from pkg import sub`` deferred, for a rewritten package loaded already
    # (holding lazify's __getattr__): lazify imports ``pkg.sub`` itself ahead of
    # importlib's hasattr probe (_import_submodule_first); every outcome as eagerly
    cases = {
        "missing": "from pkg import missing_name\nmissing_name\n",
        "broken": "from pkg import broken\nbroken\n",
        "blocked": "from pkg import blocked\nblocked\n",
        "fine": "from pkg import sub\nfrom pkg.rel import inner\nprint(sub.X, inner.Y)\n",
    }
    plain, lazy = run_both(tmp_path, {
        "pkg/__init__.py": "import json\nVALUE = 1\n",
        "pkg/sub.py": "X = 'sub'\n",
        "pkg/broken.py": "print('broken runs')\nimport not_installed_anywhere\n",
        "pkg/blocked.py": "X = 'never'\n",
        "pkg/rel/__init__.py": "",
        "pkg/rel/inner.py": "from . import leaf\nfrom .. import sub\nY = leaf.Z + sub.X\n",
        "pkg/rel/leaf.py": "Z = 'leaf+'\n",
        **{f"case_{name}.py": source for name, source in cases.items()},
        "main.py": """
            import importlib, sys
            import pkg
            pkg.VALUE            # loaded, while its own import of json is pending
            sys.modules["pkg.blocked"] = None
            for name in ("missing", "broken", "blocked", "fine"):
                try:
                    importlib.import_module(f"case_{name}")
                except ImportError as exc:
                    print(name, type(exc).__name__, exc.name, str(exc).split(" (")[0])
            print(sorted(m for m in sys.modules if m.startswith("pkg")))
        """,
    })
    assert plain == lazy
    assert plain[:5] == [
        "missing ImportError pkg cannot import name 'missing_name' from 'pkg'",
        "broken runs",
        "broken ModuleNotFoundError not_installed_anywhere No module named "
        "'not_installed_anywhere'",
        "blocked ModuleNotFoundError pkg.blocked import of pkg.blocked halted; None in "
        "sys.modules",
        "sub leaf+sub",
    ]


def test_future_imports_are_lazy_and_keep_their_features(tmp_path):
    """PEP 810's global mode defers ``from __future__ import annotations`` too: the
    module keeps the feature (string annotations, and what ``exec`` inherits), and
    ``__future__`` is imported when the bound name is read."""
    plain, lazy = run_both(tmp_path, {
        "mod.py": """
            \"\"\"Doc.\"\"\"
            from __future__ import annotations, generator_stop
            import sys

            def f(x: Undefined) -> sys.X: ...

            def inherited():
                namespace = {}
                exec("def g(y: Other): pass", namespace)
                return namespace["g"].__annotations__

            LOADED = "__future__" in sys.modules
        """,
        "main.py": """
            import sys
            sys.modules.pop("__future__", None)
            import mod
            print(mod.__doc__, mod.f.__annotations__, mod.inherited())
            print("loaded while importing:", mod.LOADED, "__future__" in sys.modules)
            print(mod.annotations.compiler_flag, "__future__" in sys.modules)
        """,
    })
    assert plain[0] == lazy[0] == "Doc. {'x': 'Undefined', 'return': 'sys.X'} {'y': 'Other'}"
    assert plain[1] == "loaded while importing: True True"
    assert lazy[1] == "loaded while importing: False False"
    assert plain[2] == lazy[2] == "16777216 True"


def test_a_version_dunder_is_lazy_like_any_name(tmp_path):
    """``from ._version import __version__``: the name means nothing to Python, so it is
    lazy as PEP 810 makes it; a dunder the import system reads (``__all__``) stays."""
    plain, lazy = run_both(tmp_path, {
        "pkg/__init__.py": """
            from ._version import __version__
            from ._meta import __author__, __all__

            def version():
                return __version__
        """,
        "pkg/_version.py": "__version__ = '1.2'\n",
        "pkg/_meta.py": "__author__ = 'me'\n__all__ = ['version']\n",
        "main.py": """
            import sys
            import pkg
            pkg.version
            print(sorted(m for m in sys.modules if m.startswith("pkg.")))
            from pkg import *
            print(version(), pkg.__author__, getattr(pkg, "__version__"))
            print(sorted(m for m in sys.modules if m.startswith("pkg.")))
        """,
    })
    assert plain[0] == "['pkg._meta', 'pkg._version']"
    assert lazy[0] == "['pkg._meta']"
    assert plain[1:] == lazy[1:] == ["1.2 me 1.2", "['pkg._meta', 'pkg._version']"]


def test_doctest_of_a_name_its_example_imports_itself(tmp_path):
    """``>>> from pkg import double`` then ``>>> double(2)``: the example binds the name
    itself, so the module's ``from .api import double`` stays lazy, and doctest passes."""
    plain, lazy = run_both(tmp_path, {
        "pkg/__init__.py": '''
            """Doubles.

            >>> from pkg import double
            >>> double(2)
            4
            """
            from .api import double
        ''',
        "pkg/api.py": "def double(x):\n    return 2 * x\n",
        "main.py": """
            import doctest, sys
            import pkg
            pkg.__doc__
            print("pkg.api" in sys.modules)
            print(doctest.testmod(pkg))
        """,
    })
    assert plain == ["True", "TestResults(failed=0, attempted=2)"]
    assert lazy == ["False", "TestResults(failed=0, attempted=2)"]
