"""Why an import stays eager: stable codes shared by text and JSON output."""

from __future__ import annotations


class Reason(str):
    """A stable reason code for an eager import: the string is what JSON shows.

    A ``str`` with named constants rather than an ``enum.Enum``: the planner
    runs inside the import hook, and what it imports stays plain (``enum``
    could not be lazy then).
    """

    __slots__ = ()

    @property
    def value(self) -> str:
        """The code (as ``enum``'s ``.value`` gave it)."""
        return str(self)

    @property
    def words(self) -> str:
        """The reason in words, for the text report."""
        return WORDS[self]

    def __repr__(self) -> str:
        return f"Reason({str(self)!r})"


Reason.TRY = Reason("try")
Reason.WITH = Reason("with")
Reason.FUNCTION = Reason("function")
Reason.CLASS = Reason("class")
Reason.STAR = Reason("star")
Reason.FUTURE = Reason("future")
Reason.EXCLUDED = Reason("excluded")
Reason.REBOUND = Reason("rebound")
Reason.DYNAMIC_NAMESPACE = Reason("dynamic-namespace")
Reason.DEFERRED_ANNOTATION = Reason("deferred-annotation")
Reason.DOCTEST = Reason("doctest")
Reason.CLASS_SHADOW = Reason("class-shadow")
Reason.SUBMODULE_NAME = Reason("submodule-name")
Reason.RESERVED_NAME = Reason("reserved-name")
Reason.SHADOWED_SUBMODULE = Reason("shadowed-submodule")
Reason.SIDE_EFFECTS = Reason("side-effects")
Reason.EXTENSION_MODULE = Reason("extension-module")
Reason.SUBMODULE_ORDER = Reason("submodule-order")
Reason.IMPORT_CYCLE = Reason("import-cycle")
Reason.SELF_IMPORT = Reason("self-import")
Reason.NOT_OPTED_IN = Reason("not-opted-in")
Reason.MACHINERY = Reason("machinery")
Reason.PLAIN_PACKAGE = Reason("plain-package")
Reason.AUDIT_HOOK = Reason("audit-hook")
Reason.IMPORT_SYSTEM_PATCH = Reason("import-system-patch")
Reason.READ_AT_IMPORT = Reason("read-at-import")


WORDS = {
    Reason.TRY: "inside try/except/else/finally",
    Reason.WITH: "inside a with block",
    Reason.FUNCTION: "inside a function body",
    Reason.CLASS: "inside a class body",
    Reason.STAR: "star import",
    Reason.FUTURE: "__future__ import",
    Reason.EXCLUDED: "the module is excluded",
    Reason.REBOUND: "the name is bound again at module level",
    Reason.DYNAMIC_NAMESPACE: (
        "the module reads its own namespace while it is imported (globals(), vars(), eval, "
        "exec, sys._getframe().f_globals, ...), or in a way no rewrite follows (globals "
        "passed as a value, builtins.eval, eval with keywords)"
    ),
    Reason.DEFERRED_ANNOTATION: (
        "used where typing evaluates it later against the module namespace and nothing can "
        "import it first (a string annotation at module level or in a class-body block, a "
        "forward reference such as Optional[\"X\"] or TypeVar(bound=\"X\"); on 3.14+ a type "
        "alias value or type-parameter bound, which annotationlib also shows as written)"
    ),
    Reason.DOCTEST: "used in a doctest example",
    Reason.CLASS_SHADOW: "a class body reads it before binding the same name",
    Reason.SUBMODULE_NAME: "the name equals the submodule it comes from",
    Reason.SELF_IMPORT: (
        "the module imports a name from itself by its own name (from pkg.io import "
        "templates inside pkg.io, a name its __getattr__ makes): deferred, the name's own "
        "pending binding would stand where __getattr__ answers"
    ),
    Reason.RESERVED_NAME: (
        "the name is reserved: __lazy__ (lazify's rewrite), or a dunder the interpreter, "
        "the import system or lazify reads from the module (__all__, __path__, __name__, ...)"
    ),
    Reason.SHADOWED_SUBMODULE: (
        "the package binds the name of the submodule this imports (from .duration import "
        "Duration, then def duration): importing it later would replace that binding"
    ),
    Reason.EXTENSION_MODULE: (
        "a package importing one of its own extension modules (.so/.pyd): they import "
        "each other in C, in the order the package imports them"
    ),
    Reason.SUBMODULE_ORDER: (
        "native mechanism: a package __init__ reads a later import of its own submodules "
        "while it is imported, so its own submodule imports up to that one keep their order "
        "(pandas.io.excel: _openpyxl first would find _base partially initialized)"
    ),
    Reason.IMPORT_CYCLE: (
        "native mechanism: the module it imports (beside it, or of its own package) "
        "imports it back while it is imported, or, in a package __init__, two of its "
        "submodules import each other; those imports stay eager, so the cycle runs as "
        "plain Python runs it (click's core and types; a standard-library module's "
        "imports of its own package all stay eager: asyncio.tasks)"
    ),
    Reason.NOT_OPTED_IN: (
        "global mode is off (enabled = false, LAZIFY_DISABLE=1) and the module's "
        "__lazy_modules__ does not name the module it imports (or comes after the import)"
    ),
    Reason.MACHINERY: (
        "the import hook never rewrites this module: lazify, the import system, and the "
        "modules lazify's rewrite itself imports (ast, encodings, ...; measured on this Python)"
    ),
    Reason.PLAIN_PACKAGE: (
        "import a.b where package a (or a.b of a.b.c) is one the hook never rewrites: "
        "excluded, or loaded before the hook is installed (importlib, collections, os, "
        "...): nothing there could import a.b when it is read from a, and eagerly the "
        "statement sets a.b for every user of a, so it runs where it is written"
    ),
    Reason.AUDIT_HOOK: (
        "the module adds an audit hook (sys.addaudithook), which may refuse imports from "
        "then on (pip install): when it is imported, its top-level package's deferred "
        "imports are done, and that package's imports stay eager from then on"
    ),
    Reason.IMPORT_SYSTEM_PATCH: (
        "a function the module installs into the import system reads it (os.stat = "
        "checked_stat, a function of os, os.path, io, builtins, sys or importlib replaced "
        "by one of the module's): the import system calls it while it imports, and the "
        "first call would import this inside another module's import"
    ),
    Reason.READ_AT_IMPORT: (
        "every name it binds is read, after it, by a top-level statement of the module that "
        "always runs (not under if, try, with, for, while or match, nor in a function, "
        "lambda, annotation, generator's body, conditional branch or the right side of "
        "and/or): the module's own import would import it a few lines later anyway, so "
        "it runs at its own line, as in plain Python"
    ),
    Reason.SIDE_EFFECTS: (
        "never read, and kept for what importing it does: marked unused on purpose "
        "(# noqa, # noqa: F401), or a package __init__ importing its own submodule"
    ),
}
