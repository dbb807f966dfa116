"""The planner's reference routing, checked against symtable (the compiler's own scopes).

For each file of a deterministic sample of the python3.11 standard library (and every
planner fixture), every Name load is assigned to the symtable block it runs in, then:

1. every reference the planner routes (``Plan.references``) is a load that symtable
   says is global (implicit or explicit) in its block;
2. every load that symtable says is global in its block, of a name the planner made
   lazy, is routed.

Loads the compiler never evaluates are left out on both sides: annotations under
``from __future__ import annotations`` (symtable puts them in hidden annotation blocks)
and annotations of simple names inside functions (the compiler drops them).

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
import warnings

import pytest

from lazify._plan import plan_module
from tests.test_plan import read_options

#: list/set/dict comprehensions have no block of their own (PEP 709)
INLINED = sys.version_info >= (3, 12)
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})

STDLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11"
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "plan")
#: about 150 stdlib files: every STEP-th of the sorted list
SAMPLE = 150


def stdlib_sample() -> list[str]:
    """A deterministic sample of the 3.11 standard library (no test/, no site-packages)."""
    if not os.path.isdir(STDLIB):
        return []
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

    __slots__ = ("node", "lineno", "children", "loads", "inlined", "comp_bound")

    def __init__(self, node, lineno):
        self.node = node
        self.lineno = lineno
        self.children = []
        self.loads = []
        #: 3.12+: ids of the loads inside inlined comprehensions of this block
        self.inlined = set()
        #: 3.12+: names bound by inlined comprehensions of this block
        self.comp_bound = set()


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Blocks:
    """Assign every Name load to its block, visiting in symtable's order (symtable.c)."""

    def __init__(self, future_annotations: bool, inlined: bool = INLINED):
        self.future_annotations = future_annotations
        self.inline_comprehensions = inlined
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
            self.in_block(exprs, child, "function")
        elif isinstance(node, ast.AnnAssign):
            self.visit(node.target, block, kind)
            if kind != "function":
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
        for arg in [*args.posonlyargs, *args.args]:
            self.annotation(arg.annotation, block, kind)
        if args.vararg is not None:
            self.annotation(args.vararg.annotation, block, kind)
        if args.kwarg is not None:
            self.annotation(args.kwarg.annotation, block, kind)
        for arg in args.kwonlyargs:
            self.annotation(arg.annotation, block, kind)
        self.annotation(node.returns, block, kind)
        for decorator in node.decorator_list:
            self.visit(decorator, block, kind)
        child = self.enter(node, block)
        self.in_block(node.body, child, "function")

    def enter(self, node, parent) -> Block:
        child = Block(node, node.lineno)
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
    #: span -> (Name node, table, global per the oracle or None when it cannot tell)
    loads = {}
    for block, tab in pairs:
        for node in block.loads:
            span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
            if id(node) in block.inlined or node.id in block.comp_bound:
                opnames = compiled.get((*span, node.id))
                is_global = None if not opnames else bool(opnames & _GLOBAL_LOADS)
            else:
                is_global = tab.lookup(node.id).is_global()
            loads[span] = (node, tab, is_global)

    problems = []
    for span, ref in routed.items():
        if span not in loads:
            problems.append(f"routed {ref.name} at {span} is not a Name load symtable sees")
            continue
        node, tab, is_global = loads[span]
        if node.id != ref.name or is_global is False:
            problems.append(
                f"routed {ref.name} at {span[0]}:{span[1]} is not global in "
                f"{tab.get_type()} {tab.get_name()} (line {tab.get_lineno()})"
            )
    global_loads = 0
    if plan.rewrite:
        for span, (node, tab, is_global) in loads.items():
            if node.id in lazy and is_global:
                global_loads += 1
                if span not in routed:
                    problems.append(
                        f"global load of lazy {node.id} at {span[0]}:{span[1]} in "
                        f"{tab.get_type()} {tab.get_name()} is not routed"
                    )
    assert not problems, "\n".join(problems)
    return len(routed), global_loads


def _ids(paths):
    return [os.path.relpath(p, STDLIB) if p.startswith(STDLIB) else os.path.relpath(p, FIXTURES) for p in paths]


_STDLIB = stdlib_sample()
_FIXTURES = [
    p for p in fixture_files() if sys.version_info >= read_options(os.path.basename(os.path.dirname(p)))["requires"]
]


@pytest.mark.skipif(not _STDLIB, reason=f"no python3.11 standard library at {STDLIB}")
def test_sample_size():
    assert 140 <= len(_STDLIB) <= 160


@pytest.mark.parametrize("path", _STDLIB, ids=_ids(_STDLIB))
def test_stdlib_routing_matches_symtable(path):
    check_file(path)


@pytest.mark.parametrize("path", _FIXTURES, ids=_ids(_FIXTURES))
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
        "    d = [json for _ in ()]\n"  # the module's json: a class body's comprehension skips C
        "def f(y):\n"
        "    a = [pickle for pickle in y]\n"  # the comprehension's own variable
        "    return a, pickle\n"  # the module's pickle
    )
    plan = plan_module(ast.parse(path.read_text()))
    assert [(r.name, r.span[:2]) for r in plan.references] == [("json", (5, 9)), ("pickle", (8, 14))]
    assert check_file(str(path)) == (2, 2)
