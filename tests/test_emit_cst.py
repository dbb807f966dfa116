"""The libcst emitter: byte-exact fixture pairs, and the same program as the AST emitter.

Fixtures live in ``tests/fixtures/rewrite/<case>/``: ``input.py`` and
``expected_rewrite.py``, compared byte for byte (encoding, newlines and all): what
``lazify rewrite`` prints, the same on every Python (the portable plan:
``plan_module(portable=True)``). The two emitters are compared on that plan and on the one
the import hook applies on the running Python, which 3.14 and later make differently (PEP
649). A ``module.txt`` saying ``requires: 3.14`` skips a case
whose input older Pythons cannot parse. Set ``LAZIFY_UPDATE_FIXTURES=1`` to (re)write the
expected file the running Python reads, then review the diff.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import sysconfig

import pytest

from lazify._emit_ast import emit
from lazify._emit_cst import HEADER, EmitError, emit_cst
from lazify._plan import ImportedName, ImportSite, Plan, Reference, plan_module
from tests._sample import sample
from tests._util import expected_file, fixture_requires

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "rewrite")


def _cases():
    cases = []
    for name in sorted(os.listdir(FIXTURES)):
        directory = os.path.join(FIXTURES, name)
        if not os.path.isfile(os.path.join(directory, "input.py")):
            continue
        requires = fixture_requires(directory)
        marks = []
        if sys.version_info < requires:
            marks.append(pytest.mark.skip(reason=f"input needs Python {'.'.join(map(str, requires))} syntax"))
        cases.append(pytest.param(name, marks=marks, id=name))
    return cases


CASES = _cases()

#: Module name every fixture is planned as (relative imports resolve against "pkg").
MODULE = "pkg.mod"


def _load_sweep():
    path = os.path.join(HERE, "compat", "sweep_emitters.py")
    spec = importlib.util.spec_from_file_location("_lazify_sweep_emitters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sweep = _load_sweep()


def _read(case: str, name: str) -> bytes:
    with open(os.path.join(FIXTURES, case, name), "rb") as f:
        return f.read()


def _plan(data: bytes, module: str = MODULE, is_package: bool = False,
          portable: bool = True) -> Plan:
    tree = compile(data, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    return plan_module(tree, module=module, is_package=is_package, portable=portable)


# ---------------------------------------------------------------- fixture pairs


@pytest.mark.parametrize("case", CASES)
def test_fixture_byte_exact(case):
    data = _read(case, "input.py")
    got = emit_cst(data, _plan(data))
    assert isinstance(got, bytes)
    expected_path = expected_file(os.path.join(FIXTURES, case), "expected_rewrite.py")
    if os.environ.get("LAZIFY_UPDATE_FIXTURES"):
        with open(expected_path, "wb") as f:
            f.write(got)
    with open(expected_path, "rb") as f:
        assert got == f.read()


@pytest.mark.parametrize("portable", [True, False], ids=["portable", "hook-plan"])
@pytest.mark.parametrize("case", CASES)
def test_fixture_same_program_as_ast_emitter(case, portable):
    data = _read(case, "input.py")
    outcome, detail = sweep.compare_source(data, "input.py", MODULE, portable=portable)
    assert outcome == sweep.SAME, detail


@pytest.mark.parametrize("case", CASES)
def test_fixture_keeps_line_numbers(case):
    """Every line the plan does not touch keeps its number, except where documented."""
    data = _read(case, "input.py")
    got = emit_cst(data, _plan(data))
    # A new line: the header before a compound first statement with no blank line above
    # it, the prologue of a module's own ``def __getattr__``, and the annotations
    # decorator of a decorated def (an undecorated one takes the blank line above it).
    growth = {"header_comments_compound_first": 1, "chain_after_def": 1, "annotation_owners": 1,
              "getattr_assigned_then_def": 1}
    assert len(got.splitlines()) == len(data.splitlines()) + growth.get(case, 0)


@pytest.mark.parametrize("case", CASES)
def test_fixture_str_input_gives_str(case):
    data = _read(case, "input.py")
    if case == "latin1_cookie":
        text = data.decode("latin-1")
    else:
        text = data.decode("utf-8")
    got = emit_cst(text, _plan(data))
    assert isinstance(got, str)
    # newline="" in spirit: the text is compared as it is, \r\n included.
    with open(expected_file(os.path.join(FIXTURES, case), "expected_rewrite.py"), "rb") as f:
        expected = f.read().decode("latin-1" if case == "latin1_cookie" else "utf-8")
    assert got == expected


@pytest.mark.skipif(sys.version_info < (3, 14), reason="t-strings are 3.14+")
def test_source_libcst_cannot_parse_is_reported_not_miswritten():
    """libcst 1.9.0 (the newest release) fails on implicitly concatenated t-strings, which
    3.14 accepts: emit_cst says so (CannotParse, naming libcst); should a later libcst
    parse them, it must give the AST emitter's program."""
    from lazify._emit_cst import CannotParse

    data = b'import json\nx = t"{json}" t" and more"\n'
    try:
        got = emit_cst(data, _plan(data))
    except CannotParse as e:
        assert "libcst" in str(e)
    else:
        tree = compile(data, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        expected = ast.dump(emit(tree, plan_module(tree, module=MODULE)))
        assert ast.dump(ast.parse(got)) == expected


def test_no_rewrite_returns_the_source_object():
    data = b"x = 1  # nothing to do\n"
    plan = _plan(data)
    assert not plan.changes_module
    assert emit_cst(data, plan) is data
    assert emit_cst(data.decode(), plan) == data.decode()


@pytest.mark.parametrize(
    "modules, unwanted",
    [
        # a program's start-up: the hook, the runtime and the rewrite pipeline
        (["lazify", "lazify._hook", "lazify._importlib_bootstrap", "lazify._rewrite"],
         ["libcst", "argparse"]),
        # the command line imports libcst only where it emits (rewrite/diff)
        (["lazify._cli", "lazify._emit_file", "lazify._compile"], ["libcst"]),
    ],
    ids=["start-up", "command-line"],
)
def test_libcst_and_argparse_stay_off_the_import_path(modules, unwanted):
    import subprocess

    code = (f"import sys\nimport {', '.join(modules)}\n"
            f"print(sorted(m for m in {unwanted!r} if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          cwd=os.path.dirname(HERE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ---------------------------------------------------------------- hand-made plans


def _site(span, kind, names, from_module="", level=0):
    return ImportSite(
        span=span,
        kind=kind,
        from_module=from_module,
        level=level,
        names=tuple(
            ImportedName(name=b, imported=a, asname=None, module=a, lazy=lazy, reason=None,
                         used_at_import=None, unused=False)
            for b, a, lazy in names
        ),
    )


def _hand_plan(imports=(), references=(), chain_after=(), header_index=0, header_after_line=0):
    return Plan(
        module="m",
        is_package=False,
        imports=tuple(imports),
        references=tuple(references),
        chain_after=tuple(chain_after),
        header_index=header_index,
        header_after_line=header_after_line,
        changes_module=True,
    )


def test_hand_plan_applies_only_the_plan():
    """The emitter never re-decides: a name the plan keeps eager stays, even if lazy-able."""
    source = "import a, b\nprint(a, b)\n"
    plan = _hand_plan(
        imports=[_site((1, 0, 1, 11), "import", [("a", "a", False), ("b", "b", True)])],
        references=[Reference("b", (2, 9, 2, 10), True)],
    )
    assert emit_cst(source, plan) == (
        f"{HEADER}; import a; __lazy__.__lazy_import__(('b', None))\nprint(a, __lazy__.b)\n"
    )


def test_hand_plan_byte_columns_are_converted():
    # "é" is two bytes in UTF-8: the plan's column for the second `x` is 10, libcst's is 9.
    source = 'import x\ns = "é"; x\n'
    plan = _hand_plan(
        imports=[_site((1, 0, 1, 8), "import", [("x", "x", True)])],
        references=[Reference("x", (2, 10, 2, 11), True)],
    )
    assert emit_cst(source, plan).splitlines()[1] == 's = "é"; __lazy__.x'


@pytest.mark.parametrize(
    "plan",
    [
        _hand_plan(references=[Reference("x", (2, 3, 2, 4), True)]),
        _hand_plan(imports=[_site((2, 0, 2, 8), "import", [("x", "x", True)])]),
        _hand_plan(chain_after=[(5, 0, 5, 9)]),
        _hand_plan(imports=[_site((1, 0, 1, 8), "import", [("y", "y", True)])]),
    ],
    ids=["reference", "import", "chain", "alias"],
)
def test_plan_that_matches_nothing_raises(plan):
    with pytest.raises(EmitError):
        emit_cst("import x\nx\n", plan)


# ---------------------------------------------------------------- sweep over real files


#: Standard-library files (present in 3.10 to 3.15) the default suite compares: a fixed
#: list, so every run checks the same files whatever is installed (the full sweep over the
#: stdlib and site-packages is tests/compat/sweep_emitters.py; libcst parses about 10
#: stdlib files a second here).
SWEEP_FILES = (
    "__future__.py",
    "abc.py",
    "argparse.py",
    "ast.py",
    "asyncio/base_events.py",
    "asyncio/tasks.py",
    "bdb.py",
    "calendar.py",
    "collections/__init__.py",
    "concurrent/futures/_base.py",
    "contextlib.py",
    "csv.py",
    "dataclasses.py",
    "decimal.py",
    "difflib.py",
    "email/message.py",
    "email/utils.py",
    "enum.py",
    "fractions.py",
    "functools.py",
    "gettext.py",
    "http/client.py",
    "importlib/__init__.py",
    "importlib/metadata/__init__.py",
    "inspect.py",
    "json/__init__.py",
    "json/decoder.py",
    "logging/__init__.py",
    "multiprocessing/context.py",
    "os.py",
    "pickle.py",
    "pprint.py",
    "pydoc.py",
    "shutil.py",
    "socket.py",
    "ssl.py",
    "subprocess.py",
    "tarfile.py",
    "tempfile.py",
    "threading.py",
    "typing.py",
    "unittest/case.py",
    "urllib/request.py",
    "warnings.py",
    "xml/dom/minidom.py",
)


def _sweep_kind(rel: str) -> str:
    return "package" if rel.endswith("__init__.py") else "submodule" if "/" in rel else "module"


#: The default run compares a sample of three: one package, one submodule and one
#: top-level module (tests/_sample.py); LAZIFY_FULL_TESTS=1 compares all.
@pytest.mark.parametrize("rel", sample(SWEEP_FILES, 3, kind=_sweep_kind))
def test_stdlib_file_same_program_as_ast_emitter(rel):
    stdlib = sysconfig.get_paths()["stdlib"]
    path = os.path.join(stdlib, *rel.split("/"))
    assert os.path.isfile(path), f"{rel} is not in this Python's standard library"
    _path, outcome, detail, _seconds = sweep.compare_file((path, stdlib))
    assert outcome in (sweep.SAME, sweep.UNCHANGED), f"{outcome}: {detail}"


# ---------------------------------------------------------------- former disagreements


@pytest.mark.parametrize(
    "source",
    [
        # Header right after the __future__ import (Plan.header_index), then `import os`
        # becomes a registration, though both are on line 1.
        b"from __future__ import annotations; import os\nTrue and os.sep\n",
        # A lazy site that also binds __getattr__ is in chain_after.
        b"from m import __getattr__, x\nx\n",
    ],
    ids=["future-and-import-on-one-line", "chain-after-lazy-site"],
)
def test_former_disagreement_with_ast_emitter(source):
    outcome, detail = sweep.compare_source(source, "input.py", MODULE)
    assert outcome == sweep.SAME, detail
