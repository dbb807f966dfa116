"""The native mechanism (PEP 810, Python 3.15+): the planner's verdicts become ``lazy``
statements, and the interpreter defers them.

Fixture pairs: every case of ``tests/fixtures/rewrite/`` has an ``expected_native.py``,
what ``lazify rewrite --mechanism native`` prints (byte for byte; any Python: the source
is text).  Scenarios run on 3.15+ only, with ``LAZIFY_MECHANISM=native`` (the rest of the
suite runs lazify's default: the native mechanism on 3.15, see tests/conftest.py).  Set
``LAZIFY_UPDATE_FIXTURES=1`` to (re)write the expected files.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap

import pytest

from lazify._emit_ast import emit_native
from lazify._emit_cst import emit_cst
from lazify._plan import plan_module
from lazify._reasons import Reason
from tests._util import run_python
from tests.test_emit_cst import CASES, FIXTURES, MODULE

NATIVE = sys.version_info >= (3, 15)
needs_native = pytest.mark.skipif(not NATIVE, reason="PEP 810 lazy imports are 3.15+")
NATIVE_ENV = {"LAZIFY_MECHANISM": "native"}


def _plan(data, module=MODULE, is_package=False, mechanism="native"):
    tree = compile(data, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    return plan_module(tree, module=module, is_package=is_package, mechanism=mechanism,
                       source=data)


def _read(case, name):
    with open(os.path.join(FIXTURES, case, name), "rb") as f:
        return f.read()


# ---------------------------------------------------------------- fixture pairs


@pytest.mark.parametrize("case", CASES)
def test_native_fixture_byte_exact(case):
    data = _read(case, "input.py")
    got = emit_cst(data, _plan(data))
    path = os.path.join(FIXTURES, case, "expected_native.py")
    if os.environ.get("LAZIFY_UPDATE_FIXTURES"):
        with open(path, "wb") as f:
            f.write(got)
    with open(path, "rb") as f:
        assert got == f.read()
    # nothing but ``lazy `` in front of statements, and split statements: every line
    # keeps its number
    assert len(got.splitlines()) == len(data.splitlines())


@needs_native
@pytest.mark.parametrize("case", CASES)
def test_native_fixture_same_program_as_ast_emitter(case):
    data = _read(case, "input.py")
    tree = compile(data, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    plan = _plan(data)
    if plan.takes_rewrite:
        # the module takes the rewrite natively: its native expectation is the rewrite's
        assert _read(case, "expected_native.py") == _read(case, "expected_rewrite.py")
        return
    by_ast = emit_native(tree, plan)
    by_cst = ast.parse(emit_cst(data, plan))
    assert ast.dump(by_cst) == ast.dump(by_ast)


def test_native_plan_emits_nothing_but_lazy_statements():
    data = textwrap.dedent('''\
        """Doc."""
        import json, os
        from . import sub
        class C:
            json = json
        def f():
            """>>> os.sep"""
            return json.dumps(sub)
        x: "os.PathLike" = None
    ''').encode()
    plan = _plan(data, module="pkg", is_package=True)
    assert plan.changes_module and plan.mechanism == "native"
    assert plan.references == () and plan.annotation_owners == () and plan.chain_after == ()
    assert emit_cst(data, plan).decode().splitlines()[1:3] == [
        "lazy import json, os", "lazy from . import sub"]


@pytest.mark.parametrize("source, name, rewrite_reason", [
    # (under if: read unconditionally, json would be eager on either: read-at-import)
    ("import json\nif True:\n    class C:\n        json = json\n", "json", Reason.CLASS_SHADOW),
    ('import os\ndef f():\n    """>>> os.sep"""\n', "os", Reason.DOCTEST),
    ('import os\nfrom typing import TypeVar\nT = TypeVar("T", bound="os.PathLike")\n', "os",
     Reason.DEFERRED_ANNOTATION),
    ("import __lazy__x\nimport json\n__lazy__ = 1\nif True:\n    json\n", "json",
     Reason.RESERVED_NAME),
])
def test_rules_of_the_rewrite_alone_do_not_apply(source, name, rewrite_reason):
    data = source.encode()
    verdict = {n.name: n for s in _plan(data, mechanism="rewrite").imports for n in s.names}
    assert verdict[name].reason == rewrite_reason
    verdict = {n.name: n for s in _plan(data).imports for n in s.names}
    assert verdict[name].lazy


@pytest.mark.parametrize("source, name, reason", [
    ("try:\n    import json\nexcept ImportError:\n    pass\n", "json", Reason.TRY),
    ("with x:\n    import json\n", "json", Reason.WITH),
    ("def f():\n    import json\n", "json", Reason.FUNCTION),
    ("from m import *\n", "*", Reason.STAR),
    ("import json\njson = 1\n", "json", Reason.REBOUND),
    ("import json\nx = globals()['json']\n", "json", Reason.DYNAMIC_NAMESPACE),
    ("import json  # noqa\n", "json", Reason.SIDE_EFFECTS),
])
def test_rules_that_stay(source, name, reason):
    verdict = {n.name: n for s in _plan(source.encode()).imports for n in s.names}
    assert verdict[name].reason == reason


def test_a_statement_with_eager_and_lazy_names_is_split():
    data = b"import json, os  # c\njson = 1\ndef f():\n    return os\n"
    assert emit_cst(data, _plan(data)).splitlines()[0] == b"import json; lazy import os  # c"


@pytest.mark.parametrize("body", ["return globals()[k]", "return globals().get(k)",
                                  "return sys._getframe().f_globals[k]"])
def test_a_function_reading_the_namespace_by_key_takes_the_rewrite(body):
    # natively the dict would show PEP 810's proxy, and keeping the names eager would
    # lose their laziness; the rewrite keeps them lazy until the function runs
    data = f"import sys\nimport json\ndef f(k):\n    {body}\n".encode()
    plan = _plan(data)
    assert (plan.mechanism, plan.takes_rewrite) == ("rewrite", "namespace-read")
    assert all(n.lazy for s in plan.imports for n in s.names)
    assert emit_cst(data, plan) == emit_cst(data, _plan(data, mechanism="rewrite"))


def test_a_standard_library_module_reading_its_namespace_keeps_its_imports_eager():
    # typing's _GenericAlias.__reduce__ reads globals()[self._name]: the standard
    # library's own imports stay eager natively, rather than the rewrite and its
    # runtime for a module nearly every program imports
    data = b"import json\nfrom collections import abc\ndef f(k):\n    return globals()[k]\n"
    plan = _plan(data, module="typing")
    assert (plan.mechanism, plan.takes_rewrite) == ("native", "")
    verdict = {n.name: n for s in plan.imports for n in s.names}
    assert verdict["json"].reason is verdict["abc"].reason is Reason.DYNAMIC_NAMESPACE
    # an import from outside the standard library would lose its laziness: the rewrite
    other = _plan(b"import json\nimport requests\ndef f(k):\n    return globals()[k]\n",
                  module="typing")
    assert (other.mechanism, other.takes_rewrite) == ("rewrite", "namespace-read")


#: mypy_extensions' shape: its __getattr__ hands globals() to a helper, and the modules
#: its imports come from are loaded while it is imported anyway (typing, read at import
#: time; sys, built in)
PASSES_GLOBALS = """\
from typing import Any, Dict
import sys
from typing import cast
ANY = Any
_DEPRECATED_Old = "old value"
def _warn(name, module_globals):
    val = module_globals.get(f"_DEPRECATED_{name}")
    if val is None:
        raise AttributeError(name)
    return val
def __getattr__(name):
    return _warn(name, module_globals=globals())
"""


def test_a_namespace_read_of_modules_loaded_anyway_keeps_them_eager():
    data = PASSES_GLOBALS.encode()
    plan = _plan(data, module="mypy_extensions")
    assert (plan.mechanism, plan.takes_rewrite) == ("native", "")
    assert {n.name: n.reason for s in plan.imports for n in s.names} == dict.fromkeys(
        ("Any", "Dict", "sys", "cast"), Reason.DYNAMIC_NAMESPACE)
    # json is not read while the module is imported: eager it would lose its laziness
    other = _plan(data.replace(b"import sys", b"import json"), module="mypy_extensions")
    assert (other.mechanism, other.takes_rewrite) == ("rewrite", "namespace-read")


@needs_native
def test_a_module_passing_its_globals_to_a_helper_is_served_natively(tmp_path):
    _tree(tmp_path, {"passes.py": PASSES_GLOBALS, "main.py": """\
        import sys, lazify
        lazify.install()
        import passes
        print(passes.Old, passes.Dict.__name__, passes.sys is sys,
              "lazify._importlib_bootstrap" in sys.modules)
        try:
            passes.Missing
        except AttributeError as exc:
            print("AttributeError", exc)
    """})
    expected = "old value Dict True False\nAttributeError Missing\n"
    for _ in range(2):                   # the rewrite at once, then from lazify's cache
        proc = run_python(["main.py"], cwd=tmp_path,
                          env_extra={**NATIVE_ENV, "LAZIFY_DEFER_REWRITE": "0"})
        assert (proc.stdout, proc.stderr) == (expected, "")
    plain = run_python(["main.py"], cwd=tmp_path, env_extra={"LAZIFY": "0"})
    assert plain.stdout == expected


@needs_native
def test_typing_is_served_natively_without_the_rewrites_runtime(tmp_path):
    _tree(tmp_path, {"main.py": """\
        import sys, lazify
        lazify.install()
        import pickle, typing
        from lazify import _hook, _native
        print("lazify._importlib_bootstrap" in sys.modules, "__lazy__" in vars(typing),
              "typing" in _native.native_modules, _hook.stats["compiled"] + _hook.stats["cached"] > 0)
        print(pickle.loads(pickle.dumps(typing.List[int])))
    """})
    for _ in range(2):                   # the rewrite at once, then from lazify's cache
        proc = run_python(["main.py"], cwd=tmp_path,
                          env_extra={**NATIVE_ENV, "LAZIFY_DEFER_REWRITE": "0"})
        assert (proc.stdout, proc.stderr) == ("False False True True\ntyping.List[int]\n", "")


@pytest.mark.parametrize("body", ["return sorted(globals())", "return eval(s)", "exec(s)"])
def test_namespace_reads_that_see_no_proxy_keep_names_lazy(body):
    # keys alone; eval/exec load names with LOAD_NAME, which reifies
    data = f"import json\ndef f(s):\n    {body}\n".encode()
    assert all(n.lazy for s in _plan(data).imports for n in s.names)


# ---------------------------------------------------------------- the API


@pytest.mark.skipif(NATIVE, reason="before 3.15 only")
def test_native_is_a_clear_error_before_315(run_python):
    proc = run_python("import lazify\ntry:\n    lazify.install(mechanism='native')\n"
                      "except ValueError as e:\n    print(e)\n")
    assert "native mechanism needs PEP 810" in proc.stdout
    assert "3.15" in proc.stdout


@pytest.mark.skipif(NATIVE, reason="before 3.15 only")
def test_configured_native_warns_and_rewrites_before_315(run_python, tmp_path):
    (tmp_path / "m.py").write_text("import json\n")
    proc = run_python("import lazify\nlazify.install()\nimport m\nprint('__lazy__' in vars(m))",
                      cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout.strip() == "True"
    # one line of lazify's, as every settings problem (not a RuntimeWarning naming a
    # line of lazify's own code), and once however many times the settings are read
    assert proc.stderr == 'lazify: mechanism "native" needs Python 3.15+ (PEP 810); ' \
        'using "rewrite"\n'
    run = run_python(["-m", "lazify", "run", "-c", "print(1)"], cwd=tmp_path,
                     env_extra=NATIVE_ENV)
    assert (run.stdout, run.stderr) == ("1\n", proc.stderr)


def test_unknown_mechanism(run_python, tmp_path):
    proc = run_python("import lazify\ntry:\n    lazify.install(mechanism='x')\n"
                      "except ValueError as e:\n    print(e)\n")
    assert "unknown mechanism 'x'" in proc.stdout
    proc = run_python("import lazify\nlazify.install()\nlazify.install()\n", cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": "x"})
    assert proc.stderr == "lazify: LAZIFY_MECHANISM must be native or rewrite, not 'x'; ignored\n"


def test_the_cache_tag_carries_the_mechanism():
    from lazify import _cache

    native, rewrite = _cache.cache_tag(0, "native"), _cache.cache_tag(0, "rewrite")
    assert native != rewrite and native.isalnum()
    assert rewrite == f"lazify{_cache.FORMAT}" and native == f"lazifyn{_cache.FORMAT}"


# ---------------------------------------------------------------- scenarios (3.15+)


def _tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        os.utime(path, (1_700_000_000, 1_700_000_000))   # old enough for a timestamp pyc
    return tmp_path


MAIN = """\
import sys, lazify
lazify.install()
"""


def _d(text):
    return textwrap.dedent(text)


@needs_native
def test_eligible_imports_are_deferred_by_the_interpreter(tmp_path):
    _tree(tmp_path, {
        "app.py": """\
            import json
            from email import message
            import csv  # noqa
            def dump(x):
                return json.dumps(x)
        """,
        "main.py": MAIN + _d("""\
            import app, types
            print(type(vars(app)["json"]) is types.LazyImportType, "json" in sys.modules)
            print(lazify.is_lazy_import(vars(app), "json"), "__lazy__" in vars(app))
            print(app.dump([1]), lazify.is_lazy_import(vars(app), "json"))
            print("csv" in sys.modules, sys.get_lazy_imports())
            lazify.resolve_all(app)
            print(lazify.is_lazy_import(vars(app), "message"), "email.message" in sys.modules)
        """),
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout.split("\n") == [
        "True False", "True False", "[1] False", "True normal", "False True", ""]


@needs_native
def test_each_mechanism_has_its_own_pycs(tmp_path):
    _tree(tmp_path, {"app.py": "import json\n",
                     "main.py": MAIN + "import app\nprint(type(vars(app).get('json')).__name__)\n"})
    native = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    rewrite = run_python(["main.py"], cwd=tmp_path, env_extra={"LAZIFY_MECHANISM": "rewrite"})
    again = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert (native.stdout, rewrite.stdout, again.stdout) == (
        "lazy_import\n", "NoneType\n", "lazy_import\n")
    pycs = sorted(p.name.split(".")[2] for p in (tmp_path / "__pycache__").iterdir()
                  if p.name.startswith("app."))
    assert [p[:len("opt-lazifyn")] for p in pycs] == ["opt-lazify0", "opt-lazifyn"]


@needs_native
def test_filter_makes_lazy_statements_eager_when_off_or_excluded(tmp_path):
    _tree(tmp_path, {
        "app.py": "import json\n",
        "skip/__init__.py": "import csv\n",
        "main.py": """\
            import sys, types, lazify
            lazify.install(excluding={"skip"})
            import app, skip
            print(type(vars(app)["json"]).__name__, type(vars(skip)["csv"]).__name__)
            del sys.modules["app"]
            lazify.set_lazy_imports(False)
            import app
            print(type(vars(app).get("json")).__name__)
            lazy import tomllib
            print(type(globals()["tomllib"]).__name__)
        """,
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    # the program's own ``lazy import`` stays lazy: lazify off is PEP 810's "normal" mode
    assert proc.stdout.split("\n") == ["lazy_import module", "module", "lazy_import", ""]


@needs_native
def test_an_excluded_module_defers_its_opt_ins_only(tmp_path):
    # the filter answers lazy imports of modules already loaded from a table of
    # importers: an excluded module that opts in for one name must not get in it
    _tree(tmp_path, {
        "skip/__init__.py": "__lazy_modules__ = ['json']\nimport json\nimport os\nimport sys\n",
        "main.py": """\
            import os, json, sys, lazify
            lazify.install(excluding={"skip"})
            import skip
            print([lazify.is_lazy_import(vars(skip), n) for n in ("json", "os", "sys")])
        """,
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "[True, False, False]\n"


@needs_native
def test_guarded_import_of_a_missing_package_raises_at_its_statement(tmp_path):
    _tree(tmp_path, {
        "opt.py": "import json\nimport not_installed_anywhere\n",
        "main.py": MAIN + _d("""\
            try:
                import opt
            except ImportError as e:
                print("fallback", e.name)
            import opt2
        """),
        "opt2.py": "import not_installed_anywhere\nprint('opt2 ran')\n",
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "fallback not_installed_anywhere\nopt2 ran\n"


@needs_native
def test_a_module_imported_while_a_guarded_one_runs_is_guarded(tmp_path):
    # two levels below the try, and a second statement of the same body (whose
    # guardedness is worked out once)
    _tree(tmp_path, {
        "plugin.py": "import json\nimport helper\nhelper.ready\nimport json.decoder\n",
        "helper.py": "import email\nimport deeper\ndeeper.ready\nready = 1\n",
        "deeper.py": "import string\nimport also_not_installed_anywhere\nready = 1\n",
        "main.py": MAIN + _d("""\
            try:
                import plugin
            except ImportError as e:
                print("fallback", e.name)
            import deeper2
        """),
        "deeper2.py": "import also_not_installed_anywhere\nprint('deeper2 ran')\n",
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "fallback also_not_installed_anywhere\ndeeper2 ran\n"


@needs_native
def test_a_standard_library_module_is_lazy_without_the_walk_up_the_stack(tmp_path):
    # found by a stat, a module of the standard library is lazy whether the body is
    # guarded or not: the body's guardedness is not worked out for it (no walk, nothing
    # kept for the body), and is for a package that needs the finders' search
    _tree(tmp_path, {
        "app.py": "import shutil\n",
        "other.py": "import shutil\nimport helper\n",
        "helper.py": "ready = 1\n",
        "main.py": MAIN + _d("""\
            from lazify import _guarded
            import app
            print(type(vars(app)["shutil"]).__name__, len(_guarded._native_guarded))
            import other
            print(type(vars(other)["helper"]).__name__, len(_guarded._native_guarded))
        """),
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    # (the walk for helper keeps other's body and main's, which it passes)
    assert proc.stdout == "lazy_import 0\nlazy_import 2\n"


@needs_native
def test_the_native_mechanism_never_imports_the_rewrites_runtime(tmp_path):
    _tree(tmp_path, {
        "app.py": "import json\nfrom decimal import Decimal\ndef f():\n    return json.dumps(1)\n",
        "main.py": MAIN + _d("""\
            import app
            print(app.f(), "json" in sys.modules, "decimal" in sys.modules)
            print(lazify.is_lazy_import(vars(app), "Decimal"), lazify.is_lazy_import(vars(app), "json"))
            lazify.resolve_all(app)
            print(lazify.is_lazy_import(vars(app), "Decimal"), "decimal" in sys.modules)
            print("lazify._importlib_bootstrap" in sys.modules)
        """),
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout.split("\n") == ["1 True False", "True False", "False True", "False", ""]


@needs_native
def test_uninstall_restores_the_interpreters_mode_and_filter(tmp_path):
    _tree(tmp_path, {"main.py": """\
        import sys, lazify
        sys.set_lazy_imports("all")
        mine = lambda *args: True
        sys.set_lazy_imports_filter(mine)
        lazify.install()
        print(sys.get_lazy_imports(), sys.get_lazy_imports_filter() is mine)
        lazify.uninstall()
        print(sys.get_lazy_imports(), sys.get_lazy_imports_filter() is mine)
    """})
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "normal False\nall True\n"


@needs_native
def test_rewrite_is_an_option_on_315(tmp_path):
    _tree(tmp_path, {"app.py": "import json\n", "main.py": """\
        import sys, lazify
        lazify.install(mechanism="rewrite")
        import app
        print("__lazy__" in vars(app), sys.get_lazy_imports_filter())
    """})
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "True None\n"


@needs_native
def test_lazify_run_native_and_rewrite(tmp_path):
    _tree(tmp_path, {"app.py": "import json\n",
                     "main.py": "import app\nprint('__lazy__' in vars(app))\n"})
    out = [run_python(["-m", "lazify", "run", *flag, "main.py"], cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": None}).stdout
           for flag in ((), ("--mechanism", "rewrite"), ("--mechanism", "native"))]
    assert out == ["False\n", "True\n", "False\n"]


def test_a_namespace_read_narrowed_by_an_if_takes_the_rewrite_for_its_keys():
    # prompt_toolkit's __getattr__ reads globals()[name] only for names its if tested:
    # natively one of them would stay eager, so the module takes the rewrite, which
    # keeps every name lazy and imports json when the function reads it
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "plan",
                           "dynamic_key_narrowed_by_if", "input.py"), "rb") as f:
        data = f.read()
    plan = _plan(data, module="pkg", is_package=True, mechanism="native")
    assert (plan.mechanism, plan.takes_rewrite) == ("rewrite", "namespace-read")
    verdict = {n.name: n for s in plan.imports for n in s.names}
    assert [verdict[name].lazy for name in ("Application", "ANSI", "HTML")] == [True] * 3
    assert verdict["json"].lazy and verdict["json"].resolved_by


def test_a_package_keeps_the_order_of_submodules_the_one_read_at_import_imports():
    data = (b"from ._base import Base\nfrom . import _odd\nfrom ._impl import Impl\n"
            b"from ._late import Late\nimport json\nregister(Impl, json)\n"
            b"def f():\n    return Base, _odd, Late\n")
    tree = ast.parse(data)
    # _impl and _base import each other: what eagerly ran first must run first
    imports_of = {"_impl": frozenset({"pkg._base"}), "_base": frozenset({"pkg._impl.Impl"})}.get
    plan = plan_module(tree, module="pkg", is_package=True, mechanism="native",
                       submodules=lambda sub, *_, **__: imports_of(sub, frozenset()))
    verdict = {n.name: n for s in plan.imports for n in s.names}
    assert [verdict[name].reason for name in ("Base", "_odd", "Impl")] == \
        [Reason.SUBMODULE_ORDER] * 3
    # json: read by the module body after it, unconditionally; Impl stays lazy after the
    # lazy Base, so the order rule still sees it read
    assert verdict["Late"].lazy and verdict["json"].reason == Reason.READ_AT_IMPORT
    # no cycle (_impl imports _base, not the other way): nothing to keep in order
    imports_of = {"_impl": frozenset({"pkg._base"})}.get
    plan = plan_module(tree, module="pkg", is_package=True, mechanism="native",
                       submodules=lambda sub, *_, **__: imports_of(sub, frozenset()))
    assert all(n.lazy for s in plan.imports for n in s.names if n.name not in ("_odd", "json"))
    # the rewrite repairs the order at run time instead
    verdict = {n.name: n for s in _plan(data, module="pkg", is_package=True,
                                        mechanism="rewrite").imports for n in s.names}
    assert verdict["Base"].lazy and verdict["Impl"].lazy


@needs_native
def test_a_package_submodule_cycle_settles_as_eagerly(tmp_path):
    # pandas.io.excel: reading _Impl first would import _impl before _base, and _base's
    # class body imports _impl while _impl is partially initialized
    _tree(tmp_path, {
        "pkg/__init__.py": """\
            from pkg._base import Base, File
            from pkg._impl import Impl as _Impl
            WRITERS = [_Impl]
        """,
        "pkg/_base.py": """\
            class Base:
                pass
            class File:
                from pkg._impl import Impl
        """,
        "pkg/_impl.py": """\
            from pkg._base import Base
            class Impl(Base):
                pass
        """,
        "main.py": MAIN + "import pkg\nprint(pkg.WRITERS, pkg.File.Impl is pkg.WRITERS[0])\n",
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "[<class 'pkg._impl.Impl'>] True\n"


@needs_native
def test_disabled_mode_defers_only_the_opt_ins(tmp_path):
    _tree(tmp_path, {
        "plain.py": "import json\n",
        "optin.py": "__lazy_modules__ = ['json']\nimport json\n",
        "main.py": """\
            import lazify
            lazify.install(enabled=False)
            import optin, plain
            print(lazify.is_lazy_import(vars(optin), "json"),
                  lazify.is_lazy_import(vars(plain), "json"))
        """,
    })
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.stdout == "True False\n"


def test_rewrite_and_diff_print_the_rewrite_unless_asked_or_configured(tmp_path, lazify_cli):
    (tmp_path / "m.py").write_text("import json\n")
    env = {"LAZIFY_MECHANISM": None}
    default = lazify_cli(["rewrite", "m.py"], cwd=tmp_path, env_extra=env)
    asked = lazify_cli(["rewrite", "--mechanism", "native", "m.py"], cwd=tmp_path, env_extra=env)
    (tmp_path / "pyproject.toml").write_text('[tool.lazify]\nmechanism = "native"\n')
    configured = lazify_cli(["rewrite", "m.py"], cwd=tmp_path, env_extra=env)
    assert "__lazy__" in default.stdout
    assert asked.stdout == configured.stdout == "lazy import json\n"


# ------------------------------------------- 3.15's default against plain and the rewrite
#
# Each scenario runs main.py plainly, under lazify's default on 3.15 (the native
# mechanism: LAZIFY_MECHANISM unset) and under the rewrite; a module the interpreter's
# lazy imports would treat otherwise than the rewrite takes the rewrite (Plan.takes_rewrite).

DEFAULT_ENV = {"LAZIFY_MECHANISM": None}


def _three(tmp_path, files):
    """``(plain, default, rewrite)`` outputs (stdout, else the last line of stderr) of
    ``main.py``, the two lazy ones with ``lazify run``."""
    _tree(tmp_path, files)

    def out(proc):
        return proc.stdout if proc.returncode == 0 else proc.stderr.strip().splitlines()[-1]

    plain = run_python(["main.py"], cwd=tmp_path)
    default, rewrite = (run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path,
                                   env_extra=env)
                        for env in (DEFAULT_ENV, {"LAZIFY_MECHANISM": "rewrite"}))
    return out(plain), out(default), out(rewrite)


@needs_native
def test_default_a_name_read_again_while_its_own_import_runs(tmp_path):
    # b binds X and calls back into a, which reads X while X's import runs: the
    # interpreter's lazy import raises ImportCycleError; a's import of b stays eager (b
    # imports a back at import time: import-cycle), so the program fails as plainly
    # (a.get is not defined yet), where the rewrite hands over the half-initialised b,
    # as PEP 690 does
    plain, default, rewrite = _three(tmp_path, {
        "a.py": """\
            from b import X
            def get():
                return X
            if True:  # read conditionally: not read-at-import (which runs it as plainly)
                VALUE = X + 1
        """,
        "b.py": "X = 41\nimport a\nif True:\n    print('inner', a.get())\n",
        "main.py": "import a\nprint('VALUE', a.VALUE)\n",
    })
    assert default == plain
    assert plain.startswith("AttributeError: module 'a' has no attribute 'get'")
    assert rewrite == "inner 41\nVALUE 42\n"


@needs_native
def test_default_a_name_the_cycle_reads_back_is_as_plain(tmp_path):
    # b, imported by a's import of helper, looks helper up on the half-initialised a:
    # plainly it is not there yet.  Natively a's import stays eager (import-cycle), as
    # plainly; a lazy one would raise ImportCycleError at b's read
    plain, default, _rewrite = _three(tmp_path, {
        "a.py": "from b import helper\nVALUE = helper()\n",
        "b.py": """\
            import a
            SEEN = getattr(a, "helper", None)
            def helper():
                return 41
        """,
        "main.py": "import a, b\nprint(a.VALUE, b.SEEN)\n",
    })
    assert plain == default == "41 None\n"


@needs_native
def test_default_a_function_reading_globals_keeps_the_imports_lazy(tmp_path):
    plain, default, rewrite = _three(tmp_path, {
        "alpha.py": "NAME = 'alpha'\n",
        "beta.py": "NAME = 'beta'\n",
        "registry.py": """\
            import alpha
            import beta
            def find(name):
                return globals()[name]
        """,
        "main.py": """\
            import sys, registry
            loaded = lambda: [m for m in ("alpha", "beta") if m in sys.modules]
            print(loaded())
            print(registry.find("beta").NAME, loaded())
        """,
    })
    assert plain == "['alpha', 'beta']\nbeta ['alpha', 'beta']\n"
    assert default == rewrite == "[]\nbeta ['beta']\n"


#: twisted.logger's shape: the package imports _logger before _global; _logger's
#: module-level Logger() imports _global from a function, and _global imports _logger
#: back.  A module that reads the package's ``publisher`` first (twisted.python.log)
#: starts _global first: lazily _global's Publisher() reaches _logger, whose Logger()
#: asks the half-initialised _global for ``publisher``.
LOGGER_CYCLE = {
    "pkg/__init__.py": "from ._logger import Logger\nfrom ._global import publisher\n",
    "pkg/_logger.py": """\
        class Logger:
            def __init__(self):
                from ._global import publisher
                self.observer = publisher
        log = Logger()
    """,
    "pkg/_global.py": """\
        from ._observer import Publisher
        from ._logger import Logger
        publisher = Publisher()
    """,
    "pkg/_observer.py": """\
        from ._logger import Logger
        class Publisher:
            def __init__(self):
                self.logger = Logger
    """,
    "legacy.py": "from pkg import publisher\nWRAPPED = [publisher]\n",
    "main.py": "import legacy\nprint(type(legacy.WRAPPED[0]).__name__, legacy.WRAPPED[0].logger.__name__)\n",
}


@needs_native
def test_default_a_package_whose_submodules_import_each_other_through_a_call(tmp_path):
    plain, default, rewrite = _three(tmp_path, LOGGER_CYCLE)
    assert plain == default == rewrite == "Publisher Logger\n"
    # the interpreter's global mode starts _global first and fails
    proc = run_python(["-X", "lazy_imports=all", "main.py"], cwd=tmp_path)
    assert "cannot import name 'publisher' from partially initialized module" in proc.stderr


def test_the_cycle_rules_read_the_siblings_sources(tmp_path):
    from lazify._rewrite import plan_source
    from lazify._sources import module_name_for, parse

    _tree(tmp_path, {**LOGGER_CYCLE,
                     "a.py": "from b import X\n",
                     "b.py": "import a\nX = 1\n",
                     "c.py": "from d import X\n",
                     "d.py": "def f():\n    import c\nif TYPE_CHECKING:\n    import c\nX = 1\n"})

    def why(name):
        path = str(tmp_path / name)
        module, is_package = module_name_for(path)
        with open(path, "rb") as f:
            data = f.read()
        plan = plan_source(parse(data, path), data, path, module=module,
                           is_package=is_package, mechanism="native")
        assert (plan.takes_rewrite, plan.mechanism) == ("", "native")
        return sorted(n.name for s in plan.imports for n in s.names
                      if n.reason is Reason.IMPORT_CYCLE)

    assert why("a.py") == ["X"]                     # b imports a back
    assert why("c.py") == []    # d imports c only in a function or for typing
    assert why("pkg/__init__.py") == ["Logger", "publisher"]   # _logger <-> _global
    # _logger imports _global only in a function: _global's imports stay lazy
    assert why("pkg/_global.py") == []


def test_a_standard_library_module_in_an_import_cycle_keeps_its_packages_imports_eager(
        tmp_path):
    # 3.15's asyncio.tasks imports asyncio.timeouts, which imports asyncio.tasks back:
    # plain Python's order for its own package, natively, rather than the rewrite's
    # runtime; the same files in a package outside the standard library keep only the
    # import that closes the cycle eager
    from lazify._rewrite import plan_source
    from lazify._sources import parse

    files = {"__init__.py": "", "timeouts.py": "from . import tasks\nX = 1\n",
             "events.py": "X = 1\n",
             "tasks.py": "import functools\nfrom . import timeouts\nfrom . import events\n"
                         "def f():\n    return functools, timeouts.X, events.X\n"}
    _tree(tmp_path, {f"{package}/{name}": text for package in ("asyncio", "mypkg")
                     for name, text in files.items()})

    def plan(package):
        path = str(tmp_path / package / "tasks.py")
        with open(path, "rb") as f:
            data = f.read()
        return plan_source(parse(data, path), data, path, module=f"{package}.tasks",
                           is_package=False, mechanism="native")

    for package, events_lazy in (("mypkg", True), ("asyncio", False)):
        got = plan(package)
        assert (got.takes_rewrite, got.mechanism) == ("", "native")
        verdict = {n.name: n for s in got.imports for n in s.names}
        assert verdict["timeouts"].reason is Reason.IMPORT_CYCLE
        assert verdict["functools"].lazy
        assert verdict["events"].lazy is events_lazy


@needs_native
def test_asyncio_is_served_natively_without_the_rewrites_runtime(tmp_path):
    _tree(tmp_path, {"main.py": """\
        import sys, lazify
        lazify.install()
        import asyncio
        async def main():
            await asyncio.sleep(0)
            return "ran"
        print(asyncio.run(main()), "lazify._importlib_bootstrap" in sys.modules)
    """})
    for _ in range(2):                   # the rewrite at once, then from lazify's cache
        proc = run_python(["main.py"], cwd=tmp_path,
                          env_extra={**NATIVE_ENV, "LAZIFY_DEFER_REWRITE": "0"})
        assert (proc.stdout, proc.stderr) == ("ran False\n", "")


@needs_native
def test_the_catch_up_is_imported_only_when_a_package_lacks_a_submodule(tmp_path):
    # every package the hook compiles natively gets the catch-up's __getattr__; the
    # catch-up itself (lazify._native_catchup) is not on the start-up path: a dunder,
    # importlib's probe of ``from pkg import sub``, a name that is no submodule and a
    # start with no lazy import pending do not import it; a missing submodule while
    # imports are pending does
    _tree(tmp_path, {
        "pkg/__init__.py": "import json\n",
        "pkg/sub.py": "X = 'sub'\n",
        "pkg/probe.py": "",
        "pkg/lexers.py": "from pkg import sub\n",
        "other.py": "from pkg.lexers import sub\n",
        "main.py": """\
            import sys, lazify
            lazify.install()
            import pkg, other
            from pkg import probe
            print("__getattr__" in vars(pkg), hasattr(pkg, "__wrapped__"),
                  hasattr(pkg, "setting"), "lazify._native_catchup" in sys.modules)
            print(pkg.sub.X, "lazify._native_catchup" in sys.modules)
        """})
    for _ in range(2):                   # the rewrite at once, then from lazify's cache
        proc = run_python(["main.py"], cwd=tmp_path,
                          env_extra={**NATIVE_ENV, "LAZIFY_DEFER_REWRITE": "0"})
        assert (proc.stdout, proc.stderr) == ("True False False False\nsub True\n", "")


# What remains different natively, documented in "The native mechanism (3.15+)".

@needs_native
def test_default_remaining_differences(tmp_path):
    plain, default, rewrite = _three(tmp_path, {
        "broken.py": "import os\nos.no_such_function()\n",
        "user.py": "import broken\n",
        "tool/__init__.py": "",
        "tool/token.py": "KIND = 'token'\n",
        "tool/lexers.py": "from tool import token\n",
        "colors.py": "from tool.lexers import token\n",
        "app.py": """\
            import json
            import tool
            import colors
            def kind():
                return tool.token.KIND
        """,
        "main.py": """\
            import app, user
            print(type(vars(app).get("json")).__name__)
            try:
                print(app.kind())
            except AttributeError as exc:
                print("AttributeError", exc)
            try:
                print(hasattr(user, "broken"))
            except AttributeError as exc:
                print("AttributeError escapes hasattr", type(exc.__cause__).__name__)
            except ImportError as exc:
                print("ImportError", type(exc.__cause__).__name__)
            import tool
            print("__getattr__" in vars(tool), type(tool).__name__)
        """,
    })
    assert plain == "AttributeError: module 'os' has no attribute 'no_such_function'"
    # a proxy in the module's dict; hasattr lets the AttributeError out; tool.token,
    # which only colors' pending import would have loaded, is caught up by a
    # __getattr__ in the package's namespace (lazify._native_catchup), as the
    # rewrite's runtime has one while imports are pending
    assert default.splitlines() == [
        "lazy_import", "token", "AttributeError escapes hasattr ImportError", "True module"]
    assert rewrite.splitlines() == ["NoneType", "token", "ImportError AttributeError",
                                    "True module"]


def test_check_names_the_modules_that_take_the_rewrite(tmp_path):
    _tree(tmp_path, {"r.py": "import json\ndef f(k):\n    return globals()[k]\n",
                     "a.py": "from b import X\nimport json\n", "b.py": "import a\nX = 1\n",
                     "c.py": "import json\n"})
    text = run_python(["-m", "lazify", "check", "--mechanism", "native", "r.py", "a.py",
                       "c.py"], cwd=tmp_path).stdout
    assert "r.py: the rewrite, not native lazy imports (namespace-read)" in text
    # an import cycle keeps the import that closes it eager, natively
    rows = {line.split()[0]: line.split()[-2:] for line in text.splitlines()
            if line.startswith("a.py:")}
    assert rows["a.py:1"] == ["X", "EAGER:import-cycle"]
    assert rows["a.py:2"] == ["LAZY", "unused"]
    assert "a.py: the rewrite" not in text and "c.py: the rewrite" not in text
    report = run_python(["-m", "lazify", "check", "--mechanism", "native", "--format", "json",
                         "r.py", "a.py", "c.py"], cwd=tmp_path).stdout
    import json
    assert [f["takes_rewrite"] for f in json.loads(report)["files"]] == ["namespace-read", "", ""]


@pytest.mark.parametrize("data, name, expected", [
    (b"import a\n", b"a", True),
    (b"x = a.b\nimport os\n", b"a", False),
    (b"from . import (x,\n    y, a)\n", b"a", True),
    (b"try: import a\nexcept ImportError: pass\n", b"a", True),
    (b"from pkg.a import f\n", b"a", True),
    (b"from . import x, \\\n  a\n", b"a", True),
    (b"import ab\n", b"a", False),
    (b"print(string.x)\nimport os\n", b"string", False),
])
def test_a_sibling_is_parsed_only_when_an_import_statement_may_name_the_module(
        data, name, expected):
    from lazify._sources import _may_import
    assert _may_import(data, name) is expected


@needs_native
def test_future_imports_are_lazy_natively(tmp_path):
    """The hook marks a module's leading ``from __future__`` imports ``lazy`` (a SyntaxError
    in source, taken from the tree it compiles): the feature holds, and ``__future__`` is
    imported when a name they bind is read, as under the global mode and the rewrite."""
    (tmp_path / "mod.py").write_text(textwrap.dedent("""\
        \"\"\"Doc.\"\"\"
        from __future__ import annotations
        import sys

        def f(x: Undefined) -> sys.X: ...

        LOADED = "__future__" in sys.modules
    """))
    (tmp_path / "main.py").write_text(textwrap.dedent("""\
        import sys
        sys.modules.pop("__future__", None)
        import mod
        print(mod.__doc__, mod.f.__annotations__)
        print(mod.LOADED, "__future__" in sys.modules, type(vars(mod)["annotations"]).__name__)
        print(mod.annotations.compiler_flag, "__future__" in sys.modules)
    """))
    proc = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": "native"}, check=True)
    assert proc.stdout.splitlines() == [
        "Doc. {'x': 'Undefined', 'return': 'sys.X'}", "False False lazy_import",
        "16777216 True"]


@needs_native
def test_install_registers_its_exit_handler_without_importing_atexit(tmp_path):
    # the handler lazify registers through a module object of its own runs after the
    # program's (one list of exit handlers), and sys.modules shows no atexit lazify
    # imported
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import sys, lazify
        lazify.install()
        print("atexit loaded:", "atexit" in sys.modules)
        import atexit
        atexit.register(lambda: print("program's handler, filter set:",
                                      sys.get_lazy_imports_filter() is not None))

        class Finalized:
            def __del__(self):
                print("finalizing, filter set:", sys.get_lazy_imports_filter() is not None)

        keep = Finalized()
    """))
    proc = run_python(["main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert (proc.stdout.splitlines(), proc.stderr) == ([
        "atexit loaded: False", "program's handler, filter set: True",
        "finalizing, filter set: False"], "")


@needs_native
def test_the_filter_is_given_back_after_the_programs_exit_handlers(tmp_path):
    """lazify's filter stays through the program's own exit handlers (registered after
    lazify's) and is given back before the interpreter finalizes: a filter still set
    then keeps modules alive past the collection that frees them (0.5M instructions
    at the exit of ``python -c pass``)."""
    (tmp_path / "late.py").write_text("X = 'late'\n")
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import atexit, sys
        import late

        class Finalized:
            def __del__(self):
                print("finalizing:", sys.get_lazy_imports_filter() is None)

        def handler():
            print("exit handler:", type(sys.get_lazy_imports_filter()).__name__, late.X)

        atexit.register(handler)
        keep = Finalized()
        print("running:", "late" in sys.modules)
    """))
    proc = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, env_extra=NATIVE_ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "running: False", "exit handler: function late", "finalizing: True"]
