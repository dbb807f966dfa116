"""lazify: PEP 690 lazy imports on stock CPython.

The public API only; everything else lives in private modules.

PYTEST_DONT_REWRITE: the pytest11 entry point (``pytest_lazify``) makes pytest mark this
distribution's packages for assertion rewriting; lazify has no test asserts, and under
``lazify run -m pytest`` or ``LAZIFY=1`` it is imported before pytest starts, which pytest
would otherwise warn about (an error under ``-W error``).
"""

#: lazify's version, the one place it is written (pyproject.toml reads it from here, and
#: the cache tag of :mod:`lazify._cache`); here rather than in a module of its own, which
#: every start-up would load (about 0.2 M instructions)
__version__ = "0.1.0"

#: the modules every start-up with lazify on loads besides this one, in the order they
#: import each other (tests/test_hook.py pins them); read from one file when it is
#: current, :mod:`lazify._startup_bundle`
STARTUP_MODULES = ("_settings", "_os", "_guarded", "_native", "_cache", "_hook")
#: the source name whose cache path (``__pycache__``, the interpreter's tag and
#: optimization level, ``sys.pycache_prefix``) is that file's
STARTUP_BUNDLE = "__startup__.py"


def _load_startup_modules():
    """Load :data:`STARTUP_MODULES` from the start-up bundle when it holds the code of
    their sources as they are; else leave them to be imported one by one, as Python
    does, and return the bundle's path, for the hook's install to write it.

    Each module is made as the import system makes it (its spec, loader, module
    attributes, ``sys.modules``, the import lock while its body runs): only the path
    finder's search and six pyc reads are saved."""
    import _imp
    import sys

    if "lazify._settings" in sys.modules:         # importlib.reload(lazify)
        return None
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import (MAGIC_NUMBER, SourceFileLoader, _os,
                                            cache_from_source, path_sep,
                                            spec_from_file_location)

    here = __path__[0] + path_sep
    entries = bundle = None
    try:
        bundle = cache_from_source(here + STARTUP_BUNDLE)
        data = SourceFileLoader(__name__, bundle).get_data(bundle)
        if data[:4] == MAGIC_NUMBER:
            import marshal

            entries = marshal.loads(memoryview(data)[4:])
            if [entry[0] for entry in entries] != list(STARTUP_MODULES):
                entries = None
            else:
                for name, mtime, size, _code in entries:
                    st = _os.stat(f"{here}{name}.py")
                    if int(st.st_mtime) != mtime or st.st_size != size:
                        entries = None
                        break
    except Exception:            # missing, unreadable, corrupt: imported one by one
        entries = None
    if entries is None:
        # imported as this package's imports and install() ask for them, not here:
        # a submodule imported while lazify itself initializes takes lazify's module
        # lock twice (about 0.45 M instructions for the six, on 3.15)
        return bundle
    package = sys.modules[__name__]
    # the import lock, which the import system takes to make or find a module's own
    # lock: a thread importing one of these modules meanwhile waits for all of them
    # (a module lock each costs about 33 k instructions; what their bodies import is
    # loaded before lazify, so nothing is waited for while the lock is held)
    _imp.acquire_lock()
    try:
        for name, _mtime, _size, code in entries:
            fullname = f"{__name__}.{name}"
            path = f"{here}{name}.py"
            # not a package: the path finder's own call (no is_package probe)
            spec = spec_from_file_location(fullname, path,
                                           loader=SourceFileLoader(fullname, path),
                                           submodule_search_locations=None)
            module = module_from_spec(spec)
            sys.modules[fullname] = module
            # the path the code was compiled at, if lazify was moved since (a copied
            # venv or image): tracebacks and linecache name the file as it is now, as
            # the import system's pyc loader does
            _imp._fix_co_filename(code, path)
            spec._initializing = True
            try:
                exec(code, module.__dict__)
            except BaseException:
                del sys.modules[fullname]
                raise
            finally:
                spec._initializing = False
            setattr(package, name, module)
    finally:
        _imp.release_lock()
    return None


_unbundled = _load_startup_modules()
del _load_startup_modules

from ._settings import DEFAULT_EXCLUDING as DEFAULT_EXCLUDING  # noqa: E402
from ._settings import is_lazy_imports_enabled as is_lazy_imports_enabled  # noqa: E402
from ._settings import set_lazy_imports as set_lazy_imports  # noqa: E402
from ._settings import settings as _state  # noqa: E402

_state.unbundled = _unbundled
del _unbundled, _state


def install(*, enabled=None, excluding=None, mechanism=None):
    """Install the import hook (idempotent).

    Settings not given come from the environment, then from the settings ``lazify
    enable`` recorded for this environment, then lazify's defaults (never from the
    current directory): ``LAZIFY_DISABLE=1`` or a recorded ``enabled = false`` turn
    global mode off; the recorded ``excluding`` names and ``LAZIFY_EXCLUDING=a,b`` are
    added to the default list when ``excluding`` is None.  ``LAZIFY=0`` makes a call
    without ``enabled`` do nothing.  A malformed setting is reported once, never a
    failure.

    :param enabled: ``True`` is global mode, like PEP 690's ``-L``: every
        eligible import in every transformed module is lazy.  ``False``
        installs the hook for explicit opt-ins only (``__lazy_modules__``).
        ``None``: the settings, else ``True``.
    :param excluding: container of module names whose own imports stay eager;
        ``None`` means :data:`DEFAULT_EXCLUDING` plus the configured names.
    :param mechanism: ``"native"`` (Python 3.15+: the imports lazify finds
        eligible become PEP 810 ``lazy`` imports, which the interpreter defers)
        or ``"rewrite"`` (every version: generated code, PEP 690's transparent
        namespace).  ``None``: ``LAZIFY_MECHANISM`` or the recorded one, else
        native where the interpreter has it.  ``ValueError`` for ``"native"``
        before 3.15; the configured one then gives a warning and the rewrite.
    """
    from ._hook import install as _install
    from ._native import check_mechanism
    from ._settings import env_flag, has_settings, recorded, recorded_settings

    if mechanism is not None:
        check_mechanism(mechanism)
    if enabled is None and env_flag("LAZIFY", True) is False:
        return                           # LAZIFY=0: lazify is off for this run

    names = ()
    try:
        if has_settings():       # most starts have no variable: _config is not imported then
            from ._config import resolve, usable_mechanism

            config = resolve(enabled=enabled, mechanism=mechanism, strict=False)
            enabled, names = config.enabled, config.excluding
            if mechanism is None:
                mechanism = usable_mechanism(config.mechanism)
        elif recorded():         # an enabled environment: the recorded settings as they are
            enabled, names, configured = recorded_settings(recorded(), enabled)
            mechanism = mechanism or configured
    except Exception as exc:  # lazify must never be why a program fails to start
        from ._settings import report

        report(f"settings ignored: {exc}")
    if excluding is None and names:
        excluding = frozenset({*DEFAULT_EXCLUDING, *names})
    _install(enabled=True if enabled is None else enabled, excluding=excluding,
             mechanism=mechanism)


def uninstall():
    """Remove the import hook; modules already loaded keep working."""
    from ._hook import uninstall as _uninstall

    _uninstall()


#: the public helpers of :mod:`lazify._api`, imported when first asked for (PEP 562): a
#: program's start-up with lazify on never uses them, and one module less is loaded
_API = frozenset({"eager_imports", "is_lazy_import", "resolve_all"})


def __getattr__(name):
    if name in _API:
        from . import _api

        value = globals()[name] = getattr(_api, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_API})


__all__ = [
    "DEFAULT_EXCLUDING", "eager_imports", "install", "is_lazy_import",
    "is_lazy_imports_enabled", "resolve_all", "set_lazy_imports", "uninstall",
]
