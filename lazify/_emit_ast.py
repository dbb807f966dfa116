"""AST emitter: apply a Plan to an ``ast.Module``; the import hook's path.

Every generated node takes a position from the code it stands for (the
import statement, the name it routes), so tracebacks point at the user's
lines and columns.  Subtrees whose lines hold nothing to change are not
walked at all.
"""

from __future__ import annotations

import ast
from _bisect import bisect_left

from ._plan import NAMESPACE, NAMESPACE_METHODS, Plan, deep_recursion, walk

_POSITIONED = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _located(node, span):
    """Give ``node`` and its children without a position the span."""
    lineno, col, end_lineno, end_col = span
    for sub in walk(node):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            sub.lineno, sub.col_offset = lineno, col
            sub.end_lineno, sub.end_col_offset = end_lineno, end_col
    return node


def _namespace_call(method, args, span):
    call = ast.Call(
        func=ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                           attr=method, ctx=ast.Load()),
        args=[ast.Constant(value=arg) for arg in args], keywords=[])
    return _located(ast.Expr(value=call), span)


def annotated_decorator(names, span):
    """``@__lazy__.__lazy_annotated__(*names)``, innermost: the function's
    annotations dict imports those names when read."""
    call = ast.Call(
        func=ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                           attr="__lazy_annotated__", ctx=ast.Load()),
        args=[ast.Constant(value=name) for name in names], keywords=[])
    return _located(call, span)


def annotations_statement(names, span):
    """``__annotations__ = __lazy__.__lazy_annotations__(__annotations__, *names)``
    in a class body, before its first annotated assignment."""
    call = ast.Call(
        func=ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                           attr="__lazy_annotations__", ctx=ast.Load()),
        args=[ast.Name(id="__annotations__", ctx=ast.Load()),
              *(ast.Constant(value=name) for name in names)], keywords=[])
    assign = ast.Assign(targets=[ast.Name(id="__annotations__", ctx=ast.Store())], value=call)
    return _located(assign, span)


def annotate_statement(names, span):
    """``__lazy__.__lazy_annotate__(*names)`` (3.14+): before the statement of a
    class body or of the module that holds its first annotation."""
    return _namespace_call("__lazy_annotate__", names, span)


def template_resolved(node, names, span):
    """``(__lazy__.a, __lazy__.b, t"...")[-1]``: the t-string's interpolations
    keep their text, and find the names they read imported."""
    elts = [ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()), attr=name,
                          ctx=ast.Load()) for name in names]
    elts.append(node)
    return _located(ast.Subscript(
        value=ast.Tuple(elts=elts, ctx=ast.Load()),
        slice=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=1)),
        ctx=ast.Load()), span)


def getattr_prologue(param, span):
    """``if __lazy__.__lazy_getattr__(param): return __lazy__.__lazy_result__(param)``,
    first in the module's own ``def __getattr__``."""
    def call(method):
        return ast.Call(
            func=ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                               attr=method, ctx=ast.Load()),
            args=[ast.Name(id=param, ctx=ast.Load())], keywords=[])
    test = ast.If(test=call("__lazy_getattr__"), body=[ast.Return(value=call("__lazy_result__"))],
                  orelse=[])
    return _located(test, span)


def namespace_read(node, read):
    """The expression that stands for ``node``, a read of the module's namespace
    in a function (``Plan.namespace_reads``): see :class:`lazify._plan.NamespaceRead`."""
    method = ast.Attribute(value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                           attr=NAMESPACE_METHODS[read.kind], ctx=ast.Load())
    if read.kind == "frame":
        new = ast.Call(func=method, args=[node.value], keywords=[])
    elif read.kind == "eval":
        args = node.args
        local = args[2] if len(args) == 3 else ast.Call(
            func=ast.Name(id="locals", ctx=ast.Load()), args=[], keywords=[])
        node.args = [args[0], ast.Call(func=method, args=[], keywords=[]), local]
        new = node
    else:
        new = ast.Call(func=method, args=[], keywords=[])
    span = read.span
    if span[0] != span[2]:
        # zero-width at its start: a multi-line span would make the compiler
        # derive positions without columns for the generated attribute load
        span = (span[0], span[1], span[0], span[1])
    return _located(new, span)


def header_statements(span, fallback_names=()):
    """``from lazify._importlib_bootstrap import __lazy_module__ as __lazy__`` and
    ``__lazy__ = __lazy__(globals(), *fallback_names)``."""
    first = ast.ImportFrom(module="lazify._importlib_bootstrap",
                           names=[ast.alias(name="__lazy_module__", asname=NAMESPACE)],
                           level=0)
    if "is_lazy" in ast.ImportFrom._fields:
        first.is_lazy = 0   # 3.15 (PEP 810): what the parser gives a plain import
    second = ast.Assign(
        targets=[ast.Name(id=NAMESPACE, ctx=ast.Store())],
        value=ast.Call(func=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                       args=[ast.Call(func=ast.Name(id="globals", ctx=ast.Load()),
                                      args=[], keywords=[]),
                             *(ast.Constant(value=name) for name in fallback_names)],
                       keywords=[]))
    return [_located(first, span), _located(second, span)]


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, str)


def header_index(tree: ast.Module) -> int:
    """Index in ``tree.body`` where the header goes: after the docstring and
    the ``from __future__`` imports (which must stay first)."""
    body = tree.body
    index = 0
    if body and _is_docstring(body[0]):
        index = 1
    while index < len(body) and isinstance(body[index], ast.ImportFrom) \
            and body[index].module == "__future__" and body[index].level == 0:
        index += 1
    return index


def _site_statements(node, site):
    """The statements that replace one import statement."""
    span = site.span
    lazy = [name.alias for name in site.names if name.lazy]
    if site.names and site.names[0].alias == "*":
        module = "." * site.level + site.from_module
        return [_namespace_call("__lazy_star__", [module], span), node]
    if not lazy:
        return [node]
    out = []
    eager = [alias for alias, name in zip(node.names, site.names) if not name.lazy]
    if eager:
        node.names = eager
        out.append(node)
    if site.kind == "import":
        out.append(_namespace_call("__lazy_import__", lazy, span))
    else:
        module = "." * site.level + site.from_module
        out.append(_namespace_call("__lazy_from__", [module, *lazy], span))
    return out


class _Emitter:
    def __init__(self, plan: Plan):
        self.sites = {site.span: site for site in plan.imports
                      if site.any_lazy or (site.names and site.names[0].alias == "*")}
        self.refs = {(ref.span[0], ref.span[1]) for ref in plan.references}
        self.chain = set(plan.chain_after)
        self.decorate = {o.span: o.names for o in plan.annotation_owners if o.kind == "def"}
        self.before = {o.span: o.names for o in plan.annotation_owners if o.kind == "class"}
        self.annotate = {o.span: o.names for o in plan.annotation_owners if o.kind == "annotate"}
        self.templates = {t.span: t.names for t in plan.templates}
        self.prologues = {p.span: p.param for p in plan.getattr_prologues}
        self.reads = {r.span: r for r in plan.namespace_reads}
        lines = {span[0] for span in self.sites}
        lines.update(span[0] for span in self.annotate)
        lines.update(span[0] for span in self.templates)
        lines.update(span[0] for span in self.reads)
        lines.update(line for line, _col in self.refs)
        lines.update(span[0] for span in self.chain)
        lines.update(span[0] for span in self.decorate)
        lines.update(span[0] for span in self.before)
        lines.update(span[0] for span in self.prologues)
        self.lines = sorted(lines)

    def touches(self, node) -> bool:
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return True
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            # a def's or class's lineno is its ``def`` line, below its decorators
            lineno = min(lineno, decorators[0].lineno)
        lines = self.lines
        index = bisect_left(lines, lineno)
        return index < len(lines) and lines[index] <= node.end_lineno

    def statements(self, body):
        out = []
        for stmt in body:
            if not self.touches(stmt):
                out.append(stmt)
                continue
            span = (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
            # zero-width at the statement's start: see the chain call below
            start = (span[0], span[1], span[0], span[1])
            names = self.before.get(span)
            if names is not None and isinstance(stmt, ast.AnnAssign):
                out.append(annotations_statement(names, start))
            names = self.annotate.get(span)
            if names is not None:
                out.append(annotate_statement(names, start))
            names = self.decorate.get(span)
            if names is not None and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stmt.decorator_list.append(annotated_decorator(names, start))
            site = self.sites.get(span) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else None
            if site is not None:
                out.extend(_site_statements(stmt, site))
            else:
                self.node(stmt)
                out.append(stmt)
            param = self.prologues.get(span) if isinstance(stmt, ast.FunctionDef) else None
            if param is not None:
                body = stmt.body
                first = 1 if _is_docstring(body[0]) else 0
                body.insert(first, getattr_prologue(param, start))
            if span in self.chain:
                # positioned at the start of the statement it follows: a
                # multi-line span would make the compiler derive positions
                # inside the user's code
                out.append(_namespace_call("__lazy_chain__", (), start))
        return out

    def node(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    setattr(node, field, self.statements(value))
                    continue
                for index, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        new = self.expression(item)
                        if new is not item:
                            value[index] = new
            elif isinstance(value, ast.AST):
                new = self.expression(value)
                if new is not value:
                    setattr(node, field, new)

    def expression(self, node):
        if type(node) is ast.Name:
            if type(node.ctx) is ast.Load and (node.lineno, node.col_offset) in self.refs:
                span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                return _located(ast.Attribute(
                    value=ast.Name(id=NAMESPACE, ctx=ast.Load()),
                    attr=node.id, ctx=ast.Load()), span)
            return node
        if self.touches(node):
            self.node(node)
            if self.templates and type(node).__name__ == "TemplateStr":
                span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                names = self.templates.get(span)
                if names is not None:
                    return template_resolved(node, names, span)
            if self.reads and type(node) in (ast.Call, ast.Attribute):
                read = self.reads.get(
                    (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
                if read is not None and (type(node) is ast.Attribute) == (read.kind == "frame"):
                    return namespace_read(node, read)
        return node


def emit(tree: ast.Module, plan: Plan) -> ast.Module:
    """Apply ``plan`` to ``tree`` (in place) and return it."""
    if not plan.rewrite:
        return tree
    emitter = _Emitter(plan)
    index = header_index(tree)
    head, rest = tree.body[:index], tree.body[index:]
    if rest:
        first = rest[0]
        span = (first.lineno, first.col_offset, first.lineno, first.col_offset)
    else:
        line = max(plan.header_after_line, 1)
        span = (line, 0, line, 0)
    with deep_recursion():
        rest = emitter.statements(rest)
    tree.body = head + header_statements(span, plan.fallback_names) + rest
    return tree
