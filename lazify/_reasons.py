"""Why an import stays eager: stable codes shared by text and JSON output."""

from __future__ import annotations

import enum


class Reason(str, enum.Enum):
    """A stable reason code for an eager import (the value is what JSON shows)."""

    TRY = "try"
    WITH = "with"
    FUNCTION = "function"
    CLASS = "class"
    STAR = "star"
    FUTURE = "future"
    EXCLUDED = "excluded"
    REBOUND = "rebound"
    DYNAMIC_NAMESPACE = "dynamic-namespace"
    DEFERRED_ANNOTATION = "deferred-annotation"
    DOCTEST = "doctest"
    CLASS_SHADOW = "class-shadow"
    SUBMODULE_NAME = "submodule-name"
    RESERVED_NAME = "reserved-name"

    @property
    def words(self) -> str:
        """The reason in words, for the text report."""
        return _WORDS[self]


_WORDS = {
    Reason.TRY: "inside try/except/else/finally",
    Reason.WITH: "inside a with block",
    Reason.FUNCTION: "inside a function body",
    Reason.CLASS: "inside a class body",
    Reason.STAR: "star import",
    Reason.FUTURE: "__future__ import",
    Reason.EXCLUDED: "the module is excluded",
    Reason.REBOUND: "the name is bound again at module level",
    Reason.DYNAMIC_NAMESPACE: (
        "the module reads its own namespace (globals(), vars(), eval, exec, "
        "sys._getframe().f_globals, ...)"
    ),
    Reason.DEFERRED_ANNOTATION: (
        "used in a string typing evaluates later against the module namespace, where no "
        "annotations dict can import it on read (a module-level annotation, one in a "
        "class-body block, a forward reference such as Optional[\"X\"] or TypeVar(bound=\"X\"))"
    ),
    Reason.DOCTEST: "used in a doctest example",
    Reason.CLASS_SHADOW: "a class body reads it before binding the same name",
    Reason.SUBMODULE_NAME: "the name equals the submodule it comes from",
    Reason.RESERVED_NAME: "the name is reserved for lazify's rewrite (__lazy__ or a dunder)",
}
