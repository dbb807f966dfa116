"""The AST emitter: positions survive, and rewritten code behaves like the original.

- positions: every instruction of the rewritten code that does not belong to
  lazify's header or registrations has a source position the original code
  also has (tracebacks point at the user's lines and columns);
- differential runs: each program below is executed plain and rewritten, each
  in a fresh interpreter (``-S``) where none of the modules it imports is
  loaded yet, and must give the same result and raise the same exception
  types; the rewritten run must defer some of them to the call of ``result()``.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
import textwrap
import types

import pytest

from lazify import _settings
from lazify._emit_ast import emit
from lazify._rewrite import rewrite_code as transform
from lazify._plan import plan_module
from tests._util import fixture_requires

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "rewrite")
CASES = [
    pytest.param(name, marks=[pytest.mark.skip(reason="input needs newer Python syntax")]
                 if sys.version_info < fixture_requires(os.path.join(FIXTURES, name)) else [], id=name)
    for name in sorted(os.listdir(FIXTURES))
]


@pytest.fixture(autouse=True)
def global_mode():
    before = (_settings.is_lazy_imports_enabled(), _settings.settings.excluding)
    _settings.set_lazy_imports(True)
    yield
    _settings.set_lazy_imports(before[0], excluding=before[1])


def _positions(code):
    found = set()
    stack = [code]
    while stack:
        co = stack.pop()
        for position in co.co_positions():
            if position[0] is not None:
                found.add(position)
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    return found


def _generated_lines(tree):
    """Lines of import statements (replaced by registrations) and the header."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


@pytest.mark.skipif(sys.version_info < (3, 11), reason="co_positions is 3.11+")
@pytest.mark.parametrize("case", CASES)
def test_positions_of_user_code_are_kept(case):
    with open(os.path.join(FIXTURES, case, "input.py"), "rb") as f:
        source = f.read()
    tree = compile(source, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    original = _positions(compile(tree, "input.py", "exec", dont_inherit=True))
    rewritten = _positions(transform(source, "input.py", module="pkg.input"))
    skip = _generated_lines(tree)
    plan = plan_module(tree, module="pkg.input")
    first = tree.body[plan.header_index] if plan.header_index < len(tree.body) else None
    header_line = first.lineno if first is not None else None
    # chain calls, annotation decorators and statements sit, zero-width, at the start
    # of the statement they follow or belong to; so do the calls that stand for a
    # multi-line namespace read (``exec(`` over several lines)
    spans = [*plan.chain_after, *(owner.span for owner in plan.annotation_owners),
             *(read.span for read in plan.namespace_reads)]
    chains = {(l, l, c, c) for (l, c, _el, _ec) in spans}
    # the lambda of an annotation evaluated on read: the compiler gives a code
    # object's first and padding instructions its first line, without columns
    # the call that stands for it sits, zero-width, at the annotation's start
    for line, col, _el, _ec in (d.span for d in plan.deferred_annotations):
        chains.update({(line, line, 0, 0), (line, line, col, col)})
    extra = {p for p in rewritten - original
             if p[0] not in skip and p[0] != header_line and p not in chains}
    assert not extra, sorted(extra)


@pytest.mark.parametrize("case", CASES)
def test_planner_nodes_and_nodes_found_by_position_give_one_tree(case):
    """The hook's emit routes the Name nodes the planner hands it; without them the
    emitter finds the nodes by position: the same tree, positions included."""
    with open(os.path.join(FIXTURES, case, "input.py"), "rb") as f:
        source = f.read()
    trees = []
    for nodes in ({}, None):
        tree = compile(source, "input.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        plan = plan_module(tree, module="pkg.input", source=source, future_flags=True,
                           nodes=nodes)
        assert plan.changes_module
        assert nodes is None or len(nodes) == len(plan.references)
        trees.append(ast.dump(emit(tree, plan, nodes), include_attributes=True))
    assert trees[0] == trees[1]


@pytest.mark.parametrize("case", CASES)
def test_rewrite_leaves_no_cycles_and_the_collector_as_it_was(case):
    """The rewrite's objects are freed by reference counting (a cycle would keep a
    module's tree alive until a collection, and make the pyc's marshal bytes depend
    on when that happens); the collector it pauses is left as it was found."""
    with open(os.path.join(FIXTURES, case, "input.py"), "rb") as f:
        source = f.read()
    # everything alive now, garbage included, moves to the permanent generation: the
    # collection below looks only at what the rewrite made (a full collection of this
    # process, libcst and the collected tests in it, took ~80 ms a case)
    gc.freeze()
    gc.disable()
    try:
        transform(source, "input.py", module="pkg.input")
        assert not gc.isenabled()
        assert gc.collect() == 0
    finally:
        gc.enable()
        gc.unfreeze()
    transform(source, "input.py", module="pkg.input")
    assert gc.isenabled()
    with pytest.raises(SyntaxError):
        transform(source + b"\n)", "input.py", module="pkg.input")
    assert gc.isenabled()


def test_generated_nodes_take_the_statement_and_name_positions():
    source = "import json\n\ndef f():\n    return json.dumps(1)\n"
    tree = ast.parse(source)
    new = emit(tree, plan_module(tree, module="m"))
    registration = next(node for node in new.body if isinstance(node, ast.Expr))
    assert (registration.lineno, registration.col_offset) == (1, 0)
    routed = next(node for node in ast.walk(new)
                  if isinstance(node, ast.Attribute) and node.attr == "json")
    assert (routed.lineno, routed.col_offset, routed.end_col_offset) == (4, 11, 15)
    assert (routed.value.lineno, routed.value.col_offset) == (4, 11)


def test_header_after_docstring_and_future_imports():
    source = '"""Doc."""\nfrom __future__ import annotations\nimport json\nx = lambda: json\n'
    tree = ast.parse(source)
    new = emit(tree, plan_module(tree, module="m"))
    assert isinstance(new.body[0], ast.Expr) and new.body[0].value.value == "Doc."
    assert isinstance(new.body[1], ast.ImportFrom) and new.body[1].module == "__future__"
    assert isinstance(new.body[2], ast.Import) \
        and new.body[2].names[0].name == "lazify._importlib_bootstrap"
    code = compile(new, "m.py", "exec")   # __future__ still first: compiles
    namespace = {"__name__": "m"}
    exec(code, namespace)
    assert namespace["__doc__"] == "Doc."


def _function(code, name):
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def test_lazy_future_imports_become_compiler_flags():
    """The hook's plan (``future_flags``): the leading ``from __future__`` imports are
    registrations after the header, and the code objects get the flags the statements
    give them, so nothing imports ``__future__`` until a name it binds is read."""
    source = (b'"""Doc."""\nfrom __future__ import annotations, division\nimport json\n'
              b'def f(x: json.JSONDecoder) -> Undefined: return json\n')
    plain = compile(source, "m.py", "exec", dont_inherit=True)
    code = transform(source, "m.py", module="m")
    assert "__future__" in plain.co_names and "__future__" not in code.co_names
    assert code.co_flags == plain.co_flags
    assert _function(code, "f").co_flags == _function(plain, "f").co_flags
    namespace = {"__name__": "m"}
    exec(code, namespace)
    assert namespace["__doc__"] == "Doc."
    assert namespace["f"].__annotations__ == {"x": "json.JSONDecoder", "return": "Undefined"}
    import __future__
    assert namespace["__lazy__"].annotations is __future__.annotations


def test_future_flags_are_the_compilers():
    import __future__

    from lazify._plan import FUTURE_FLAGS
    assert set(FUTURE_FLAGS) == set(__future__.all_feature_names)
    none = compile("pass\n", "m", "exec", dont_inherit=True).co_flags
    for name in __future__.all_feature_names:
        flags = compile(f"from __future__ import {name}\n", "m", "exec", dont_inherit=True).co_flags
        assert FUTURE_FLAGS[name] == flags & ~none, name


@pytest.mark.parametrize("source", [
    b"from __future__ import braces\nimport json\n",
    b"from __future__ import annotations, no_such_feature\nimport json\n",
    b"import json\nfrom __future__ import annotations\n",
])
def test_future_imports_the_compiler_rejects_stay_for_it_to_reject(source):
    with pytest.raises(SyntaxError) as plain:
        compile(source, "m.py", "exec", dont_inherit=True)
    with pytest.raises(SyntaxError) as rewritten:
        transform(source, "m.py", module="m")
    assert (rewritten.value.msg, rewritten.value.lineno) == (plain.value.msg, plain.value.lineno)


PROGRAMS = {
    "functions_and_lambdas": """
        import json
        import os.path
        from collections import OrderedDict as OD, deque
        def dump(x):
            return json.dumps(x, sort_keys=True)
        key = lambda p: os.path.basename(p)
        def result():
            return dump({"b": 1, "a": [1, 2]}), key("/a/b.txt"), list(OD(a=1)), deque([1]).pop()
    """,
    "comprehensions_and_classes": """
        import string
        import itertools
        import colorsys
        class Letters:
            upper = string.ascii_uppercase[:3]
            def pairs(self):
                return [a + b for a, b in itertools.product(self.upper, string.digits[:2])]
        def result():
            return (Letters.upper, Letters().pairs(), {c: string.ascii_lowercase.index(c) for c in "abc"},
                    colorsys.rgb_to_hsv(1, 0, 0))
    """,
    "locals_shadowing_names": """
        import json
        import calendar
        def result():
            json = "local"
            def inner(json=json):
                return json
            return [json for json in ("comprehension",)], inner(), json, calendar.isleap(2024)
    """,
    "globals_and_nonlocal": """
        import math
        counter = 0
        def bump():
            global counter
            counter += 1
            return math.floor(counter * 1.5)
        def outer():
            value = 1
            def inner():
                nonlocal value
                value += 1
                return value
            return inner()
        def result():
            return bump(), bump(), outer()
    """,
    "errors_keep_their_types": """
        import json
        def result():
            try:
                json.loads("{")
            except json.JSONDecodeError as exc:
                return type(exc).__name__, isinstance(exc, ValueError)
    """,
    "default_values_and_decorators": """
        import functools
        import operator
        import textwrap
        @functools.lru_cache(maxsize=None)
        def add(a, b=operator.add(1, 2)):
            return a + b
        def result():
            return add(1), add.cache_info().hits >= 0, textwrap.shorten("a b c", 3)
    """,
    "star_import_and_all": """
        from string import *
        import textwrap
        def result():
            return ascii_letters[:2], digits[:3], textwrap.dedent("  x")
    """,
    "match_and_walrus": """
        import enum
        import fnmatch
        class Color(enum.Enum):
            RED = 1
        def result():
            assert fnmatch.fnmatch("a.py", "*.py")
            match Color.RED:
                case Color.RED:
                    found = "red"
                case _:
                    found = "other"
            return found, [y for x in (1, 2) if (y := x * enum.auto.__name__.count("a"))]
    """,
    # 3.14+: the interpolations keep their text; values, conversions and format specs
    # are the eager program's (implicitly concatenated t-strings too, which libcst
    # cannot parse)
    "template_strings_314": """
        import json
        import string
        import textwrap
        def parts(template):
            return [(i.value, i.expression, i.conversion, i.format_spec)
                    for i in template.interpolations], template.strings
        def result():
            return (parts(t"{json.dumps([1])!r:>{len(string.digits)}} {textwrap=}"),
                    parts(t"{json.__name__}" t" and {(lambda: string.digits)()}"),
                    parts(t"{t'{textwrap.dedent("  x")}'.strings}"))
    """,
    "fstrings_and_conditionals": """
        import decimal
        import fractions
        def result(flag=True):
            return f"{decimal.Decimal('1.5')}", (fractions.Fraction(1, 3) if flag else None)
    """,
}


#: Runs one program in a fresh interpreter: argv is the mode ("plain": the source on
#: stdin; "lazy": lazify's code for it, marshalled) and the modules it imports; prints the
#: outcome, then which of those modules were loaded before the program ran, after its
#: body ran, and after result() returned.
_CHILD = """
import marshal, sys
mode, watch = sys.argv[1], sys.argv[2:]
def loaded():
    return [m for m in watch if m in sys.modules]
data = sys.stdin.buffer.read()
before = loaded()
if mode == "lazy":
    import lazify._settings as runtime
    runtime.set_lazy_imports(True)
    code = marshal.loads(data)
else:
    code = compile(data, "program.py", "exec", dont_inherit=True)
namespace = {"__name__": "difftest"}
exec(code, namespace)
after_body = loaded()
try:
    outcome = ("ok", namespace["result"]())
except Exception as exc:   # the same exception type both ways
    outcome = ("raised", type(exc).__name__)
print(repr(outcome))
print(before, after_body, loaded(), sep="\\n")
"""


def _run_child(mode, data, watch):
    import subprocess

    from tests._util import child_env

    proc = subprocess.run([sys.executable, "-S", "-c", _CHILD, mode, *watch], input=data,
                          capture_output=True, env=child_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    outcome, before, after_body, after_result = proc.stdout.decode().splitlines()
    return outcome, ast.literal_eval(before), ast.literal_eval(after_body), ast.literal_eval(after_result)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_differential_run(name):
    import marshal

    source = textwrap.dedent(PROGRAMS[name])
    if name.endswith("_314") and sys.version_info < (3, 14):
        pytest.skip("t-strings are 3.14+")
    watch = sorted({alias.name.partition(".")[0] if isinstance(node, ast.Import) else node.module
                    for node in ast.walk(ast.parse(source))
                    if isinstance(node, (ast.Import, ast.ImportFrom))
                    for alias in node.names})
    plain = _run_child("plain", source.encode(), watch)
    code = transform(source.encode(), f"{name}.py", module="difftest")
    lazy = _run_child("lazy", marshal.dumps(code), watch)
    assert lazy[0] == plain[0]
    # what the test claims: none of the modules was loaded before the program ran ...
    assert plain[1] == lazy[1] == []
    # ... and the rewritten program imported some only when result() needed them
    assert set(lazy[3]) - set(lazy[2]), (watch, lazy)


@pytest.mark.parametrize("drop", ["references", "imports", "chain_after", "annotation_owners",
                                  "getattr_prologues", "namespace_reads"])
def test_plan_item_that_matches_no_node_fails_the_rewrite(drop):
    """As the libcst emitter does: an item of the plan the emitter found no node for is
    a lazify bug, reported now (EmitError), not as a NameError when the module runs."""
    from lazify._plan import EmitError

    source = textwrap.dedent('''\
        from __future__ import annotations
        import json
        def __getattr__(name):
            return name
        __getattr__ = __getattr__
        def f(x: json.JSONDecoder):
            return json.dumps(globals())
        ''')
    tree = ast.parse(source)
    plan = plan_module(tree, module="m")
    assert getattr(plan, drop), drop
    emit(ast.parse(source), plan)          # the plan as it is applies
    with pytest.raises(EmitError, match="no node for"):
        emit(ast.parse(source), _moved(plan, drop))


def _moved(plan, field):
    """``plan`` with the first item of ``field`` the emitter applies moved 40 lines down,
    where nothing is."""
    from lazify._plan import Plan

    items = getattr(plan, field)
    index = next(i for i, item in enumerate(items) if item in plan.edits())
    first = items[index]
    if isinstance(first, tuple) and not hasattr(first, "span"):
        moved = (first[0] + 40, *first[1:])
    else:
        span = first.span
        moved = type(first)(**{**{f: getattr(first, f) for f in first.__slots__},
                               "span": (span[0] + 40, *span[1:])})
    values = {f: getattr(plan, f) for f in Plan.__slots__}
    values[field] = (*items[:index], moved, *items[index + 1:])
    return Plan(**values)


@pytest.mark.rewrite_only("the rewrite's ast emitter falling back to its cst emitter")
def test_hook_falls_back_when_the_plan_does_not_fit(tmp_path):
    """The hook turns an EmitError into its usual fallback: the plain import and a
    warning naming the module; under LAZIFY_STRICT it raises."""
    from tests._util import run_python

    (tmp_path / "mod.py").write_text("import json\ndef f():\n    return json.dumps(1)\n")
    code = textwrap.dedent('''\
        import warnings, lazify, lazify._rewrite as pipeline
        from lazify._plan import Plan, Reference
        real = pipeline.plan_source
        def wrong(*args, **kwargs):
            plan = real(*args, **kwargs)
            if kwargs.get("module") != "mod":   # json: a cache miss where nothing is cached
                return plan
            values = {f: getattr(plan, f) for f in Plan.__slots__}
            values["references"] += (Reference("json", (9, 0, 9, 4), False),)
            return Plan(**values)
        pipeline.plan_source = wrong
        lazify.install()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import mod
        print(mod.f(), lazify.is_lazy_import(vars(mod), "json"), "__lazy__" in vars(mod))
        print(len(caught))
        ''')
    proc = run_python(code, cwd=tmp_path, env_extra={"LAZIFY_STRICT": None})
    lines = proc.stdout.splitlines()
    assert lines[0] == "1 False False", proc.stderr
    assert lines[1] == "0"          # said on stderr, not warned (lazify._diagnostics)
    said = proc.stderr.splitlines()
    assert len(said) == 1 and said[0].startswith("lazify: could not rewrite module 'mod'"), \
        proc.stderr
    assert "EmitError" in said[0] and "no node for Reference(name='json'" in said[0]
    strict = run_python(code, cwd=tmp_path)
    assert strict.returncode != 0 and "EmitError" in strict.stderr
