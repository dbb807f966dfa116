"""Planner: decide, for every name an import binds, lazy or eager and why.

The facts come from one walk over the module's ``ast`` (:mod:`lazify._facts`);
the reason functions here turn them into verdicts.  No libcst and no
importlib: the import hook runs this on every cache miss.  The output is plain
frozen data that both emitters consume and never re-decide.  Positions are in
``ast`` terms (1-based lines, UTF-8 byte columns).
"""

from __future__ import annotations

import ast
import sys

from ._audit import adds_audit_hook
from ._facts import ModuleFacts, Span, exclusive, gather, has_docstring, node_span, walk
from ._names import absolute_name
from ._reasons import Reason
from ._record import record

__all__ = ["AnnotationOwner", "DeferredAnnotation", "EmitError", "GetattrPrologue", "ImportSite", "ImportedName",
           "NamespaceRead", "Plan", "Reference", "TemplateString", "check_applied", "plan_module",
           "resolve_module"]



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
    #: a PEP 810 ``lazy import``: lazy because the source says so.  On 3.15 the
    #: statement is left to the interpreter; before 3.15 (:mod:`lazify._keyword`) the
    #: rewrite registers its names as lazy whatever the settings
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
        """Whether the native mechanism marks some of its names ``lazy`` (never for an
        explicit ``lazy import``: it stays as written)."""
        return not self.explicit and any(n.lazy for n in self.names)

    @property
    def rewritten(self) -> bool:
        """Whether the rewrite replaces the statement: it registers lazy names, or it
        is a star import (which first imports the pending names it copies), or, before
        3.15, an explicit ``lazy import`` (which loses its keyword, even where the
        rewrite keeps its names eager)."""
        if self.explicit:
            return not KEYWORD
        return any(n.lazy for n in self.names) or self.is_star


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
class DeferredAnnotation:
    """An annotation evaluated where it is written (before 3.14, without ``from
    __future__ import annotations``) that reads lazy names: evaluated when its
    owner's annotations are read instead, as 3.14 does (PEP 649).

    The emitters replace the annotation ``E`` by ``__lazy__.__lazy_deferred__(lambda:
    E, *names)``: ``E`` itself when every name is bound already, else a
    placeholder that the owner's annotations dict (a def's innermost decorator, a
    class body's ``__annotations__`` statement, :class:`AnnotationOwner`) replaces
    by ``E``'s value before anything reads a value.  Only an annotation of a def or
    a class body run at import time, made of names, attributes, subscripts,
    constants, tuples, lists and ``|``, whose names are lazy imports, imports never
    bound otherwise, or builtins, all read as the module's (the lambda reads them
    from there): it gives the value it gives where it is written.
    """

    #: the annotation expression
    span: Span
    #: the lazy names it reads, sorted
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
    arguments, which is what they use when none are given.  Each is given what the
    builtins it stands for are where it runs (``__lazy_lookup__(globals)``,
    ``__lazy_eval__(eval, locals)``): a module global or a patched attribute shadowing
    one (``mock.patch.object(mod, "globals", fake)``) is called as the plain code calls it.
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
    #: "names": the builtin the dict is given to (``sorted`` of ``sorted(globals())``),
    #: which must still be the builtin when the read runs; None when it is iterated
    consumer: str | None = None


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
    #: whether the emitters change the module at all (either mechanism)
    changes_module: bool
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
    #: "rewrite" (registrations and routed reads) or "native" (3.15+: the lazy
    #: names' statements become PEP 810 ``lazy`` statements, nothing else)
    mechanism: str = "rewrite"
    #: annotations evaluated when their owner's annotations are read (before 3.14)
    deferred_annotations: tuple[DeferredAnnotation, ...] = ()
    #: the compiler flags of the module's ``from __future__`` imports when they are
    #: lazy (``plan_module(future_flags=True)``): the emitter takes those statements
    #: out of the tree's head, so whoever compiles it passes these to ``compile()``
    future_flags: int = 0
    #: asked for the native mechanism, a module the interpreter's lazy imports would
    #: treat otherwise than the rewrite gets the rewrite: why ("namespace-read";
    #: :func:`_native_takes_rewrite`), "" when it did not
    takes_rewrite: str = ""
    #: the module adds an audit hook (:mod:`lazify._audit`): its imports stay eager
    #: (``audit-hook``), and its code starts by doing its package's deferred imports
    audit_hook: bool = False

    def edits(self) -> tuple:
        """Every item an emitter must apply: what :func:`check_applied` checks."""
        if not self.changes_module:
            return ()
        if self.mechanism == "native":
            return tuple(s for s in self.imports if s.any_lazy)
        return (*self.references, *(s for s in self.imports if s.rewritten), *self.chain_after,
                *self.annotation_owners, *self.getattr_prologues, *self.templates,
                *self.namespace_reads, *self.deferred_annotations)

    @property
    def lazy_names(self) -> frozenset[str]:
        """The names the rewrite registers (for the native mechanism, explicit
        ``lazy import`` names are the interpreter's)."""
        left = self.mechanism == "native" or KEYWORD
        return frozenset(n.name for s in self.imports for n in s.names
                         if n.lazy and not (left and n.explicit))


class EmitError(Exception):
    """The plan does not match the source: a lazify bug, never a user error."""


def check_applied(plan: Plan, applied) -> None:
    """Raise :class:`EmitError` unless an emitter applied every item of ``plan.edits()``
    (*applied*: the ids of the items it found a node for).

    A module missing one would raise NameError (an unrouted reference, an unregistered
    import) or behave otherwise than the plan says, long after it was rewritten.
    """
    edits = plan.edits()
    missing = [item for item in edits if id(item) not in applied]
    if missing:
        # an item equal to an applied one is applied too (a span twice in chain_after)
        done = {item for item in edits if id(item) in applied}
        missing = [item for item in missing if item not in done]
    if missing:
        raise EmitError(f"plan for module {plan.module!r} does not match the source: "
                        "no node for " + "; ".join(map(repr, missing)))


# --------------------------------------------------------------------------
# The planner.

def header_position(tree: ast.Module, futures: bool = True) -> tuple:
    """``(index, end line)`` of the header: after the docstring and (``futures``) the
    leading ``from __future__`` imports, which must stay first (line 0 if none)."""
    body = tree.body
    index = 1 if has_docstring(tree) else 0
    while futures and index < len(body) and _is_future(body[index]):
        index += 1
    return index, body[index - 1].end_lineno if index else 0


def _is_future(node) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0


#: ``from __future__`` feature -> the flag its statement gives the module's code objects
#: (``__future__.<name>.compiler_flag`` where the compiler honours it; the features
#: that are mandatory now set none).  Written out: the planner imports no ``__future__``.
FUTURE_FLAGS = {"nested_scopes": 0, "generators": 0, "division": 0, "absolute_import": 0,
                "with_statement": 0, "print_function": 0, "unicode_literals": 0,
                "barry_as_FLUFL": 0x400000, "generator_stop": 0, "annotations": 0x1000000}


def _leading_futures(tree: ast.Module) -> tuple:
    """The ``from __future__`` statements at the head of the module, when every
    feature they name is known (:data:`FUTURE_FLAGS`; an unknown one is the
    compiler's SyntaxError, which the statement must stay to raise); else ()."""
    body = tree.body
    index = 1 if has_docstring(tree) else 0
    start = index
    while index < len(body) and _is_future(body[index]):
        index += 1
    head = tuple(body[start:index])
    if any(alias.name not in FUTURE_FLAGS for node in head for alias in node.names):
        return ()
    return head


def resolve_module(name: str, level: int, package: str) -> str:
    """Absolute module name for an import, relative ones against ``package``; the
    statement's own text (``..name``) where Python raises (no module has that name)."""
    try:
        return absolute_name(name, level, package)
    except ImportError:
        return "." * level + name


#: whether the interpreter reads PEP 810's ``lazy import`` (3.15+): then it defers
#: those statements itself, whatever the mechanism; before 3.15 the rewrite does
KEYWORD = "is_lazy" in ast.Import._fields

#: the planner's rules that exist only because of the rewrite's generated code: with
#: the native mechanism the interpreter reifies a lazy name wherever it is loaded
#: (annotations evaluated later, doctest's copy of the globals, a class body reading
#: a global it binds later), and the module never binds ``__lazy__``
REWRITE_ONLY = frozenset({Reason.DEFERRED_ANNOTATION, Reason.DOCTEST, Reason.CLASS_SHADOW})


def plan_module(tree: ast.Module, *, module: str = "", is_package: bool = False,
                excluding=None, source: str | bytes | None = None,
                extensions: frozenset = frozenset(), mechanism: str = "rewrite",
                submodules=None, future_flags: bool = False, nodes=None,
                portable: bool = False) -> Plan:
    """Plan the rewrite of one module: a verdict for every imported name.

    :param source: the module's source, for the comments that mark an import
        as intentionally unused (``# noqa``); without it none are seen.
    :param excluding: module names whose own imports stay eager: an excluded
        module is not rewritten at all, as the import hook leaves it plain.
    :param extensions: for a package, the names of its submodules that are
        extension modules (:func:`lazify._sources.extension_submodules`).
    :param mechanism: "rewrite", or "native" (3.15+): the emitters mark the lazy
        names' statements ``lazy`` and change nothing else, and the rules in
        :data:`REWRITE_ONLY` do not apply.
    :param submodules: for a package with the native mechanism, a function giving the
        modules a submodule imports (:func:`lazify._sources.submodule_imports`);
        None: no submodule-order rule.
    :param future_flags: the caller compiles the emitted tree itself, passing
        ``Plan.future_flags`` to ``compile()`` (the import hook): then the module's
        leading ``from __future__`` imports may be lazy like any other, as in PEP
        810's global mode, so ``__future__`` is imported only if a name they bind is
        read (natively the statement stays, marked ``lazy``: the compiler takes that
        from a tree, not from source).  Otherwise (source output) they stay eager
        where the compiler sees them (``future``).
    :param nodes: a dict, for the AST emitter (:func:`lazify._emit_ast.emit`): filled
        with the id of each of ``Plan.references`` -> its Name node in ``tree``, so the
        emitter finds them without walking the tree again.
    :param portable: plan source that runs, and means the same, on every supported
        Python (``lazify rewrite``/``diff``): the annotation rules of 3.10-3.13 whatever
        Python plans, and the runtime adapts on 3.14+ (:func:`lazify._facts.gather`).
        The import hook plans for the running Python.
    """
    native = mechanism == "native"
    facts = gather(tree, module=module, is_package=is_package, excluding=excluding,
                   source=source, extensions=extensions, portable=portable)
    reads = tuple(NamespaceRead(kind=kind, span=span, function=function, key=key,
                                consumer=consumer)
                  for kind, span, function, key, consumer in facts.namespace_reads)
    # natively eval/exec find a lazy name reified (LOAD_NAME); the dict itself
    # (globals()[k], f_globals) shows PEP 810's proxy
    readers = _readers(tuple(r for r in reads if r.kind != "eval") if native else reads)
    imports, futures = _first_verdicts(tree, facts, readers, native, future_flags)
    imports = _read_at_import_eager(facts, imports, native)
    imports, audit_hook = _audit_hook_eager(tree, source, imports)
    lazy_names = frozenset(n.name for site in imports for n in site.names
                           if n.lazy and not ((native or KEYWORD) and n.explicit))
    deferred, deferred_loads = ((), frozenset()) if native else _deferred(facts, imports, lazy_names)
    if deferred_loads:
        # their reads no longer run at import time (the verdicts stay the same)
        imports = _read_at_import_eager(facts, tuple(
            _verdicts(facts, site, readers, native, deferred_loads, futures)
            for site in facts.sites), native)
    header_index, header_after_line = header_position(tree, not futures)
    if native:
        imports, why = _native_verdicts(facts, imports, submodules, tree)
        lazy_names = frozenset(n.name for site in imports for n in site.names
                               if n.lazy and not n.explicit)
        if why:
            plan = plan_module(tree, module=module, is_package=is_package, excluding=excluding,
                               source=source, extensions=extensions, mechanism="rewrite",
                               future_flags=future_flags, nodes=nodes)
            return replaced(plan, takes_rewrite=why)
        return Plan(module=module, is_package=is_package, imports=imports, references=(),
                    chain_after=(), header_index=header_index,
                    header_after_line=header_after_line, mechanism=mechanism,
                    changes_module=not facts.excluded and bool(lazy_names), audit_hook=audit_hook)
    references, templates = _references(facts, lazy_names, deferred_loads, nodes)
    fallback_names = _fallback_names(facts, lazy_names)
    # an excluded module's explicit ``lazy`` statements are lazy all the same: the
    # module is rewritten for them (its other imports stay eager)
    rewrite = (not facts.excluded or any(s.explicit and s.rewritten for s in imports)) \
        and not facts.uses_reserved \
        and bool(lazy_names or any(site.is_star or site.rewritten for site in imports)
                 or is_package)
    if not rewrite:
        return Plan(module=module, is_package=is_package, imports=imports, references=(),
                    chain_after=(), header_index=header_index,
                    header_after_line=header_after_line, changes_module=False, audit_hook=audit_hook)
    owners = _annotation_owners(facts, deferred, lazy_names)
    return Plan(
        module=module, is_package=is_package, imports=imports,
        references=tuple(sorted(references, key=lambda ref: ref.span)),
        chain_after=facts.chain_after,
        header_index=header_index, header_after_line=header_after_line, changes_module=True,
        fallback_names=fallback_names,
        annotation_owners=tuple(sorted(owners, key=lambda owner: owner.span)),
        getattr_prologues=tuple(GetattrPrologue(span=span, param=param, after_docstring=doc)
                                for span, param, doc in facts.getattr_prologues),
        templates=tuple(TemplateString(span=span, names=tuple(sorted(names)))
                        for span, names in sorted(templates.items())),
        namespace_reads=reads if lazy_names else (),
        deferred_annotations=tuple(sorted((item for _owner, item in deferred),
                                          key=lambda item: item.span)),
        future_flags=_flags(tree, futures), audit_hook=audit_hook)


def _read_at_import_eager(facts: ModuleFacts, imports, native=False) -> tuple:
    """``imports`` with every statement whose names the module body reads unconditionally,
    after it, made eager (read-at-import): deferring it gains nothing, as the module's own
    import imports it a few statements later, and eager it runs at its own line, as in
    plain Python, without the cost of a pending name.  Every name the statement binds
    must be read so: ``from m import a, b`` with ``b`` unread stays lazy (``b`` may be a
    submodule, imported only when read).  A ``lazy import`` of the source's own stays
    lazy, and a ``from __future__`` import is the compiler's.

    An import of the module's own package stays lazy after one that stays lazy: eager,
    it would run before the earlier one, where the two may import each other (the
    rewrite's runtime repairs that order when it resolves pending names, and the native
    mechanism's submodule-order rule reads the lazy ones' ``used_at_import``).
    Natively, ``from pkg import name`` in ``pkg`` or below stays lazy too: eager, while
    the package's own deferred import runs, importlib's probe for a submodule ``name``
    would call the package's ``__getattr__``, which plainly is not defined yet (the
    rewrite's runtime answers that probe itself)."""
    out = []
    own_lazy = False
    package = facts.package
    for fact, site in zip(facts.sites, imports):
        own = any(_own_package(n, package) for n in site.names)
        if not site.explicit and any(n.lazy for n in site.names) \
                and not (own and own_lazy) \
                and not (native and site.kind == "from" and _enclosing(facts.module, site)) \
                and all(
                n.module != "__future__" and _read_unconditionally(facts, fact, n.name)
                for n in site.names):
            site = replaced(site, names=tuple(
                replaced(n, lazy=False, reason=Reason.READ_AT_IMPORT, used_at_import=None,
                         unused=False) if n.lazy else n for n in site.names))
        own_lazy = own_lazy or (own and any(n.lazy for n in site.names))
        out.append(site)
    return tuple(out)


def _enclosing(module, site) -> bool:
    """Whether a from-import imports from ``module`` itself or a package above it."""
    return any(module == n.module or module.startswith(n.module + ".") for n in site.names)


def _own_package(name, package) -> bool:
    """Whether the imported name comes from the module's own package (or an unresolved
    relative import)."""
    module = name.module
    return module.startswith(".") or bool(package) and (
        module == package or module.startswith(package + "."))


def _read_unconditionally(facts: ModuleFacts, fact, bound) -> bool:
    """Whether a top-level statement after ``fact`` (an import statement) reads the
    module-level ``bound`` whenever the module is imported (``_Load.unconditional``)."""
    return any(load.unconditional is not None and load.unconditional > fact.top_index
               for load in facts.global_loads.get(bound, ()))


def _audit_hook_eager(tree, source, imports) -> tuple:
    """``(imports, whether the module adds an audit hook)``: if it does
    (:mod:`lazify._audit`), every name lazify would defer in ``imports`` is eager
    (``audit-hook``); a ``lazy`` statement of the source's own stays lazy, as PEP 810
    has it, and so does a ``from __future__`` import, whose features are the compiler's."""
    if not adds_audit_hook(tree, source):
        return imports, False
    return _made_eager(imports, Reason.AUDIT_HOOK, lambda name: (
        name.lazy and not name.explicit and name.module != "__future__")), True


def _made_eager(imports, reason, which) -> tuple:
    """``imports`` with every name ``which(name)`` selects made eager for ``reason``;
    a site where it selects none is kept as it is."""
    return tuple(replaced(site, names=tuple(
        replaced(n, lazy=False, reason=reason, used_at_import=None, unused=False)
        if which(n) else n for n in site.names))
        if any(which(n) for n in site.names) else site for site in imports)


def _first_verdicts(tree, facts, readers, native, future_flags):
    """Every site's verdicts, and the ids of the leading ``__future__`` imports that
    are lazy (all of them, or none)."""
    futures = frozenset(map(id, _leading_futures(tree))) if future_flags \
        else frozenset()
    imports = tuple(_verdicts(facts, site, readers, native, futures=futures)
                    for site in facts.sites)
    if futures and any(not n.lazy for fact, site in zip(facts.sites, imports)
                       if id(fact.node) in futures for n in site.names):
        # one of them stays (the module is excluded, reads its namespace, ...): all
        # stay, first in the module, where the compiler needs them
        futures = frozenset()
        imports = tuple(_verdicts(facts, fact, readers, native) if _is_future(fact.node)
                        else site for fact, site in zip(facts.sites, imports))
    return imports, futures


def _references(facts, lazy_names, deferred_loads, nodes):
    """The reads of the lazy names (:class:`Reference`, in ``nodes`` too when given) and
    the template strings that read them (template -> names)."""
    references = []
    templates = {}
    for name in sorted(lazy_names):
        for ld in facts.global_loads.get(name, ()):
            if ld.template is None:
                ref = Reference(name=ld.name, span=node_span(ld.node),
                                at_import=ld.at_import and id(ld.node) not in deferred_loads)
                references.append(ref)
                if nodes is not None:
                    nodes[id(ref)] = ld.node
            else:
                templates.setdefault(ld.template, set()).add(name)
    return references, templates


def _fallback_names(facts, lazy_names) -> tuple:
    """The lazy names a read may find unregistered: a builtin's name, or one bound
    only inside a block."""
    unconditional = {bound for site in facts.sites if not site.in_block
                     for bound, _imported, _asname, _sig in site.bindings}
    return tuple(sorted(name for name in lazy_names
                        if name in _BUILTIN_NAMES or name not in unconditional))


def _annotation_owners(facts, deferred, lazy_names) -> list:
    """The annotation owners that mention a lazy name or hold a deferred annotation."""
    by_owner = {}
    for owner, item in deferred:
        by_owner.setdefault(owner, set()).update(item.names)
    return [AnnotationOwner(kind=kind, span=span, names=tuple(sorted(
        (mentioned & lazy_names) | by_owner.get((kind, span), set()))))
        for kind, span, mentioned in facts.owners
        if mentioned & lazy_names or (kind, span) in by_owner]


def _flags(tree: ast.Module, futures) -> int:
    """The compiler flags of the lazy ``from __future__`` statements ``futures`` (ids)."""
    flags = 0
    for node in tree.body:
        if id(node) in futures:
            for alias in node.names:
                flags |= FUTURE_FLAGS[alias.name]
    return flags


def _deferred(facts: ModuleFacts, imports, lazy_names) -> tuple:
    """The annotations evaluated at import time that the emitters have evaluated on
    read instead (:class:`DeferredAnnotation`): ``((owner key, item), ...)`` and the
    ids of the Name nodes they read."""
    if not facts.evaluated_annotations:
        return (), frozenset()
    unconditional = {bound for site in facts.sites if not site.in_block
                     for bound, _imported, _asname, _sig in site.bindings}
    # names that keep their value: lazy names registered unconditionally, eager
    # imports bound nowhere else
    stable = {n.name for fact, site in zip(facts.sites, imports) for n in site.names
              if n.name in unconditional and not (n.explicit and KEYWORD)
              and n.name not in facts.module_rebinds and n.name not in facts.multiply_bound
              and (n.lazy or fact.context is None)}
    items = []
    loads = set()
    for span, owner, names, node_ids in facts.evaluated_annotations:
        lazy = names & lazy_names
        if lazy and names <= stable and not (lazy & _BUILTIN_NAMES):
            items.append((owner, DeferredAnnotation(span=span, names=tuple(sorted(lazy)))))
            loads.update(node_ids)
    return tuple(items), frozenset(loads)


def replaced(item, **changes):
    """A copy of a record with some fields changed."""
    fields = type(item).__slots__
    return type(item)(**{**{name: getattr(item, name) for name in fields}, **changes})


def _imports(names, modules) -> bool:
    """Whether any of ``names`` is one of ``modules`` or below one."""
    return any(m == s or m.startswith(s + ".") for s in modules for m in names)


def _native_verdicts(facts: ModuleFacts, imports, submodules, tree) -> tuple:
    """Native mechanism: ``(imports, why)``, the verdicts with the native-only rules
    applied (submodule-order, import-cycle) and why the module takes the rewrite
    instead ("" if it does not: :func:`_native_takes_rewrite`)."""
    if facts.is_package and submodules is not None:
        imports = _submodule_order(imports, facts.package, submodules)
    why = "" if facts.excluded else _native_takes_rewrite(facts, imports)
    cycle = frozenset() if why or facts.excluded else _cycle_siblings(
        facts, imports, submodules, tree)
    if cycle:
        # plain Python's order for the cycle (import-cycle), rather than the rewrite's
        # runtime: the imports that close it stay eager (the standard library's: all
        # its own package's)
        imports = (_own_package_eager(imports, facts.package)
                   if facts.package and _in_stdlib(facts.module)
                   else _cycle_eager(imports, facts.package, cycle))
    return imports, why


def _native_takes_rewrite(facts: ModuleFacts, imports) -> str:
    """Native mechanism: why this module must have the rewrite instead ("" if it need
    not), where PEP 810's proxies would behave otherwise than the rewrite's runtime.

    - "namespace-read": a function reads the module's namespace by a computed key
      (``globals()[name]``); natively those names would have to stay eager, where the
      rewrite keeps them lazy until the read.

    An import cycle no longer takes the rewrite: :func:`_cycle_siblings`.
    """
    if facts.dynamic is None and any(n.reason is Reason.DYNAMIC_NAMESPACE
                                     for site in imports for n in site.names) \
            and not _stdlib_reads_stdlib(facts, imports) \
            and not _reads_loaded_anyway(facts, imports):
        return "namespace-read"
    return ""


def _reads_loaded_anyway(facts: ModuleFacts, imports) -> bool:
    """Whether every name a namespace read exposes comes from a module this module's
    import loads anyway: a built-in module (``sys``), or one whose names its code reads
    while it is imported (mypy_extensions reads ``typing.Any`` at import time, and its
    ``__getattr__`` passes ``globals()`` to a helper).  Natively they stay eager
    (dynamic-namespace), as plain Python runs them: nothing is loaded that the module's
    import does not load, where the rewrite would load its runtime (about 3 M
    instructions at the start-up of ``black``)."""
    loaded = set()
    for site in imports:
        for name in site.names:
            if any(load.at_import for load in facts.global_loads.get(name.name, ())):
                loaded.add(name.module)
    builtin = sys.builtin_module_names
    return all(n.module in loaded or n.module.partition(".")[0] in builtin
               for site in imports for n in site.names
               if n.reason is Reason.DYNAMIC_NAMESPACE)


def _sibling(name, package: str):
    """The module beside this one (a submodule of ``package``) that the imported name
    ``name`` comes from, else None."""
    if package and name.module == package:
        return name.imported.partition(".")[0]       # from . import sub
    prefix = package + "." if package else ""
    if name.module.startswith(prefix) and not name.module.startswith("."):
        return name.module[len(prefix):].partition(".")[0]
    return None


def _cycle_siblings(facts: ModuleFacts, imports, siblings, tree) -> frozenset:
    """Native mechanism: the modules beside this one whose lazy imports would close an
    import cycle the interpreter's lazy imports treat otherwise than plain Python (empty
    when none); those imports stay eager (import-cycle, :func:`_cycle_eager`), so the
    cycle runs in plain Python's order.

    - a module: a lazy import of a sibling module that imports this one back while it is
      imported, outside its functions (the interpreter raises ``ImportCycleError`` for
      a name read again while its own import runs);
    - a package ``__init__``: lazy imports of two of its own submodules that import
      each other (a program that reads the later one's name first starts it first, and
      it meets the earlier one half-initialised: twisted.logger's ``_logger`` and
      ``_global``).

    ``siblings`` (:func:`lazify._sources.submodule_imports`) gives the modules a
    module of this one's directory imports; None: no cycle is looked for.  Imports
    under ``if TYPE_CHECKING:`` never run, on either side.
    """
    if siblings is None or not facts.module:
        return frozenset()
    package = facts.package
    prefix = package + "." if package else ""
    subs = {}
    typing_only = _type_checking_spans(tree)
    for site in imports:
        if site.span in typing_only:
            continue
        for name in site.names:
            # ``import pkg.sub`` binds ``pkg``: reading it reifies the package, a parent
            # already imported, not the sibling (PEP 810 imports ``pkg.sub`` when it is
            # read from the package)
            if name.lazy and not name.explicit and (
                    site.kind == "from" or name.asname is not None or "." not in name.imported):
                sub = _sibling(name, package)
                if sub and sub.isidentifier():
                    subs[sub] = None
    if facts.is_package:
        own = list(subs)
        cycle = set()
        for i, first in enumerate(own):
            for second in own[i + 1:]:
                if _imports(siblings(first, second, running=True), {prefix + second}) \
                        and _imports(siblings(second, first, running=True), {prefix + first}):
                    cycle.update((first, second))
        return frozenset(cycle)
    me = facts.module
    stem = me.rpartition(".")[2]
    return frozenset(sub for sub in subs if prefix + sub != me
                     and _imports(siblings(sub, stem, at_import=True), {me}))


def _cycle_eager(imports, package, cycle) -> tuple:
    """The lazy imports of the modules in ``cycle`` (:func:`_cycle_siblings`) made
    eager (import-cycle); the module's other imports keep their verdicts."""
    return _made_eager(imports, Reason.IMPORT_CYCLE, lambda name: (
        name.lazy and not name.explicit and _sibling(name, package) in cycle))


def _in_stdlib(module) -> bool:
    """Whether ``module`` is (in) a package of the standard library's."""
    return bool(module) and module.partition(".")[0] in getattr(sys, "stdlib_module_names", ())


def _own_package_eager(imports, package) -> tuple:
    """Native mechanism, a standard-library module in an import cycle
    (:func:`_cycle_siblings`): its lazy imports of its own package's
    modules stay eager (import-cycle), so the cycle runs in plain Python's order.  The
    modules are its package's, loaded with it as a rule (``asyncio``'s ``__init__``
    imports ``asyncio.tasks``' siblings), where the rewrite's runtime would cost about
    3 M instructions at the start-up of the program that imports it."""
    if not package:
        return imports
    prefix = package + "."

    return _made_eager(imports, Reason.IMPORT_CYCLE, lambda name: (
        name.lazy and not name.explicit
        and (name.module == package or name.module.startswith(prefix))))


def _stdlib_reads_stdlib(facts: ModuleFacts, imports) -> bool:
    """Whether a standard-library module's namespace read exposes only imports of the
    standard library: natively they stay eager, as the module's maintainers wrote them.

    From 3.15 the standard library marks the imports worth deferring ``lazy import``
    itself (``typing``'s ``annotationlib``), and those stay lazy; its other imports are
    the ones it runs eagerly under plain Python.  Keeping them eager costs one import
    or none (``typing``: ``operator``; the rest it uses while it is imported, or are
    built in), where the rewrite would load its runtime (about 3 M instructions, at
    the start-up of every program that imports ``typing``) for a module nearly every
    program imports."""
    stdlib = getattr(sys, "stdlib_module_names", ())
    if not _in_stdlib(facts.module):
        return False
    return all(n.module.partition(".")[0] in stdlib
               for site in imports for n in site.names
               if n.reason is Reason.DYNAMIC_NAMESPACE)


def _type_checking_spans(tree) -> frozenset:
    """Spans of the import statements under a module-level ``if TYPE_CHECKING:``."""
    from ._sources import is_type_checking

    spans = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for stmt in node.body:
                spans.update(node_span(n) for n in walk(stmt)
                             if isinstance(n, (ast.Import, ast.ImportFrom)))
            stack.extend(node.orelse)
        elif isinstance(node, (ast.If, ast.Try, ast.For, ast.While, ast.With)):
            stack.extend(child for child in ast.iter_child_nodes(node)
                         if isinstance(child, ast.stmt))
    return frozenset(spans)


def _submodule_order(imports, package, submodules) -> tuple:
    """Native mechanism, a package ``__init__``: an own submodule import that comes before
    one whose names the package reads while it is imported, where the two submodules import
    each other (anywhere in their source), stays eager (submodule-order), as do those in
    between.

    Eagerly they run in the order written; natively the one read first runs first and
    meets the cycle the earlier one settles (pandas.io.excel reads ``_openpyxl`` at
    import time; ``_openpyxl`` imports ``_base``, whose class body imports ``_openpyxl``:
    ImportError from a partially initialized module).  The rewrite repairs this at run
    time; the interpreter has no such repair.
    """
    prefix = package + "."

    def sub(name):
        if name.module == package:
            return name.imported.partition(".")[0]       # from . import sub
        if name.module.startswith(prefix):
            return name.module[len(prefix):].partition(".")[0]
        return None

    def lazy_own(site):
        return [n for n in site.names if n.lazy and not n.explicit and sub(n) is not None]

    eager = set()
    for index, site in enumerate(imports):
        read = [n for n in lazy_own(site) if n.used_at_import is not None]
        if not read:
            continue
        read_subs = {f"{package}.{sub(n)}" for n in read}
        needed = set()
        for name in read:
            needed.update(submodules(sub(name)))
        for earlier in range(index):
            for sub_name in {sub(n) for n in lazy_own(imports[earlier])}:
                full = f"{package}.{sub_name}"
                # a cycle: the read submodule imports the earlier one, which imports it
                if _imports(needed, {full}) and _imports(submodules(sub_name), read_subs):
                    eager.update(range(earlier, index + 1))  # it, and those in between
                    break
            else:
                continue
            break
    if not eager:
        return imports
    out = list(imports)
    for index in eager:
        site = out[index]
        own = lazy_own(site)
        if own:
            out[index] = replaced(site, names=tuple(
                replaced(n, lazy=False, reason=Reason.SUBMODULE_ORDER, used_at_import=None,
                          unused=False) if n in own else n for n in site.names))
    return tuple(out)


def _readers(reads) -> tuple:
    """Which functions' namespace reads may import a lazy name: ``(every name: {function:
    line}, {name: {function: line}})``."""
    readers_all = {}
    readers_of = {}
    for read in reads:
        if read.kind in ("names", "contains"):
            continue
        if read.kind != "lookup" or read.key is None:
            readers_all.setdefault(read.function, read.span[0])
            continue
        for key in (read.key,) if type(read.key) is str else read.key:
            readers_of.setdefault(key, {}).setdefault(read.function, read.span[0])
    return readers_all, readers_of


def _verdicts(facts: ModuleFacts, site, readers, native=False,
              deferred_loads=frozenset(), futures=frozenset()) -> ImportSite:
    """The import statement ``site`` with a verdict for each name it binds
    (``deferred_loads``: ids of Name nodes in deferred annotations, which do not
    run at import time)."""
    node = site.node
    is_from = isinstance(node, ast.ImportFrom)
    # PEP 810: lazy whatever lazify would say; on 3.15 the interpreter's, before 3.15
    # the rewrite's (which keeps eager only what it cannot defer transparently)
    explicit = bool(getattr(node, "is_lazy", 0))
    left = native or (explicit and KEYWORD)
    readers_all, readers_of = readers
    names = []
    for bound, imported, asname, _signature in site.bindings:
        if is_from:
            target = resolve_module(node.module or "", node.level, facts.package)
        else:
            target = imported
        unused = (bound not in facts.global_loads and bound not in facts.annotation_names
                  and bound not in facts.exported)
        if explicit:
            reason = None if left else _rewrite_limit(facts, bound)
        else:
            reason = (_reason(facts, site, bound, target, native, futures)
                      or _hazard(facts, site, bound, imported, target, unused))
        if reason is None and native and not explicit and (
                readers_all or bound in readers_of):
            # a function reads the module's namespace (globals()[name], eval): there
            # the interpreter shows PEP 810's proxy, where the rewrite imports first
            reason = Reason.DYNAMIC_NAMESPACE
        lazy = reason is None
        loads = facts.global_loads.get(bound, ()) if lazy else ()
        at_import = [ld.node.lineno for ld in loads
                     if ld.at_import and id(ld.node) not in deferred_loads]
        resolved_by = ()
        if lazy and not left and (readers_all or bound in readers_of):
            resolved_by = tuple(sorted(
                {**readers_all, **readers_of.get(bound, {})}.items(),
                key=lambda item: (item[1], item[0])))
        names.append(ImportedName(
            name=bound, imported=imported, asname=asname, module=target, lazy=lazy,
            reason=reason, used_at_import=min(at_import) if at_import else None,
            # a __future__ import's feature is the compiler's (the hook passes its flag):
            # nothing that importing does is lost
            unused=lazy and unused and not resolved_by and target != "__future__",
            in_annotations=lazy and not left
            and (bound in facts.annotation_names
                 or any(id(ld.node) in deferred_loads for ld in loads)),
            explicit=explicit, resolved_by=resolved_by))
    return ImportSite(
        span=node_span(node), kind="from" if is_from else "import",
        from_module=(node.module or "") if is_from else "",
        level=node.level if is_from else 0, names=tuple(names))


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


def _rebound(facts: ModuleFacts, site, bound) -> bool:
    """Whether the module binds ``bound`` otherwise too, where both may run: a
    binding in another branch of the same ``if`` (``if PY311: import tomllib
    else: from tomli import ...`` or ``... else: def deprecated``) never runs
    with this import, so it is no rebinding."""
    branch = site.branch
    for _line, other in facts.module_rebinds.get(bound, ()):
        if not exclusive(branch, other):
            return True
    binders = facts.multiply_bound.get(bound)
    if binders:
        mine = next(sig for name, _imported, _asname, sig in site.bindings if name == bound)
        for signature, other in binders:
            if signature != mine and not (signature[0] == mine[0] == "import") \
                    and not exclusive(branch, other):
                return True
    return False


def _rewrite_limit(facts: ModuleFacts, bound):
    """Why the rewrite keeps an explicit ``lazy import`` name eager, or None: where
    it cannot defer a name transparently (3.15 defers it there)."""
    if facts.uses_reserved:
        return Reason.RESERVED_NAME
    if bound in facts.eager_annotation_names:
        return Reason.DEFERRED_ANNOTATION
    if bound in facts.doctest_names:
        return Reason.DOCTEST
    if bound in facts.class_shadow:
        return Reason.CLASS_SHADOW
    return None


def _reason(facts: ModuleFacts, site, bound, target, native=False, futures=frozenset()):
    """Why PEP 690 keeps this name eager, or None (for the native mechanism, a
    reason in :data:`REWRITE_ONLY` is none; ``futures``: ids of the ``from
    __future__`` statements that may be lazy)."""
    node = site.node
    is_from = isinstance(node, ast.ImportFrom)
    if bound == "*":
        return Reason.STAR
    if is_from and node.module == "__future__" and node.level == 0 and id(node) not in futures:
        return Reason.FUTURE
    if site.context is not None:
        return site.context
    if facts.excluded:
        return Reason.EXCLUDED
    if (facts.uses_reserved and not native) or _special_dunder(bound):
        return Reason.RESERVED_NAME
    if facts.dynamic is not None:
        return Reason.DYNAMIC_NAMESPACE
    if _rebound(facts, site, bound):
        return Reason.REBOUND
    if is_from and facts.is_package and (
            (node.level == 1 and node.module == bound)
            or (facts.package and target == f"{facts.package}.{bound}")):
        # ``from .x import x`` (or ``... as x``) in a package __init__: any
        # later ``import pkg.x`` sets ``pkg.x`` to the submodule.
        return Reason.SUBMODULE_NAME
    if is_from and node.level == 0 and facts.module and node.module == facts.module:
        return Reason.SELF_IMPORT
    if native:
        return None
    return _rewrite_limit(facts, bound)   # uses_reserved was answered above


#: dunders with a meaning to the interpreter, the import system, the standard library
#: (which reads some from a module's dict or a caller's ``f_globals``: ``__name__``,
#: ``__all__``, ``__warningregistry__``) or to lazify's ``__lazy__`` object (a pending
#: name is a descriptor on its class): never pending.  The others (``__version__``,
#: ``__author__``) are names like any, lazy as PEP 810 makes them.
_SPECIAL_DUNDERS = frozenset(dir(object)) | frozenset(dir(tuple)) | frozenset(dir(type)) | {
    "__name__", "__qualname__", "__module__", "__doc__", "__package__", "__loader__",
    "__spec__", "__path__", "__file__", "__cached__", "__builtins__", "__all__",
    "__getattr__", "__dir__", "__dict__", "__annotations__", "__annotate__",
    "__annotate_func__", "__annotations_cache__", "__conditional_annotations__",
    "__warningregistry__", "__lazy_modules__", "__debug__", "__main__", "__slots__",
    "__weakref__", "__test__", "__wrapped__"}


def _special_dunder(name) -> bool:
    return name.startswith("__") and name.endswith("__") and (
        name in _SPECIAL_DUNDERS or name.startswith(("__lazy", "__lazify")))


def _binds_submodule(signature, package, sub) -> bool:
    """Whether an import binding (a signature of :attr:`ModuleFacts.signatures`) binds
    the package's submodule ``sub`` itself (``from . import _meta``,
    ``import pkg._meta as _meta``): importing it later replaces nothing."""
    full = f"{package}.{sub}"
    if signature[:1] == ("lazy",):
        signature = signature[1:]
    if signature[0] == "from":
        _kind, level, module, name = signature
        return resolve_module(module or "", level, package) + "." + name == full
    return signature[0] == "import-as" and signature[1] == full


def _own_submodule(target, package):
    """The name of the package's own submodule ``target`` lies in, or None."""
    if package and target.startswith(package + "."):
        return target[len(package) + 1:].partition(".")[0]
    return None


def _hazard(facts: ModuleFacts, site, bound, imported, target, unused):
    """Why an import PEP 690 would make lazy must stay eager for the program to
    work: it shows that importing it matters, or that its import must happen
    where it is written."""
    if facts.patch_readers and bound in facts.patch_readers:
        # os.stat = checked_stat, which reads it: imported before the patch, as plainly
        # (lazify._patches)
        return Reason.IMPORT_SYSTEM_PATCH
    is_from = isinstance(site.node, ast.ImportFrom)
    package = facts.package
    if facts.is_package and facts.extensions:
        sub = _own_submodule(target, package)
        if sub is None and is_from and target == package:
            sub = imported                              # from . import sub
        if sub in facts.extensions:
            # pandas._libs.tslibs: its extension modules import each other in C,
            # where nothing is deferred, and rely on the order the package
            # imports them
            return Reason.EXTENSION_MODULE
    if facts.is_package:
        sub = _own_submodule(target, package)
        if sub is not None and sub != bound and (
                sub in facts.module_bound
                or any(not _binds_submodule(signature, package, sub)
                       for signature in facts.signatures.get(sub, ()))):
            # ``from .duration import Duration`` then ``def duration``: the submodule,
            # imported later, would replace the package's own ``duration``
            return Reason.SHADOWED_SUBMODULE
    if not unused:
        return None
    if facts.marked_unused(site.node):
        # an import marked with a bare noqa comment: kept for what importing it does
        return Reason.SIDE_EFFECTS
    if facts.is_package and (
            (is_from and target == package) or (not is_from and _own_submodule(target, package))):
        # a package __init__ importing its own submodule and never reading it:
        # the submodule registers itself (alembic's dialects in alembic.ddl)
        return Reason.SIDE_EFFECTS
    return None
