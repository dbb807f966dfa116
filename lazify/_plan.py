"""Planner: decide, for every name an import binds, lazy or eager and why.

Built from ``ast`` plus ``symtable`` (the compiler's own scope analysis); no
libcst and no importlib here, because the import hook runs this on every
cache miss.  The output is plain frozen data that both emitters consume and
never re-decide.  Positions are in ``ast`` terms (1-based lines, UTF-8 byte
columns).
"""

from __future__ import annotations

import ast
import sys

from ._entry_points import NAMESPACE
from ._reasons import Reason
from ._record import record

Span = tuple  # (lineno, col_offset, end_lineno, end_col_offset)


@record
class ImportedName:
    """One name bound by an import statement, with its verdict."""

    #: the name bound in the module namespace (``a`` for ``import a.b.c``)
    name: str
    #: what the alias imports, as written: ``a.b.c`` for ``import a.b.c [as x]``,
    #: ``p`` for ``from m import p [as q]``, ``*``
    imported: str
    #: the ``as`` name, or None
    asname: str | None
    #: absolute module the statement imports for this name (``a.b.c``;
    #: ``m`` for ``from m import p``; relative imports resolved when the
    #: package is known, else kept with their dots)
    module: str
    lazy: bool
    #: why it stays eager; None when lazy
    reason: Reason | None
    #: first line where code that runs at import time reads the name
    used_at_import: int | None
    #: lazy, and never read anywhere in the module
    unused: bool
    #: lazy, and named in deferred annotations of functions, classes or (3.14+)
    #: the module: it is imported when those annotations are read
    in_annotations: bool = False
    #: a PEP 810 ``lazy import`` (3.15+): lazy because the source says so; the
    #: interpreter defers it, the rewrite leaves the statement alone
    explicit: bool = False
    #: lazy, and imported when one of these functions reads the module's
    #: namespace (``globals()``, ``eval``, ...): ``(function, line)`` pairs
    resolved_by: tuple = ()

    @property
    def alias(self) -> str:
        """The alias as written: ``a.b.c``, ``a.b as x``, ``p``, ``q as r``, ``*``."""
        return self.imported if self.asname is None else f"{self.imported} as {self.asname}"


@record
class ImportSite:
    """One import statement."""

    #: statement span (lineno, col_offset, end_lineno, end_col_offset)
    span: Span
    #: "import" or "from"
    kind: str
    #: for "from": the module as written without the dots (may be ""), else ""
    from_module: str
    #: for "from": the number of leading dots
    level: int
    names: tuple[ImportedName, ...]

    @property
    def explicit(self) -> bool:
        """A PEP 810 ``lazy import`` statement, which the interpreter defers itself."""
        return bool(self.names) and self.names[0].explicit

    @property
    def statement(self) -> str:
        """The statement as written, normalised: ``from m import p``."""
        aliases = ", ".join(n.alias for n in self.names)
        lazy = "lazy " if self.explicit else ""
        if self.kind == "import":
            return f"{lazy}import {aliases}"
        return f"{lazy}from {self.module_text} import {aliases}"

    @property
    def module_text(self) -> str:
        """For "from": the module as written, with its dots (``..sub``)."""
        return "." * self.level + self.from_module

    @property
    def is_star(self) -> bool:
        """``from m import *``."""
        return self.kind == "from" and self.names[0].imported == "*"

    @property
    def any_lazy(self) -> bool:
        """Whether the rewrite registers some of its names (never for an explicit
        ``lazy import``: it stays as written)."""
        return not self.explicit and any(n.lazy for n in self.names)

    @property
    def rewritten(self) -> bool:
        """Whether the emitters replace the statement: it registers lazy names, or
        it is a star import (which first imports the pending names it copies)."""
        return self.any_lazy or self.is_star


@record
class Reference:
    """A load of a lazily imported global that the rewrite routes."""

    name: str
    span: Span
    #: True when it runs at import time (module level, class body, decorator,
    #: default value, base class), False inside a function or lambda body
    at_import: bool


@record
class AnnotationOwner:
    """A function, class or module whose deferred annotations name lazy imports.

    The emitters make its annotations import those names when they are read
    (``typing.get_type_hints``, ``dataclasses``, ``inspect``,
    ``annotationlib``): whoever reads them then evaluates them against the
    module's globals, where a pending name is missing.
    """

    #: "def": ``span`` is the def statement, which gets an innermost
    #: decorator (its ``__annotations__`` dict, or on 3.14+ its
    #: ``__annotate__`` function, imports on read);
    #: "class": ``span`` is the first annotated assignment directly in its
    #: body, which gets a statement before it that wraps the class's
    #: ``__annotations__`` dict (``from __future__ import annotations``, or
    #: before 3.14);
    #: "annotate" (3.14+, PEP 649): ``span`` is the statement of the class
    #: body, or the top-level statement of the module, that holds its first
    #: annotation; a statement before it gives the class (module) an
    #: ``__annotate__`` that imports on read, unless the names are bound by then
    kind: str
    span: Span
    #: the lazy names its annotations mention, sorted
    names: tuple[str, ...]


@record
class TemplateString:
    """A t-string (PEP 750, 3.14+) whose interpolations read lazy globals.

    Routing such a read would change the interpolation's source text, which
    the template keeps (``Interpolation.expression``): ``t"{json}"`` would say
    ``__lazy__.json``.  So those reads stay as written, and the emitters
    resolve the names first: ``(__lazy__.json, t"{json}")[-1]``.
    """

    #: the TemplateStr (the outermost, when t-strings nest in interpolations)
    span: Span
    #: the lazy names its interpolations read, sorted
    names: tuple[str, ...]


@record
class GetattrPrologue:
    """A module-level ``def __getattr__`` that answers lazify's names itself.

    The emitters put ``if __lazy__.__lazy_getattr__(param): return
    __lazy__.__lazy_result__(param)`` first in its body, so the module's
    ``__getattr__`` is the user's own function, with no wrapper frame between
    it and its caller (``warnings.warn(stacklevel=2)``, ``sys._getframe(1)``).
    """

    #: the def statement
    span: Span
    #: the name of its first parameter
    param: str
    #: whether its body starts with a docstring, which the prologue goes after
    after_docstring: bool


@record
class NamespaceRead:
    """A read of the module's own namespace inside a function.

    PEP 690 completes the namespace dict whenever code looks at it; a read
    in a function happens when the function is called, so the module's
    imports stay lazy until then.  The emitters replace the node at ``span``
    (see :data:`lazify._entry_points.NAMESPACE_READS`): ``globals()`` by a call on ``__lazy__``
    that imports the module's pending names first and returns the real dict,
    ``E.f_globals`` of the running frame likewise, and ``eval(src)`` or
    ``exec(src)`` get those globals and the caller's ``locals()`` as explicit
    arguments, which is what they use when none are given.
    """

    #: "globals": ``globals()``, imports every pending name first;
    #: "lookup": the ``globals()`` of ``globals()[k]``, ``globals().get(k, d)``,
    #: ``del globals()[k]``, ``globals()[k] += v``: only ``k``; "contains": the
    #: ``globals()`` of ``k in globals()``: nothing; "names": a ``globals()``
    #: whose keys alone are read (iterated, ``sorted(globals())``,
    #: ``globals().keys()``): nothing; "frame":
    #: ``sys._getframe().f_globals``; "eval": an ``eval``/``exec`` call
    #: without globals
    kind: str
    #: the node replaced: the ``globals()`` call, the ``f_globals`` attribute,
    #: or the ``eval``/``exec`` call
    span: Span
    #: the function reading, as dotted def/class names (``Registry.get``)
    function: str
    #: "lookup" with a constant string key: the one name it can import
    key: str | None = None


@record
class Plan:
    """Everything an emitter needs, and everything ``check`` reports."""

    module: str
    is_package: bool
    imports: tuple[ImportSite, ...]
    references: tuple[Reference, ...]
    #: spans of module-level statements (top level or inside top-level
    #: if/for/while blocks) that bind ``__getattr__`` other than by a def
    #: with a prologue: the emitters put a chain call right after each
    chain_after: tuple[Span, ...]
    #: how many statements of the module's body come before the header: the
    #: docstring and the ``from __future__`` imports (which must stay first)
    header_index: int
    #: the end line of the last of those (0 if none)
    header_after_line: int
    #: whether the emitters rewrite the module at all
    rewrite: bool
    #: lazy names a read may find unregistered: builtins' names (``map``
    #: imported only on Python 2) and names imported only inside if/for/
    #: while blocks.  The header passes them to the runtime, which lets such
    #: a read fall back to builtins or raise NameError, as a global read does.
    fallback_names: tuple[str, ...] = ()
    #: functions, classes and (3.14+) the module, whose annotations import
    #: lazy names when read
    annotation_owners: tuple[AnnotationOwner, ...] = ()
    #: module-level ``def __getattr__`` statements that get lazify's prologue
    getattr_prologues: tuple[GetattrPrologue, ...] = ()
    #: 3.14+ template strings whose interpolations read lazy names
    templates: tuple[TemplateString, ...] = ()
    #: reads of the module's own namespace inside functions, in source order
    namespace_reads: tuple[NamespaceRead, ...] = ()

    def edits(self) -> tuple:
        """Every item an emitter must apply: what :func:`check_applied` checks."""
        if not self.rewrite:
            return ()
        return (*self.references, *(s for s in self.imports if s.rewritten), *self.chain_after,
                *self.annotation_owners, *self.getattr_prologues, *self.templates,
                *self.namespace_reads)

    @property
    def lazy_names(self) -> frozenset[str]:
        """The names the rewrite registers (explicit ``lazy import`` names are
        the interpreter's)."""
        return frozenset(n.name for s in self.imports for n in s.names
                         if n.lazy and not n.explicit)


class EmitError(Exception):
    """The plan does not match the source: a lazify bug, never a user error."""


def check_applied(plan: Plan, applied) -> None:
    """Raise :class:`EmitError` unless an emitter *applied* every item of ``plan.edits()``.

    A module missing one would raise NameError (an unrouted reference, an unregistered
    import) or behave otherwise than the plan says, long after it was rewritten.
    """
    missing = [item for item in plan.edits() if item not in applied]
    if missing:
        raise EmitError(f"plan for module {plan.module!r} does not match the source: "
                        "no node for " + "; ".join(map(repr, missing)))


# --------------------------------------------------------------------------
# Scope analysis.
#
# The compiler's own scope rules, applied to the ``ast``: symtable's layout
# changes between versions (3.12 inlines comprehensions, adds type-parameter
# scopes), so matching its tables to AST nodes is brittle; tests check this
# analysis against symtable instead.

_MODULE, _FUNCTION, _CLASS, _COMPREHENSION = range(4)

_DYNAMIC_CALLS = frozenset({"globals", "vars", "locals", "dir", "eval", "exec"})
#: builtins that read the caller's globals: reached through ``builtins``
#: (``builtins.eval``, ``getattr(builtins, "globals")``, ``from builtins import
#: exec``) no rewrite can follow them
_NAMESPACE_BUILTINS = frozenset({"globals", "eval", "exec"})
#: ... nor ``globals`` passed around as a value (``_globals = globals``).
#: ``eval``/``exec`` as values are left alone: they read the globals of the
#: Python code that calls them (``assertRaises(E, eval, src)``: unittest's)
_VALUE_BUILTINS = frozenset({"globals"})
#: builtins that read only the keys of a dict given as their one argument
_KEY_CONSUMERS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "len", "iter",
                            "reversed", "enumerate"})
_KEY_SET_OPS = (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)
_LAZIFY_NAMESPACE_FUNCS = frozenset({"is_lazy_import", "resolve_all"})
_HARMLESS_GLOBALS_METHODS = frozenset({"update", "__setitem__"})
#: PEP 649/749 (3.14+): annotations are evaluated when read, by an
#: ``__annotate__`` function the compiler makes for each function, class and
#: module, unless ``from __future__ import annotations`` keeps them strings
_PEP649 = sys.version_info >= (3, 14)


class _Scope:
    __slots__ = ("kind", "parent", "bound", "global_decl", "nonlocal_decl",
                 "class_first_bind", "stmt_index", "stmt", "direct", "at_import", "node")

    def __init__(self, kind, parent, at_import):
        self.kind = kind
        self.parent = parent
        self.bound = set()
        self.global_decl = set()
        self.nonlocal_decl = set()
        #: class scopes: name -> index of the first unconditional binding
        self.class_first_bind = {}
        #: class scopes: index of the class-body statement being visited
        self.stmt_index = 0
        #: class scopes: that statement
        self.stmt = None
        #: class scopes: whether that statement binds unconditionally
        self.direct = False
        #: whether code in this scope runs when the module is imported
        self.at_import = at_import
        #: class scopes: the ClassDef (function scopes: None)
        self.node = None


class _Load:
    __slots__ = ("name", "node", "scope", "class_index", "at_import", "template")

    def __init__(self, name, node, scope, class_index, at_import, template=None):
        self.name = name
        self.node = node
        self.scope = scope
        self.class_index = class_index
        #: runs while the module is imported (not in a function, not under
        #: ``if __name__ == "__main__":``)
        self.at_import = at_import
        #: span of the t-string whose interpolation text holds it, or None
        self.template = template


class _Site:
    """An import statement found by the walk, before verdicts."""

    __slots__ = ("node", "context", "module_scope", "bindings", "in_block")

    def __init__(self, node, context, module_scope, in_block=False):
        self.node = node
        #: the outermost construct that keeps it eager, or None
        self.context = context
        #: whether it binds module-level names (top level, try, with, if ...)
        self.module_scope = module_scope
        #: inside an if/for/while/match block: it may never run
        self.in_block = in_block
        #: (bound name, what it imports, asname or None, signature) per alias
        self.bindings = []


def walk(node):
    """Every node below ``node`` (and itself), as ``ast.walk`` yields them, but
    importing nothing: on 3.15 ``ast.walk`` imports ``collections`` when first
    called, which would make it one of the modules never rewritten."""
    stack = [node]
    while stack:
        node = stack.pop()
        stack.extend(ast.iter_child_nodes(node))
        yield node


def _span(node) -> Span:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


class _Walker:
    """One pass over the module: bindings, loads, imports, namespace use."""

    def __init__(self, candidates: frozenset, future_annotations: bool):
        self.candidates = candidates
        #: annotations are not evaluated where they are written
        self.deferred = future_annotations or _PEP649
        #: they are evaluated by ``__annotate__`` functions (3.14+, no
        #: ``from __future__ import annotations``)
        self.pep649 = _PEP649 and not future_annotations
        self.module_scope = _Scope(_MODULE, None, True)
        self.scope = self.module_scope
        self.context = []            # stack of eager-making constructs
        self.sites = []
        self.loads = []
        self.module_rebinds = {}     # name -> first line of a non-import binding
        #: every name bound at module scope other than by an import -> first line
        self.module_bound = {}
        self.dynamic = None          # first line that reads the namespace dynamically
        self.annotation_names = set()
        #: names in annotations no owner can wrap (module level, or a class
        #: body's nested block): they stay eager
        self.eager_annotation_names = set()
        #: id(def or class node), or "module" -> [kind, span, names] for
        #: wrappable owners
        self.owners = {}
        self.owner = None            # the owner being visited, or None
        self.top_stmt = None         # the top-level statement being visited
        self.template = None         # span of the t-string whose interpolation text is visited
        self.in_annotation = False   # visiting an evaluated annotation
        self.docstring_sources = []
        self.chain_after = []
        self.getattr_prologues = []
        self.module_stmt = None      # innermost statement at module scope
        self.harmless_calls = set()  # ids of globals() calls that only write
        #: id(globals() call) -> (kind, key, consumer builtin or None): how the
        #: expression around it reads the dict (marked before it is visited)
        self.ns_forms = {}
        #: namespace reads in functions, checked once all bindings are known:
        #: (kind, node, function, key, callee, builtins it needs, consumer,
        #: scope, class index): see _ns_read
        self.ns_reads = []
        #: ``globals`` read as a value: (name, scope, class index, line)
        self.value_reads = []
        self.call_funcs = set()      # ids of the Name nodes ``globals`` is called by
        self.function = []           # names of the enclosing defs and classes
        self.uses_reserved = False
        self.exported = set()
        self.blocks = 0              # depth of if/for/while/match bodies
        self.in_main = False         # inside ``if __name__ == "__main__":``
        self.dispatch = {
            ast.If: self.visit_block, ast.For: self.visit_block,
            ast.AsyncFor: self.visit_block, ast.While: self.visit_block,
            ast.Name: self.visit_Name,
            ast.FunctionDef: self.visit_FunctionDef,
            ast.AsyncFunctionDef: self.visit_FunctionDef,
            ast.Lambda: self.visit_Lambda,
            ast.ClassDef: self.visit_ClassDef,
            ast.ListComp: self.visit_comprehension,
            ast.SetComp: self.visit_comprehension,
            ast.GeneratorExp: self.visit_comprehension,
            ast.DictComp: self.visit_comprehension,
            ast.NamedExpr: self.visit_NamedExpr,
            ast.Global: self.visit_Global,
            ast.Nonlocal: self.visit_Nonlocal,
            ast.Import: self.visit_Import,
            ast.ImportFrom: self.visit_Import,
            ast.Try: self.visit_Try,
            ast.With: self.visit_With,
            ast.AsyncWith: self.visit_With,
            ast.ExceptHandler: self.visit_ExceptHandler,
            ast.Call: self.visit_Call,
            ast.Subscript: self.visit_Subscript,
            ast.Compare: self.visit_Compare,
            ast.Starred: self.visit_Starred,
            ast.BinOp: self.visit_BinOp,
            ast.AugAssign: self.visit_AugAssign,
            ast.Attribute: self.visit_Attribute,
            ast.AnnAssign: self.visit_AnnAssign,
            ast.MatchAs: self.visit_match_capture,
            ast.MatchStar: self.visit_match_capture,
            ast.MatchMapping: self.visit_MatchMapping,
            ast.Match: self.visit_block,
            ast.Load: _noop, ast.Store: _noop, ast.Del: _noop,
        }
        if sys.version_info >= (3, 11):
            self.dispatch[ast.TryStar] = self.visit_Try
        if sys.version_info >= (3, 12):
            self.dispatch[ast.TypeAlias] = self.visit_TypeAlias
        if sys.version_info >= (3, 14):
            self.dispatch[ast.TemplateStr] = self.visit_TemplateStr

    # -- traversal ---------------------------------------------------------

    def visit(self, node):
        handler = self.dispatch.get(type(node))
        if handler is None:
            self.generic_visit(node)
        else:
            handler(node)

    def generic_visit(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def visit_body(self, body):
        """Visit statements; at module scope, remember the innermost one."""
        scope = self.scope
        if scope.kind == _MODULE:
            outer = self.module_stmt
            for stmt in body:
                self.module_stmt = stmt
                self.visit(stmt)
            self.module_stmt = outer
        else:
            for stmt in body:
                self.visit(stmt)

    def visit_module(self, tree: ast.Module):
        self._docstring(tree)
        self._exports(tree)
        self.module_stmt = None
        for stmt in tree.body:
            self.top_stmt = self.module_stmt = stmt
            self.visit(stmt)
        self.top_stmt = self.module_stmt = None

    def visit_block(self, node):
        """if/for/while/match: expressions, then bodies as statement lists."""
        if type(node) is ast.If and not self.in_main and _is_main_test(node.test):
            # a script's main block does not run when the module is imported
            self.in_main = True
            try:
                self.visit_block(node)
            finally:
                self.in_main = False
            return
        if type(node) in (ast.For, ast.AsyncFor):
            self._keys_only(node.iter)
        for field in node._fields:
            value = getattr(node, field, None)
            if field in ("body", "orelse"):
                self.blocks += 1
                self.visit_body(value)
                self.blocks -= 1
            elif field == "cases":
                self.blocks += 1
                for case in value:
                    self.visit(case.pattern)
                    if case.guard is not None:
                        self.visit(case.guard)
                    self.visit_body(case.body)
                self.blocks -= 1
            elif isinstance(value, ast.AST):
                self.visit(value)

    def _exports(self, tree):
        for stmt in tree.body:
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) \
                        and isinstance(stmt.value, (ast.List, ast.Tuple)):
                    self.exported.update(
                        elt.value for elt in stmt.value.elts
                        if isinstance(elt, ast.Constant) and isinstance(elt.value, str))

    # -- bindings ----------------------------------------------------------

    def bind(self, name: str, lineno: int):
        scope = self.scope
        if name == NAMESPACE:
            self.uses_reserved = True
        if scope.kind == _COMPREHENSION:
            scope.bound.add(name)
            return
        if scope.kind == _MODULE or name in scope.global_decl:
            self.module_bound.setdefault(name, lineno)
            if name in self.candidates:
                self.module_rebinds.setdefault(name, lineno)
            if name == "__getattr__" and scope.kind == _MODULE \
                    and self.module_stmt is not None and not self._prologue(self.module_stmt):
                self.chain_after.append(_span(self.module_stmt))
            return
        scope.bound.add(name)
        if scope.kind == _CLASS and scope.direct:
            scope.class_first_bind.setdefault(name, scope.stmt_index)

    def _prologue(self, stmt) -> bool:
        """Record a prologue for ``def __getattr__(name)`` bound by ``stmt``."""
        if type(stmt) is not ast.FunctionDef or stmt.name != "__getattr__":
            return False
        params = [*stmt.args.posonlyargs, *stmt.args.args]
        if not params:
            return False
        self.getattr_prologues.append((_span(stmt), params[0].arg, _has_docstring(stmt)))
        return True

    def visit_Name(self, node: ast.Name):
        name = node.id
        ctx = type(node.ctx)
        if ctx is ast.Load:
            if name == NAMESPACE:
                self.uses_reserved = True
            elif name in _VALUE_BUILTINS and id(node) not in self.call_funcs:
                scope = self.scope
                self.value_reads.append((name, scope, scope.stmt_index, node.lineno))
            if name in self.candidates:
                scope = self.scope
                self.loads.append(_Load(name, node, scope, scope.stmt_index,
                                        scope.at_import and not self.in_main, self.template))
            return
        self.bind(name, node.lineno)
        if ctx is ast.Del and self.scope.kind == _CLASS:
            # after ``del name`` in a class body, a read finds the global again
            self.scope.class_first_bind[name] = _NEVER

    def visit_Global(self, node):
        self.scope.global_decl.update(node.names)

    def visit_Nonlocal(self, node):
        self.scope.nonlocal_decl.update(node.names)

    def visit_NamedExpr(self, node: ast.NamedExpr):
        self.visit(node.value)
        # The target binds in the nearest enclosing non-comprehension scope.
        scope = self.scope
        while scope.kind == _COMPREHENSION:
            scope = scope.parent
        saved, self.scope = self.scope, scope
        self.bind(node.target.id, node.lineno)
        self.scope = saved

    def visit_match_capture(self, node):
        if node.name is not None:
            self.bind(node.name, node.lineno)
        self.generic_visit(node)

    def visit_MatchMapping(self, node):
        if node.rest is not None:
            self.bind(node.rest, node.lineno)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler):
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.bind(node.name, node.lineno)
        self.visit_body(node.body)

    # -- scopes ------------------------------------------------------------

    def _enter(self, kind, at_import):
        scope = _Scope(kind, self.scope, at_import)
        self.scope = scope
        return scope

    def _arguments(self, args: ast.arguments, annotations: bool):
        """Defaults in the current scope; return parameter names."""
        for default in args.defaults:
            self.visit(default)
        for default in args.kw_defaults:
            if default is not None:
                self.visit(default)
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if args.vararg is not None:
            params.append(args.vararg)
        if args.kwarg is not None:
            params.append(args.kwarg)
        if any(param.arg == NAMESPACE for param in params):
            self.uses_reserved = True
        if annotations:
            for param in params:
                if param.annotation is not None:
                    self.annotation(param.annotation)
        return [param.arg for param in params]

    def annotation(self, node):
        """An annotation: a load if evaluated now, else deferred names."""
        if not self.deferred:
            outer, self.in_annotation = self.in_annotation, True
            self.visit(node)
            self.in_annotation = outer
            # String parts are still evaluated later by get_type_hints.
            for sub in walk(node):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    self._string_annotation(sub.value)
        else:
            self._deferred_names(node)

    def _deferred_names(self, node):
        owner = self.owner
        names = self.eager_annotation_names if owner is None else owner[2]
        for sub in walk(node):
            if isinstance(sub, ast.Name):
                self.annotation_names.add(sub.id)
                names.add(sub.id)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                self._string_annotation(sub.value)

    def _string_annotation(self, text: str):
        expr = _parse_quietly(text.strip(), "eval")
        if expr is None:
            for word in _words(text):
                self._deferred_names(ast.Name(id=word, ctx=ast.Load()))
            return
        self._deferred_names(expr)

    def _type_params(self, node):
        """PEP 695 bounds and constraints: evaluated lazily, in their own scope."""
        params = getattr(node, "type_params", None)
        if not params:
            return
        if _PEP649:
            names = {param.name for param in params}
            for param in params:
                for field in ("bound", "default_value"):
                    value = getattr(param, field, None)
                    if value is not None:
                        self._shown_as_written(value, names)
            return
        scope = self._enter(_FUNCTION, False)
        scope.bound.update(param.name for param in params)
        for param in params:
            self.generic_visit(param)
        self.scope = scope.parent

    def _shown_as_written(self, node, params):
        """3.14+: a type alias's value or a type parameter's bound, constraints or
        default.  annotationlib evaluates it with fake globals for its STRING and
        FORWARDREF formats, where a routed read shows as ``__lazy__.x``, and no
        function stands between it and the module's globals to import first: the
        names it reads stay eager."""
        for sub in walk(node):
            if type(sub) is ast.Name and sub.id not in params:
                self.eager_annotation_names.add(sub.id)

    def _own(self, key, kind, span):
        """Make the owner ``key`` current; return the previous one."""
        outer = self.owner
        owner = self.owners.get(key)
        if owner is None:
            owner = self.owners[key] = [kind, span, set()]
        self.owner = owner
        return outer

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        outer = self._own(id(node), "def", _span(node))
        params = self._arguments(node.args, annotations=True)
        if node.returns is not None:
            self.annotation(node.returns)
        self.owner = outer
        self._type_params(node)
        self.bind(node.name, node.lineno)
        outer_context = len(self.context)
        self.context.append(Reason.FUNCTION)
        scope = self._enter(_FUNCTION, False)
        scope.bound.update(params)
        for param in getattr(node, "type_params", ()) or ():
            scope.bound.add(param.name)
        self._docstring(node)
        self.function.append(node.name)
        self.visit_body(node.body)
        self.function.pop()
        self.scope = scope.parent
        del self.context[outer_context:]

    def visit_Lambda(self, node: ast.Lambda):
        params = self._arguments(node.args, annotations=False)
        self.context.append(Reason.FUNCTION)
        scope = self._enter(_FUNCTION, False)
        scope.bound.update(params)
        self.function.append("<lambda>")
        self.visit(node.body)
        self.function.pop()
        self.scope = scope.parent
        self.context.pop()

    def visit_ClassDef(self, node: ast.ClassDef):
        for decorator in node.decorator_list:
            self.visit(decorator)
        for base in node.bases:
            self.visit(base)
        for keyword in node.keywords:
            self.visit(keyword.value)
        self._type_params(node)
        self.bind(node.name, node.lineno)
        self.context.append(Reason.CLASS)
        scope = self._enter(_CLASS, self.scope.at_import)
        scope.node = node
        for param in getattr(node, "type_params", ()) or ():
            scope.bound.add(param.name)
        self._docstring(node)
        self.function.append(node.name)
        for index, stmt in enumerate(node.body):
            scope.stmt_index = index
            scope.stmt = stmt
            scope.direct = isinstance(stmt, _UNCONDITIONAL_BINDERS)
            self.visit(stmt)
            scope.direct = False
        self.function.pop()
        self.scope = scope.parent
        self.context.pop()

    def visit_comprehension(self, node):
        generators = node.generators
        for gen in generators:
            self._keys_only(gen.iter)
        self.visit(generators[0].iter)
        scope = self._enter(_COMPREHENSION, self.scope.at_import)
        for index, gen in enumerate(generators):
            if index:
                self.visit(gen.iter)
            self.visit(gen.target)
            for cond in gen.ifs:
                self.visit(cond)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            if node.value is not None:      # None: ``{**d for d in ds}`` (3.15, PEP 798)
                self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = scope.parent

    def visit_TypeAlias(self, node):
        self.visit(node.name)
        self._type_params(node)
        if _PEP649:
            self._shown_as_written(node.value, {param.name for param in node.type_params})
            return
        scope = self._enter(_FUNCTION, False)
        for param in node.type_params:
            scope.bound.add(param.name)
        self.visit(node.value)
        self.scope = scope.parent

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is not None:
            self.visit(node.value)
        if self.scope.kind == _FUNCTION:
            # ``x: int`` makes x local; the annotation is never evaluated.
            self.visit(node.target)
            return
        if node.value is not None or not isinstance(node.target, ast.Name):
            self.visit(node.target)  # ``x: int`` alone binds nothing here
        scope = self.scope
        if self.pep649:
            if not node.simple:
                # ``obj.attr: T``, ``(x): T``: 3.14 neither evaluates nor keeps it
                return
            # the class's or module's __annotate__ evaluates it, wherever
            # in the body (an if block included) it is written
            if scope.kind == _CLASS:
                outer = self._own(id(scope.node), "annotate", _span(scope.stmt))
            else:
                outer = self._own("module", "annotate", _span(self.top_stmt))
        elif scope.kind == _CLASS and scope.direct:
            # the first of these in a class body gets the statement that
            # makes its __annotations__ import on read
            outer = self._own(id(scope.node), "class", _span(node))
        else:
            outer, self.owner = self.owner, None
        self.annotation(node.annotation)
        self.owner = outer

    def visit_TemplateStr(self, node):
        """``t"..."`` (3.14+): reads in an interpolation's expression are part of
        its text (``Interpolation.expression``), so they are marked, not routed."""
        outer = self.template
        for value in node.values:
            if type(value) is ast.Interpolation:
                self.template = _span(node) if outer is None else outer
                self.visit(value.value)
                self.template = outer
                if value.format_spec is not None:
                    self.visit(value.format_spec)
            else:
                self.visit(value)

    # -- eager-making constructs --------------------------------------------

    def visit_Try(self, node):
        self.context.append(Reason.TRY)
        self.visit_body(node.body)
        for handler in node.handlers:
            self.visit(handler)
        self.visit_body(node.orelse)
        self.visit_body(node.finalbody)
        self.context.pop()

    def visit_With(self, node):
        self.context.append(Reason.WITH)
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
        self.visit_body(node.body)
        self.context.pop()

    def visit_Import(self, node):
        scope = self.scope
        site = _Site(node, self.context[0] if self.context else None,
                     scope.kind == _MODULE, self.blocks > 0)
        # PEP 810's ``lazy import`` (3.15+) is another binding than a plain
        # import of the same name
        explicit = ("lazy",) if getattr(node, "is_lazy", 0) else ()
        for alias in node.names:
            if isinstance(node, ast.Import):
                if alias.asname is None:
                    bound = alias.name.partition(".")[0]
                    signature = ("import", bound)
                else:
                    bound = alias.asname
                    signature = ("import-as", alias.name)
            else:
                if alias.name == "*":
                    site.bindings.append(("*", "*", None, None))
                    continue
                bound = alias.asname or alias.name
                signature = ("from", node.level, node.module, alias.name)
            if bound == NAMESPACE:
                self.uses_reserved = True
            site.bindings.append((bound, alias.name, alias.asname, explicit + signature))
            if scope.kind != _MODULE:
                if bound in scope.global_decl:
                    # An import in a function that declares the name global
                    # rebinds the module-level name.
                    if bound in self.candidates:
                        self.module_rebinds.setdefault(bound, node.lineno)
                elif scope.kind != _COMPREHENSION:
                    scope.bound.add(bound)
                    if scope.kind == _CLASS and scope.direct:
                        scope.class_first_bind.setdefault(bound, scope.stmt_index)
            elif bound == "__getattr__" and self.module_stmt is not None:
                self.chain_after.append(_span(self.module_stmt))
        self.sites.append(site)

    # -- namespace reads -----------------------------------------------------
    #
    # At import time (module level, class bodies, decorators, defaults) a read
    # of the module's namespace keeps every import eager (dynamic-namespace).
    # Inside a function it becomes a NamespaceRead: the parents below mark how
    # the expression around a ``globals()`` call uses the dict before the call
    # itself is visited.

    def visit_Call(self, node: ast.Call):
        func = node.func
        if type(func) is ast.Name:
            if func.id in _VALUE_BUILTINS:
                self.call_funcs.add(id(func))
            if func.id in _DYNAMIC_CALLS and id(node) not in self.harmless_calls:
                self._dynamic_call(func.id, node)
            elif func.id in _KEY_CONSUMERS and len(node.args) == 1 and not node.keywords:
                self._keys_only(node.args[0], func.id)
            elif func.id == "getattr" and len(node.args) >= 2 and _is_builtins_module(node.args[0]) \
                    and type(node.args[1]) is ast.Constant and node.args[1].value in _NAMESPACE_BUILTINS:
                self._dynamic(node)         # getattr(builtins, "globals")
        elif type(func) is ast.Attribute and func.attr in ("eval", "exec") \
                and _is_builtins_module(func.value) and _explicit_globals(node):
            self.harmless_calls.add(id(func))           # builtins.exec(src, namespace)
        elif type(func) is ast.Attribute and func.attr == "get" and _is_globals_call(func.value) \
                and 1 <= len(node.args) <= 2 and not node.keywords \
                and not any(type(arg) is ast.Starred for arg in node.args):
            self._mark(func.value, "lookup", node.args[0])
        callee = _last_name(func)
        if callee in _LAZIFY_NAMESPACE_FUNCS:
            for arg in node.args:
                if _is_globals_call(arg):
                    self.harmless_calls.add(id(arg))
        elif callee in _FORWARD_REF_CALLS and not self.in_annotation:
            # cast("Bar", x), ForwardRef("Bar"), TypeVar("T", "Bar", bound="Bar")
            for arg in node.args[1:] if callee == "TypeVar" else node.args[:1]:
                self._forward_ref(arg)
            for keyword in node.keywords:
                if keyword.arg == "bound":
                    self._forward_ref(keyword.value)
        self.generic_visit(node)

    def _dynamic(self, node):
        if self.dynamic is None:
            self.dynamic = node.lineno

    def _dynamic_call(self, name, node: ast.Call):
        positional = len(node.args)
        keywords = {kw.arg for kw in node.keywords}
        if name == "globals":
            if not self.scope.at_import:
                kind, key, consumer = self.ns_forms.get(id(node), ("globals", None, None))
                self._ns_read(kind, node, key, "globals", (), consumer)
                return
        elif name in ("locals", "dir", "vars"):
            # vars() is locals(): harmless in a function or class body
            if positional or keywords or self.scope.kind != _MODULE:
                return
        elif name in ("eval", "exec"):
            if _explicit_globals(node):
                return
            if not self.scope.at_import:
                if not keywords and 1 <= positional <= 3 \
                        and not any(type(arg) is ast.Starred for arg in node.args):
                    # eval(src[, None[, loc]]): the globals made explicit, and the
                    # caller's locals(), which eval uses when it is given none
                    self._ns_read("eval", node, None, name,
                                  ("locals",) if positional < 3 else (), None)
                else:
                    # keywords or *args: no exact rewrite; dynamic if it is the builtin
                    self._ns_read("unfollowed", node, None, name, (), None)
                return
        self._dynamic(node)

    def _ns_read(self, kind, node, key, callee, needs, consumer):
        """A read in a function: ``callee`` (the builtin called, or None) must be
        the builtin for it to be one, and the builtins in ``needs`` for the
        rewrite to be exact."""
        scope = self.scope
        self.ns_reads.append((kind, node, ".".join(self.function) or "<module>", key, callee,
                              needs, consumer, scope, scope.stmt_index))

    def _mark(self, call, kind, key=None, consumer=None):
        """Record how the expression around the ``globals()`` call ``call`` uses it."""
        if type(key) is ast.Constant and type(key.value) is str:
            key = key.value
        else:
            key = None
        self.ns_forms[id(call)] = (kind, key, consumer)

    def _keys_only(self, node, consumer=None):
        """``node`` is iterated or given to a builtin that reads keys alone:
        if it is ``globals()`` or ``globals().keys()``, nothing needs importing."""
        if type(node) is ast.Call and type(node.func) is ast.Attribute \
                and node.func.attr == "keys" and not node.args and not node.keywords:
            node = node.func.value
        if _is_globals_call(node):
            self._mark(node, "names", None, consumer)

    def visit_Compare(self, node: ast.Compare):
        if len(node.ops) == 1 and type(node.ops[0]) in (ast.In, ast.NotIn):
            right = node.comparators[0]
            if _is_globals_call(right):
                self._mark(right, "contains", node.left)
            else:
                self._keys_only(right)
        self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred):
        if type(node.ctx) is ast.Load:
            self._keys_only(node.value)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp):
        if type(node.op) in _KEY_SET_OPS:
            # globals().keys() | {...}: set operations on the keys (not dict | dict)
            for side in (node.left, node.right):
                if type(side) is ast.Call and type(side.func) is ast.Attribute \
                        and side.func.attr == "keys":
                    self._keys_only(side)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        if type(target) is ast.Subscript and _is_globals_call(target.value) \
                and not self.scope.at_import:
            # globals()[k] += 1 reads k first
            self._mark(target.value, "lookup", target.slice)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        value = node.value
        if _is_globals_call(value):
            ctx = type(node.ctx)
            if ctx is ast.Load or (ctx is ast.Del and not self.scope.at_import):
                self._mark(value, "lookup", node.slice)
            elif id(value) not in self.ns_forms:
                self.harmless_calls.add(id(value))      # globals()[k] = v
        elif type(value) is ast.Name and value.id == "__builtins__" \
                and type(node.slice) is ast.Constant and node.slice.value in _NAMESPACE_BUILTINS:
            self._dynamic(node)                          # __builtins__["eval"]
        elif not self.in_annotation and _looks_generic(value):
            # ``Alias = Optional["Bar"]``: a forward reference that
            # get_type_hints evaluates, wherever the alias is used
            elts = node.slice.elts if type(node.slice) in (ast.Tuple, ast.List) else (node.slice,)
            for elt in elts:
                self._forward_ref(elt)
        self.generic_visit(node)

    def _forward_ref(self, node):
        """A string outside annotations that typing evaluates later: its names
        stay eager, since no annotations dict stands between it and the
        module's globals."""
        if type(node) is ast.Constant and type(node.value) is str:
            outer, self.owner = self.owner, None
            self._string_annotation(node.value)
            self.owner = outer

    def visit_Attribute(self, node: ast.Attribute):
        attr = node.attr
        if attr in _HARMLESS_GLOBALS_METHODS and _is_globals_call(node.value):
            self.harmless_calls.add(id(node.value))
        elif attr == "f_globals" and _is_own_frame_call(node.value):
            # sys._getframe().f_globals is globals() by another name
            if self.scope.at_import:
                self._dynamic(node)
            else:
                self._ns_read("frame", node, None, None, (), None)
        elif attr in _NAMESPACE_BUILTINS and _is_builtins_module(node.value) \
                and id(node) not in self.harmless_calls:
            self._dynamic(node)                          # builtins.eval
        self.generic_visit(node)

    # -- docstrings ----------------------------------------------------------

    def _docstring(self, node):
        body = node.body
        if body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str) \
                and ">>>" in body[0].value.value:
            self.docstring_sources.append(body[0].value.value)


#: a class-body statement index no read comes after
_NEVER = 1 << 62

_UNCONDITIONAL_BINDERS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef,
                          ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _noop(node):
    pass


def _is_main_test(test) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not ast.Eq:
        return False
    sides = (test.left, test.comparators[0])
    return any(type(a) is ast.Name and a.id == "__name__" for a in sides) and any(
        type(b) is ast.Constant and b.value == "__main__" for b in sides)


_FORWARD_REF_CALLS = frozenset({"cast", "ForwardRef", "TypeVar"})
_BUILTIN_GENERICS = frozenset({"list", "dict", "set", "frozenset", "tuple", "type"})


def _last_name(node) -> str | None:
    """``x`` for ``x`` and for ``a.b.x``; None for anything else."""
    if type(node) is ast.Name:
        return node.id
    return node.attr if type(node) is ast.Attribute else None


def _looks_generic(node) -> bool:
    """``Optional``, ``typing.List``, ``list``: what a type's subscript looks
    like (``sys.modules["json"]`` and ``CONFIG["json"]`` do not)."""
    name = _last_name(node)
    return name is not None and (
        (name[:1].isupper() and not name.isupper()) or name in _BUILTIN_GENERICS)


def _is_globals_call(node) -> bool:
    return (type(node) is ast.Call and type(node.func) is ast.Name
            and node.func.id == "globals" and not node.args and not node.keywords)


def _explicit_globals(call) -> bool:
    """Whether an ``eval``/``exec`` call names its globals (``None`` does not:
    ``eval(src, None)`` uses the caller's globals, like ``eval(src)``)."""
    namespace = call.args[1] if len(call.args) >= 2 else next(
        (kw.value for kw in call.keywords if kw.arg == "globals"), None)
    return namespace is not None and not (
        type(namespace) is ast.Constant and namespace.value is None)


def _is_builtins_module(node) -> bool:
    return type(node) is ast.Name and node.id in ("builtins", "__builtins__")


def _is_own_frame_call(node) -> bool:
    """``sys._getframe()``, ``sys._getframe(0)`` or ``inspect.currentframe()``:
    the running frame, whose ``f_globals`` is this module's namespace (a caller's
    frame, ``f_back`` or a traceback's frame is another module's, or unknown)."""
    if type(node) is not ast.Call or node.keywords:
        return False
    name = _last_name(node.func)
    if name == "currentframe":
        return not node.args
    if name == "_getframe":
        return not node.args or (
            len(node.args) == 1 and type(node.args[0]) is ast.Constant
            and node.args[0].value == 0)
    return False


def _parse_quietly(text: str, mode: str):
    """``ast.parse`` of a string found in the module (a doctest line, a string
    annotation), or None when it does not parse or could warn.

    Parsing must not print anything: ``'\\o/'`` in a doctest of requests made
    every cold start print a SyntaxWarning (invalid escape sequence, 3.12+).
    A backslash is where those come from; such text is read word by word.
    """
    if "\\" in text:
        return None
    try:
        return ast.parse(text, mode=mode)
    except (SyntaxError, ValueError):
        return None


def _doctest_names(sources) -> set:
    """Names read by ``>>>`` examples in docstrings."""
    names = set()
    for text in sources:
        lines = []
        for line in text.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(">>>") or stripped.startswith("..."):
                lines.append(stripped[4:] if len(stripped) > 3 else "")
        for chunk in lines:
            tree = _parse_quietly(chunk, "exec")
            if tree is None:
                names.update(_words(chunk))
                continue
            for sub in walk(tree):
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
    return names


def _words(text: str):
    word = []
    for char in text:
        if char.isalnum() or char == "_":
            word.append(char)
        elif word:
            yield "".join(word)
            word = []
    if word:
        yield "".join(word)


# --------------------------------------------------------------------------
# The planner.

def _has_docstring(node) -> bool:
    """Whether the body of a module, class or function starts with a docstring."""
    body = node.body
    return bool(body) and type(body[0]) is ast.Expr and type(body[0].value) is ast.Constant \
        and type(body[0].value.value) is str


def _header_position(tree: ast.Module) -> tuple:
    """``(index, end line)`` of the header: after the docstring and the leading
    ``from __future__`` imports, which must stay first (line 0 if none)."""
    body = tree.body
    index = 1 if _has_docstring(tree) else 0
    while index < len(body) and isinstance(body[index], ast.ImportFrom) \
            and body[index].module == "__future__" and body[index].level == 0:
        index += 1
    return index, body[index - 1].end_lineno if index else 0


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _module_candidates(tree: ast.Module) -> frozenset:
    """Names bound by any import statement in the module (a cheap superset).

    Imports are statements, so only statement lists are walked: about a
    tenth of the time of walking every node."""
    names = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Import:
            for alias in node.names:
                names.add(alias.asname or alias.name.partition(".")[0])
        elif kind is ast.ImportFrom:
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name)
        else:
            for field in _STATEMENT_LISTS:
                children = getattr(node, field, None)
                if children:
                    stack.extend(children)
    return frozenset(names)


def resolve_module(kind: str, name: str, level: int, package: str) -> str:
    """Absolute module name for an import, relative ones against ``package``."""
    if not level:
        return name
    if not package:
        return "." * level + name
    parts = package.split(".")
    if level - 1 >= len(parts):
        return "." * level + name
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{name}" if name else base


def _is_excluded(module: str, excluding) -> bool:
    if not excluding or not module:
        return False
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in excluding:
            return True
    return False


class deep_recursion:
    """Allow the walk to follow very deep expressions (a generated file with a
    sum of thousands of terms) that ``compile()`` accepts.  From 3.11 on,
    Python-to-Python calls do not use the C stack, so a higher limit is safe."""

    def __enter__(self):
        self.limit = sys.getrecursionlimit()
        if sys.version_info >= (3, 11) and self.limit < 100_000:
            sys.setrecursionlimit(100_000)

    def __exit__(self, *exc_info):
        sys.setrecursionlimit(self.limit)


def plan_module(tree: ast.Module, *, module: str = "", is_package: bool = False,
                excluding=None, source: str | bytes | None = None,
                extensions: frozenset = frozenset()) -> Plan:
    """Plan the rewrite of one module: a verdict for every imported name.

    :param source: the module's source, for the comments that mark an import
        as intentionally unused (``# noqa``); without it none are seen.
    :param excluding: module names whose own imports stay eager: an excluded
        module is not rewritten at all, as the import hook leaves it plain.
    :param extensions: for a package, the names of its submodules that are
        extension modules (:func:`lazify._sources.extension_submodules`).
    """
    future_annotations = any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body[:20])
    candidates = _module_candidates(tree)
    walker = _Walker(candidates, future_annotations)
    with deep_recursion():
        walker.visit_module(tree)

    package = module if is_package else module.rpartition(".")[0]
    excluded = _is_excluded(module, excluding)
    doctest_names = _doctest_names(walker.docstring_sources) if walker.docstring_sources else set()

    # Names bound by more than one distinct import (other than the
    # ``import a.b`` / ``import a.c`` family, which accumulates) are rebound.
    signatures = {}
    for site in walker.sites:
        if site.module_scope:
            for bound, _imported, _asname, signature in site.bindings:
                if signature is not None:
                    signatures.setdefault(bound, set()).add(signature)
    multiply_bound = {
        bound for bound, sigs in signatures.items()
        if len(sigs) > 1 and not all(sig[0] == "import" for sig in sigs)}

    # Resolve loads; find class-shadowing reads.
    class_shadow = set()
    global_loads = {}
    for load in walker.loads:
        state = _resolve(load)
        if state is _SHADOW:
            class_shadow.add(load.name)
        if state:
            global_loads.setdefault(load.name, []).append(load)

    # Namespace reads in functions: valid where the builtins they name are
    # the builtins (not a module's own ``eval``, nor a parameter ``globals``).
    reads = []
    for kind, node, function, key, callee, needs, consumer, scope, index in walker.ns_reads:
        if callee is not None and not _is_builtin(callee, scope, index, walker):
            if callee in walker.candidates and callee not in walker.module_bound \
                    and _resolve(_Load(callee, None, scope, index, False)):
                # a module-level import binds it: ``from builtins import eval``
                walker.dynamic = min(walker.dynamic or node.lineno, node.lineno)
            continue        # the module's own ``eval``, a parameter ``globals``
        if kind == "unfollowed" or not all(_is_builtin(name, scope, index, walker)
                                           for name in needs):
            walker.dynamic = min(walker.dynamic or node.lineno, node.lineno)
            continue
        if consumer is not None and not _is_builtin(consumer, scope, index, walker):
            kind, key = "globals", None
        reads.append(NamespaceRead(kind=kind, span=_span(node), function=function, key=key))
    for name, scope, index, line in walker.value_reads:
        if _is_builtin(name, scope, index, walker):
            walker.dynamic = min(walker.dynamic or line, line)
    # which lazy names each function's reads may import: (function, line)
    readers_all = {}
    readers_of = {}
    for read in reads:
        if read.kind in ("names", "contains"):
            continue
        readers = readers_all if read.kind != "lookup" or read.key is None \
            else readers_of.setdefault(read.key, {})
        readers.setdefault(read.function, read.span[0])

    # Verdicts.
    markers = _UnusedMarkers(source)
    imports = []
    lazy_names = set()
    for site in walker.sites:
        node = site.node
        is_from = isinstance(node, ast.ImportFrom)
        # PEP 810 (3.15+): the interpreter defers it whatever lazify would say
        explicit = bool(getattr(node, "is_lazy", 0))
        names = []
        for bound, imported, asname, signature in site.bindings:
            if is_from:
                target = resolve_module("from", node.module or "", node.level, package)
            else:
                target = imported
            unused = (bound not in global_loads and bound not in walker.annotation_names
                      and bound not in walker.exported)
            if explicit:
                reason = None
            else:
                reason = _reason(site, node, bound, target, is_from,
                                 excluded=excluded, walker=walker,
                                 multiply_bound=multiply_bound, is_package=is_package,
                                 package=package, doctest_names=doctest_names,
                                 class_shadow=class_shadow)
                if reason is None:
                    reason = _hazard(site, node, bound, target, is_from, unused, package,
                                     is_package, walker, signatures, markers, extensions,
                                     imported)
            loads = global_loads.get(bound, ()) if reason is None else ()
            at_import = [ld.node.lineno for ld in loads if ld.at_import]
            mentioned = bound in walker.annotation_names
            in_annotations = reason is None and not explicit and mentioned
            resolved_by = ()
            if reason is None and not explicit and (readers_all or bound in readers_of):
                resolved_by = tuple(sorted(
                    {**readers_all, **readers_of.get(bound, {})}.items(),
                    key=lambda item: (item[1], item[0])))
            names.append(ImportedName(
                name=bound, imported=imported, asname=asname, module=target, lazy=reason is None,
                reason=reason, used_at_import=min(at_import) if at_import else None,
                unused=reason is None and unused and not resolved_by,
                in_annotations=in_annotations, explicit=explicit, resolved_by=resolved_by))
            if reason is None and not explicit:
                lazy_names.add(bound)
        imports.append(ImportSite(
            span=_span(node), kind="from" if is_from else "import",
            from_module=(node.module or "") if is_from else "",
            level=node.level if is_from else 0, names=tuple(names)))

    references = []
    templates = {}
    for name in sorted(lazy_names):
        for ld in global_loads.get(name, ()):
            if ld.template is None:
                references.append(
                    Reference(name=ld.name, span=_span(ld.node), at_import=ld.at_import))
            else:
                templates.setdefault(ld.template, set()).add(name)
    references = tuple(sorted(references, key=lambda ref: ref.span))
    unconditional = {bound for site in walker.sites if not site.in_block
                     for bound, _imported, _asname, _sig in site.bindings}
    fallback_names = tuple(sorted(
        name for name in lazy_names
        if name in _BUILTIN_NAMES or name not in unconditional))
    has_star = any(site.is_star for site in imports)
    rewrite = not excluded and not walker.uses_reserved \
        and bool(lazy_names or has_star or is_package)
    owners = []
    if rewrite:
        for kind, span, mentioned in walker.owners.values():
            names = mentioned & lazy_names
            if names:
                owners.append(AnnotationOwner(kind=kind, span=span, names=tuple(sorted(names))))
    header_index, header_after_line = _header_position(tree)
    return Plan(
        module=module, is_package=is_package, imports=tuple(imports),
        references=references if rewrite else (),
        chain_after=tuple(walker.chain_after) if rewrite else (),
        getattr_prologues=tuple(
            GetattrPrologue(span=span, param=param, after_docstring=doc)
            for span, param, doc in walker.getattr_prologues
        ) if rewrite else (),
        header_index=header_index, header_after_line=header_after_line,
        fallback_names=fallback_names if rewrite else (), rewrite=rewrite,
        annotation_owners=tuple(sorted(owners, key=lambda owner: owner.span)),
        templates=tuple(TemplateString(span=span, names=tuple(sorted(names)))
                        for span, names in sorted(templates.items())) if rewrite else (),
        namespace_reads=tuple(reads) if rewrite and lazy_names else ())


_SHADOW = 2

#: comments by which an author says an unused import is there on purpose
#: (flake8/ruff, pylint, pyright, isort), lower-cased
_UNUSED_MARKERS = (b"noqa", b"unused-import", b"reportunusedimport", b"isort: skip",
                   b"isort:skip")


class _UnusedMarkers:
    """Whether an import statement's lines carry a comment marking it unused on purpose."""

    def __init__(self, source):
        if isinstance(source, str):
            source = source.encode("utf-8", "surrogatepass")
        self.source = source
        self.lines = None

    def __call__(self, node) -> bool:
        if not self.source:
            return False
        if self.lines is None:
            # the lines ast counts: \r\n, \r and \n end a line (not \f, \v, ...)
            self.lines = self.source.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        text = b"\n".join(self.lines[node.lineno - 1:node.end_lineno])
        comment = text.find(b"#")
        if comment < 0:
            return False
        text = text[comment:].lower()
        return any(marker in text for marker in _UNUSED_MARKERS)


def _own_submodule(target, package):
    """The name of the package's own submodule ``target`` lies in, or None."""
    if package and target.startswith(package + "."):
        return target[len(package) + 1:].partition(".")[0]
    return None


def _hazard(site, node, bound, target, is_from, unused, package, is_package, walker,
            signatures, markers, extensions, imported):
    """Why an import PEP 690 would make lazy must stay eager for the program to
    work: it shows that importing it matters, or that its import must happen
    where it is written."""
    if is_package and extensions:
        sub = _own_submodule(target, package)
        if sub is None and is_from and target == package:
            sub = imported                              # from . import sub
        if sub in extensions:
            # pandas._libs.tslibs: its extension modules import each other in C,
            # where nothing is deferred, and rely on the order the package
            # imports them
            return Reason.EXTENSION_MODULE
    if is_package:
        sub = _own_submodule(target, package)
        if sub is not None and sub != bound and (
                sub in walker.module_bound or sub in signatures):
            # ``from .duration import Duration`` then ``def duration``: the submodule,
            # imported later, would replace the package's own ``duration``
            return Reason.SHADOWED_SUBMODULE
    if not unused:
        return None
    if markers(node):
        # ``from . import events  # noqa``: kept for what importing it does
        return Reason.SIDE_EFFECTS
    if is_package and (
            (is_from and target == package) or (not is_from and _own_submodule(target, package))):
        # a package __init__ importing its own submodule and never reading it:
        # the submodule registers itself (alembic's dialects in alembic.ddl)
        return Reason.SIDE_EFFECTS
    return None

_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


def _is_builtin(name, scope, class_index, walker) -> bool:
    """Whether ``name`` read in ``scope`` is the builtin: bound nowhere on the
    way up, neither at module level nor by any import."""
    if name in walker.module_bound or name in walker.candidates:
        return False
    return bool(_resolve(_Load(name, None, scope, class_index, False)))


def _resolve(load: _Load):
    """True (or _SHADOW) when the load reads the module-level name."""
    name = load.name
    scope = load.scope
    if scope.kind == _MODULE or name in scope.global_decl:
        return True
    if scope.kind == _CLASS:
        if name in scope.nonlocal_decl:
            return False
        if name in scope.bound:
            first = scope.class_first_bind.get(name)
            if first is not None and load.class_index > first:
                return False  # reads the class attribute
            return _SHADOW
    elif name in scope.bound or name in scope.nonlocal_decl:
        return False
    parent = scope.parent
    while parent.kind != _MODULE:
        if parent.kind != _CLASS and name not in parent.global_decl and (
                name in parent.bound or name in parent.nonlocal_decl):
            return False
        parent = parent.parent
    return True


def _reason(site, node, bound, target, is_from, *, excluded, walker, multiply_bound,
            is_package, package, doctest_names, class_shadow):
    if bound == "*":
        return Reason.STAR
    if is_from and node.module == "__future__" and node.level == 0:
        return Reason.FUTURE
    if site.context is not None:
        return site.context
    if excluded:
        return Reason.EXCLUDED
    if walker.uses_reserved or (bound.startswith("__") and bound.endswith("__")):
        return Reason.RESERVED_NAME
    if walker.dynamic is not None:
        return Reason.DYNAMIC_NAMESPACE
    if bound in walker.module_rebinds or bound in multiply_bound:
        return Reason.REBOUND
    if is_from and is_package and (
            (node.level == 1 and node.module == bound)
            or (package and target == f"{package}.{bound}")):
        # ``from .x import x`` (or ``... as x``) in a package __init__: any
        # later ``import pkg.x`` sets ``pkg.x`` to the submodule.
        return Reason.SUBMODULE_NAME
    if bound in walker.eager_annotation_names:
        return Reason.DEFERRED_ANNOTATION
    if bound in doctest_names:
        return Reason.DOCTEST
    if bound in class_shadow:
        return Reason.CLASS_SHADOW
    return None
