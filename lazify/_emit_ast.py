"""AST emitter: apply a Plan to an ``ast.Module``; the import hook's path.

Every generated node takes a position from the code it stands for (the
import statement, the name it routes), so tracebacks point at the user's
lines and columns.  Subtrees whose lines hold nothing to change are not
walked at all.
"""

from __future__ import annotations

import ast
from _bisect import bisect_left

from . import _entry_points as ep
from ._facts import deep_recursion, walk
from ._plan import Plan, check_applied


def _located(node, span):
    """Give ``node`` and its children without a position the span."""
    lineno, col, end_lineno, end_col = span
    for sub in walk(node):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            sub.lineno, sub.col_offset = lineno, col
            sub.end_lineno, sub.end_col_offset = end_lineno, end_col
    return node


def _method(name):
    """``__lazy__.<name>``."""
    return ast.Attribute(value=ast.Name(id=ep.NAMESPACE, ctx=ast.Load()), attr=name,
                         ctx=ast.Load())


def _call(method, args):
    """``__lazy__.<method>(*args)``, each argument a node or a constant."""
    return ast.Call(func=_method(method), keywords=[], args=[
        arg if isinstance(arg, ast.AST) else _constant(arg) for arg in args])


def _constant(value):
    if type(value) is tuple:
        return ast.Tuple(elts=[_constant(item) for item in value], ctx=ast.Load())
    return ast.Constant(value=value)


def _call_statement(method, args, span):
    return _located(ast.Expr(value=_call(method, args)), span)


def annotated_decorator(names, span):
    """``@__lazy__.__lazy_annotated__(*names)``, innermost: the function's
    annotations dict imports those names when read."""
    return _located(_call(ep.ANNOTATED, names), span)


def annotations_statement(names, span):
    """``__annotations__ = __lazy__.__lazy_annotations__(__annotations__, *names)``
    in a class body, before its first annotated assignment."""
    call = _call(ep.ANNOTATIONS, [ast.Name(id="__annotations__", ctx=ast.Load()), *names])
    assign = ast.Assign(targets=[ast.Name(id="__annotations__", ctx=ast.Store())], value=call)
    return _located(assign, span)


def deferred_annotation(node, names, span):
    """``__lazy__.__lazy_deferred__(lambda: node, *names)``: the annotation, evaluated
    when its owner's annotations are read (see :class:`lazify._plan.DeferredAnnotation`)."""
    thunk = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]), body=node)
    # zero-width at its start (the annotation keeps its own): a multi-line span would
    # make the compiler derive positions without columns for the generated call
    return _located(_call(ep.DEFERRED, [thunk, *names]), (span[0], span[1], span[0], span[1]))


def template_resolved(node, names, span):
    """``(__lazy__.a, __lazy__.b, t"...")[-1]``: the t-string's interpolations
    keep their text, and find the names they read imported."""
    elts = [_method(name) for name in names]
    elts.append(node)
    return _located(ast.Subscript(
        value=ast.Tuple(elts=elts, ctx=ast.Load()),
        slice=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=1)),
        ctx=ast.Load()), span)


def getattr_prologue(param, span):
    """``if __lazy__.__lazy_getattr__(param): return __lazy__.__lazy_result__(param)``,
    first in the module's own ``def __getattr__``."""
    arg = ast.Name(id=param, ctx=ast.Load())
    test = ast.If(test=_call(ep.GETATTR, [arg]),
                  body=[ast.Return(value=_call(ep.RESULT, [ast.Name(id=param, ctx=ast.Load())]))],
                  orelse=[])
    return _located(test, span)


def namespace_read(node, read):
    """The expression that stands for ``node``, a read of the module's namespace
    in a function (``Plan.namespace_reads``): see :class:`lazify._plan.NamespaceRead`."""
    method = ep.NAMESPACE_READS[read.kind]
    if read.kind == "frame":
        new = _call(method, [node.value])
    elif read.kind == "eval":
        args = node.args
        local = args[2] if len(args) == 3 else ast.Call(
            func=ast.Name(id="locals", ctx=ast.Load()), args=[], keywords=[])
        node.args = [args[0], _call(method, []), local]
        new = node
    else:
        new = _call(method, [])
    span = read.span
    if span[0] != span[2]:
        # zero-width at its start: a multi-line span would make the compiler
        # derive positions without columns for the generated attribute load
        span = (span[0], span[1], span[0], span[1])
    return _located(new, span)


def header_statements(span, fallback_names=()):
    """``import lazify._importlib_bootstrap as __lazy__`` and
    ``__lazy__ = __lazy__.__lazy_module__(globals(), *fallback_names)``.

    A plain ``import ... as`` rather than ``from ... import``: a ``from`` import of a
    module that is not a package probes it for ``__path__``, which before 3.12 costs
    every rewritten module a formatted AttributeError."""
    first = ast.Import(names=[ast.alias(name=ep.RUNTIME, asname=ep.NAMESPACE)])
    if "is_lazy" in ast.Import._fields:
        first.is_lazy = 0   # 3.15 (PEP 810): what the parser gives a plain import
    second = ast.Assign(
        targets=[ast.Name(id=ep.NAMESPACE, ctx=ast.Store())],
        value=ast.Call(func=_method(ep.FACTORY),
                       args=[ast.Call(func=ast.Name(id="globals", ctx=ast.Load()),
                                      args=[], keywords=[]),
                             *(ast.Constant(value=name) for name in fallback_names)],
                       keywords=[]))
    return [_located(first, span), _located(second, span)]


def _site_statements(node, site):
    """The statements that replace one import statement."""
    span = site.span
    if site.is_star:
        return [_call_statement(ep.STAR, [site.module_text], span), node]
    lazy = [(name.imported, name.asname) for name in site.names if name.lazy]
    out = []
    eager = [alias for alias, name in zip(node.names, site.names) if not name.lazy]
    if eager:
        node.names = eager
        out.append(node)
    if site.kind == "import":
        out.append(_call_statement(ep.IMPORT, lazy, span))
    else:
        out.append(_call_statement(ep.FROM, [site.module_text, *lazy], span))
    return out


class _Emitter:
    """Applies one plan; ``applied`` collects the plan items it found a node for."""

    def __init__(self, plan: Plan):
        self.sites = {site.span: site for site in plan.imports if site.rewritten}
        self.refs = {ref.span[:2]: ref for ref in plan.references}
        self.chain = set(plan.chain_after)
        self.owners = {}
        for owner in plan.annotation_owners:
            self.owners.setdefault(owner.span, []).append(owner)
        self.templates = {t.span: t for t in plan.templates}
        self.prologues = {p.span: p for p in plan.getattr_prologues}
        self.reads = {r.span: r for r in plan.namespace_reads}
        self.deferred = {d.span: d for d in plan.deferred_annotations}
        self.applied = set()
        lines = {span[0] for span in (*self.sites, *self.owners, *self.templates, *self.reads,
                                      *self.refs, *self.chain, *self.prologues, *self.deferred)}
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
            for owner in self.owners.get(span, ()):
                out.extend(self.owner(owner, stmt, start))
            site = self.sites.get(span) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else None
            if site is not None:
                self.applied.add(site)
                out.extend(_site_statements(stmt, site))
            else:
                self.node(stmt)
                out.append(stmt)
            prologue = self.prologues.get(span) if isinstance(stmt, ast.FunctionDef) else None
            if prologue is not None:
                self.applied.add(prologue)
                stmt.body.insert(1 if prologue.after_docstring else 0,
                                 getattr_prologue(prologue.param, start))
            if span in self.chain:
                self.applied.add(span)
                # positioned at the start of the statement it follows: a
                # multi-line span would make the compiler derive positions
                # inside the user's code
                out.append(_call_statement(ep.CHAIN, (), start))
        return out

    def owner(self, owner, stmt, start) -> list:
        """The statements an annotation owner gets before ``stmt`` (or its decorator)."""
        if owner.kind == "annotate":
            self.applied.add(owner)
            return [_call_statement(ep.ANNOTATE, owner.names, start)]
        if owner.kind == "class" and isinstance(stmt, ast.AnnAssign):
            self.applied.add(owner)
            return [annotations_statement(owner.names, start)]
        if owner.kind == "def" and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.applied.add(owner)
            stmt.decorator_list.append(annotated_decorator(owner.names, start))
        return []

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
        if self.deferred and isinstance(node, ast.expr):
            span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
            deferred = self.deferred.get(span)
            if deferred is not None:
                self.applied.add(deferred)
                return deferred_annotation(self.routed(node), deferred.names, span)
        return self.routed(node)

    def routed(self, node):
        if type(node) is ast.Name:
            ref = self.refs.get((node.lineno, node.col_offset)) \
                if type(node.ctx) is ast.Load else None
            if ref is not None and ref.name == node.id:
                self.applied.add(ref)
                span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                return _located(_method(node.id), span)
            return node
        if self.touches(node):
            self.node(node)
            if self.templates and type(node).__name__ == "TemplateStr":
                span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                template = self.templates.get(span)
                if template is not None:
                    self.applied.add(template)
                    return template_resolved(node, template.names, span)
            if self.reads and type(node) in (ast.Call, ast.Attribute):
                read = self.reads.get(
                    (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
                if read is not None and (type(node) is ast.Attribute) == (read.kind == "frame"):
                    self.applied.add(read)
                    return namespace_read(node, read)
        return node


def emit(tree: ast.Module, plan: Plan) -> ast.Module:
    """Apply ``plan`` to ``tree`` (in place) and return it.

    :raises lazify._plan.EmitError: when an item of the plan matches no node of the
        tree (a lazify bug): the module would otherwise fail later, with a NameError.
    """
    if not plan.rewrite:
        return tree
    emitter = _Emitter(plan)
    index = plan.header_index
    head, rest = tree.body[:index], tree.body[index:]
    if rest:
        first = rest[0]
        span = (first.lineno, first.col_offset, first.lineno, first.col_offset)
    else:
        line = max(plan.header_after_line, 1)
        span = (line, 0, line, 0)
    with deep_recursion():
        rest = emitter.statements(rest)
    check_applied(plan, emitter.applied)
    tree.body = head + header_statements(span, plan.fallback_names) + rest
    return tree


# --------------------------------------------------------------------------
# The native mechanism (3.15+, PEP 810): mark statements ``lazy``, nothing else.

def _native_site(node, site):
    """The statements that stand for one import statement: itself marked lazy, or,
    when some of its names stay eager, an eager statement of those and a lazy one of
    the rest, in that order and with the statement's span."""
    lazy = [alias for alias, name in zip(node.names, site.names) if name.lazy]
    if len(lazy) == len(node.names):
        node.is_lazy = 1
        return [node]
    node.names = [alias for alias, name in zip(node.names, site.names) if not name.lazy]
    if type(node) is ast.Import:
        new = ast.Import(names=lazy, is_lazy=1)
    else:
        new = ast.ImportFrom(module=node.module, names=lazy, level=node.level, is_lazy=1)
    new.lineno, new.col_offset = node.lineno, node.col_offset
    new.end_lineno, new.end_col_offset = node.end_lineno, node.end_col_offset
    return [node, new]


class _NativeEmitter:
    """Applies one native plan: ``applied`` collects the sites it found a node for."""

    def __init__(self, plan: Plan):
        self.sites = {site.span: site for site in plan.imports if site.any_lazy}
        self.lines = sorted({span[0] for span in self.sites})
        self.applied = set()

    def statements(self, body):
        out = []
        lines = self.lines
        for stmt in body:
            index = bisect_left(lines, stmt.lineno)
            if index == len(lines) or lines[index] > stmt.end_lineno:
                out.append(stmt)
                continue
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                site = self.sites.get(
                    (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset))
                if site is not None:
                    self.applied.add(site)
                    out.extend(_native_site(stmt, site))
                    continue
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # a module-level if/for/while (a lazy statement is nowhere else)
                for field in stmt._fields:
                    value = getattr(stmt, field, None)
                    if type(value) is list and value and isinstance(value[0], ast.stmt):
                        setattr(stmt, field, self.statements(value))
                    elif type(value) is list:
                        for item in value:          # match cases
                            if isinstance(getattr(item, "body", None), list):
                                item.body = self.statements(item.body)
            out.append(stmt)
        return out


def emit_native(tree: ast.Module, plan: Plan) -> ast.Module:
    """Apply a native ``plan`` to ``tree`` (in place) and return it: each import
    statement whose names are lazy becomes ``lazy``; one with eager and lazy names
    is split.  No header, no routed reads: the interpreter reifies a lazy name
    where it is loaded.

    :raises lazify._plan.EmitError: as :func:`emit`.
    """
    if not plan.rewrite:
        return tree
    emitter = _NativeEmitter(plan)
    tree.body = emitter.statements(tree.body)
    check_applied(plan, emitter.applied)
    return tree
