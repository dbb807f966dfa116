"""lazify: PEP 690 lazy imports on stock CPython.

The public API only; everything else lives in private modules.
"""

from ._runtime import DEFAULT_EXCLUDING as DEFAULT_EXCLUDING
from ._runtime import eager_imports as eager_imports
from ._runtime import is_lazy_import as is_lazy_import
from ._runtime import is_lazy_imports_enabled as is_lazy_imports_enabled
from ._runtime import resolve_all as resolve_all
from ._runtime import set_lazy_imports as set_lazy_imports

__version__ = "0.1.0"


def install(*, enabled: bool = True, excluding=None) -> None:
    """Install the import hook (idempotent).

    :param enabled: ``True`` is global mode, like PEP 690's ``-L``: every
        eligible import in every transformed module is lazy.  ``False``
        installs the hook for explicit opt-ins only (``__lazy_modules__``).
    :param excluding: container of module names whose own imports stay eager;
        ``None`` means :data:`DEFAULT_EXCLUDING`.
    """
    from ._hook import install as _install

    _install(enabled=enabled, excluding=excluding)


def uninstall() -> None:
    """Remove the import hook; modules already loaded keep working."""
    from ._hook import uninstall as _uninstall

    _uninstall()


__all__ = [
    "DEFAULT_EXCLUDING", "eager_imports", "install", "is_lazy_import",
    "is_lazy_imports_enabled", "resolve_all", "set_lazy_imports", "uninstall",
]
