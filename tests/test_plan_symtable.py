"""The planner's reference routing, checked against symtable (the compiler's own scopes).

For each file of a deterministic sample of the running interpreter's standard library
(and every planner fixture), every Name load is assigned to the symtable block it runs
in, then:

1. every reference the planner routes (``Plan.references``) is a load that symtable
   says is global (implicit or explicit) in its block, and not in an annotation;
2. every load that symtable says is global in its block, of a name the planner made
   lazy, is routed, or (3.14+) sits in the text of a t-string interpolation whose
   t-string the plan resolves those names for (``Plan.templates``).

Loads the compiler never evaluates are left out on both sides: annotations under
``from __future__ import annotations`` (symtable puts them in hidden annotation blocks)
and annotations of simple names inside functions (the compiler drops them). From 3.14 on
(PEP 649) annotations are compiled into ``__annotate__`` functions, which symtable shows
as annotation blocks: one before every ``def``, one per module, class or function body
that has annotated assignments, created at the first one. Their loads are never routed
(the planner leaves annotations as written and makes their owners import on read), so
they only count for check 1.

From 3.12 on, symtable inlines list/set/dict comprehensions into their enclosing block
(PEP 709) and merges their symbols: a name bound by such a comprehension and read as a
global in the same block, or read inside a comprehension in a class body, has one merged
symbol that no longer tells which load is which. There, and only there, the compiler's
other answer is used: the load instruction compiled at that Name's exact position
(``LOAD_GLOBAL``/``LOAD_NAME``/``LOAD_FROM_DICT_OR_GLOBALS`` is a global read, any other
load is not; a Name with no load instruction of its own, e.g. folded into a 3.13
superinstruction, is left out). Every other load is judged by symtable on every version.
Type-param blocks (3.12+) are not modelled: they do not occur in 3.11 sources, and the
3.12-only fixtures that have them are skipped here.
"""

from __future__ import annotations

import ast
import dis
import os
import symtable
import sys
import sysconfig
import warnings

import pytest

from lazify._plan import plan_module
from tests._sample import sample
from tests.test_plan import read_options

#: list/set/dict comprehensions have no block of their own (PEP 709)
INLINED = sys.version_info >= (3, 12)
#: annotations live in annotation blocks (PEP 649)
ANNOTATION_BLOCKS = sys.version_info >= (3, 14)
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})

#: the running interpreter's standard library
STDLIB = sysconfig.get_paths()["stdlib"]
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "plan")
#: about 150 stdlib files: every STEP-th of the sorted list
SAMPLE = 150


def stdlib_sample() -> list[str]:
    """A deterministic sample of the standard library (no test/, no site-packages)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(STDLIB):
        rel = os.path.relpath(dirpath, STDLIB)
        top = rel.split(os.sep)[0]
        if top in ("test", "site-packages", "lib2to3") or "__pycache__" in rel:
            # lib2to3's fixture data includes Python 2 sources.
            dirnames[:] = []
            continue
        dirnames.sort()
        files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    files.sort()
    step = max(1, len(files) // SAMPLE)
    return files[::step][:SAMPLE]


def fixture_files() -> list[str]:
    return sorted(
        os.path.join(FIXTURES, case, "input.py")
        for case in os.listdir(FIXTURES)
        if os.path.isfile(os.path.join(FIXTURES, case, "input.py"))
    )


class Block:
    """One symtable block as seen from the AST: its child blocks and its Name loads."""

    __slots__ = ("node", "lineno", "children", "loads", "inlined", "comp_bound", "annotation",
                 "annotations", "klass")

    def __init__(self, node, lineno, annotation=False, klass=None):
        self.node = node
        #: the innermost enclosing class's name (private names are mangled with it)
        self.klass = klass
        self.lineno = lineno
        self.children = []
        self.loads = []
        #: 3.12+: ids of the loads inside inlined comprehensions of this block
        self.inlined = set()
        #: 3.12+: names bound by inlined comprehensions of this block
        self.comp_bound = set()
        #: 3.14+: an annotation block (an ``__annotate__`` function), or inside one
        self.annotation = annotation
        #: 3.14+: the annotation block of this body's annotated assignments, once made
        self.annotations = None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TRY = (ast.Try, ast.TryStar) if sys.version_info >= (3, 11) else (ast.Try,)


def _else_before_handlers() -> bool:
    """Whether symtable visits a try's else block before its handlers (3.12 and older do;
    3.13 follows the source), asked of the running interpreter's symtable."""
    source = "try:\n    pass\nexcept E:\n    def b(): pass\nelse:\n    def c(): pass\n"
    names = [t.get_name() for t in symtable.symtable(source, "<probe>", "exec").get_children()]
    return [n for n in names if n in ("b", "c")] == ["c", "b"]


ELSE_FIRST = _else_before_handlers()


def symbol(table: symtable.SymbolTable, name: str, klass: str | None) -> symtable.Symbol:
    """The symbol for a Name load, under its mangled name (``__x`` in class ``C`` is
    ``_C__x``) where symtable keeps it so."""
    try:
        return table.lookup(name)
    except KeyError:
        if klass is None or not name.startswith("__") or name.endswith("__"):
            raise
        return table.lookup(f"_{klass.lstrip('_')}{name}")


class Blocks:
    """Assign every Name load to its block, visiting in symtable's order (symtable.c)."""

    def __init__(self, future_annotations: bool, inlined: bool = INLINED):
        self.future_annotations = future_annotations
        self.inline_comprehensions = inlined
        self.annotation_blocks = ANNOTATION_BLOCKS and not future_annotations
        #: depth of inlined comprehensions around the node being visited, per block
        self.inside = 0

    def module(self, tree: ast.Module) -> Block:
        block = Block(tree, 0)
        for stmt in tree.body:
            self.visit(stmt, block, "module")
        return block

    def visit(self, node, block, kind):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                block.loads.append(node)
                if self.inside:
                    block.inlined.add(id(node))
            elif self.inside:
                block.comp_bound.add(node.id)
            return
        if (
            self.inline_comprehensions
            and isinstance(node, _COMPREHENSIONS)
            and not isinstance(node, ast.GeneratorExp)
        ):
            self.inlined_comprehension(node, block, kind)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node, block, kind)
        elif isinstance(node, ast.Lambda):
            args = node.args
            for default in [*args.defaults, *args.kw_defaults]:
                if default is not None:
                    self.visit(default, block, kind)
            child = self.enter(node, block)
            self.in_block([node.body], child, "function")
        elif isinstance(node, ast.ClassDef):
            for expr in [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]:
                self.visit(expr, block, kind)
            child = self.enter(node, block)
            self.in_block(node.body, child, "class")
        elif isinstance(node, _COMPREHENSIONS):
            generators = node.generators
            self.visit(generators[0].iter, block, kind)
            child = self.enter(node, block)
            exprs = [generators[0].target, *generators[0].ifs]
            for gen in generators[1:]:
                exprs.extend((gen.target, gen.iter, *gen.ifs))
            if isinstance(node, ast.DictComp):
                exprs.extend((node.value, node.key))
            else:
                exprs.append(node.elt)
            self.in_block([e for e in exprs if e is not None], child, "function")
        elif isinstance(node, _TRY):
            if ELSE_FIRST:
                parts = (node.body, node.orelse, node.handlers, node.finalbody)
            else:
                parts = (node.body, node.handlers, node.orelse, node.finalbody)
            for part in parts:
                for item in part:
                    self.visit(item, block, kind)
        elif isinstance(node, ast.AnnAssign):
            self.visit(node.target, block, kind)
            if self.annotation_blocks:
                if block.annotations is None:
                    block.annotations = self.enter(node, block, annotation=True)
                if kind != "function":
                    self.in_block([node.annotation], block.annotations, "function")
            elif kind != "function":
                self.annotation(node.annotation, block, kind)
            if node.value is not None:
                self.visit(node.value, block, kind)
        else:
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.visit(item, block, kind)
                elif isinstance(value, ast.AST):
                    self.visit(value, block, kind)

    def inlined_comprehension(self, node, block, kind):
        """3.12+: the comprehension's code runs in *block*; its scopes are block's children."""
        generators = node.generators
        self.visit(generators[0].iter, block, kind)
        self.inside += 1
        for index, gen in enumerate(generators):
            exprs = (gen.target, *gen.ifs) if index == 0 else (gen.target, gen.iter, *gen.ifs)
            for expr in exprs:
                self.visit(expr, block, kind)
        if isinstance(node, ast.DictComp):
            if node.value is not None:  # None: {**d for d in ds} (3.15, PEP 798)
                self.visit(node.value, block, kind)
            self.visit(node.key, block, kind)
        else:
            self.visit(node.elt, block, kind)
        self.inside -= 1

    def annotation(self, node, block, kind):
        if node is not None and not self.future_annotations:
            self.visit(node, block, kind)

    def function(self, node, block, kind):
        args = node.args
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default, block, kind)
        params = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
        annotations = [p.annotation for p in params if p is not None] + [node.returns]
        if self.annotation_blocks:
            # 3.14: decorators, then the function's __annotate__ (every def has one)
            for decorator in node.decorator_list:
                self.visit(decorator, block, kind)
            annotate = self.enter(node, block, annotation=True)
            self.in_block([a for a in annotations if a is not None], annotate, "function")
        else:
            for annotation in annotations:
                self.annotation(annotation, block, kind)
            for decorator in node.decorator_list:
                self.visit(decorator, block, kind)
        child = self.enter(node, block)
        self.in_block(node.body, child, "function")

    def enter(self, node, parent, annotation=False) -> Block:
        klass = node.name if isinstance(node, ast.ClassDef) else parent.klass
        child = Block(node, node.lineno, annotation or parent.annotation, klass)
        parent.children.append(child)
        return child

    def in_block(self, nodes, child, kind):
        """Visit *nodes* in the child block *child* (no inlined comprehension around them)."""
        saved, self.inside = self.inside, 0
        for node in nodes:
            self.visit(node, child, kind)
        self.inside = saved


def pair(block: Block, table: symtable.SymbolTable, out: list) -> None:
    """Pair AST blocks with symtable tables, in order; both must have the same shape."""
    children = table.get_children()
    assert [c.lineno for c in block.children] == [t.get_lineno() for t in children], (
        f"block shape differs at line {block.lineno}: "
        f"{[c.lineno for c in block.children]} != {[t.get_lineno() for t in children]}"
    )
    out.append((block, table))
    for child, sub in zip(block.children, children):
        pair(child, sub, out)


def compiled_loads(data: bytes, path: str) -> dict:
    """``(lineno, col, end_lineno, end_col, name)`` -> load opnames compiled at that position."""
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        todo = [compile(data, path, "exec", dont_inherit=True)]
    while todo:
        code = todo.pop()
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
        for ins in dis.get_instructions(code):
            if ins.opname.startswith("LOAD_") and isinstance(ins.argval, str) and ins.positions:
                pos = ins.positions
                key = (pos.lineno, pos.col_offset, pos.end_lineno, pos.end_col_offset, ins.argval)
                found.setdefault(key, set()).add(ins.opname)
    return found


def check_file(path: str) -> tuple[int, int]:
    """Check both directions for one file; return (routed references, global loads)."""
    with open(path, "rb") as f:
        data = f.read()
    source = data.decode("utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    if any(getattr(node, "type_params", None) or type(node).__name__ == "TypeAlias" for node in ast.walk(tree)):
        pytest.skip("type-parameter blocks (3.12+) are not modelled")
    plan = plan_module(tree, module="", source=source)
    future = any(
        isinstance(stmt, ast.ImportFrom)
        and stmt.module == "__future__"
        and any(a.name == "annotations" for a in stmt.names)
        for stmt in tree.body
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings of old-style sources
        table = symtable.symtable(source, path, "exec")
    pairs = []
    pair(Blocks(future).module(tree), table, pairs)

    lazy = plan.lazy_names
    routed = {ref.span: ref for ref in plan.references}
    compiled = compiled_loads(data, path) if INLINED else {}
    #: span -> (Name node, table, global per the oracle or None when it cannot tell,
    #: in an annotation block)
    loads = {}
    for block, tab in pairs:
        for node in block.loads:
            span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
            if id(node) in block.inlined or node.id in block.comp_bound:
                opnames = compiled.get((*span, node.id))
                is_global = None if not opnames else bool(opnames & _GLOBAL_LOADS)
            else:
                is_global = symbol(tab, node.id, block.klass).is_global()
            loads[span] = (node, tab, is_global, block.annotation)

    problems = []
    for span, ref in routed.items():
        if span not in loads:
            problems.append(f"routed {ref.name} at {span} is not a Name load symtable sees")
            continue
        node, tab, is_global, annotation = loads[span]
        if node.id != ref.name or is_global is False:
            problems.append(
                f"routed {ref.name} at {span[0]}:{span[1]} is not global in "
                f"{tab.get_type()} {tab.get_name()} (line {tab.get_lineno()})"
            )
        elif annotation:
            problems.append(f"routed {ref.name} at {span[0]}:{span[1]} is in an annotation")
    templates = template_loads(tree, plan)
    global_loads = 0
    if plan.changes_module:
        for span, (node, tab, is_global, annotation) in loads.items():
            if node.id in lazy and is_global and not annotation:
                global_loads += 1
                if span not in routed and (span, node.id) not in templates:
                    problems.append(
                        f"global load of lazy {node.id} at {span[0]}:{span[1]} in "
                        f"{tab.get_type()} {tab.get_name()} is not routed"
                    )
    assert not problems, "\n".join(problems)
    return len(routed), global_loads


def template_loads(tree, plan) -> set:
    """``(span, name)`` of the Name loads in the interpolation text of each t-string the
    plan resolves names for, for those names (3.14+)."""
    wanted = {template.span: set(template.names) for template in plan.templates}
    found = set()
    for node in ast.walk(tree):
        if type(node).__name__ != "TemplateStr":
            continue
        names = wanted.get((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
        if not names:
            continue
        for value in node.values:
            if type(value).__name__ == "Interpolation":
                for sub in ast.walk(value.value):
                    if isinstance(sub, ast.Name) and sub.id in names:
                        found.add(((sub.lineno, sub.col_offset, sub.end_lineno, sub.end_col_offset), sub.id))
    return found


def _ids(paths):
    return [os.path.relpath(p, STDLIB) if p.startswith(STDLIB) else os.path.relpath(p, FIXTURES) for p in paths]


_STDLIB = stdlib_sample()


def _fixture_params():
    params = []
    for path in fixture_files():
        requires = read_options(os.path.basename(os.path.dirname(path)))["requires"]
        marks = []
        if sys.version_info < requires:
            marks.append(pytest.mark.skip(reason=f"input needs Python {'.'.join(map(str, requires))} syntax"))
        params.append(pytest.param(path, marks=marks, id=os.path.relpath(path, FIXTURES)))
    return params


_FIXTURES = _fixture_params()


def test_sample_size():
    """The sample is never empty: an empty one would make the stdlib checks pass vacuously."""
    assert 140 <= len(_STDLIB) <= 160, f"{len(_STDLIB)} files sampled under {STDLIB}"


def _stdlib_kind(rel: str) -> str:
    return "package" if rel.endswith("__init__.py") else "submodule" if os.sep in rel else "module"


#: The default run checks 40 of the sample's files, packages, submodules and top-level
#: modules among them (tests/_sample.py); LAZIFY_FULL_TESTS=1 checks all of them.
@pytest.mark.parametrize("path", sample(_STDLIB, 40, kind=_stdlib_kind, ids=lambda p: _ids([p])[0]))
def test_stdlib_routing_matches_symtable(path):
    check_file(path)


@pytest.mark.parametrize("path", _FIXTURES)
def test_fixture_routing_matches_symtable(path):
    check_file(path)


def test_oracle_sees_a_missed_and_a_wrong_reference():
    """The oracle itself: it notices a routed local and an unrouted global."""
    source = "import json\ndef f(json):\n    return json\ndef g():\n    return json\n"
    tree = ast.parse(source)
    table = symtable.symtable(source, "<t>", "exec")
    pairs = []
    pair(Blocks(False).module(tree), table, pairs)
    found = {
        (node.lineno, tab.lookup(node.id).is_global()) for block, tab in pairs for node in block.loads
    }
    assert found == {(3, False), (5, True)}


def test_oracle_comprehension_scopes(tmp_path):
    """Comprehension variables and class-body comprehensions, on every version (PEP 709)."""
    path = tmp_path / "mod.py"
    path.write_text(
        "import json\n"
        "import pickle\n"
        "class C:\n"
        "    json = 1\n"
        "    if True:\n"  # (a read that always runs would make json eager: read-at-import)
        "        d = [json for _ in ()]\n"  # the module's json: a class body's comprehension skips C
        "def f(y):\n"
        "    a = [pickle for pickle in y]\n"  # the comprehension's own variable
        "    return a, pickle\n"  # the module's pickle
    )
    plan = plan_module(ast.parse(path.read_text()))
    assert [(r.name, r.span[:2]) for r in plan.references] == [("json", (6, 13)), ("pickle", (9, 14))]
    assert check_file(str(path)) == (2, 2)
