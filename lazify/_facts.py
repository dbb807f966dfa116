"""What a module's source says, for the planner: one walk over its ``ast``.

:func:`gather` walks the module once.  The walker dispatches on node types and keeps
the traversal's own state (the statement being visited, the enclosing functions, the
construct that keeps an import eager); three units keep the facts:

- :class:`_Scopes`: the compiler's scope rules applied to the ``ast``: where each name
  is bound, and which loads read a module-level name;
- :class:`_AnnotationFacts`: the names in annotations, and the functions, classes and
  module whose annotations can import lazy names when they are read;
- :class:`_NamespaceUse`: how the module reads its own namespace (``globals()``,
  ``eval``, ``f_globals``): at import time (every import stays eager) or in functions.

The result is one frozen :class:`ModuleFacts`, which the planner's reason functions
read.  Built from ``ast`` alone (no libcst, no importlib): the import hook runs this on
every cache miss.
"""

from __future__ import annotations

import ast
import sys
from ast import AST

from ._ast_walk import walk as walk
from ._entry_points import NAMESPACE
from ._patches import patch_readers
from ._reasons import Reason
from ._record import record

Span = tuple  # (lineno, col_offset, end_lineno, end_col_offset)

# The compiler's own scope rules, applied to the ``ast``: symtable's layout
# changes between versions (3.12 inlines comprehensions, adds type-parameter
# scopes), so matching its tables to AST nodes is brittle; tests check this
# analysis against symtable instead.

_MODULE, _FUNCTION, _CLASS, _COMPREHENSION = range(4)

#: what a load reads (:meth:`_Scopes.reads`): a local or enclosing name; the
#: module-level name; the module-level name, in a class body that binds the same
#: name later (or only conditionally), which then shadows it there
_NOT_GLOBAL, _GLOBAL, _GLOBAL_BEFORE_CLASS_BINDING = range(3)

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
    """One module, function, class or comprehension scope and what it binds."""

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


@record(frozen=False)
class _Load:
    """A read of a name some import binds, in ``scope``."""

    name: str
    node: object
    scope: _Scope
    class_index: int
    #: runs while the module is imported (not in a function, not under
    #: ``if __name__ == "__main__":``)
    at_import: bool
    #: span of the t-string whose interpolation text holds it, or None
    template: Span | None = None
    #: index in the module body of the top-level statement holding it, when it runs
    #: whenever the module is imported: outside any block, try, with, function,
    #: lambda, annotation, conditional expression's branch, right side of
    #: ``and``/``or`` and generator expression but its first iterable (a class body,
    #: decorator, default or list, set or dict comprehension there counts); None
    #: otherwise
    unconditional: int | None = None


@record(frozen=False)
class _Site:
    """An import statement found by the walk, before verdicts."""

    node: object
    #: the outermost construct that keeps it eager, or None
    context: object
    #: whether it binds module-level names (top level, try, with, if ...)
    module_scope: bool
    #: inside an if/for/while/match block: it may never run
    in_block: bool
    #: the branches of module-level ``if`` statements it is in (see exclusive())
    branch: tuple
    #: (bound name, what it imports, asname or None, signature) per alias, filled
    #: by the walk
    bindings: list
    #: index in the module body of the top-level statement holding it
    top_index: int = -1


def exclusive(branch, other) -> bool:
    """Whether two module-level statements can never both run: they sit in
    different branches (``if`` / ``elif`` / ``else``) of the same ``if``.  A
    branch is a tuple of (id of the ``if`` node, 0 for its body or 1 for its
    ``else``) from the outside in; None (a binding inside a function) is
    exclusive with nothing."""
    if branch is None or other is None:
        return False
    for mine, theirs in zip(branch, other):
        if mine != theirs:
            return mine[0] == theirs[0]
    return False


def _operands(node):
    """The nodes below ``node`` (and itself) that are not leaves of the grammar
    (expression contexts, operators): where names and constants are, in a quarter
    less time than :func:`walk`."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = _child_fields(type(node))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                stack.append(value)


def node_span(node) -> Span:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


@record
class ModuleFacts:
    """Everything the planner's reason functions know about one module."""

    #: the planner's inputs: the module name, whether it is a package, its
    #: package, whether ``excluding`` names it, its extension submodules
    module: str
    is_package: bool
    package: str
    excluded: bool
    extensions: frozenset
    #: whether an import statement carries a comment marking it unused on purpose
    marked_unused: object
    #: the import statements, in source order (:class:`_Site`)
    sites: tuple
    #: name -> the loads that read the module-level name (:class:`_Load`)
    global_loads: dict
    #: names a class body reads as the global before binding them itself
    class_shadow: frozenset
    #: every name bound at module scope other than by an import -> first line
    module_bound: dict
    #: names some import binds that are bound otherwise too -> ((line, branch of
    #: that binding or None when it is in a function), ...)
    module_rebinds: dict
    #: bound name -> the distinct imports that bind it at module scope
    signatures: dict
    #: bound name -> ((signature, branch), ...) of every import binding it at
    #: module scope, when more than one distinct import binds it
    #: (``import a.b``/``import a.c`` accumulate and do not count: see rebinds())
    multiply_bound: dict
    #: the module binds or reads ``__lazy__`` itself
    uses_reserved: bool
    #: first line that reads the module's namespace at import time, or None
    dynamic: int | None
    #: names in annotations, and those no owner can make import on read
    annotation_names: frozenset
    eager_annotation_names: frozenset
    #: names listed in ``__all__``
    exported: frozenset
    #: names read by ``>>>`` examples in docstrings
    doctest_names: frozenset
    #: (kind, span, names) per function, class or module whose deferred
    #: annotations name imported names (see :class:`lazify._plan.AnnotationOwner`)
    owners: tuple
    #: statements after which ``__getattr__`` is bound other than by a def
    #: with a prologue
    chain_after: tuple
    #: (span, parameter, after docstring) per module-level ``def __getattr__``
    getattr_prologues: tuple
    #: (kind, span, function, key) per read of the module's namespace in a
    #: function (see :class:`lazify._plan.NamespaceRead`)
    namespace_reads: tuple
    #: (span, (owner kind, owner span), imported names, ids of their Name nodes)
    #: per annotation evaluated at import time that could be evaluated when its
    #: owner's annotations are read (:class:`lazify._plan.DeferredAnnotation`)
    evaluated_annotations: tuple = ()
    #: imported name -> line of the patch, for the names a function the module installs
    #: into the import system reads (:func:`lazify._patches.patch_readers`)
    patch_readers: dict = None


def gather(tree: ast.Module, *, module: str = "", is_package: bool = False, excluding=None,
           source=None, extensions: frozenset = frozenset(), portable: bool = False) -> ModuleFacts:
    """Walk ``tree`` once and return what the planner needs to know about it.

    :param portable: the facts of source meant to run on every supported Python
        (``lazify rewrite``/``diff``): annotations follow the rules of 3.10-3.13
        (evaluated where written), whichever Python plans, and a class body's
        annotations owner is the runtime's ``__lazy_annotate__``, which adapts to the
        Python it runs on (:class:`_AnnotationFacts`).
    """
    future_annotations = any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body[:20])
    walker = _Walker(_module_candidates(tree), future_annotations, portable)
    with deep_recursion():
        walker.visit_module(tree)
    scopes, namespace, annotations = walker.scopes, walker.namespace, walker.annotations

    signatures = {}
    binders = {}
    for site in walker.sites:
        if site.module_scope:
            for bound, _imported, _asname, signature in site.bindings:
                if signature is not None:
                    signatures.setdefault(bound, set()).add(signature)
                    binders.setdefault(bound, []).append((signature, site.branch))
    multiply_bound = {
        bound: tuple(binders[bound]) for bound, sigs in signatures.items()
        if len(sigs) > 1 and not all(sig[0] == "import" for sig in sigs)}

    class_shadow = set()
    global_loads = {}
    for load in scopes.loads:
        reads = scopes.reads(load)
        if reads == _GLOBAL_BEFORE_CLASS_BINDING:
            class_shadow.add(load.name)
        if reads != _NOT_GLOBAL:
            global_loads.setdefault(load.name, []).append(load)

    evaluated = []
    for node, owner, loads, scope, class_index in annotations.evaluated:
        names = {sub.id for sub in _operands(node) if type(sub) is ast.Name}
        imported = {load.name for load in loads}
        # every name the module's (an import's) or the builtin one, read from
        # the scope a lambda there would read it from: never a class attribute
        if all(scopes.reads(load) == _GLOBAL for load in loads) and all(
                name in imported or scopes.is_builtin(name, scope, class_index)
                for name in names):
            evaluated.append((node_span(node), (owner[0], owner[1]), frozenset(imported),
                              frozenset(id(load.node) for load in loads)))
    reads = namespace.resolve(scopes)
    sources = walker.docstring_sources
    return ModuleFacts(
        module=module, is_package=is_package,
        package=module if is_package else module.rpartition(".")[0],
        excluded=_is_excluded(module, excluding), extensions=extensions,
        marked_unused=_UnusedMarkers(source), sites=tuple(walker.sites),
        global_loads=global_loads, class_shadow=frozenset(class_shadow),
        module_bound=scopes.module_bound,
        module_rebinds={name: tuple(binds) for name, binds in scopes.module_rebinds.items()},
        signatures=signatures, multiply_bound=multiply_bound,
        uses_reserved=scopes.uses_reserved, dynamic=namespace.dynamic,
        annotation_names=frozenset(annotations.names),
        eager_annotation_names=frozenset(annotations.eager_names),
        exported=frozenset(walker.exported),
        doctest_names=frozenset(_doctest_names(sources, walker.scopes.candidates)
                                if sources else ()),
        owners=tuple(annotations.owners.values()), chain_after=tuple(walker.chain_after),
        getattr_prologues=tuple(walker.getattr_prologues), namespace_reads=reads,
        evaluated_annotations=tuple(evaluated),
        patch_readers=patch_readers(tree, walker.sites, walker.attribute_stores, global_loads,
                                    scopes.module_bound)
        if walker.attribute_stores else {})


class _Scopes:
    """The scopes of the walk and their bindings, and the loads of names some import
    binds, resolved (:meth:`reads`) once every binding is known."""

    def __init__(self, candidates: frozenset):
        #: names bound by any import statement of the module
        self.candidates = candidates
        self.module = self.current = _Scope(_MODULE, None, True)
        self.loads = []
        self.module_bound = {}
        self.module_rebinds = {}
        self.uses_reserved = False
        #: the module-level ``if`` branches the walk is in (see exclusive())
        self.branch = ()

    def enter(self, kind, at_import) -> _Scope:
        scope = self.current = _Scope(kind, self.current, at_import)
        return scope

    def leave(self, scope) -> None:
        self.current = scope.parent

    def bind(self, name: str, lineno: int) -> bool:
        """Bind ``name`` in the current scope; True when that is module scope itself."""
        scope = self.current
        if name == NAMESPACE:
            self.uses_reserved = True
        if scope.kind == _COMPREHENSION:
            scope.bound.add(name)
            return False
        if scope.kind == _MODULE or name in scope.global_decl:
            self.module_bound.setdefault(name, lineno)
            if name in self.candidates:
                self.module_rebinds.setdefault(name, []).append(
                    (lineno, self.branch if scope.kind == _MODULE else None))
            return scope.kind == _MODULE
        scope.bound.add(name)
        if scope.kind == _CLASS and scope.direct:
            scope.class_first_bind.setdefault(name, scope.stmt_index)
        return False

    def bind_walrus(self, name: str, lineno: int) -> bool:
        """``(name := ...)``: binds in the nearest enclosing non-comprehension scope."""
        saved = self.current
        while self.current.kind == _COMPREHENSION:
            self.current = self.current.parent
        try:
            return self.bind(name, lineno)
        finally:
            self.current = saved

    def bind_import(self, name: str, lineno: int) -> bool:
        """An import binds ``name``; True when it binds it at module scope."""
        scope = self.current
        if name == NAMESPACE:
            self.uses_reserved = True
        if scope.kind == _MODULE:
            return True
        if name in scope.global_decl:
            # An import in a function that declares the name global rebinds the
            # module-level name.
            if name in self.candidates:
                self.module_rebinds.setdefault(name, []).append((lineno, None))
        elif scope.kind != _COMPREHENSION:
            scope.bound.add(name)
            if scope.kind == _CLASS and scope.direct:
                scope.class_first_bind.setdefault(name, scope.stmt_index)
        return False

    def delete_in_class(self, name: str) -> None:
        """After ``del name`` in a class body, a read finds the global again."""
        if self.current.kind == _CLASS:
            self.current.class_first_bind[name] = _NEVER

    def load(self, name: str, node, at_import: bool, template, unconditional=None) -> None:
        scope = self.current
        self.loads.append(_Load(name, node, scope, scope.stmt_index, at_import, template,
                                unconditional))

    @staticmethod
    def reads(load: _Load) -> int:
        """What the load reads: ``_NOT_GLOBAL``, ``_GLOBAL`` or
        ``_GLOBAL_BEFORE_CLASS_BINDING``."""
        name = load.name
        scope = load.scope
        if scope.kind == _MODULE or name in scope.global_decl:
            return _GLOBAL
        if scope.kind == _CLASS:
            if name in scope.nonlocal_decl:
                return _NOT_GLOBAL
            if name in scope.bound:
                first = scope.class_first_bind.get(name)
                if first is not None and load.class_index > first:
                    return _NOT_GLOBAL  # reads the class attribute
                return _GLOBAL_BEFORE_CLASS_BINDING
        elif name in scope.bound or name in scope.nonlocal_decl:
            return _NOT_GLOBAL
        parent = scope.parent
        while parent.kind != _MODULE:
            if parent.kind != _CLASS and name not in parent.global_decl and (
                    name in parent.bound or name in parent.nonlocal_decl):
                return _NOT_GLOBAL
            parent = parent.parent
        return _GLOBAL

    def is_builtin(self, name, scope, class_index) -> bool:
        """Whether ``name`` read in ``scope`` is the builtin: bound nowhere on the
        way up, neither at module level nor by any import."""
        if name in self.module_bound or name in self.candidates:
            return False
        return self.reads(_Load(name, None, scope, class_index, False)) != _NOT_GLOBAL


class _AnnotationFacts:
    """The names annotations mention, and who can make them import on read."""

    def __init__(self, future_annotations: bool, portable: bool = False):
        #: the rules of 3.14+ (PEP 649/749) apply: the running Python's, unless the
        #: facts are for portable source (``gather(portable=True)``)
        self.rules649 = _PEP649 and not portable
        #: annotations are not evaluated where they are written
        self.deferred = future_annotations or self.rules649
        #: they are evaluated by ``__annotate__`` functions (3.14+, no
        #: ``from __future__ import annotations``)
        self.pep649 = self.rules649 and not future_annotations
        #: the owner kind of a class body's annotations evaluated where written:
        #: "class" (``__annotations__ = __lazy__.__lazy_annotations__(...)``, which
        #: 3.14+ cannot run without the __future__ import: no ``__annotations__`` in
        #: the class namespace), or for portable source "annotate", whose runtime
        #: call wraps the class body's ``__annotations__`` before 3.14 and gives the
        #: class an importing ``__annotate__`` on 3.14+
        self.class_kind = "annotate" if portable and not future_annotations else "class"
        self.names = set()
        #: names in annotations no owner can wrap (module level, or a class
        #: body's nested block): they stay eager
        self.eager_names = set()
        #: id(def or class node), or "module" -> [kind, span, names] for
        #: wrappable owners
        self.owners = {}
        #: the owner whose annotations are being visited, or None
        self.owner = None
        #: annotations evaluated where they are written (before 3.14, without
        #: the __future__ import) that could be evaluated on read instead:
        #: (annotation node, owner, loads, scope, class index)
        self.evaluated = []

    def own(self, key, kind, span):
        """Make the owner ``key`` current; return the previous one."""
        outer = self.owner
        owner = self.owners.get(key)
        if owner is None:
            owner = self.owners[key] = [kind, span, set()]
        self.owner = owner
        return outer

    def deferred_names(self, node):
        names = self.eager_names if self.owner is None else self.owner[2]
        for sub in _operands(node):
            if isinstance(sub, ast.Name):
                self.names.add(sub.id)
                names.add(sub.id)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                self.string(sub.value)

    def string(self, text: str):
        """A string annotation: the names of the expression it holds."""
        expr = _parse_quietly(text.strip(), "eval")
        if expr is None:
            for word in _words(text):
                self.deferred_names(ast.Name(id=word, ctx=ast.Load()))
            return
        self.deferred_names(expr)

    def forward_ref(self, node):
        """A string outside annotations that typing evaluates later: its names
        stay eager, since no annotations dict stands between it and the
        module's globals."""
        if type(node) is ast.Constant and type(node.value) is str:
            outer, self.owner = self.owner, None
            self.string(node.value)
            self.owner = outer

    def shown_as_written(self, node, params):
        """3.14+: a type alias's value or a type parameter's bound, constraints or
        default.  annotationlib evaluates it with fake globals for its STRING and
        FORWARDREF formats, where a routed read shows as ``__lazy__.x``, and no
        function stands between it and the module's globals to import first: the
        names it reads stay eager."""
        for sub in walk(node):
            if type(sub) is ast.Name and sub.id not in params:
                self.eager_names.add(sub.id)


def _narrowing(test, body):
    """``(name, strings)`` when ``test`` is ``name in ("a", "b")`` (a tuple, list or set
    of string constants) or ``name == "a"`` and ``body`` binds ``name`` nowhere:
    there ``name`` is one of those strings.  Else None."""
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.left) is not ast.Name:
        return None
    op, right = test.ops[0], test.comparators[0]
    if type(op) is ast.In and type(right) in (ast.Tuple, ast.List, ast.Set):
        values = right.elts
    elif type(op) is ast.Eq:
        values = [right]
    else:
        return None
    if not values or not all(type(v) is ast.Constant and type(v.value) is str for v in values):
        return None
    name = test.left.id
    for stmt in body:
        for node in walk(stmt):
            kind = type(node)
            if kind in _NEW_SCOPES:
                return None                  # a closure could read it later, changed
            if (kind is ast.Name and node.id == name and type(node.ctx) is not ast.Load) \
                    or (kind in (ast.Global, ast.Nonlocal) and name in node.names) \
                    or (kind in (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)
                        and node.name == name) \
                    or (kind is ast.MatchMapping and node.rest == name) \
                    or (kind is ast.alias
                        and (node.asname or node.name.partition(".")[0]) == name):
                return None
    return name, tuple(sorted({v.value for v in values}))


_NEW_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


#: names the rewrite binds in a module's namespace: the header's ``__lazy__``, and the
#: PEP 562 hooks the runtime installs while names are pending
_REWRITE_BINDS = frozenset({NAMESPACE, "__getattr__", "__dir__"})


class _NamespaceUse:
    """How the module reads its own namespace.

    At import time (module level, class bodies, decorators, defaults) a read of
    the module's namespace keeps every import eager (dynamic-namespace).  Inside
    a function it becomes a NamespaceRead: the walker marks how the expression
    around a ``globals()`` call uses the dict before the call itself is visited.
    """

    def __init__(self, candidates=frozenset()):
        #: names bound by any import statement of the module
        self.candidates = candidates
        #: first line that reads the namespace at import time
        self.dynamic = None
        #: ids of globals() calls that only write
        self.harmless_calls = set()
        #: id(globals() call) -> (kind, key, consumer builtin or None): how the
        #: expression around it reads the dict (marked before it is visited)
        self.forms = {}
        #: reads in functions, checked once all bindings are known: (kind, node,
        #: function, key, callee, builtins it needs, consumer, scope, class index)
        self.reads = []
        #: ``globals`` read as a value: (name, scope, class index, line)
        self.value_reads = []
        #: ids of the Name nodes ``globals`` is called by
        self.call_funcs = set()
        #: name -> the ``globals()`` call of a module-level ``name = globals()``,
        #: harmless while the name is only written through (``name[k] = v``, ``del
        #: name[k]``, as inspect does): any other read of the name reads the dict
        self.aliases = {}
        #: ids of the Name nodes of those writes
        self.alias_writes = set()
        #: name -> the strings it can be, in the body of an ``if`` that tests it
        #: against them and does not bind it (see :func:`_narrowing`)
        self.narrowed = {}

    def at_import(self, node):
        if self.dynamic is None:
            self.dynamic = node.lineno

    def find_aliases(self, tree):
        """Record the statements ``name = globals()`` of the module's own body."""
        for stmt in tree.body:
            if type(stmt) is ast.Assign and len(stmt.targets) == 1 \
                    and type(stmt.targets[0]) is ast.Name and _is_globals_call(stmt.value):
                self.aliases[stmt.targets[0].id] = stmt.value
                self.harmless_calls.add(id(stmt.value))

    def alias_read(self, node: ast.Name):
        """A read of such a name other than a write through it: the dict escapes."""
        if id(node) not in self.alias_writes:
            self.at_import(self.aliases[node.id])

    def read(self, kind, node, function, key, callee, needs, consumer, scope):
        """A read in a function: ``callee`` (the builtin called, or None) must be
        the builtin for it to be one, and the builtins in ``needs`` for the
        rewrite to be exact."""
        self.reads.append((kind, node, function, key, callee, needs, consumer, scope,
                           scope.stmt_index))

    def mark(self, call, kind, key=None, consumer=None):
        """Record how the expression around the ``globals()`` call ``call`` uses it.

        The key: a string constant; a name an enclosing ``if name in ("a", "b"):``
        narrows, the tuple of those strings (prompt_toolkit's ``__getattr__``:
        ``if name in {"__version__", "VERSION"}: ... return globals()[name]``); else
        None, any key."""
        if type(key) is ast.Constant and type(key.value) is str:
            key = key.value
        elif type(key) is ast.Name and key.id in self.narrowed:
            key = self.narrowed[key.id]
        elif type(key) is ast.JoinedStr:
            key = _joined_keys(key, self.narrowed)
        else:
            key = None
        self.forms[id(call)] = (kind, key, consumer)

    def keys_only(self, node, consumer=None):
        """``node`` is iterated or given to a builtin that reads keys alone:
        if it is ``globals()`` or ``globals().keys()``, nothing needs importing."""
        if type(node) is ast.Call and type(node.func) is ast.Attribute \
                and node.func.attr == "keys" and not node.args and not node.keywords:
            node = node.func.value
        if _is_globals_call(node):
            self.mark(node, "names", None, consumer)

    def call(self, name, node: ast.Call, scope, function):
        """A call of ``globals``, ``vars``, ``locals``, ``dir``, ``eval`` or ``exec``."""
        positional = len(node.args)
        keywords = {kw.arg for kw in node.keywords}
        if name == "globals":
            kind, key, consumer = self.forms.get(id(node), ("globals", None, None))
            if not scope.at_import:
                self.read(kind, node, function, key, "globals", (), consumer, scope)
                return
            keys = (key,) if type(key) is str else key
            if kind in ("lookup", "contains") and keys is not None and consumer is None \
                    and not any(k in self.candidates or k in _REWRITE_BINDS for k in keys):
                # globals().get("__spec__") (six), "X" in globals(): a name no import
                # binds reads the same with the imports pending
                return
        elif name in ("locals", "dir", "vars"):
            # vars() is locals(): harmless in a function or class body
            if positional or keywords or scope.kind != _MODULE:
                return
        elif name in ("eval", "exec"):
            if _explicit_globals(node):
                return
            if not scope.at_import:
                if not keywords and 1 <= positional <= 3 \
                        and not any(type(arg) is ast.Starred for arg in node.args):
                    # eval(src[, None[, loc]]): the globals made explicit, and the
                    # caller's locals(), which eval uses when it is given none
                    self.read("eval", node, function, None, name,
                              ("locals",) if positional < 3 else (), None, scope)
                else:
                    # keywords or *args: no exact rewrite; dynamic if it is the builtin
                    self.read("unfollowed", node, function, None, name, (), None, scope)
                return
        self.at_import(node)

    def resolve(self, scopes: _Scopes) -> tuple:
        """``(kind, span, function, key, consumer)`` of the reads in functions that are
        reads of the builtins they name (not a module's own ``eval``, nor a parameter
        ``globals``); the others that cannot be followed make the module dynamic.
        ``consumer``: the builtin a "names" read is given to (``sorted``), or None."""
        reads = []
        for kind, node, function, key, callee, needs, consumer, scope, index in self.reads:
            if callee is not None and not scopes.is_builtin(callee, scope, index):
                if callee in scopes.candidates and callee not in scopes.module_bound \
                        and scopes.reads(_Load(callee, None, scope, index, False)) != _NOT_GLOBAL:
                    # a module-level import binds it: ``from builtins import eval``
                    self.dynamic = min(self.dynamic or node.lineno, node.lineno)
                continue        # the module's own ``eval``, a parameter ``globals``
            if kind == "unfollowed" or not all(scopes.is_builtin(name, scope, index)
                                               for name in needs):
                self.dynamic = min(self.dynamic or node.lineno, node.lineno)
                continue
            if consumer is not None and not scopes.is_builtin(consumer, scope, index):
                kind, key = "globals", None
            reads.append((kind, node_span(node), function, key,
                          consumer if kind == "names" else None))
        for name, scope, index, line in self.value_reads:
            if scopes.is_builtin(name, scope, index):
                self.dynamic = min(self.dynamic or line, line)
        return tuple(reads)


class _Walker:
    """One pass over the module: dispatches each node, and hands what it finds to
    the unit that keeps it (:class:`_Scopes`, :class:`_AnnotationFacts`,
    :class:`_NamespaceUse`); keeps the import sites and the traversal's state."""

    def __init__(self, candidates: frozenset, future_annotations: bool, portable: bool = False):
        self.scopes = _Scopes(candidates)
        self.annotations = _AnnotationFacts(future_annotations, portable)
        self.namespace = _NamespaceUse(candidates)
        self.sites = []
        #: statements after which ``__getattr__`` is bound other than by a def
        #: with a prologue
        self.chain_after = []
        self.getattr_prologues = []
        self.docstring_sources = []
        self.exported = set()
        self.context = []            # stack of eager-making constructs
        self.top_stmt = None         # the top-level statement being visited
        self.module_stmt = None      # innermost statement at module scope
        self.template = None         # span of the t-string whose interpolation text is visited
        self.in_annotation = False   # visiting an evaluated annotation
        self.function = []           # names of the enclosing defs and classes
        self.blocks = 0              # depth of if/for/while/match bodies
        self.top_index = -1          # index of the top-level statement being visited
        #: depth of the constructs whose code may not run when their statement does:
        #: if/for/while/match bodies, try, with, a conditional expression's branches,
        #: the right side of ``and``/``or``
        self.conditional = 0
        self.in_main = False         # inside ``if __name__ == "__main__":``
        #: (target, value or None, top-level statement) per attribute assignment or
        #: ``setattr`` whose target's root is a name some import binds (:mod:`._patches`)
        self.attribute_stores = []
    # -- traversal ---------------------------------------------------------

    def visit(self, node):
        handler = _DISPATCH.get(type(node))
        if handler is None:
            self.generic_visit(node)
        else:
            handler(self, node)

    def generic_visit(self, node):
        # visit() written out for each child: the walk's hottest loop, on every cache
        # miss (a call per node saved)
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = _child_fields(type(node))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is not list:
                if not isinstance(value, AST):
                    continue
                value = (value,)
            for item in value:
                if isinstance(item, AST):
                    handler = _DISPATCH.get(type(item))
                    if handler is None:
                        self.generic_visit(item)
                    else:
                        handler(self, item)

    def visit_body(self, body):
        """Visit statements; at module scope, remember the innermost one."""
        if self.scopes.current.kind == _MODULE:
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
        self.namespace.find_aliases(tree)
        self.module_stmt = None
        for index, stmt in enumerate(tree.body):
            self.top_stmt = self.module_stmt = stmt
            self.top_index = index
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
            self.namespace.keys_only(node.iter)
        scopes = self.scopes
        branches = type(node) is ast.If and scopes.current.kind == _MODULE
        for field in node._fields:
            value = getattr(node, field, None)
            if field in ("body", "orelse"):
                self.blocks += 1
                self.conditional += 1
                outer = scopes.branch
                if branches:
                    scopes.branch = outer + ((id(node), field == "orelse"),)
                narrowed = _narrowing(node.test, value) \
                    if type(node) is ast.If and field == "body" else None
                if narrowed is not None:
                    name, keys = narrowed
                    before = self.namespace.narrowed.get(name)
                    self.namespace.narrowed[name] = keys
                self.visit_body(value)
                if narrowed is not None:
                    if before is None:
                        del self.namespace.narrowed[name]
                    else:
                        self.namespace.narrowed[name] = before
                scopes.branch = outer
                self.conditional -= 1
                self.blocks -= 1
            elif field == "cases":
                self.blocks += 1
                self.conditional += 1
                for case in value:
                    self.visit(case.pattern)
                    if case.guard is not None:
                        self.visit(case.guard)
                    self.visit_body(case.body)
                self.conditional -= 1
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

    def _docstring(self, node):
        if has_docstring(node) and ">>>" in node.body[0].value.value:
            self.docstring_sources.append(node.body[0].value.value)

    # -- bindings ----------------------------------------------------------

    def bind(self, name: str, lineno: int):
        if self.scopes.bind(name, lineno):
            self._module_binds(name)

    def _module_binds(self, name):
        """A statement at module scope binds ``name``: one that binds ``__getattr__``
        gets a chain call after it, unless it is a def that gets a prologue."""
        if name == "__getattr__" and self.module_stmt is not None \
                and not self._prologue(self.module_stmt):
            self.chain_after.append(node_span(self.module_stmt))

    def _prologue(self, stmt) -> bool:
        """Record a prologue for ``def __getattr__(name)`` bound by ``stmt``."""
        if type(stmt) is not ast.FunctionDef or stmt.name != "__getattr__":
            return False
        params = [*stmt.args.posonlyargs, *stmt.args.args]
        if not params:
            return False
        self.getattr_prologues.append((node_span(stmt), params[0].arg, has_docstring(stmt)))
        return True

    def visit_Name(self, node: ast.Name):
        name = node.id
        ctx = type(node.ctx)
        if ctx is ast.Load:
            scope = self.scopes.current
            if name == NAMESPACE:
                self.scopes.uses_reserved = True
            elif name in _VALUE_BUILTINS and id(node) not in self.namespace.call_funcs:
                self.namespace.value_reads.append((name, scope, scope.stmt_index, node.lineno))
            elif name in self.namespace.aliases:
                self.namespace.alias_read(node)
            if name in self.scopes.candidates:
                at_import = scope.at_import and not self.in_main
                self.scopes.load(name, node, at_import, self.template,
                                 self.top_index if at_import and not self.conditional
                                 and not self.in_annotation else None)
            return
        self.bind(name, node.lineno)
        if ctx is ast.Del:
            self.scopes.delete_in_class(name)

    def visit_Global(self, node):
        self.scopes.current.global_decl.update(node.names)

    def visit_Nonlocal(self, node):
        self.scopes.current.nonlocal_decl.update(node.names)

    def visit_NamedExpr(self, node: ast.NamedExpr):
        self.visit(node.value)
        if self.scopes.bind_walrus(node.target.id, node.lineno):
            self._module_binds(node.target.id)

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
            self.scopes.uses_reserved = True
        if annotations:
            for param in params:
                if param.annotation is not None:
                    self.annotation(param.annotation, deferrable=True)
        return [param.arg for param in params]

    def annotation(self, node, deferrable=False):
        """An annotation: a load if evaluated now, else deferred names.

        ``deferrable``: evaluated at import time into an owner's annotations dict
        (a def's, a class body's), where the emitters can have it evaluated when
        the dict is read instead, if it is :func:`_pure_annotation` and its names
        allow (see :class:`lazify._plan.DeferredAnnotation`)."""
        if not self.annotations.deferred:
            outer, self.in_annotation = self.in_annotation, True
            scopes = self.scopes
            start = len(scopes.loads)
            self.visit(node)
            self.in_annotation = outer
            scope = scopes.current
            if deferrable and self.annotations.owner is not None and scope.at_import \
                    and not self.in_main and _pure_annotation(node):
                self.annotations.evaluated.append(
                    (node, self.annotations.owner, scopes.loads[start:], scope, scope.stmt_index))
            # String parts are still evaluated later by get_type_hints.
            for sub in _operands(node):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    self.annotations.string(sub.value)
        else:
            self.annotations.deferred_names(node)

    def _type_params(self, node):
        """PEP 695 bounds and constraints: evaluated lazily, in their own scope."""
        params = getattr(node, "type_params", None)
        if not params:
            return
        if self.annotations.rules649:
            names = {param.name for param in params}
            for param in params:
                for field in ("bound", "default_value"):
                    value = getattr(param, field, None)
                    if value is not None:
                        self.annotations.shown_as_written(value, names)
            return
        scope = self.scopes.enter(_FUNCTION, False)
        scope.bound.update(param.name for param in params)
        for param in params:
            self.generic_visit(param)
        self.scopes.leave(scope)

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        outer = self.annotations.own(id(node), "def", node_span(node))
        params = self._arguments(node.args, annotations=True)
        if node.returns is not None:
            self.annotation(node.returns, deferrable=True)
        self.annotations.owner = outer
        self._type_params(node)
        self.bind(node.name, node.lineno)
        outer_context = len(self.context)
        self.context.append(Reason.FUNCTION)
        scope = self.scopes.enter(_FUNCTION, False)
        scope.bound.update(params)
        for param in getattr(node, "type_params", ()) or ():
            scope.bound.add(param.name)
        self._docstring(node)
        self.function.append(node.name)
        self.visit_body(node.body)
        self.function.pop()
        self.scopes.leave(scope)
        del self.context[outer_context:]

    def visit_Lambda(self, node: ast.Lambda):
        params = self._arguments(node.args, annotations=False)
        self.context.append(Reason.FUNCTION)
        scope = self.scopes.enter(_FUNCTION, False)
        scope.bound.update(params)
        self.function.append("<lambda>")
        self.visit(node.body)
        self.function.pop()
        self.scopes.leave(scope)
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
        scope = self.scopes.enter(_CLASS, self.scopes.current.at_import)
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
        self.scopes.leave(scope)
        self.context.pop()

    def visit_comprehension(self, node):
        generators = node.generators
        for gen in generators:
            self.namespace.keys_only(gen.iter)
        self.visit(generators[0].iter)
        scope = self.scopes.enter(_COMPREHENSION, self.scopes.current.at_import)
        # a generator expression runs nothing but its first iterable where it is written
        lazy_body = type(node) is ast.GeneratorExp
        self.conditional += lazy_body
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
        self.conditional -= lazy_body
        self.scopes.leave(scope)

    def visit_TypeAlias(self, node):
        self.visit(node.name)
        self._type_params(node)
        if self.annotations.rules649:
            self.annotations.shown_as_written(
                node.value, {param.name for param in node.type_params})
            return
        scope = self.scopes.enter(_FUNCTION, False)
        for param in node.type_params:
            scope.bound.add(param.name)
        self.visit(node.value)
        self.scopes.leave(scope)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is not None:
            self.visit(node.value)
        scope = self.scopes.current
        if scope.kind == _FUNCTION:
            # ``x: int`` makes x local; the annotation is never evaluated.
            self.visit(node.target)
            return
        if node.value is not None or not isinstance(node.target, ast.Name):
            self.visit(node.target)  # ``x: int`` alone binds nothing here
        annotations = self.annotations
        if annotations.pep649:
            if not node.simple:
                # ``obj.attr: T``, ``(x): T``: 3.14 neither evaluates nor keeps it
                return
            # the class's or module's __annotate__ evaluates it, wherever
            # in the body (an if block included) it is written
            if scope.kind == _CLASS:
                outer = annotations.own(id(scope.node), "annotate", node_span(scope.stmt))
            else:
                outer = annotations.own("module", "annotate", node_span(self.top_stmt))
        elif scope.kind == _CLASS and scope.direct:
            # the first of these in a class body gets the statement that
            # makes its __annotations__ import on read
            outer = annotations.own(id(scope.node), annotations.class_kind, node_span(node))
        else:
            outer, annotations.owner = annotations.owner, None
        self.annotation(node.annotation,
                        deferrable=scope.kind == _CLASS and scope.direct and node.simple)
        annotations.owner = outer

    def visit_TemplateStr(self, node):
        """``t"..."`` (3.14+): reads in an interpolation's expression are part of
        its text (``Interpolation.expression``), so they are marked, not routed."""
        outer = self.template
        for value in node.values:
            if type(value) is ast.Interpolation:
                self.template = node_span(node) if outer is None else outer
                self.visit(value.value)
                self.template = outer
                if value.format_spec is not None:
                    self.visit(value.format_spec)
            else:
                self.visit(value)

    # -- eager-making constructs and import sites ----------------------------

    def visit_Try(self, node):
        self.context.append(Reason.TRY)
        self.conditional += 1
        self.visit_body(node.body)
        for handler in node.handlers:
            self.visit(handler)
        self.visit_body(node.orelse)
        self.visit_body(node.finalbody)
        self.conditional -= 1
        self.context.pop()

    def visit_With(self, node):
        self.context.append(Reason.WITH)
        self.conditional += 1
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
        self.visit_body(node.body)
        self.conditional -= 1
        self.context.pop()

    def visit_IfExp(self, node: ast.IfExp):
        self.visit(node.test)
        self.conditional += 1
        self.visit(node.body)
        self.visit(node.orelse)
        self.conditional -= 1

    def visit_BoolOp(self, node: ast.BoolOp):
        values = node.values
        self.visit(values[0])
        self.conditional += 1
        for value in values[1:]:
            self.visit(value)
        self.conditional -= 1

    def visit_Import(self, node):
        context = self.context
        # the outermost construct, unless a function is on the way: an import in a
        # method, or in a function defined in a try block, runs when it is called
        site = _Site(node, (Reason.FUNCTION if Reason.FUNCTION in context else context[0])
                     if context else None,
                     self.scopes.current.kind == _MODULE, self.blocks > 0, self.scopes.branch, [],
                     self.top_index)
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
            site.bindings.append((bound, alias.name, alias.asname, explicit + signature))
            if self.scopes.bind_import(bound, node.lineno) and bound == "__getattr__" \
                    and self.module_stmt is not None:
                self.chain_after.append(node_span(self.module_stmt))
        self.sites.append(site)

    # -- reads of the module's namespace (see _NamespaceUse) -------------------

    def _function_name(self) -> str:
        return ".".join(self.function) or "<module>"

    def visit_Call(self, node: ast.Call):
        func = node.func
        namespace = self.namespace
        if type(func) is ast.Name:
            if func.id in _VALUE_BUILTINS:
                namespace.call_funcs.add(id(func))
            if func.id in _DYNAMIC_CALLS and id(node) not in namespace.harmless_calls:
                namespace.call(func.id, node, self.scopes.current, self._function_name())
            elif func.id in _KEY_CONSUMERS and len(node.args) == 1 and not node.keywords:
                namespace.keys_only(node.args[0], func.id)
            elif func.id == "setattr" and len(node.args) == 3 \
                    and type(node.args[1]) is ast.Constant:
                target = node.args[0]
                while type(target) is ast.Attribute:
                    target = target.value
                if type(target) is ast.Name and target.id in self.scopes.candidates:
                    self.attribute_stores.append((node.args[0], node.args[2], self.top_stmt))
            elif func.id == "getattr" and len(node.args) >= 2 and _is_builtins_module(node.args[0]) \
                    and type(node.args[1]) is ast.Constant and node.args[1].value in _NAMESPACE_BUILTINS:
                namespace.at_import(node)         # getattr(builtins, "globals")
        elif type(func) is ast.Attribute and func.attr in ("eval", "exec") \
                and _is_builtins_module(func.value) and _explicit_globals(node):
            namespace.harmless_calls.add(id(func))           # builtins.exec(src, namespace)
        elif type(func) is ast.Attribute and func.attr == "get" and _is_globals_call(func.value) \
                and 1 <= len(node.args) <= 2 and not node.keywords \
                and not any(type(arg) is ast.Starred for arg in node.args):
            namespace.mark(func.value, "lookup", node.args[0])
        callee = _last_name(func)
        if callee in _LAZIFY_NAMESPACE_FUNCS:
            for arg in node.args:
                if _is_globals_call(arg):
                    namespace.harmless_calls.add(id(arg))
        elif callee in _FORWARD_REF_CALLS and not self.in_annotation:
            # cast("Bar", x), ForwardRef("Bar"), TypeVar("T", "Bar", bound="Bar")
            for arg in node.args[1:] if callee == "TypeVar" else node.args[:1]:
                self.annotations.forward_ref(arg)
            for keyword in node.keywords:
                if keyword.arg == "bound":
                    self.annotations.forward_ref(keyword.value)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare):
        if len(node.ops) == 1 and type(node.ops[0]) in (ast.In, ast.NotIn):
            right = node.comparators[0]
            if _is_globals_call(right):
                self.namespace.mark(right, "contains", node.left)
            else:
                self.namespace.keys_only(right)
        self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred):
        if type(node.ctx) is ast.Load:
            self.namespace.keys_only(node.value)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp):
        if type(node.op) in _KEY_SET_OPS:
            # globals().keys() | {...}: set operations on the keys (not dict | dict)
            for side in (node.left, node.right):
                if type(side) is ast.Call and type(side.func) is ast.Attribute \
                        and side.func.attr == "keys":
                    self.namespace.keys_only(side)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        if type(target) is ast.Subscript and type(target.value) is ast.Name \
                and target.value.id in self.namespace.aliases:
            self.namespace.alias_read(target.value)          # alias[k] += 1 reads k
        if type(target) is ast.Subscript and _is_globals_call(target.value) \
                and not self.scopes.current.at_import:
            # globals()[k] += 1 reads k first
            self.namespace.mark(target.value, "lookup", target.slice)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        value = node.value
        namespace = self.namespace
        if _is_globals_call(value):
            ctx = type(node.ctx)
            if ctx is ast.Load or (ctx is ast.Del and not self.scopes.current.at_import):
                namespace.mark(value, "lookup", node.slice)
            elif id(value) not in namespace.forms:
                namespace.harmless_calls.add(id(value))      # globals()[k] = v
        elif type(value) is ast.Name and value.id in namespace.aliases \
                and type(node.ctx) in (ast.Store, ast.Del):
            namespace.alias_writes.add(id(value))          # alias[k] = v, del alias[k]
        elif type(value) is ast.Name and value.id == "__builtins__" \
                and type(node.slice) is ast.Constant and node.slice.value in _NAMESPACE_BUILTINS:
            namespace.at_import(node)                      # __builtins__["eval"]
        elif not self.in_annotation and _looks_generic(value):
            # ``Alias = Optional["Bar"]``: a forward reference that
            # get_type_hints evaluates, wherever the alias is used
            elts = node.slice.elts if type(node.slice) in (ast.Tuple, ast.List) else (node.slice,)
            for elt in elts:
                self.annotations.forward_ref(elt)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        if type(node.ctx) is _STORE:
            root = node.value
            while type(root) is ast.Attribute:
                root = root.value
            if type(root) is ast.Name and root.id in self.scopes.candidates:
                # ``os.stat = checked``: maybe a patch of the import system (_patches)
                self.attribute_stores.append((node, None, self.top_stmt))
        attr = node.attr
        namespace = self.namespace
        if attr in _HARMLESS_GLOBALS_METHODS and _is_globals_call(node.value):
            namespace.harmless_calls.add(id(node.value))
        elif attr == "f_globals" and _is_own_frame_call(node.value):
            # sys._getframe().f_globals is globals() by another name
            scope = self.scopes.current
            if scope.at_import:
                namespace.at_import(node)
            else:
                namespace.read("frame", node, self._function_name(), None, None, (), None, scope)
        elif attr in _NAMESPACE_BUILTINS and _is_builtins_module(node.value) \
                and id(node) not in namespace.harmless_calls:
            namespace.at_import(node)                      # builtins.eval
        self.visit(node.value)          # its one child (``attr`` is a string)


_STORE = ast.Store


def _noop(walker, node):
    pass


#: fields that hold no node the walk visits: names, flags, and the expression
#: contexts and operators (leaves); ``name`` is a node only in a ``type`` statement,
#: ``value`` is none in a constant
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "conversion",
                          "type_comment", "simple", "is_async", "level", "module", "name",
                          "names", "asname", "kwd_attrs", "rest", "str", "is_lazy"})
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)
_CONSTANTS = (ast.Constant, ast.MatchSingleton)
#: node type -> the fields :meth:`_Walker.generic_visit` looks into (:func:`_child_fields`)
_CHILD_FIELDS = {}


def _child_fields(kind) -> tuple:
    fields = _CHILD_FIELDS[kind] = tuple(
        field for field in kind._fields
        if (field not in _LEAF_FIELDS or (field == "name" and kind is _TYPE_ALIAS))
        and not (field == "value" and kind in _CONSTANTS))
    return fields


#: the walker's handler per node type (functions taking the walker and the node); a
#: type not here is walked through (:meth:`_Walker.generic_visit`).  Kept out of the
#: walker itself: bound methods in its own dict made every walker a reference cycle,
#: so each module's tree stayed alive until the garbage collector found it
_DISPATCH = {
    ast.If: _Walker.visit_block, ast.For: _Walker.visit_block,
    ast.AsyncFor: _Walker.visit_block, ast.While: _Walker.visit_block,
    ast.Name: _Walker.visit_Name,
    ast.FunctionDef: _Walker.visit_FunctionDef,
    ast.AsyncFunctionDef: _Walker.visit_FunctionDef,
    ast.Lambda: _Walker.visit_Lambda,
    ast.ClassDef: _Walker.visit_ClassDef,
    ast.ListComp: _Walker.visit_comprehension,
    ast.SetComp: _Walker.visit_comprehension,
    ast.GeneratorExp: _Walker.visit_comprehension,
    ast.DictComp: _Walker.visit_comprehension,
    ast.NamedExpr: _Walker.visit_NamedExpr,
    ast.Global: _Walker.visit_Global,
    ast.Nonlocal: _Walker.visit_Nonlocal,
    ast.Import: _Walker.visit_Import,
    ast.ImportFrom: _Walker.visit_Import,
    ast.Try: _Walker.visit_Try,
    ast.IfExp: _Walker.visit_IfExp,
    ast.BoolOp: _Walker.visit_BoolOp,
    ast.With: _Walker.visit_With,
    ast.AsyncWith: _Walker.visit_With,
    ast.ExceptHandler: _Walker.visit_ExceptHandler,
    ast.Call: _Walker.visit_Call,
    ast.Subscript: _Walker.visit_Subscript,
    ast.Compare: _Walker.visit_Compare,
    ast.Starred: _Walker.visit_Starred,
    ast.BinOp: _Walker.visit_BinOp,
    ast.AugAssign: _Walker.visit_AugAssign,
    ast.Attribute: _Walker.visit_Attribute,
    ast.AnnAssign: _Walker.visit_AnnAssign,
    ast.MatchAs: _Walker.visit_match_capture,
    ast.MatchStar: _Walker.visit_match_capture,
    ast.MatchMapping: _Walker.visit_MatchMapping,
    ast.Match: _Walker.visit_block,
    ast.Load: _noop, ast.Store: _noop, ast.Del: _noop,
    ast.Constant: _noop,
}
if sys.version_info >= (3, 11):
    _DISPATCH[ast.TryStar] = _Walker.visit_Try
if sys.version_info >= (3, 12):
    _DISPATCH[ast.TypeAlias] = _Walker.visit_TypeAlias
if sys.version_info >= (3, 14):
    _DISPATCH[ast.TemplateStr] = _Walker.visit_TemplateStr


#: a class-body statement index no read comes after
_NEVER = 1 << 62

_UNCONDITIONAL_BINDERS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef,
                          ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


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


#: what an annotation evaluated later must consist of: names, attributes,
#: subscripts, constants, tuples, lists and ``|``, whose evaluation reads
#: nothing but the names it holds (no calls, no walrus, no comprehension); of the
#: binary operations, ``|`` alone (:func:`_pure_annotation`)
_PURE_ANNOTATION = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple,
                              ast.List, ast.BinOp})


def _pure_annotation(node) -> bool:
    """Whether the annotation ``node`` gives the same value evaluated later, as long as
    the names it reads keep their values (:data:`_PURE_ANNOTATION`)."""
    names = False
    for sub in _operands(node):
        kind = type(sub)
        if kind not in _PURE_ANNOTATION or (kind is ast.BinOp and type(sub.op) is not ast.BitOr):
            return False
        names = names or kind is ast.Name
    return names


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


def _doctest_names(sources, candidates=None) -> set:
    """Names read by ``>>>`` examples in docstrings from the module's globals: not
    those an earlier example of the same docstring binds itself (doctest runs them
    in one copy of the globals: ``>>> from pkg import f`` then ``>>> f()``).

    :param candidates: the names the answer is asked about (those the module's imports
        bind): exact for these, and an example that cannot read or bind one of them is
        not parsed (None: every name).  Only an ASCII text is skipped so: a name in
        other characters may be NFKC-equal to a candidate that it does not contain.
    """
    names = set()
    for text in sources:
        if candidates is not None and _mentions_none(text, candidates):
            continue
        lines = []
        for line in text.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(">>>") or stripped.startswith("..."):
                lines.append(stripped[4:] if len(stripped) > 3 else "")
        bound = set()
        for chunk in lines:
            if candidates is not None and _mentions_none(chunk, candidates):
                continue                 # neither reads nor binds a candidate
            tree = _parse_quietly(chunk, "exec")
            if tree is None:
                names.update(word for word in _words(chunk) if word not in bound)
                continue
            binds = []
            for sub in walk(tree):
                if isinstance(sub, ast.Name):
                    if type(sub.ctx) is ast.Store:
                        binds.append(sub.id)
                    elif sub.id not in bound:
                        names.add(sub.id)
                elif isinstance(sub, ast.alias) and sub.name != "*":
                    binds.append(sub.asname or sub.name.partition(".")[0])
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    binds.append(sub.name)
            bound.update(binds)
    return names


def _mentions_none(text: str, names) -> bool:
    """Whether an ASCII ``text`` holds none of ``names``, even as part of a word."""
    return text.isascii() and not any(name in text for name in names)


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


def has_docstring(node) -> bool:
    """Whether the body of a module, class or function starts with a docstring."""
    body = node.body
    return bool(body) and type(body[0]) is ast.Expr and type(body[0].value) is ast.Constant \
        and type(body[0].value.value) is str


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
#: node type -> its fields of :data:`_STATEMENT_LISTS` (compound statements, except
#: handlers and match cases); a simple statement has none
_BODIES = {kind: fields for kind in vars(ast).values()
           if isinstance(kind, type) and issubclass(kind, AST)
           for fields in [tuple(f for f in _STATEMENT_LISTS if f in kind._fields)] if fields}


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
            for field in _BODIES.get(kind, ()):
                children = getattr(node, field, None)
                if children:
                    stack.extend(children)
    return frozenset(names)


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


#: comments by which an author says an unused import is there on purpose
#: (flake8/ruff, pylint, pyright, isort), lower-cased
_UNUSED_MARKERS = (b"unused-import", b"reportunusedimport", b"isort: skip", b"isort:skip")


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
        if any(marker in text for marker in _UNUSED_MARKERS):
            return True
        # a bare noqa comment silences every check; one with codes (E402 ...) others than the
        # unused import (pyflakes' F401)
        at = text.find(b"noqa")
        while at >= 0:
            rest = text[at + 4:].lstrip(b" ")
            if not rest.startswith(b":") or b"f401" in rest.split(b"#")[0]:
                return True
            at = text.find(b"noqa", at + 4)
        return False


def _joined_keys(node, narrowed):
    """The keys an f-string key can be: its constant parts, and names an enclosing ``if
    name in (...)`` narrows (click's deprecated aliases: ``if name in {"OptionParser",
    ...}: return globals()[f"_{name}"]``), as a tuple of strings; None if any part is
    something else (any key)."""
    keys = ("",)
    for part in node.values:
        if type(part) is ast.Constant and type(part.value) is str:
            keys = tuple(key + part.value for key in keys)
        elif type(part) is ast.FormattedValue and type(part.value) is ast.Name \
                and part.value.id in narrowed and part.conversion == -1 \
                and part.format_spec is None:
            names = narrowed[part.value.id]
            keys = tuple(key + name for key in keys
                         for name in ((names,) if type(names) is str else names))
        else:
            return None
    return keys
