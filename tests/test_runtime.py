"""Subprocess scenarios: what a program does under global lazy imports.

Each test writes a small tree into tmp_path and runs ``python -m lazify run
main.py`` there (the PEP's ``-L``), asserting on what the child prints.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from tests._scenario import HEAVY, lazy_output, run_lazy, write_tree
from tests._util import child_mechanism, run_python

HAS_NOTES = sys.version_info >= (3, 11)
#: the children run PEP 810's lazy imports (3.15's default), not the rewrite
NATIVE = child_mechanism() == "native"


def test_nothing_runs_at_the_statement(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "main.py": """
        import sys
        import heavy
        print("loaded:", "heavy" in sys.modules)
        if True:  # read conditionally: not read-at-import
            print(heavy.double(2))
            print(heavy.VALUE)
        print("loaded:", "heavy" in sys.modules)
    """})
    assert out.splitlines() == ["loaded: False", "heavy executed", "4", "42", "loaded: True"]


def test_side_effects_happen_once_at_first_use(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "user.py": """
        import heavy
        def get():
            return heavy.VALUE
    """, "main.py": """
        import user
        print("start")
        print(user.get(), user.get())
    """})
    assert out.splitlines() == ["start", "heavy executed", "42 42"]


def test_import_forms(tmp_path):
    files = {
        "a/__init__.py": "print('a')\n",
        "a/b/__init__.py": "print('a.b')\n",
        "a/b/c.py": "print('a.b.c'); X = 'c'\n",
        "a/d.py": "print('a.d'); X = 'd'\n",
        "main.py": """
            import a.b.c
            import a.d
            import a.b as ab
            from a import d as dd
            print("start")
            if True:  # read conditionally: not read-at-import
                print(a.b.c.X, a.d.X)
                print(ab.__name__, dd.X)
        """,
    }
    out = lazy_output(tmp_path, files)
    assert out.splitlines() == ["start", "a", "a.b", "a.b.c", "a.d", "c d", "a.b d"]


def test_relative_imports_and_from_submodule_fallback(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "print('helpers'); NAME = 'helpers'\n",
        "pkg/mod.py": """
            from . import helpers
            from .helpers import NAME
            def show():
                return helpers.NAME, NAME
        """,
        "main.py": """
            from pkg import mod
            print("start")
            print(*mod.show())
        """,
    }
    assert lazy_output(tmp_path, files).splitlines() == ["start", "helpers", "helpers helpers"]


def test_transparent_after_resolution(tmp_path):
    files = {**HEAVY, "user.py": """
        import heavy
        from heavy import Base, Error, double
        class Child(Base):
            pass
        def is_base(obj):
            return isinstance(obj, Base)
        def fail():
            raise Error("boom")
        def call():
            return double(21)
        def top():
            return heavy.VALUE
    """, "main.py": """
        import pickle
        from unittest import mock
        import user
        print(is_base := user.is_base(user.Child()))
        try:
            user.fail()
        except user.Error as exc:
            print("caught", exc)
        with mock.patch("user.double", lambda x: -x):
            print(user.call())
        print(user.call())
        with mock.patch("user.heavy") as fake:
            fake.VALUE = "patched"
            print(user.top())
        print(user.top())
        print(pickle.loads(pickle.dumps(user.call)) is user.call)
        print(pickle.loads(pickle.dumps(user.Child)) is user.Child)
        from user import heavy as h
        print(h.VALUE, user.heavy is h, hasattr(user, "double"))
        print("double" in dir(user), "heavy" in dir(user))
    """}
    out = lazy_output(tmp_path, files)
    assert out.splitlines() == [
        "heavy executed", "True", "caught boom", "-21", "42", "patched", "42",
        "True", "True", "42 True True", "True True"]


def test_dir_lists_pending_names_without_resolving(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "user.py": "import heavy\n", "main.py": """
        import sys
        import user
        import lazify
        print("heavy" in dir(user), "heavy" in sys.modules)
        print(lazify.is_lazy_import(vars(user), "heavy"))
        user.heavy
        print(lazify.is_lazy_import(vars(user), "heavy"), "heavy" in sys.modules)
    """})
    assert out.splitlines() == ["True False", "True", "heavy executed", "False True"]


def test_global_statement_and_reassignment(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "main.py": """
        import heavy
        import json
        def read():
            global heavy
            return heavy.VALUE
        def rebind():
            global json
            json = "rebound"
        print("start")
        print(read())
        rebind()
        print(json)
    """})
    assert out.splitlines() == ["start", "heavy executed", "42", "rebound"]


def test_missing_module_fails_at_first_use_and_retries(tmp_path):
    proc = run_lazy(tmp_path, {"main.py": """
        import sys
        import not_there_at_all
        print("started")
        for attempt in range(2):
            try:
                not_there_at_all.x
            except ModuleNotFoundError as exc:
                print(type(exc).__name__, exc.name)
                # where the import is: lazify's note, or natively the ImportError it is
                # chained from, raised at the statement (PEP 810)
                cause = exc.__cause__
                print(any("main.py:3" in n for n in getattr(exc, "__notes__", ()))
                      or (isinstance(cause, ImportError) and cause.__traceback__.tb_lineno == 3))
        sys.path.insert(0, "late")
        import os
        os.makedirs("late", exist_ok=True)
        with open("late/not_there_at_all.py", "w") as f:
            f.write("x = 'found'\\n")
        import importlib; importlib.invalidate_caches()
        if True:  # read conditionally: not read-at-import
            print(not_there_at_all.x)
    """})
    assert proc.returncode == 0, proc.stderr
    notes = "True" if HAS_NOTES or NATIVE else "False"
    assert proc.stdout.splitlines() == [
        "started", "ModuleNotFoundError not_there_at_all", notes,
        "ModuleNotFoundError not_there_at_all", notes, "found"]


def test_exception_in_deferred_module_keeps_its_type(tmp_path):
    proc = run_lazy(tmp_path, {"broken.py": "raise ValueError('bad module')\n", "main.py": """
        import broken
        print("started")
        try:
            broken.x
        except ValueError as exc:
            print("ValueError", exc)
        if True:  # read conditionally: not read-at-import
            broken.x
    """})
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == ["started", "ValueError bad module"]
    assert "ValueError: bad module" in proc.stderr
    assert "broken.py" in proc.stderr and "main.py" in proc.stderr
    if NATIVE:      # the traceback of the ImportError it is chained from (PEP 810)
        assert 'main.py", line 2, in <module>\n    import broken\n' in proc.stderr
    elif HAS_NOTES:
        assert "deferred import at" in proc.stderr


def test_attribute_error_inside_deferred_import_is_not_swallowed(tmp_path):
    out = lazy_output(tmp_path, {
        "broken.py": "import os\nos.no_such_function()\n",
        "user.py": "import broken\n",
        "main.py": """
            import user
            try:
                hasattr(user, "broken")
            except (ImportError, AttributeError) as exc:
                print(type(exc).__name__, type(exc.__cause__).__name__)
            print(getattr(user, "other", "default"))
        """})
    # the rewrite raises ImportError from it; natively the AttributeError itself escapes
    # hasattr, chained from the ImportError of the statement (PEP 810)
    raised = "AttributeError ImportError" if NATIVE else "ImportError AttributeError"
    assert out.splitlines() == [raised, "default"]


def test_deferred_relative_from_import_warns_like_the_statement(tmp_path):
    # The deferred ``from . import other`` of a module whose ``__package__`` is
    # not its ``__spec__.parent`` still runs the import that resolves them and
    # warns, after lazify imported the submodule ahead of importlib's probe.
    files = {
        "pkg/__init__.py": "",
        "pkg/other.py": "NAME = 'other'\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/mod.py": """
            __package__ = "pkg"
            from . import other
            def show():
                return other.NAME
        """,
        "main.py": """
            import warnings
            warnings.simplefilter("always")
            from pkg.sub import mod
            print(mod.show())
        """,
    }
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path)
    lazy = run_lazy(tmp_path, files)
    for proc in (plain, lazy):
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.splitlines() == ["other"]
        assert "__package__ != __spec__.parent" in proc.stderr, proc.stderr


def test_package_submodule_loaded_by_a_deferred_import(tmp_path):
    # httpie's case: `import pygments` and then `pygments.token`, which an
    # eager program had loaded through some other module's import.
    files = {
        "tool/__init__.py": "",
        "tool/token.py": "KIND = 'token'\n",
        "tool/lexers.py": "from tool import token\nLEXER = 'lexer'\n",
        "app/__init__.py": "",
        "app/colors.py": "from tool.lexers import LEXER\n",
        "app/main.py": """
            import tool
            from app import colors
            def show():
                return tool.token.KIND
        """,
        "main.py": "from app import main\nprint(main.show())\n",
    }
    assert lazy_output(tmp_path, files).splitlines() == ["token"]


def test_package_submodule_catch_up_finds_a_dotted_import_group(tmp_path):
    # httpie's colors module: `import pygments.formatters` ... `import
    # pygments.token` all bind `pygments`; a module reading `pygments.token`
    # at import time gets it from that pending group, and no unrelated
    # pending import of the process runs for it, nor the group's other
    # submodules (PEP 810's global mode imports the one read: the same two
    # lines there); colors reading `tool.lexers` later imports that one
    files = {
        "tool/__init__.py": "",
        "tool/token.py": "KIND = 'token'\n",
        "tool/lexers.py": "LEXER = 'lexer'\n",
        "heavy.py": "print('heavy executed')\n",
        "app/__init__.py": "",
        "app/early.py": "import heavy\ndef use():\n    return heavy\n",
        "app/colors.py": "import tool.lexers\nimport tool.token\ndef f():\n    return tool\n",
        "app/meta.py": "import tool\nKIND = tool.token.KIND\n",
        "main.py": """
            import sys
            from app import early, colors
            early.use, colors.f
            from app import meta
            print(meta.KIND, "heavy" in sys.modules, "tool.lexers" in sys.modules)
            print(colors.f().lexers.LEXER, "tool.lexers" in sys.modules)
        """,
    }
    assert lazy_output(tmp_path, files).splitlines() == ["token False False", "lexer True"]


def test_package_submodule_catch_up_tries_the_package_s_own_imports_first(tmp_path):
    # httpie: `pygments.formatter` in an annotation (evaluated at the def before
    # 3.14), which `pygments.formatters.terminal`, pending in another module,
    # imports: that import runs before the unrelated pending ones
    files = {
        "tool/__init__.py": "",
        "tool/formatter.py": "BASE = 'formatter'\n",
        "tool/formatters/__init__.py": "",
        "tool/formatters/terminal.py": "from tool.formatter import BASE\nTERM = 'terminal'\n",
        "heavy.py": "print('heavy executed')\n",
        "app/__init__.py": "",
        "app/early.py": "import heavy\ndef use():\n    return heavy\n",
        "app/colors.py": "from tool.formatters.terminal import TERM\ndef f():\n    return TERM\n",
        "app/meta.py": "import tool\nKIND = tool.formatter.BASE\n",
        "main.py": """
            import sys
            from app import early, colors
            early.use, colors.f
            from app import meta
            print(meta.KIND, "heavy" in sys.modules, "tool.formatters.terminal" in sys.modules)
        """,
    }
    assert lazy_output(tmp_path, files).splitlines() == ["formatter False True"]


def test_package_submodule_catch_up_answers_as_the_package_would(tmp_path):
    # What no pending import loads is missing as plainly: the same AttributeError
    # (name, obj, the interpreter's message for a partially initialised package),
    # after the catch-up ran what was pending.  A package's own __getattr__ (PEP 562)
    # answers for itself.  importlib's probe for `from tool import token` gets the
    # plain answer and imports just that submodule (the pending import stays so).
    files = {
        "tool/__init__.py": "",
        "tool/token.py": "KIND = 'token'\n",
        "tool/lexers.py": "from tool import token\nLEXER = 'lexer'\n",
        "tool/unused.py": "print('tool.unused executed')\n",
        "app/__init__.py": "",
        "app/colors.py": "from tool.lexers import LEXER\n",
        "own/__init__.py": """
            import json
            def __getattr__(name):
                if name == "magic":
                    return 42
                raise AttributeError(f"own has no {name}")
        """,
        "own/sub.py": "print('own.sub executed')\n",
        "partial/__init__.py": "from partial import a\nSEEN = a.SEEN\n",
        "partial/a.py": """
            import partial
            try:
                partial.b
            except AttributeError as exc:
                SEEN = str(exc)
        """,
        "partial/b.py": "print('partial.b executed')\n",
        "main.py": """
            import sys
            import partial
            print(partial.SEEN)
            from app import colors
            import own
            import tool
            print(own.magic, hasattr(own, "sub"))
            try:
                own.missing
            except AttributeError as exc:
                print(exc)
            try:
                tool.nothere
            except AttributeError as exc:
                print(exc, exc.name, exc.obj is tool)
            def probe():
                from tool import token      # eager: importlib's hasattr probe
                return token.KIND
            print(probe(), "tool.lexers" in sys.modules, file=sys.stderr)
            try:
                tool.unused
            except AttributeError as exc:
                print(exc, exc.name, exc.obj is tool)
            print(hasattr(tool, "unused"), "tool.unused" in sys.modules, colors.LEXER)
        """,
    }
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path)
    lazy = run_lazy(tmp_path, files)
    assert plain.returncode == 0, plain.stderr
    assert lazy.returncode == 0, lazy.stderr
    if NATIVE:
        assert lazy.stdout == plain.stdout
    else:
        # the rewrite's runtime raises an AttributeError of its own: no obj, no
        # "partially initialized" (the native mechanism gives the interpreter's)
        assert [line.partition(" ")[0] for line in lazy.stdout.splitlines()[1:]] \
            == [line.partition(" ")[0] for line in plain.stdout.splitlines()[1:]]
    assert plain.stdout.splitlines()[1:] == [
        "42 False", "own has no missing",
        "module 'tool' has no attribute 'nothere' nothere True",
        "module 'tool' has no attribute 'unused' unused True",
        "False False lexer"]
    assert "token True" in plain.stderr
    assert "token False" in lazy.stderr      # the probe caught nothing up


def test_late_global_catch_up(tmp_path):
    # black's shape: blib2to3.pygram declares its grammars by annotation alone and
    # initialize() binds them (`global`); importing black.nodes calls it, and
    # black.parsing imports black.nodes for a name it reads after pygram's grammars
    # (`module 'blib2to3.pygram' has no attribute 'python_grammar'` where black's own
    # cache directory could not be made, which is when black.main leaves it to that
    # import).  A pending import that binds the declared name runs when it is read,
    # the reading module's own first; a declared name nothing binds, and any other
    # missing one, is the interpreter's AttributeError
    files = {
        "lib/__init__.py": "",
        "lib/pygram.py": """
            import os
            grammar: str
            never_bound: str
            def initialize(name):
                global grammar
                grammar = os.path.basename(name)
        """,
        "app/__init__.py": "",
        "app/nodes.py": """
            from lib import pygram
            pygram.initialize('/x/grammar.txt')
            syms = 'syms'
        """,
        "app/parsing.py": """
            from app.nodes import syms
            from lib import pygram
            def grammars():
                return [pygram.grammar, syms]
        """,
        "heavy.py": "print('heavy executed')\n",
        "early.py": "import heavy\ndef use():\n    return heavy\n",
        "main.py": """
            import sys
            import early
            from app import parsing
            early.use
            print(parsing.grammars(), "heavy" in sys.modules)
            from lib import pygram
            for name in ("other", "never_bound"):
                try:
                    getattr(pygram, name)
                except AttributeError as exc:
                    print(exc, exc.name, exc.obj is pygram, "heavy" in sys.modules)
        """,
    }
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines() == [
        "heavy executed", "['grammar.txt', 'syms'] True",
        "module 'lib.pygram' has no attribute 'other' other True True",
        "module 'lib.pygram' has no attribute 'never_bound' never_bound True True"]
    # the reader's own pending import binds it; a declared name nothing binds runs
    # every pending import first, as the eager program had
    assert lazy_output(tmp_path, files).splitlines() == [
        "['grammar.txt', 'syms'] False",
        "module 'lib.pygram' has no attribute 'other' other True False",
        "heavy executed",
        "module 'lib.pygram' has no attribute 'never_bound' never_bound True True"]


def test_package_submodule_catch_up_passes_over_a_failing_pending_import(tmp_path):
    # a pending import that fails while a catch-up runs it does not stop the catch-up;
    # it raises its own error at its first use, as it would have without the catch-up
    files = {
        "tool/__init__.py": "",
        "tool/token.py": "KIND = 'token'\n",
        "tool/lexers.py": "from tool import token\n",
        "broken.py": "raise RuntimeError('broken at import')\n",
        "app/__init__.py": "",
        "app/early.py": "import broken\ndef use():\n    return broken\n",
        "app/helpers.py": "import tool.lexers\nHELP = 'help'\n",
        "app/colors.py": "from app.helpers import HELP\ndef f():\n    return HELP\n",
        "main.py": """
            from app import early, colors
            import tool
            early.use, colors.f
            print(tool.token.KIND)
            try:
                early.use()
            except RuntimeError as exc:
                print("RuntimeError", exc)
        """,
    }
    assert lazy_output(tmp_path, files).splitlines() == [
        "token", "RuntimeError broken at import"]


def test_eager_from_import_sets_package_attribute(tmp_path):
    files = {
        "pkg/__init__.py": "from .sub import thing\n",
        "pkg/sub.py": "thing = 1\nOTHER = 'other'\n",
        "main.py": "import pkg\nprint(pkg.sub.OTHER)\n",
    }
    assert lazy_output(tmp_path, files).splitlines() == ["other"]


def test_class_body_shadowing_a_global(tmp_path):
    out = lazy_output(tmp_path, {"main.py": """
        import json
        class Codec:
            json_module = json
            def json(self):
                return "method"
        print(Codec.json_module.__name__, Codec().json())
    """})
    assert out.splitlines() == ["json method"]


def test_from_x_import_x_in_package(tmp_path):
    files = {
        "pkg/__init__.py": "from .x import x\nfrom .y import helper\n",
        "pkg/x.py": "def x():\n    return 'function x'\n",
        "pkg/y.py": "import pkg.x\ndef helper():\n    return 'helper'\n",
        "main.py": "import pkg\nprint(pkg.helper())\nprint(pkg.x())\n",
    }
    assert lazy_output(tmp_path, files).splitlines() == ["helper", "function x"]


def test_module_copying_its_dict_into_a_replacement(tmp_path):
    # pygments' plugin modules replace themselves in sys.modules
    files = {**HEAVY, "swapper.py": """
        import sys
        import types
        import heavy
        class _Replacement(types.ModuleType):
            pass
        new = _Replacement(__name__)
        new.__dict__.update(sys.modules[__name__].__dict__)
        sys.modules[__name__] = new
    """, "main.py": """
        import swapper
        print(type(swapper).__name__)
        print(swapper.heavy.VALUE)
    """}
    assert lazy_output(tmp_path, files).splitlines() == ["_Replacement", "heavy executed", "42"]


def test_from_import_of_a_name_pending_in_a_replaced_module(tmp_path):
    # pygments.lexers: the replacement's class __getattr__ knows lexers only, and
    # `from pygments.lexers import ClassNotFound` in a sibling must still work
    files = {**HEAVY, "pkg/__init__.py": "", "pkg/lexers.py": """
        import sys
        import types
        from heavy import VALUE
        class _Auto(types.ModuleType):
            def __getattr__(self, name):
                raise AttributeError(name)
        def used():
            return VALUE
        new = _Auto(__name__)
        new.__dict__.update(sys.modules[__name__].__dict__)
        sys.modules[__name__] = new
    """, "pkg/sql.py": """
        import pkg.lexers
        pkg.lexers.used()   # resolves VALUE into the original dict, not the copy
        from pkg.lexers import VALUE
        def value():
            return VALUE
    """, "main.py": """
        import pkg.sql
        print(pkg.sql.value())
    """}
    assert lazy_output(tmp_path, files).splitlines() == ["heavy executed", "42"]


def test_user_getattr_is_chained(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "lazyish.py": """
        import heavy
        def __getattr__(name):
            if name == "computed":
                return "from user getattr"
            raise AttributeError(name)
        def __dir__():
            return ["computed"]
    """, "main.py": """
        import lazyish
        print(lazyish.computed)
        print(sorted(dir(lazyish)))
        print(lazyish.heavy.VALUE)
        print(lazyish.computed)
        print(hasattr(lazyish, "missing"))
    """})
    # dir() is what the module's own __dir__ returns, as eagerly
    assert out.splitlines() == [
        "from user getattr", "['computed']", "heavy executed", "42",
        "from user getattr", "False"]


def test_star_import_sees_pending_names(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "reexport.py": "import heavy\nfrom heavy import double\n",
                                 "main.py": "from reexport import *\nprint(double(5), heavy.VALUE)\n"})
    assert out.splitlines() == ["heavy executed", "10 42"]


@pytest.mark.rewrite_only("the rewrite's module __getattr__")
def test_getattr_leaves_the_module_when_nothing_is_pending(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "user.py": "import heavy\n", "main.py": """
        import user
        print("__getattr__" in vars(user))
        user.heavy
        print("__getattr__" in vars(user), "__dir__" in vars(user))
    """})
    assert out.splitlines() == ["True", "heavy executed", "False False"]


def test_threads_resolve_once(tmp_path):
    out = lazy_output(tmp_path, {"slow.py": """
        import time
        print("slow executed")
        time.sleep(0.2)
        OBJ = object()
    """, "user.py": "import slow\n", "main.py": """
        import threading
        import user
        results = []
        barrier = threading.Barrier(8)
        def worker():
            barrier.wait()
            results.append(user.slow.OBJ)
        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        print(len(results), len({id(r) for r in results}))
    """})
    assert out.splitlines() == ["slow executed", "8 1"]


def test_set_lazy_imports_false_makes_later_statements_eager(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "later.py": "import heavy\nprint('later done')\n",
                                 "main.py": """
        import sys
        import lazify
        print(lazify.is_lazy_imports_enabled())
        lazify.set_lazy_imports(False)
        print(lazify.is_lazy_imports_enabled())
        import later
        print("heavy" in sys.modules)
    """})
    assert out.splitlines() == ["True", "False", "heavy executed", "later done", "True"]


def test_excluding_container_with_contains(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "keep_eager.py": "import heavy\n",
                                 "other.py": "import heavy\n", "main.py": """
        import sys
        import lazify
        class Names:
            def __contains__(self, name):
                return name == "keep_eager"
        lazify.set_lazy_imports(True, excluding=Names())
        import other
        other.__name__
        print("after other", "heavy" in sys.modules)
        import keep_eager
        keep_eager.__name__
        print("after keep_eager", "heavy" in sys.modules)
    """})
    assert out.splitlines() == ["after other False", "heavy executed", "after keep_eager True"]


def test_resolve_all_and_eager_imports(tmp_path):
    out = lazy_output(tmp_path, {**HEAVY, "user.py": "import heavy\nimport json\n", "main.py": """
        import sys
        import lazify
        import user
        with lazify.eager_imports():
            import colorsys
        print("colorsys" in sys.modules, "heavy" in sys.modules)
        lazify.resolve_all(user)
        print("heavy" in sys.modules, lazify.is_lazy_import(vars(user), "heavy"))
    """})
    assert out.splitlines() == ["True False", "heavy executed", "True False"]


def test_install_is_idempotent_and_uninstall_keeps_modules_working(tmp_path):
    write_tree(tmp_path, {**HEAVY, "user.py": "import heavy\n"})
    proc = run_python(textwrap.dedent("""
        import sys
        import lazify
        lazify.install(); lazify.install()
        print(sum(type(f).__name__ == "LazifyFinder" for f in sys.meta_path))
        import user
        lazify.uninstall()
        print(sum(type(f).__name__ == "LazifyFinder" for f in sys.meta_path))
        print(user.heavy.VALUE)
    """), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["1", "0", "heavy executed", "42"]


def test_lazy_modules_opt_in_without_global_mode(tmp_path):
    write_tree(tmp_path, {**HEAVY, "optin.py": """
        __lazy_modules__ = ["heavy"]
        import heavy
        import colorsys
    """})
    proc = run_python(textwrap.dedent("""
        import sys
        import lazify
        lazify.install(enabled=False)
        import optin
        print("heavy" in sys.modules, "colorsys" in sys.modules)
        print(optin.heavy.VALUE)
    """), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False True", "heavy executed", "42"]


def test_lazify_never_rewrites_itself(tmp_path):
    proc = run_python("import lazify, sys; lazify.install(); import lazify._plan, lazify._emit_ast;"
                      "print([m for m in sys.modules if m.startswith('lazify') and "
                      "'__lazy__' in vars(sys.modules[m])])", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_syntax_error_is_the_same_as_plain_python(tmp_path):
    write_tree(tmp_path, {"bad.py": "x = (1,\ny = 2\n", "main.py": "import bad\nbad.x\n"})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    plain = run_python(["main.py"], cwd=tmp_path)
    assert lazy.returncode == plain.returncode == 1
    # the same SyntaxError: file, line, source, caret, message (then lazify's note)
    lazy_lines = [line for line in lazy.stderr.splitlines()
                  if not line.startswith("lazify: raised by the deferred import")]
    assert lazy_lines[-4:] == plain.stderr.splitlines()[-4:], lazy.stderr


def test_package_importing_its_own_submodule_by_absolute_name(tmp_path):
    # docutils/parsers/rst/__init__.py does `from docutils.parsers.rst import states`:
    # importlib's fromlist handling asks hasattr(package, "states") while the
    # deferred import of that very name runs.
    files = {
        "pkg/__init__.py": "from pkg import states\ndef use():\n    return states.NAME\n",
        "pkg/states.py": "NAME = 'states'\n",
        "main.py": "import pkg\nprint(pkg.use())\nprint(pkg.states.NAME)\n",
    }
    assert lazy_output(tmp_path, files).splitlines() == ["states", "states"]


def test_decorator_above_the_def_line_is_routed(tmp_path):
    # Regression: a def's lineno is its `def` line, below its decorators
    # (found running pytest itself under lazify: `@fixture` in _pytest/capture.py).
    out = lazy_output(tmp_path, {"deco.py": "def mark(f):\n    f.marked = True\n    return f\n",
                                 "user.py": """
        from deco import mark


        @mark
        def f():
            pass


        class C:
            @mark
            def m(self):
                pass
    """, "main.py": "import user\nprint(user.f.marked, user.C.m.marked)\n"})
    assert out.splitlines() == ["True True"]


def test_conditional_import_shadowing_a_builtin(tmp_path):
    # sortedcontainers: `if hexversion < 0x03000000: from itertools import imap as map`
    out = lazy_output(tmp_path, {"user.py": """
        import sys
        if sys.version_info < (3,):
            from itertools import imap as map
            from itertools import izip
        def double(xs):
            return list(map(lambda x: 2 * x, xs))
        def pairs():
            try:
                return izip
            except NameError as exc:
                return "NameError " + exc.name
    """, "main.py": "import user\nprint(user.double([1, 2]), user.pairs())\n"})
    assert out.splitlines() == ["[2, 4] NameError izip"]


def test_probing_a_package_does_not_import_its_submodules(tmp_path):
    # regrtest: hasattr(test_mod, "test_main") on a package with a test_main.py
    out = lazy_output(tmp_path, {"pkg/__init__.py": "import json\n",
                                 "pkg/test_main.py": "print('pkg.test_main executed')\n",
                                 "prober.py": """
        import importlib
        def probe(name):
            return hasattr(importlib.import_module(name), "test_main")
    """, "main.py": "import prober\nprint(prober.probe('pkg'))\n"})
    assert out.splitlines() == ["False"]


@pytest.mark.native_gap("natively each name of from m import A, B comes from the module in "
                        "sys.modules when it is read")
def test_names_of_one_from_import_come_from_one_module_object(tmp_path):
    # test_json (import_fresh_module): a fresh copy of a package is imported,
    # then the original modules are put back in sys.modules.
    out = lazy_output(tmp_path, {
        "pkg/__init__.py": "from .sub import Decoder, DecodeError\ndefault = Decoder()\n",
        "pkg/sub.py": "class DecodeError(ValueError):\n    pass\n"
                      "class Decoder:\n    def decode(self):\n        raise DecodeError('bad')\n",
        "main.py": """
            import sys
            import pkg as original
            original.DecodeError
            saved = {k: v for k, v in sys.modules.items() if k == "pkg" or k.startswith("pkg.")}
            for k in saved:
                del sys.modules[k]
            import pkg as fresh
            fresh.default
            sys.modules.update(saved)
            try:
                fresh.default.decode()
            except fresh.DecodeError:
                print("caught fresh.DecodeError")
        """})
    assert out.splitlines() == ["caught fresh.DecodeError"]


def test_dir_then_getattr_of_every_name(tmp_path):
    # unittest's loadTestsFromModule: getattr(m, name) for name in dir(m)
    out = lazy_output(tmp_path, {"m.py": "from json import JSONDecoder\n", "main.py": """
        import m
        for name in dir(m):
            getattr(m, name)
        print("ok", "__getattr__" in dir(m))
    """})
    assert out.splitlines() == ["ok False"]


def test_a_module_reading_its_own_frame_globals_sees_its_imports(tmp_path):
    # sys._getframe().f_globals is globals() by another name: the planner keeps
    # the module's imports eager, so the names are there, as in plain Python.
    # A caller's frame (_getframe(1)) is another module's: caller stays lazy.
    files = {
        **HEAVY,
        "registry.py": """
            import inspect
            import json
            import sys

            def own(name):
                return sys._getframe().f_globals[name].__name__

            def own_inspect(name):
                return inspect.currentframe().f_globals[name].__name__
        """,
        "caller.py": """
            import sys
            import heavy

            def who_called():
                return sys._getframe(1).f_globals["__name__"]

            def value():
                return heavy.VALUE
        """,
        "main.py": """
            import sys
            import registry, caller
            print(registry.own("json"), registry.own_inspect("inspect"))
            print(caller.who_called(), "heavy" in sys.modules)
            print(caller.value())
        """,
    }
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines() == ["heavy executed", "json inspect", "__main__ True", "42"]
    out = lazy_output(tmp_path, files)
    assert out.splitlines() == ["json inspect", "__main__ False", "heavy executed", "42"]


def test_a_rewritten_module_dropped_from_sys_modules_is_freed(tmp_path):
    # nothing process-wide keeps a rewritten module's namespace alive: neither a
    # module with names still pending, nor a package, nor one whose names resolved
    marker = "class Marker:\n    pass\nMARKER = Marker()\n"
    out = lazy_output(tmp_path, {**HEAVY, "pkg/__init__.py": "import heavy\n" + marker,
                                 "pending.py": "import heavy\n" + marker,
                                 "resolved.py": "import json\nVALUE = json.dumps(1)\n" + marker,
                                 "main.py": """
        import gc, sys, weakref
        import pending, pkg, resolved
        refs = {name: weakref.ref(sys.modules[name].MARKER)
                for name in ("pending", "pkg", "resolved")}
        del pending, pkg, resolved
        for name in ("pending", "pkg", "resolved"):
            del sys.modules[name]
        gc.collect()
        print(sorted(name for name, ref in refs.items() if ref() is not None))
    """})
    assert out.splitlines() == ["[]"]


def test_a_module_whose_deferred_import_failed_in_a_catch_up_is_freed(tmp_path):
    # the failed import is remembered as not to be tried again, without keeping
    # the module that holds it alive
    marker = "class Marker:\n    pass\nMARKER = Marker()\n"
    out = lazy_output(tmp_path, {"broken.py": "raise RuntimeError('broken')\n",
                                 "failing.py": "import broken\n" + marker,
                                 "pkg/__init__.py": "import json\n",
                                 "pkg/sub.py": "X = 1\n",
                                 "main.py": """
        import gc, sys, weakref
        import failing, pkg
        print(getattr(pkg, "sub", None))     # a catch-up runs failing's import
        print("broken" in sys.modules, "pkg.sub" in sys.modules)
        ref = weakref.ref(failing.MARKER)
        del failing
        del sys.modules["failing"]
        gc.collect()
        print(ref() is None)
    """})
    assert out.splitlines() == ["None", "False False", "True"]


@pytest.mark.rewrite_only("the rewrite's routed reads")
@pytest.mark.skipif(sys.version_info < (3, 11), reason="no specializing interpreter")
def test_routed_reads_are_specialized_by_the_interpreter(tmp_path):
    # a hot loop through `__lazy__.tiny.f` must stay an instance-dict hit CPython
    # specializes (3.14 specializes none on a __dict__ slot: 1.5x plain there)
    out = lazy_output(tmp_path, {
        "tiny.py": "def f(x):\n    return x\n",
        "hot.py": "import tiny\ndef loop(n):\n    for i in range(n):\n        tiny.f(i)\n",
        "main.py": """
            import dis, hot
            hot.loop(5000)
            names = [(i.opname, i.argval) for i in dis.get_instructions(hot.loop, adaptive=True)
                     if i.opname.startswith("LOAD_ATTR")]
            print(names[0])
        """})
    assert out.strip() == "('LOAD_ATTR_WITH_HINT', 'tiny')"


@pytest.mark.rewrite_only("the rewrite's routed reads")
@pytest.mark.skipif(sys.version_info < (3, 11), reason="no specializing interpreter")
def test_routed_reads_stay_specialized_after_many_modules_went_through_the_classes(tmp_path):
    # a module with a name pending for good keeps a class of its own, taken from the
    # ones other modules gave back; 3.13+ gives a class about a thousand version tags,
    # then specializes no load on its instances: a class worn by 600 pending names
    # coming and going must not be handed on
    files = {f"t{i}.py": "" for i in range(600)}
    for m in range(12):
        names = [f"t{i}" for i in range(m * 50, m * 50 + 50)]
        files[f"m{m}.py"] = "".join(f"import {n}\n" for n in names) + f"({', '.join(names)})\n"
    files.update({
        "tiny.py": "def f(x):\n    return x\n",
        "never.py": "",
        "hot.py": "import tiny\nimport never\ndef loop(n):\n    for i in range(n):\n"
                  "        tiny.f(i)\n",
        "main.py": """
            import dis, lazify
            for m in range(12):
                __import__(f"m{m}")
            import hot
            hot.loop(5000)
            names = [(i.opname, i.argval) for i in dis.get_instructions(hot.loop, adaptive=True)
                     if i.opname.startswith("LOAD_ATTR")]
            print(names[0], lazify.is_lazy_import(vars(hot), "never"))
        """})
    out = lazy_output(tmp_path, files)
    assert out.strip() == "('LOAD_ATTR_WITH_HINT', 'tiny') True"


def test_a_submodule_of_a_package_lazify_does_not_rewrite_is_imported_at_the_statement(tmp_path):
    """``import plainpkg.sub`` in one module, ``import plainpkg`` then ``plainpkg.sub``
    in another: eagerly the first set the attribute for everyone.  A package lazify
    rewrites catches up in its __getattr__; one it leaves alone (excluded, never
    rewritten, another loader's) has none, so the import runs at its statement."""
    files = {
        "plainpkg/__init__.py": "print('plainpkg executed')\n",
        "plainpkg/sub.py": "print('sub executed')\nX = 1\n",
        "lazypkg/__init__.py": "",
        "lazypkg/sub.py": "print('lazypkg.sub executed')\nY = 2\n",
        "uses.py": "import plainpkg.sub\nimport lazypkg.sub\nready = True\n",
        "main.py": """
            import sys
            import uses
            import plainpkg, lazypkg
            if True:  # read conditionally: not read-at-import
                print("ready:", uses.ready)
                print("loaded:", "plainpkg.sub" in sys.modules, "lazypkg.sub" in sys.modules)
                print(plainpkg.sub.X, lazypkg.sub.Y)
        """,
    }
    out = lazy_output(tmp_path, files, env_extra={"LAZIFY_EXCLUDING": "plainpkg"})
    if NATIVE:      # the interpreter's lazy import of plainpkg.sub sets the attribute
        assert out.splitlines() == ["ready: True", "loaded: False False", "plainpkg executed",
                                    "sub executed", "lazypkg.sub executed", "1 2"]
        return
    assert out.splitlines() == ["plainpkg executed", "sub executed", "ready: True",
                                "loaded: True False", "lazypkg.sub executed", "1 2"]


def test_reading_the_name_of_dotted_imports_imports_the_package_alone(tmp_path):
    """``import a.b``, ``import a.c``, ``import a.d`` bind ``a``: reading it imports
    the package, and each submodule when it is read from it, as PEP 810's global mode
    does (the same lines there).  An excluded package has no lazify ``__getattr__`` to
    do that: its submodules are imported at the statement, as they were before."""
    files = {
        "a/__init__.py": "print('a executed')\n",
        **{f"a/{sub}.py": f"print('a.{sub} executed')\nNAME = {sub!r}\n" for sub in "bcd"},
        "plainpkg/__init__.py": "print('plainpkg executed')\n",
        "plainpkg/sub.py": "print('plainpkg.sub executed')\nNAME = 'sub'\n",
        "plainpkg/other.py": "print('plainpkg.other executed')\n",
        "user.py": """
            import a.b
            import a.c
            import a.d
            import plainpkg.sub
            import plainpkg.other

            def package():
                return a

            def c():
                return a.c.NAME

            def plain():
                return plainpkg.sub.NAME
        """,
        "main.py": """
            import sys
            import user
            def loaded():
                return sorted(m for m in sys.modules if m.split(".")[0] in ("a", "plainpkg"))
            user.package()
            print(loaded())
            print(user.c(), loaded())
            print(user.plain(), loaded())
        """,
    }
    out = lazy_output(tmp_path, files, env_extra={"LAZIFY_EXCLUDING": "plainpkg"})
    if NATIVE:      # the interpreter's lazy imports of plainpkg.* set the attributes too
        assert out.splitlines() == [
            "a executed", "['a']", "a.c executed", "c ['a', 'a.c']", "plainpkg executed",
            "plainpkg.sub executed", "sub ['a', 'a.c', 'plainpkg', 'plainpkg.sub']"]
        return
    assert out.splitlines() == [
        "plainpkg executed", "plainpkg.sub executed", "plainpkg.other executed",
        "a executed", "['a', 'plainpkg', 'plainpkg.other', 'plainpkg.sub']",
        "a.c executed", "c ['a', 'a.c', 'plainpkg', 'plainpkg.other', 'plainpkg.sub']",
        "sub ['a', 'a.c', 'plainpkg', 'plainpkg.other', 'plainpkg.sub']"]


def test_a_failing_submodule_of_a_dotted_import_raises_where_it_is_read(tmp_path):
    """``import a.broken`` binds ``a``: reading ``a`` imports the package, reading
    ``a.broken`` runs the submodule and raises its error there, as native 3.15 does."""
    files = {
        "a/__init__.py": "",
        "a/broken.py": "raise ValueError('broken at import')\n",
        "user.py": "import a.broken\n\ndef package():\n    return a\n\ndef sub():\n    return a.broken\n",
        "main.py": """
            import user
            print(user.package().__name__)
            try:
                user.sub()
            except ValueError as exc:
                print("ValueError:", exc)
        """,
    }
    assert lazy_output(tmp_path, files).splitlines() == ["a", "ValueError: broken at import"]
