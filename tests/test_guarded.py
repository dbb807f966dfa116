"""Guarded-import detection (lazify._guarded) on the running Python: real code
objects in, verdicts out.  3.11+ reads the exception table, 3.10 the try/with blocks
of its bytecode; the same tests run on both."""

import contextlib
import dis
import sys

import pytest

from lazify._guarded import findable, guarded, handler_ranges, missing_dependency

from tests._scenario import write_tree
from tests._util import run_python


def _offsets(code, opname):
    return [i.offset for i in dis.get_instructions(code) if i.opname == opname]


def _covered(code, offset):
    return any(start <= offset < end for start, end in handler_ranges(code))


def import_in_try():
    try:
        import json_guarded_probe  # noqa: F401
    except ImportError:
        pass


def import_in_try_catching_exception():
    try:
        import json_guarded_probe  # noqa: F401
    except Exception:
        pass


def import_in_suppress():
    with contextlib.suppress(ImportError):
        import json_guarded_probe  # noqa: F401


def import_after_try():
    try:
        pass
    except ImportError:
        pass
    import json_guarded_probe  # noqa: F401


def import_in_try_catching_value_error():
    try:
        import json_guarded_probe  # noqa: F401
    except ValueError:
        pass


def import_plain():
    import json_guarded_probe  # noqa: F401


@pytest.mark.parametrize("function", [import_in_try, import_in_try_catching_exception,
                                      import_in_suppress])
def test_an_import_under_an_import_error_handler_is_covered(function):
    code = function.__code__
    (offset,) = _offsets(code, "IMPORT_NAME")
    assert handler_ranges(code)
    assert _covered(code, offset)


def test_an_import_after_the_try_statement_is_not_covered():
    code = import_after_try.__code__
    (offset,) = _offsets(code, "IMPORT_NAME")
    assert handler_ranges(code)          # the code has a handler that names ImportError
    assert not _covered(code, offset)


@pytest.mark.parametrize("function", [import_plain, import_in_try_catching_value_error])
def test_code_that_cannot_catch_an_import_error_has_no_ranges(function):
    assert handler_ranges(function.__code__) == ()


def test_the_ranges_of_a_code_object_are_its_own_after_its_id_is_reused():
    """Remembered per code object: a new code object at a freed one's address gets
    its own answer."""
    for _ in range(50):
        plain = compile("import json_guarded_probe\n", "<plain>", "exec")
        assert handler_ranges(plain) == ()
        del plain
        handled = compile("try:\n    import json_guarded_probe\nexcept ImportError:\n"
                          "    pass\n", "<handled>", "exec")
        assert handler_ranges(handled)
        del handled


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception tables: 3.11+")
def test_a_truncated_exception_table_gives_no_ranges():
    from lazify._guarded import _table_ranges

    table = import_in_try.__code__.co_exceptiontable
    assert _table_ranges(table)
    assert _table_ranges(table[:-1]) == ()


def _probe():
    """Whether the module body that called this one would be guarded: the caller
    stands for the code that imports it."""
    return guarded(sys._getframe())


def caller_in_try():
    try:
        return _probe()
    except ImportError:
        raise


def caller_in_try_catching_exception():
    try:
        return _probe()
    except Exception:
        raise


def caller_plain():
    return _probe()


def caller_after_try():
    try:
        pass
    except ImportError:
        pass
    return _probe()


@pytest.mark.parametrize(("caller", "expected"), [
    (caller_in_try, True), (caller_in_try_catching_exception, True),
    (caller_plain, False),
    # 3.10 has no exception table: a block's range runs from its SETUP_FINALLY to its
    # handler, and the compiler puts the code after this try statement in between, so
    # it counts as covered (guarded errs towards finding packages at once)
    (caller_after_try, sys.version_info < (3, 11))])
def test_guarded_asks_the_first_frame_above(caller, expected):
    assert caller() is expected


def _relay_compiled_as(filename):
    namespace = {}
    exec(compile("def relay(function):\n    return function()\n", filename, "exec"),
         namespace)
    return namespace["relay"]


@pytest.mark.parametrize(("filename", "expected"), [
    ("<frozen importlib._bootstrap>", True), ("relay.py", False)])
def test_import_machinery_frames_are_passed_over(filename, expected):
    """importlib's frames between the import statement and the module body are not
    the importer: the walk goes on above them."""
    relay = _relay_compiled_as(filename)
    try:
        verdict = relay(_probe)
    except ImportError:
        raise
    assert verdict is expected


def test_findable_asks_the_finders():
    assert findable("json")
    assert not findable("lazify_no_such_package_here")


class _Recorder:
    """A meta-path finder that has nothing and records what it was asked."""

    def __init__(self):
        self.asked = []

    def find_spec(self, fullname, path=None, target=None):
        self.asked.append(fullname)
        return None


@pytest.fixture
def recorder():
    import lazify._guarded as guarded_module

    finder = _Recorder()
    sys.meta_path.insert(0, finder)
    guarded_module.forget_findable()
    try:
        yield finder
    finally:
        sys.meta_path.remove(finder)
        guarded_module.forget_findable()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="sys._stdlib_dir is 3.11+")
def test_a_pure_python_stdlib_module_is_found_without_asking_the_finders(recorder):
    """``shutil`` and the ``email`` package sit in the standard library's directory: one
    stat each, where the finders' search costs about 0.2 M instructions."""
    assert findable("shutil") and findable("email")
    assert recorder.asked == []


def test_other_modules_are_still_searched(recorder):
    """An extension module (a build may lack ``_bz2``), a missing one, a third-party one."""
    findable("_bz2")
    assert not findable("lazify_no_such_package_here")
    assert findable("pytest")
    assert recorder.asked == ["_bz2", "lazify_no_such_package_here", "pytest"]


def test_a_stdlib_module_whose_extension_the_build_lacks_is_not_findable(recorder, monkeypatch):
    """``sqlite3``'s file is there where the build has no ``_sqlite3`` (None in
    sys.modules: what the import system reads as not there), so its import fails."""
    assert findable("sqlite3") and missing_dependency("sqlite3") is None
    import lazify._guarded as guarded_module

    guarded_module.forget_findable()
    monkeypatch.setitem(sys.modules, "_sqlite3", None)
    assert missing_dependency("sqlite3") == "_sqlite3"
    assert not findable("sqlite3")


@pytest.mark.parametrize("mechanism", [
    "rewrite",
    pytest.param("native", marks=pytest.mark.skipif(
        not hasattr(sys, "set_lazy_imports_filter"), reason="PEP 810 lazy imports are 3.15+"))])
def test_a_guarded_plugin_whose_stdlib_import_fails_raises_in_the_try(tmp_path, mechanism):
    # a build without _sqlite3 (a Python built without its headers; Debian's without
    # python3-tk has turtle.py and no tkinter): eagerly the plugin's `import sqlite3`
    # raises in the caller's try; the file of sqlite3 being there must not make it lazy
    write_tree(tmp_path, {
        "plugin.py": "import sqlite3\n",
        "main.py": "import sys\n"
                   "sys.modules['_sqlite3'] = None\n"
                   "try:\n"
                   "    import plugin\n"
                   "except ImportError as e:\n"
                   "    print('fallback', type(e).__name__, e.name)\n"
                   "else:\n"
                   "    print('plugin imported')\n",
    })
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.stdout == "fallback ModuleNotFoundError _sqlite3\n"
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": mechanism})
    assert lazy.stdout == plain.stdout, lazy.stderr
