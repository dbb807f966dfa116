"""Planner decisions, reasons and routed references, one fixture pair per case.

Each case is a directory under ``tests/fixtures/plan/``:

- ``input.py``: the module to plan (never executed);
- ``module.txt`` (optional): the first line is the module name, ``pkg.mod`` or
  ``pkg [package]`` (``[package]`` alone: a package whose name is unknown); further
  lines are ``excluding: NAME ...`` (the planner's ``excluding``),
  ``requires: 3.12`` (skip on older Pythons, for syntax they cannot parse) and
  ``future-flags: yes`` (plan as the import hook does: ``future_flags=True``);
- ``expected_plan.txt``: what :func:`render` prints for the plan, reviewed by hand
  against the README's rules ("How it works"), not just copied from the planner;
  ``expected_plan.3.14.txt`` beside it, where Python 3.14 and later plan differently
  (PEP 649: annotations are evaluated when read; see ``tests._util.expected_file``);
- ``xfail.txt`` (optional): the planner bug that makes the case fail; the test is then
  ``xfail(strict=True)``, so fixing the bug makes it fail until the file is removed.

``expected_plan.txt`` has one line per imported name::

    LINE NAME lazy|eager REASON-or-- used_at_import=N|- unused=yes|no

(``*`` is the name of a star import; REASON is ``explicit`` for the names of a PEP 810
``lazy import``, 3.15+), a line ``module LINE NAME MODULE`` for every
name of a relative import (the resolved module), and a line ``ref NAME LINE:COL`` for
every reference the rewrite routes (``Plan.references``, in source order), and, when
there are any, a line ``fallback NAME...`` (``Plan.fallback_names``: lazy names a read
may find unregistered), a line ``annotated KIND LINE:COL NAME...`` per annotation owner,
a line ``template LINE:COL NAME...`` per t-string whose interpolations read lazy names
(3.14+), a line ``read KIND LINE:COL FUNCTION [key=KEY]`` per read of the module's own
namespace in a function (``Plan.namespace_reads``), and a line ``resolved NAME
FUNCTION:LINE...`` for every lazy name such reads may import (``resolved_by``), and
``future_flags HEX header_index N`` when the module's ``from __future__`` imports are
lazy (``Plan.future_flags``, the statements before the header). Lines
starting with ``#`` are comments and ignored.

To (re)generate a file from the planner, then review it line by line::

    PYTHONPATH=. python tests/test_plan.py CASE...

(it writes the file the running Python reads; ``--this-version`` writes
``expected_plan.X.Y.txt`` for the running X.Y instead).
"""

from __future__ import annotations

import ast
import os
import sys

import pytest

from lazify._plan import plan_module
from tests._util import expected_file

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "plan")


def case_names() -> list[str]:
    """Every case directory, sorted."""
    return sorted(
        name for name in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, name, "input.py"))
    )


def read_options(case: str) -> dict:
    """The planner arguments and the required Python version from ``module.txt``."""
    options = {"module": "", "is_package": False, "excluding": None, "requires": (3, 10),
               "future_flags": False}
    path = os.path.join(FIXTURES, case, "module.txt")
    if not os.path.exists(path):
        return options
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if lines and ":" not in lines[0]:
        first = lines.pop(0)
        if first.endswith("[package]"):
            options["is_package"] = True
            first = first[: -len("[package]")].strip()
        options["module"] = first
    for line in lines:
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "excluding":
            options["excluding"] = frozenset(value.split())
        elif key == "requires":
            options["requires"] = tuple(int(part) for part in value.split("."))
        elif key == "future-flags":
            options["future_flags"] = value.strip() == "yes"
        else:
            raise ValueError(f"{case}/module.txt: unknown line {line!r}")
    return options


def plan_case(case: str):
    """Parse and plan ``input.py`` of *case* with its ``module.txt`` options."""
    options = read_options(case)
    path = os.path.join(FIXTURES, case, "input.py")
    with open(path, "rb") as f:
        data = f.read()
    source = data.decode("utf-8")
    tree = compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    return plan_module(
        tree,
        module=options["module"],
        is_package=options["is_package"],
        excluding=options["excluding"],
        source=source,
        future_flags=options["future_flags"],
    )


def render(plan) -> str:
    """The plan as ``expected_plan.txt`` lines."""
    lines = []
    for site in plan.imports:
        line = site.span[0]
        for n in site.names:
            verdict = "lazy" if n.lazy else "eager"
            reason = "--" if n.reason is None else n.reason.value
            if n.explicit:
                reason = "explicit"
            used = "-" if n.used_at_import is None else n.used_at_import
            unused = "yes" if n.unused else "no"
            lines.append(f"{line} {n.name} {verdict} {reason} used_at_import={used} unused={unused}")
            if site.level:
                lines.append(f"module {line} {n.name} {n.module}")
    for ref in plan.references:
        lines.append(f"ref {ref.name} {ref.span[0]}:{ref.span[1]}")
    if getattr(plan, "fallback_names", ()):
        lines.append("fallback " + " ".join(plan.fallback_names))
    for owner in plan.annotation_owners:
        lines.append(f"annotated {owner.kind} {owner.span[0]}:{owner.span[1]} {' '.join(owner.names)}")
    for template in plan.templates:
        lines.append(f"template {template.span[0]}:{template.span[1]} {' '.join(template.names)}")
    for deferred in plan.deferred_annotations:
        lines.append(f"deferred {deferred.span[0]}:{deferred.span[1]} {' '.join(deferred.names)}")
    for read in plan.namespace_reads:
        key = "" if read.key is None else f" key={read.key}"
        lines.append(f"read {read.kind} {read.span[0]}:{read.span[1]} {read.function}{key}")
    if plan.future_flags:
        lines.append(f"future_flags {plan.future_flags:#x} header_index {plan.header_index}")
    for site in plan.imports:
        for n in site.names:
            if n.resolved_by:
                readers = " ".join(f"{function}:{line}" for function, line in n.resolved_by)
                lines.append(f"resolved {n.name} {readers}")
    return "\n".join(lines) + "\n"


def read_expected(case: str) -> str:
    with open(expected_file(os.path.join(FIXTURES, case), "expected_plan.txt"), encoding="utf-8") as f:
        lines = [line.rstrip() for line in f if line.strip() and not line.startswith("#")]
    return "\n".join(lines) + "\n"


def _params():
    params = []
    for case in case_names():
        marks = []
        xfail = os.path.join(FIXTURES, case, "xfail.txt")
        if os.path.exists(xfail):
            with open(xfail, encoding="utf-8") as f:
                marks.append(pytest.mark.xfail(reason=f.read().strip(), strict=True))
        requires = read_options(case)["requires"]
        if sys.version_info < requires:
            marks.append(
                pytest.mark.skip(reason=f"needs Python {'.'.join(map(str, requires))} syntax")
            )
        params.append(pytest.param(case, marks=marks, id=case))
    return params


@pytest.mark.parametrize("case", _params())
def test_plan(case: str) -> None:
    assert render(plan_case(case)) == read_expected(case)


def test_every_case_has_an_expectation() -> None:
    missing = [c for c in case_names() if not os.path.exists(os.path.join(FIXTURES, c, "expected_plan.txt"))]
    assert not missing


@pytest.mark.parametrize("case", [c for c in case_names() if sys.version_info >= read_options(c)["requires"]])
def test_input_compiles(case: str) -> None:
    """Every input is a valid module, symtable's checks included (not just parseable)."""
    path = os.path.join(FIXTURES, case, "input.py")
    with open(path, "rb") as f:
        compile(f.read(), path, "exec", dont_inherit=True)


def test_plan_is_deterministic_and_pickleable() -> None:
    """Plans are plain frozen data: ``check``/``compile`` may fan out over processes."""
    import pickle

    for case in case_names():
        if sys.version_info < read_options(case)["requires"]:
            continue
        plan = plan_case(case)
        assert pickle.loads(pickle.dumps(plan)) == plan
        assert plan_case(case) == plan


@pytest.mark.parametrize(
    "source, line",
    [
        pytest.param("import json\n", 0, id="empty_nodoc_nofuture"),
        pytest.param('"""Doc."""\nimport json\n', 1, id="empty_doc_nofuture"),
        pytest.param("from __future__ import annotations\nimport json\n", 1, id="empty_nodoc_future"),
        pytest.param(
            '"""Doc\non two lines."""\nfrom __future__ import annotations\n'
            "from __future__ import (\n    division,\n)\nimport json\n",
            6,
            id="empty_doc_future",
        ),
        pytest.param('x = 1\n"""Not a docstring."""\nimport json\n', 0, id="string_after_code"),
    ],
)
def test_header_after_line(source: str, line: int) -> None:
    """The header goes after the docstring and the leading ``from __future__`` imports."""
    assert plan_module(ast.parse(source)).header_after_line == line


def test_chain_after_module_level_getattr_and_dir() -> None:
    """A module-level ``def __getattr__`` gets lazify's prologue; any other module-level
    binding of ``__getattr__`` a chain call after it; ``__dir__`` neither (the module's
    own ``__dir__`` answers ``dir(module)``, as eagerly)."""
    source = (
        "import json\n"
        "def __getattr__(name):\n"
        "    return json\n"
        "if True:\n"
        "    __dir__ = lambda: []\n"
        "class C:\n"
        "    def __getattr__(self, name):\n"  # a method: not the module's
        "        pass\n"
        "def f():\n"
        "    __dir__ = 1\n"  # a local
        "__getattr__, other = 1, 2\n"
    )
    plan = plan_module(ast.parse(source))
    assert plan.chain_after == ((11, 0, 11, 25),)
    assert [(p.span, p.param) for p in plan.getattr_prologues] == [((2, 0, 3, 15), "name")]


@pytest.mark.parametrize(
    "source, is_package, changes_module",
    [
        pytest.param("x = 1\n", False, False, id="no_imports"),
        pytest.param("x = 1\n", True, True, id="package_without_imports"),
        pytest.param("from os.path import *\n", False, True, id="star_only"),
        pytest.param("try:\n    import json\nexcept ImportError:\n    pass\n", False, False, id="all_eager"),
        pytest.param("import json\n", False, True, id="one_lazy"),
        pytest.param("import json\n__lazy__ = 1\n", False, False, id="reserved_name"),
    ],
)
def test_changes_module_flag(source: str, is_package: bool, changes_module: bool) -> None:
    """Whether the emitters touch the module at all."""
    assert plan_module(ast.parse(source), is_package=is_package).changes_module is changes_module


if __name__ == "__main__":
    # Regenerate: python tests/test_plan.py [--this-version] CASE...  (review every line
    # afterwards).
    this_version = "--this-version" in sys.argv
    for name in sys.argv[1:]:
        if name == "--this-version":
            continue
        name = os.path.basename(os.path.normpath(name))
        text = render(plan_case(name))
        directory = os.path.join(FIXTURES, name)
        path = expected_file(directory, "expected_plan.txt")
        if this_version:
            path = os.path.join(directory, "expected_plan.%d.%d.txt" % sys.version_info[:2])
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"--- {name} -> {os.path.relpath(path, FIXTURES)}\n{text}", end="")


def test_strings_the_planner_parses_never_warn() -> None:
    """requests' ``>>> requests.codes['\\o/']`` printed a SyntaxWarning on every cold
    start (3.12+): text from docstrings and string annotations is parsed silently."""
    source = (
        'r"""Codes.\n\n>>> requests.codes[\'\\o/\']\n"""\n'
        "import requests\n"
        "import re\n"
        'def f(p: "re.Pattern[\'\\\\d\']"): pass\n'
    )
    import warnings

    tree = ast.parse(source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = plan_module(tree, source=source)
    verdicts = {n.name: n.reason for s in plan.imports for n in s.names}
    assert verdicts["requests"] == "doctest"
    assert [str(w.message) for w in caught] == []
