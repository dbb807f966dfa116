"""The native mechanism (3.15+): the interpreter defers the ``lazy`` statements the
hook compiled, and lazify's PEP 810 filter makes one eager when lazify is off, when
its importer is excluded, or when it is guarded and its package is missing.  Also
the choice of mechanism ("rewrite" or "native"), which :mod:`lazify._mechanism`
re-exports, and PEP 810's ``LazyImportType`` (:func:`lazy_import_type`) for the
rewrite's runtime and :mod:`lazify._api`: here, the module every start-up loads, to
load one module less.

On every user's start-up path: it imports nothing but ``sys`` and lazify's
settings and guarded-import check.
"""

import sys

from ._guarded import (findable, found_by_search, found_without_search, guarded, known_guarded,
                       submodule_spec)
from ._settings import lazy_importers, lazy_now, opted_in, settings

def lazy_import_type():
    """PEP 810's ``types.LazyImportType`` (what a ``lazy import`` binds until first
    use), None before 3.15.  Asked for when needed: the built-in ``_types`` is not
    imported at start-up, where the interpreter has no use for it."""
    if sys.version_info < (3, 15):
        return None
    from _types import LazyImportType

    return LazyImportType


#: whether this interpreter has PEP 810's lazy imports (3.15+)
AVAILABLE = hasattr(sys, "set_lazy_imports_filter")
_NO_DICT = {}
_modules = sys.modules
#: modules built into the interpreter (a tuple: a set of them costs every start-up more
#: than the lookups it would save), and its frozen ones: never missing
_BUILT_IN = sys.builtin_module_names
_is_frozen = sys.modules["_imp"].is_frozen

#: modules whose code the import hook made for the native mechanism: their ``lazy``
#: statements are lazify's, eager when lazify is off or the module is excluded
#: (any other module's are the program's own)
native_modules = set()


def lazy_imports_filter(importer, name, fromlist):
    """PEP 810's filter: False makes this lazy import eager.

    The interpreter calls it at every ``lazy`` statement, a Python call on the
    start-up path of every program: the common case, a module already loaded,
    imported from a module lazify defers in, is answered first."""
    if importer in lazy_importers:
        if name in _modules:
            return True
    elif not lazy_now(importer or ""):
        if importer not in native_modules:
            # the program's own ``lazy`` statement (the hook compiled no lazy ones
            # there): lazy, as PEP 810's "normal" mode has it
            return True
        # lazy only where the module opts in with PEP 810's __lazy_modules__, as the
        # rewrite's runtime decides (_ModuleState.lazy_for)
        module = _modules.get(importer)
        if not opted_in(getattr(module, "__dict__", _NO_DICT), name):
            return False
    top = name.partition(".")[0]
    if top in _modules or not top or top in _BUILT_IN or _is_frozen(top):
        return True                      # loaded, or cannot be missing: no search
    # Not loaded yet: eagerly, a missing package raises at this statement, which
    # matters where the importing module is imported under an ImportError handler.
    frame = sys._getframe(1)
    known = known_guarded(frame)
    search = findable
    if known is None:
        # a module known to be there without a search (the standard library's, one
        # found before) is lazy whether the body is guarded or not: no walk up the
        # stack for it (about 11-24 k instructions a module body, a stat here)
        try:
            if found_without_search(top):
                return True
            search = found_by_search     # asked already: not twice
        except Exception:
            pass
        known = guarded(frame)
    if not known:
        return True
    try:
        return search(top)
    except Exception:
        return True                      # a finder's own trouble: leave it to the import


#: whether the interpreter lists its pending lazy imports (PEP 810's ``sys.lazy_modules``)
_LAZY_MODULES = hasattr(sys, "lazy_modules")
_MISSING = object()
#: the ``__name__`` of importlib's frozen bootstrap, whose ``_handle_fromlist`` probes
#: ``hasattr(pkg, "sub")`` for ``from pkg import sub`` and imports the submodule
#: itself when the answer is no (as ``_importlib_bootstrap._IMPORTLIB_BOOTSTRAP``)
_IMPORTLIB_BOOTSTRAP = frozenset({"importlib._bootstrap", "_frozen_importlib"})
#: :func:`lazify._native_catchup.missing`, once a package's ``__getattr__`` has needed it
_missing = None


def catch_up_for(fullname, code):
    """Give the package ``fullname``, whose body is about to run the hook's native
    ``code``, the ``__getattr__`` of the package-submodule catch-up
    (:mod:`lazify._native_catchup`; not a module that took the rewrite, which has the
    rewrite's; not one asked for its code outside an import).  Here, in a module every
    start loads, so that the catch-up's own module is imported only when a package
    lacks an attribute while lazy imports are pending, not at every start."""
    if "__lazy__" in code.co_names or not _LAZY_MODULES:
        return
    module = _modules.get(fullname)
    namespace = getattr(module, "__dict__", None)
    if namespace is None or "__path__" not in namespace or "__getattr__" in namespace:
        return
    if not getattr(namespace.get("__spec__"), "_initializing", False):
        return
    namespace["__getattr__"] = _getattr_for(module)


def _getattr_for(module):
    """The package's ``__getattr__``: :func:`_package_getattr` bound to the module,
    one object per package (a closure over the module would be five)."""
    return _package_getattr.__get__(module)


def _package_getattr(module, name):
    # a dunder, or importlib's probe, is never a submodule to catch up
    if sys.lazy_modules and not (name.startswith("__") and name.endswith("__")) \
            and sys._getframe(1).f_globals.get("__name__") not in _IMPORTLIB_BOOTSTRAP:
        value = _catch_up(module, name)
        if value is not _MISSING:
            return value
    return interpreters_answer(module, name)


def interpreters_answer(module, name):
    """``module.name`` as the interpreter answers it without the module's
    ``__getattr__`` (lazify's, asking): its exact AttributeError (partially initialised
    modules, names shadowing a library, suggestions)."""
    namespace = module.__dict__
    hook = namespace.pop("__getattr__", _MISSING)
    try:
        return type(module).__getattribute__(module, name)
    finally:
        if hook is not _MISSING:
            namespace.setdefault("__getattr__", hook)


#: "pkg.name" the finders said is no submodule (asked once, as the rewrite's runtime)
_not_submodules = set()


def _catch_up(module, name):
    """``module.name`` caught up (:func:`lazify._native_catchup.missing`, imported at
    the first) when the package's finders have it as a submodule not imported yet,
    else _MISSING: a name the package lacks and that is no submodule (dataclasses
    asks pytest's packages for ``tuple``, pip asks ``sysconfig`` for a setting) is
    answered here, without the catch-up's module."""
    global _missing
    package = module.__name__
    fullname = f"{package}.{name}"
    if fullname in _not_submodules or fullname in _modules or _modules.get(package) is not module:
        return _MISSING
    if submodule_spec(fullname, module.__dict__.get("__path__")) is None:
        _not_submodules.add(fullname)
        return _MISSING
    if _missing is None:
        from . import _native_catchup

        _native_catchup.native_modules = native_modules
        _missing = _native_catchup.missing
    return _missing(module, name, fullname, _MISSING)


def native_on():
    """PEP 810's "normal" mode (explicit ``lazy`` statements only: the hook's and
    the program's own) with lazify's filter; the previous ones are kept."""
    if not AVAILABLE:
        return
    global _exit_registered
    if settings.previous is None:
        settings.previous = (sys.get_lazy_imports(), sys.get_lazy_imports_filter())
    sys.set_lazy_imports("normal")
    sys.set_lazy_imports_filter(lazy_imports_filter)
    if not _exit_registered:
        _atexit().register(_filter_off_at_exit)
        _exit_registered = True


def _atexit():
    """The built-in ``atexit`` module, without putting it in ``sys.modules`` when the
    program has not imported it: one module less at every start-up than lazify would
    show (the global mode loads none; sphinx-build's count is within 10 % of its for
    it).  The interpreter keeps one list of exit handlers whatever module object
    registers them, in the order registered (``tests/test_native.py``)."""
    module = _modules.get("atexit")
    if module is None:
        try:
            import _imp
            from _frozen_importlib import ModuleSpec

            module = _imp.create_builtin(ModuleSpec("atexit", None))
            _imp.exec_builtin(module)
        except Exception:                # another interpreter's import system
            import atexit as module
    return module


#: whether :func:`_filter_off_at_exit` is registered with ``atexit``
_exit_registered = False


def _filter_off_at_exit():
    """At exit, after the program's own exit handlers (registered after this one):
    give the interpreter back the filter it had.  A filter still set when the
    interpreter finalizes keeps lazify's modules, and every module their globals
    reach, alive past the collection that frees the others, and each is then cleared
    one by one: about 0.5M instructions at the exit of ``python -c pass`` (3.15.2,
    callgrind), more the more modules a program loaded.  A ``lazy`` statement that
    runs later still (an earlier exit handler, a ``__del__``) is lazy, as PEP 810's
    "normal" mode has it."""
    previous = settings.previous
    if previous is not None and sys.get_lazy_imports_filter() is lazy_imports_filter:
        sys.set_lazy_imports_filter(previous[1])


def native_off():
    """Give the interpreter back the lazy imports mode and filter it had."""
    previous, settings.previous = settings.previous, None
    if previous is not None:
        sys.set_lazy_imports(previous[0])
        sys.set_lazy_imports_filter(previous[1])


# -------------------------------------------------------------- the mechanism's choice

#: the mechanisms lazify has
MECHANISMS = ("native", "rewrite")
#: whether this interpreter has PEP 810's lazy imports (3.15+)
NATIVE_AVAILABLE = AVAILABLE


def default_mechanism():
    """"native" where the interpreter has PEP 810's lazy imports, else "rewrite"."""
    return "native" if NATIVE_AVAILABLE else "rewrite"


def check_mechanism(mechanism):
    """``mechanism``, or the default for None; ValueError for an unknown one, or
    "native" on an interpreter without PEP 810."""
    if mechanism is None:
        return default_mechanism()
    if mechanism not in MECHANISMS:
        raise ValueError(f"lazify: unknown mechanism {mechanism!r} "
                         f"(one of {', '.join(map(repr, MECHANISMS))})")
    if mechanism == "native" and not NATIVE_AVAILABLE:
        raise ValueError("lazify: the native mechanism needs PEP 810's lazy imports "
                         f"(Python 3.15+); this is {sys.version.split()[0]}: use \"rewrite\"")
    return mechanism


def set_mechanism(name):
    """Compile modules for mechanism ``name`` from now on (checked), and set the
    interpreter up for it: PEP 810's "normal" mode and lazify's filter for
    "native", the interpreter's previous mode and filter otherwise."""
    name = check_mechanism(name)
    settings.mechanism = name
    if name == "native":
        native_on()
    else:
        native_off()
