"""The public helpers about lazy names (re-exported by ``lazify/__init__.py``): whether a
name is still a pending lazy import, resolving a module's pending names, and
:class:`eager_imports`.  They ask the mechanism that deferred the name: PEP 810's
proxy (the native one), or the rewrite's runtime once it is loaded (it registers
with :mod:`lazify._settings`).

Imports nothing but :mod:`lazify._settings` and :mod:`lazify._native`
(both loaded at every start-up).
"""

from . import _settings
from ._native import lazy_import_type


def is_lazy_import(namespace, name: str) -> bool:
    """True while ``name`` in that module namespace is an unresolved lazy
    import.  Never resolves it.

    :param namespace: a module's ``__dict__`` or ``globals()``.
    """
    lazy_type = lazy_import_type()
    if lazy_type is not None and type(namespace.get(name)) is lazy_type:
        return True                      # PEP 810's proxy (the native mechanism)
    runtime = _settings.runtime             # no rewritten module before it is imported
    return runtime is not None and runtime.is_pending(namespace, name)


def resolve_all(module_or_namespace) -> None:
    """Resolve every pending lazy name of that module now."""
    namespace = module_or_namespace
    if not isinstance(namespace, dict):
        namespace = vars(module_or_namespace)
    runtime = _settings.runtime
    if runtime is not None:
        runtime.resolve_pending(namespace)
    lazy_type = lazy_import_type()
    if lazy_type is not None:
        for name, value in list(namespace.items()):
            if type(value) is lazy_type and namespace.get(name) is value:
                namespace[name] = value.resolve()


class eager_imports:
    """Context manager: imports inside its ``with`` block are eager.

    They are anyway: lazify, like PEP 690, never defers an import inside a
    ``with`` block.  The class exists so code can say so explicitly.
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return None
