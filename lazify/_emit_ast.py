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


def _at(span) -> dict:
    """The position fields of a generated node placed at ``span``: each is built
    with its own (nodes of the user's in it keep theirs)."""
    lineno, col, end_lineno, end_col = span
    return {"lineno": lineno, "col_offset": col, "end_lineno": end_lineno,
            "end_col_offset": end_col}


def _start(span) -> tuple:
    """Zero-width at the start of ``span``: a multi-line span would make the compiler
    derive positions without columns for generated code."""
    return (span[0], span[1], span[0], span[1])


def _route(node):
    """Make the Name node ``node`` the read ``__lazy__.<its name>``, in place: the
    node changes class, so whatever holds it holds the attribute, with the name's span
    (and so does the ``__lazy__`` it reads)."""
    name = node.id
    del node.id
    node.__class__ = ast.Attribute
    node.value = ast.Name(id=ep.NAMESPACE, ctx=ast.Load(), lineno=node.lineno,
                          col_offset=node.col_offset, end_lineno=node.end_lineno,
                          end_col_offset=node.end_col_offset)
    node.attr = name


def _method(name, at):
    """``__lazy__.<name>``."""
    return ast.Attribute(value=ast.Name(id=ep.NAMESPACE, ctx=ast.Load(), **at), attr=name,
                         ctx=ast.Load(), **at)


def _call(method, args, at):
    """``__lazy__.<method>(*args)``, each argument a node or a constant."""
    return ast.Call(func=_method(method, at), keywords=[], args=[
        arg if isinstance(arg, ast.AST) else _constant(arg, at) for arg in args], **at)


def _constant(value, at):
    if type(value) is tuple:
        return ast.Tuple(elts=[_constant(item, at) for item in value], ctx=ast.Load(), **at)
    return ast.Constant(value=value, **at)


def _call_statement(method, args, span):
    at = _at(span)
    return ast.Expr(value=_call(method, args, at), **at)


def annotated_decorator(names, span):
    """``@__lazy__.__lazy_annotated__(*names)``, innermost: the function's
    annotations dict imports those names when read."""
    return _call(ep.ANNOTATED, names, _at(span))


def annotations_statement(names, span):
    """``__annotations__ = __lazy__.__lazy_annotations__(__annotations__, *names)``
    in a class body, before its first annotated assignment."""
    at = _at(span)
    call = _call(ep.ANNOTATIONS, [ast.Name(id="__annotations__", ctx=ast.Load(), **at),
                                  *names], at)
    return ast.Assign(targets=[ast.Name(id="__annotations__", ctx=ast.Store(), **at)],
                      value=call, **at)


def deferred_annotation(node, names, span):
    """``__lazy__.__lazy_deferred__(lambda: node, *names)``: the annotation, evaluated
    when its owner's annotations are read (see :class:`lazify._plan.DeferredAnnotation`)."""
    # zero-width at its start (the annotation keeps its own span)
    at = _at(_start(span))
    thunk = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]),
                       body=node, **at)
    return _call(ep.DEFERRED, [thunk, *names], at)


def template_resolved(node, names, span):
    """``(__lazy__.a, __lazy__.b, t"...")[-1]``: the t-string's interpolations
    keep their text, and find the names they read imported."""
    at = _at(span)
    elts = [_method(name, at) for name in names]
    elts.append(node)
    return ast.Subscript(
        value=ast.Tuple(elts=elts, ctx=ast.Load(), **at),
        slice=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=1, **at), **at),
        ctx=ast.Load(), **at)


def getattr_prologue(param, span):
    """``if __lazy__.__lazy_getattr__(param): return __lazy__.__lazy_result__(param)``,
    first in the module's own ``def __getattr__``."""
    at = _at(span)
    test = _call(ep.GETATTR, [ast.Name(id=param, ctx=ast.Load(), **at)], at)
    result = _call(ep.RESULT, [ast.Name(id=param, ctx=ast.Load(), **at)], at)
    return ast.If(test=test, body=[ast.Return(value=result, **at)], orelse=[], **at)


def namespace_read(node, read):
    """The expression that stands for ``node``, a read of the module's namespace
    in a function (``Plan.namespace_reads``): see :class:`lazify._plan.NamespaceRead`.

    Each is given what the builtins it stands for are where it runs, and does what the
    plain code does when one is not the builtin (a module global, a patched attribute):
    ``__lazy__.__lazy_lookup__(globals)``; ``eval(src)`` becomes ``eval(src, *(
    __lazy__.__lazy_globals__(), locals()) if __lazy__.__lazy_eval__(eval, locals)
    else ())``, with the arguments as written in the ``else``."""
    method = ep.NAMESPACE_READS[read.kind]
    span = read.span
    # zero-width at its start if it spans lines (for the generated attribute load)
    at = _at(_start(span) if span[0] != span[2] else span)
    if read.kind == "frame":
        return _call(method, [node.value], at)
    if read.kind == "eval":
        # the user's call, with generated arguments
        args = node.args
        callee = _load(node.func.id, at)
        if len(args) == 3:
            # eval(src, None, loc): the globals, or the None written
            node.args = [args[0], ast.IfExp(test=_call(ep.EVAL, [callee], at),
                                            body=_call(method, [], at), orelse=args[1], **at),
                         args[2]]
            return node
        given = ast.Tuple(elts=[_call(method, [], at), ast.Call(
            func=_load("locals", at), args=[], keywords=[], **at)], ctx=ast.Load(), **at)
        written = ast.Tuple(elts=args[1:], ctx=ast.Load(), **at)
        test = _call(ep.EVAL, [callee, _load("locals", at)], at)
        node.args = [args[0], ast.Starred(
            value=ast.IfExp(test=test, body=given, orelse=written, **at), ctx=ast.Load(), **at)]
        return node
    if read.consumer is not None:
        return _call(method, [_load("globals", at), _load(read.consumer, at)], at)
    return _call(method, [_load("globals", at)], at)


def _load(name, at):
    return ast.Name(id=name, ctx=ast.Load(), **at)


def header_statements(span, fallback_names=()):
    """``import lazify._importlib_bootstrap as __lazy__`` and
    ``__lazy__ = __lazy__.__lazy_module__(globals(), *fallback_names)``.

    A plain ``import ... as`` rather than ``from ... import``: a ``from`` import of a
    module that is not a package probes it for ``__path__``, which before 3.12 costs
    every rewritten module a formatted AttributeError."""
    at = _at(span)
    first = ast.Import(names=[ast.alias(name=ep.RUNTIME, asname=ep.NAMESPACE, **at)], **at)
    if "is_lazy" in ast.Import._fields:
        first.is_lazy = 0   # 3.15 (PEP 810): what the parser gives a plain import
    second = ast.Assign(
        targets=[ast.Name(id=ep.NAMESPACE, ctx=ast.Store(), **at)],
        value=ast.Call(func=_method(ep.FACTORY, at),
                       args=[ast.Call(func=ast.Name(id="globals", ctx=ast.Load(), **at),
                                      args=[], keywords=[], **at),
                             *(ast.Constant(value=name, **at) for name in fallback_names)],
                       keywords=[], **at), **at)
    return [first, second]


def _site_statements(node, site):
    """The statements that replace one import statement."""
    span = site.span
    if site.is_star:
        return [_call_statement(ep.STAR, [site.module_text], span), node]
    lazy = [(name.imported, name.asname) for name in site.names if name.lazy]
    if not lazy:          # an explicit ``lazy import`` the rewrite keeps eager
        node.is_lazy = 0
        return [node]
    out = []
    eager = [alias for alias, name in zip(node.names, site.names) if not name.lazy]
    if eager:
        node.names = eager
        if site.explicit:
            node.is_lazy = 0      # (3.15) the names the rewrite keeps eager
        out.append(node)
    if site.kind == "import":
        out.append(_call_statement(ep.EXPLICIT_IMPORT if site.explicit else ep.IMPORT,
                                   lazy, span))
    else:
        out.append(_call_statement(ep.EXPLICIT_FROM if site.explicit else ep.FROM,
                                   [site.module_text, *lazy], span))
    return out


class _Emitter:
    """Applies one plan; ``applied`` collects the ids of the plan items it found a node for.

    The routed reads are changed in place first (:meth:`route`); then only the
    statements whose lines hold another item are walked.
    """

    def __init__(self, plan: Plan):
        self.sites = {site.span: site for site in plan.imports if site.rewritten}
        self.chain = {}
        for span in plan.chain_after:
            self.chain.setdefault(span, []).append(span)
        self.owners = {}
        for owner in plan.annotation_owners:
            self.owners.setdefault(owner.span, []).append(owner)
        self.templates = {t.span: t for t in plan.templates}
        self.prologues = {p.span: p for p in plan.getattr_prologues}
        self.reads = {r.span: r for r in plan.namespace_reads}
        self.deferred = {d.span: d for d in plan.deferred_annotations}
        self.applied = set()
        #: the first lines of the items in expressions, and of all items: an
        #: expression is walked if it holds one of the first, any other node if it
        #: holds one of the second (expressions hold no statements)
        self.expression_lines = sorted({span[0] for span in (*self.templates, *self.reads,
                                                             *self.deferred)})
        self.lines = sorted({*self.expression_lines, *(span[0] for span in (
            *self.sites, *self.owners, *self.chain, *self.prologues))})

    def route(self, references, nodes):
        """Route each reference's Name node (``nodes``: id of the reference -> node)."""
        applied = self.applied
        for ref in references:
            node = nodes.get(id(ref))
            if type(node) is ast.Name and node.id == ref.name and type(node.ctx) is ast.Load:
                _route(node)
                applied.add(id(ref))

    def touches(self, node, lines) -> bool:
        """Whether ``node``'s lines hold one of ``lines``."""
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return True
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            # a def's or class's lineno is its ``def`` line, below its decorators
            lineno = min(lineno, decorators[0].lineno)
        index = bisect_left(lines, lineno)
        return index < len(lines) and lines[index] <= node.end_lineno

    def statements(self, body):
        out = []
        for stmt in body:
            if not self.touches(stmt, self.lines):
                out.append(stmt)
                continue
            span = (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
            # zero-width at the statement's start: see the chain call below
            start = _start(span)
            for owner in self.owners.get(span, ()):
                out.extend(self.owner(owner, stmt, start))
            site = self.sites.get(span) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else None
            if site is not None:
                self.applied.add(id(site))
                out.extend(_site_statements(stmt, site))
            else:
                self.node(stmt)
                out.append(stmt)
            prologue = self.prologues.get(span) if isinstance(stmt, ast.FunctionDef) else None
            if prologue is not None:
                self.applied.add(id(prologue))
                stmt.body.insert(1 if prologue.after_docstring else 0,
                                 getattr_prologue(prologue.param, start))
            chain = self.chain.get(span)
            if chain is not None:
                self.applied.update(map(id, chain))
                # positioned at the start of the statement it follows: a
                # multi-line span would make the compiler derive positions
                # inside the user's code
                out.append(_call_statement(ep.CHAIN, (), start))
        return out

    def owner(self, owner, stmt, start) -> list:
        """The statements an annotation owner gets before ``stmt`` (or its decorator)."""
        if owner.kind == "annotate":
            self.applied.add(id(owner))
            return [_call_statement(ep.ANNOTATE, owner.names, start)]
        if owner.kind == "class" and isinstance(stmt, ast.AnnAssign):
            self.applied.add(id(owner))
            return [annotations_statement(owner.names, start)]
        if owner.kind == "def" and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.applied.add(id(owner))
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
            # taken out once applied: a routed read (``__lazy__.x``, from ``x``)
            # keeps the span, and so does the ``__lazy__`` in it
            deferred = self.deferred.pop(span, None)
            if deferred is not None:
                self.applied.add(id(deferred))
                return deferred_annotation(self.routed(node), deferred.names, span)
        return self.routed(node)

    def routed(self, node):
        if type(node) is ast.Name:
            return node
        if self.touches(node, self.expression_lines if isinstance(node, ast.expr) else self.lines):
            self.node(node)
            if self.templates and type(node).__name__ == "TemplateStr":
                span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                template = self.templates.get(span)
                if template is not None:
                    self.applied.add(id(template))
                    return template_resolved(node, template.names, span)
            if self.reads and type(node) in (ast.Call, ast.Attribute):
                read = self.reads.get(
                    (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
                if read is not None and (type(node) is ast.Attribute) == (read.kind == "frame"):
                    self.applied.add(id(read))
                    return namespace_read(node, read)
        return node


def _reference_nodes(tree, references) -> dict:
    """id of each reference -> the Name node at its start in ``tree`` (if any)."""
    places = {}
    for node in walk(tree):
        if type(node) is ast.Name:
            places.setdefault((node.lineno, node.col_offset), []).append(node)
    nodes = {}
    for ref in references:
        found = places.get(ref.span[:2])
        if found:
            nodes[id(ref)] = found.pop(0)
    return nodes


def emit(tree: ast.Module, plan: Plan, nodes=None) -> ast.Module:
    """Apply ``plan`` to ``tree`` (in place) and return it.

    :param nodes: id of each of ``plan.references`` -> its Name node in ``tree``, as
        the planner found it (``plan_module(nodes=...)``); None: they are looked up
        by position.
    :raises lazify._plan.EmitError: when an item of the plan matches no node of the
        tree (a lazify bug): the module would otherwise fail later, with a NameError.
    """
    if not plan.changes_module:
        return tree
    emitter = _Emitter(plan)
    if nodes is None:
        nodes = _reference_nodes(tree, plan.references)
    emitter.route(plan.references, nodes)
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
    """Applies one native plan: ``applied`` collects the ids of the sites it found a node for."""

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
                    self.applied.add(id(site))
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
    if not plan.changes_module:
        return tree
    emitter = _NativeEmitter(plan)
    tree.body = emitter.statements(tree.body)
    check_applied(plan, emitter.applied)
    return tree
