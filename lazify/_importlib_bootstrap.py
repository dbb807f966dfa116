# The file name must stay: warnings and logging skip frames whose file name holds "importlib" and "_bootstrap".
"""What rewritten modules call: registration, resolution, PEP 562 hooks.

A rewritten module starts with::

    import lazify._importlib_bootstrap as __lazy__
    __lazy__ = __lazy__.__lazy_module__(globals())

``__lazy__`` is an instance of a per-module class whose instance ``__dict__``
*is* the module's globals dict.  A present name is an ordinary instance
attribute hit (specializable); a pending one misses the dict and falls into a
non-data descriptor on the per-module class, which imports, binds the real
object into the module dict, and deletes itself from the class.

The names the generated code calls, and what it passes them, are the table in
:mod:`lazify._entry_points`: the stable interface of the cached bytecode, so
changing one needs a cache-format bump.

The first rewritten module imports it (``install()`` needs only the settings,
:mod:`lazify._settings`; the native mechanism never imports this module), and it
registers itself there; it imports nothing but ``sys``, ``builtins`` and three of
lazify's modules every start-up has loaded already: the settings, the guarded-import
check and the native mechanism's (for PEP 810's ``LazyImportType``).

Its file name is deliberate: ``warnings`` and ``logging`` treat frames whose
file name contains both "importlib" and "_bootstrap" as import machinery and
skip them when they count ``stacklevel``, as they skip importlib's own.  A
deferred import runs from here, where an eager one runs from importlib, so a
module that warns with ``stacklevel=2`` while it is imported, and a package
``__getattr__`` reached through lazify's, still name the user's code.
"""

import builtins
import sys
from _operator import itemgetter as _itemgetter
from _thread import _local, get_ident
from _weakref import ref

from . import _settings
from ._guarded import findable, guarded, machinery_file, missing_dependency, submodule_spec
from ._native import lazy_import_type
from ._settings import (absolute_name, is_excluded, lazy_importers, lazy_now, opted_in,
                        settings)

_MISSING = object()
_EMPTY = frozenset()
#: PEP 810's types.LazyImportType (3.15+; None before)
_LazyImportType = lazy_import_type()
#: (module state, name, thread id) -> (depth, the pending entry): the deferred
#: imports running now, in every module (one dict for the process, not one a module)
_resolving = {}
#: a module with no pending name shares this one (never written to: a module gets a
#: dict of its own for its first pending name)
_NONE_PENDING = {}

#: per-module classes given back by modules that have nothing pending any more,
#: handed to the next module that needs one (making a class costs more than the
#: rest of a module's registrations together)
_free_classes = []
_FREE_CLASSES = 16
#: a class whose descriptors have been set or taken off this many times is not handed
#: on: CPython 3.13+ gives a class about a thousand version tags, then specializes
#: no attribute load on its instances (``__lazy__.x`` in a hot loop of a module that
#: keeps a name pending for good would stay slow)
_CLASS_CHANGES_KEPT = 400
_NO_DICT = {}
#: :mod:`lazify._import_record` while it records deferrals and resolutions, else None
#: (tested where an import is deferred or resolved, never where a name is read)
_recorder = None


def _absolute(module, level, package):
    """The absolute name of ``from .{level}module import``, or None where Python's
    import raises (:func:`lazify._settings.absolute_name`): the import itself raises
    it when it runs."""
    try:
        return absolute_name(module, level, package)
    except ImportError:
        return None


def _line_at(code, offset):
    """The line of the instruction at byte ``offset`` of ``code`` (a frame's
    ``f_lasti``), as the frame's ``f_lineno`` gives it while it runs there."""
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line if line is not None else code.co_firstlineno
    return code.co_firstlineno


#: per thread: a failed package import is being repaired (see _replay_in_order)
_replaying = _local()

#: how deep a deferred import may re-enter itself from user code before the
#: re-entry is answered "not there yet" (a safety net against a loop)
_MAX_REENTRY = 3

#: (module text with its leading dots, package) -> the absolute name it imports
#: from, or None (see _absolute)
_relative = {}


# ---------------------------------------------------------------------------
# Pending entries.

_TOP, _AS, _FROM = range(3)


class _Entry:
    """How to import one pending name, and where the statement was.

    A pending entry is also the non-data descriptor that stands for its name on
    the module's own class (:meth:`_ModuleState.register` sets ``state`` and
    ``name``): one object per pending name, not two.
    """

    __slots__ = ("kind", "module", "level", "attr", "asname", "submodules", "where",
                 "statement_module", "state", "name", "failed_catch_up")

    def __init__(self, kind, module, level, attr, asname, frame, statement_module=None):
        self.kind = kind
        self.module = module          # as written, without leading dots
        self.level = level
        self.attr = attr              # _FROM: the name imported from module
        self.asname = asname          # None without "as"
        self.submodules = [module] if kind == _TOP else None
        #: the statement's code and offset in it: its line is worked out only
        #: when a message needs it (``f_lineno`` walks the line table from the
        #: start, more than the rest of a registration in a long module)
        self.where = (frame.f_code, frame.f_lasti)
        #: _FROM: a one-item list shared by the names of one statement; it
        #: holds the module the first of them was resolved from, so that
        #: ``from m import a, b`` binds both from the same module object
        self.statement_module = statement_module
        #: its import failed during a catch-up (_catch_up): not tried again by one
        #: (kept on the entry, not in a set of the module's: a pending entry
        #: refers to its module's state)
        self.failed_catch_up = False

    def __get__(self, namespace, owner=None):
        # the name read while pending: the dict missed, the class found this
        if namespace is None:
            return self
        __tracebackhide__ = True    # pytest's convention: this frame is machinery
        try:
            return self.state.resolve(self.name)
        except BaseException as exc:
            raise exc.with_traceback(_without_own_frames(exc))

    @property
    def lineno(self):
        """The line of the statement."""
        code, offset = self.where
        return _line_at(code, offset)

    def load(self, namespace):
        """Do what the eager statement would do now; return the bound value."""
        do_import = builtins.__import__
        if self.kind == _TOP:
            submodules = self.submodules
            top = submodules[0].partition(".")[0]
            if top != submodules[0] or len(submodules) > 1:
                # ``import a.b`` (and ``import a.c``) binding ``a``: as PEP 810
                # does, the name is bound to ``a`` alone, and ``a.b`` stays
                # pending on it, imported when read from it, unless a package
                # on the way has no lazify __getattr__ to do that
                value = do_import(top, namespace, None, None, 0)
                eager = False
                for module in submodules:
                    if module != top and module not in sys.modules:
                        if eager or _without_catch_up(module):
                            eager = True
                        else:
                            _leave_pending(module)
                if not eager:
                    return value
            value = None
            for module in submodules:
                top = do_import(module, namespace, None, None, 0)
                if value is None:
                    value = top
            return value
        if self.kind == _AS:
            value = do_import(self.module, namespace, None, None, 0)
            parts = self.module.split(".")
            for index in range(1, len(parts)):
                try:
                    value = getattr(value, parts[index])
                except AttributeError:
                    value = sys.modules[".".join(parts[: index + 1])]
            return value
        shared = self.statement_module
        module = shared[0] if shared else None
        if module is None or self.attr not in getattr(module, "__dict__", ()):
            if do_import is _builtin_import:
                module = _import_submodule_first(self, namespace)
            else:
                module = None
            if module is None:
                module = do_import(self.module, namespace, None, (self.attr,), self.level)
            if shared is not None and shared[0] is None:
                shared[0] = module
        try:
            return getattr(module, self.attr)
        except AttributeError:
            pass
        module_name = getattr(module, "__name__", None)
        if isinstance(module_name, str):
            value = sys.modules.get(f"{module_name}.{self.attr}", _MISSING)
            if value is not _MISSING:
                return value
        location = getattr(module, "__file__", None) or "unknown location"
        spec = getattr(module, "__spec__", None)
        if getattr(spec, "_initializing", False):
            # the statement re-run while the module is still executing
            source = (f"partially initialized module {module_name!r} "
                      f"(most likely due to a circular import)")
        else:
            source = repr(module_name)
        raise ImportError(f"cannot import name {self.attr!r} from {source} ({location})",
                          name=module_name, path=getattr(module, "__file__", None))

    @property
    def statement(self):
        """The statement, for messages: ``from ..m import a as b``."""
        alias = self.module if self.kind != _FROM else self.attr
        if self.asname is not None:
            alias = f"{alias} as {self.asname}"
        if self.kind != _FROM:
            return f"import {alias}"
        return f"from {'.' * self.level}{self.module} import {alias}"

    def absolute(self, package):
        """Absolute name of the module the statement imports (best effort)."""
        if not self.level:
            return self.module
        return _absolute(self.module, self.level, package)


_builtin_import = builtins.__import__
#: this file, as its frames name it
_RUNTIME_FILE = _absolute.__code__.co_filename

# The builtins a namespace read stands for.  Rewritten code passes the value the name
# has where the read runs: a module global or a patched attribute shadowing one
# (``mock.patch.object(mod, "globals", fake)``) is called as the plain code calls it.
_GLOBALS = builtins.globals
_LOCALS = builtins.locals
_EVAL = builtins.eval
_EXEC = builtins.exec
#: the builtins a "names" read may be given to (the planner's key consumers)
_KEY_CONSUMERS = frozenset((list, tuple, set, frozenset, sorted, len, iter, reversed, enumerate))


def _import_submodule_first(entry, namespace):
    """Before ``from pkg import sub`` runs for a rewritten package ``pkg`` that holds
    lazify's ``__getattr__`` alone: import ``pkg.sub`` as importlib would next.

    importlib first asks ``hasattr(pkg, "sub")``, which lazify's ``__getattr__``
    answers no for a submodule not imported yet (see _PackageSubmodules.submodule),
    at the cost of a call and a raised AttributeError for every such import.
    Whatever else differs from importlib's own handling (``pkg.sub`` not found:
    importlib goes on to look for the attribute) is left to the import that follows.

    Returns ``pkg`` when the statement's own import would now only hand it back
    (``pkg.sub`` imported and bound on it, ``pkg`` finished initializing and
    still in sys.modules, the statement's package resolved without a warning),
    else None: then that import runs.
    """
    package_name = None
    if entry.level:
        package_name = namespace.get("__package__")
        target = _absolute(entry.module, entry.level, package_name)
        if target is None:
            return None
    else:
        target = entry.module
    modules = sys.modules
    package = modules.get(target)
    space = getattr(package, "__dict__", None)
    if space is None or entry.attr in space or "__path__" not in space:
        return None
    fullname = f"{target}.{entry.attr}"
    if fullname in modules:
        return None
    owner = space.get("__lazy__")
    if not isinstance(owner, _Namespace):
        return None
    state = owner.__lazify_state__
    if state.namespace is not space or space.get("__getattr__") is not state.getattr_fn \
            or state.getattr_fn is None or state.user_getattr is not None \
            or entry.attr in state.pending:
        return None
    try:
        # through __import__, as importlib's fromlist handling does: the C import
        # is the one -X importtime reports (_gcd_import would hide pkg.sub from it)
        _builtin_import(fullname)
    except ModuleNotFoundError as exc:
        if exc.name != fullname or modules.get(fullname, _MISSING) is None:
            raise
        return None
    if modules.get(target) is not package or entry.attr not in space \
            or getattr(getattr(package, "__spec__", None), "_initializing", False):
        return None
    if package_name is not None:
        # the import would resolve ``__package__`` against ``__spec__.parent``
        # and warn when they differ
        spec = namespace.get("__spec__")
        if type(package_name) is not str or spec is None \
                or getattr(spec, "parent", None) != package_name:
            return None
    return package




def _check_found(state, entry):
    """In a guarded module, raise ModuleNotFoundError now if the top-level package
    a deferred import needs cannot be found (eagerly, that import fails here).

    Whether the module is guarded is worked out only now, the first time one of
    its deferred imports needs a package not loaded yet: the frames above the
    module's body are those of its import, as when the body started.
    """
    top = entry.module.partition(".")[0]
    if not top or top in sys.modules or top == "__future__":
        # (a module's lazy ``from __future__`` import: the standard library's, always
        # there; working out whether the module is guarded costs more than importing it)
        return
    if state.guarded is None:
        frame = sys._getframe(1)
        while frame.f_code.co_filename == _RUNTIME_FILE:
            frame = frame.f_back         # up to the module whose statement this is
        state.guarded = guarded(frame)
    if not state.guarded:
        return
    try:
        there = findable(top)
    except Exception:
        return                           # a finder's own trouble: leave it to the import
    if not there:
        try:
            # a module of the standard library whose own import would fail: that name
            missing = missing_dependency(top) or top
        except Exception:
            missing = top
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)


def _loaded(name):
    """The module if it is in sys.modules and finished initializing."""
    module = sys.modules.get(name)
    if module is None:
        return None
    spec = getattr(module, "__spec__", None)
    if spec is not None and getattr(spec, "_initializing", False):
        return None
    return module


# An eager program has ``pkg.sub`` set whenever any import of ``pkg.sub`` ran,
# anywhere, directly or through other modules.  While any lazy import in the
# process is pending, a deferred import might be the one that would have
# loaded it, so rewritten packages keep a ``__getattr__`` that imports their
# own submodules (DESIGN.md, "Details"); it leaves them when nothing is
# pending anywhere.
#
# Both registries hold weak references: a rewritten module removed from
# sys.modules and no longer referenced is freed like any other.
_pending = [0]              # pending entries in all modules
#: id(state) -> weak reference, for the modules with pending entries, in the
#: order they got their first one
_pending_states = {}
#: id(state) -> weak reference, for every rewritten package
_package_states = {}


def _track(registry, state):
    key = id(state)
    registry[key] = ref(state, lambda _dead, key=key: registry.pop(key, None))


def _states(registry):
    """The live states of a registry, as a list (it changes while resolving)."""
    return [state for state in (weak() for weak in list(registry.values()))
            if state is not None]


#: the ``__name__`` of importlib's frozen bootstrap, the code that probes
#: ``hasattr(pkg, "sub")`` for ``from pkg import sub``: "importlib._bootstrap"
#: once the importlib package renamed it, "_frozen_importlib" before that (and
#: on 3.15)
_IMPORTLIB_BOOTSTRAP = frozenset({"importlib._bootstrap", "_frozen_importlib"})


def _packages_need_hooks(needed):
    """Something is pending in the process now (``needed``), or nothing is any
    more: rewritten packages take their ``__getattr__`` in, or out."""
    # (every module whose first name goes pending, or whose last one resolves,
    # when nothing else is pending: walked without _states' generator frames)
    for weak in list(_package_states.values()):
        state = weak()
        if state is None:
            continue
        if needed:
            if not state.installed:
                state.install()
        elif state.installed:
            state.maybe_uninstall()


# ---------------------------------------------------------------------------
# A package's own submodules: ``pkg.sub`` is set on ``pkg`` when an eager program
# would have set it, and a pending ``import pkg.sub`` keeps ``pkg`` able to import it.

#: the submodules of resolved ``import a.b``/``import a.c`` names that were left
#: pending on their package (_Entry.load): each counts in _pending while it is
#: here, so that rewritten packages keep the ``__getattr__`` that imports it
_pending_submodules = {}


def _leave_pending(module):
    if module in _pending_submodules:
        return
    _pending_submodules[module] = None
    _pending[0] += 1
    if _pending[0] == 1 and _package_states:
        _packages_need_hooks(True)


def _import_pending_submodules(fullname, raising=False):
    """Import what _leave_pending left of ``fullname`` or below (``a.b.c`` for
    ``a.b``), as an eager program would have; one that fails is dropped, its
    error raised if ``raising`` (``a.b`` read: the eager statement's error)."""
    below = f"{fullname}."
    for module in [m for m in _pending_submodules if m == fullname or m.startswith(below)]:
        if _pending_submodules.pop(module, _MISSING) is _MISSING:
            continue
        try:
            builtins.__import__(module)
        except Exception:
            if raising:
                raise
        finally:
            _pending[0] -= 1
            if not _pending[0] and _package_states:
                _packages_need_hooks(False)


def _target(state, entry):
    """The module a pending entry would import, absolute (``m.attr`` for a
    from-import, which may be a submodule), or None."""
    target = entry.absolute(state.package)
    if entry.kind == _FROM and target is not None:
        target = f"{target}.{entry.attr}"
    return target


def _aims_at(state, entry, fullname, below):
    """Whether a pending entry imports ``fullname`` or a module below it: for
    ``import a.b`` and ``import a.c`` binding ``a``, any of them (httpie's
    ``import pygments.formatters, ..., pygments.token``)."""
    if entry.kind == _TOP:
        return any(module == fullname or module.startswith(below)
                   for module in entry.submodules)
    target = _target(state, entry)
    return target is not None and (target == fullname or target.startswith(below))


def _catch_up(fullname, done, all_pending):
    """Resolve pending imports as an eager program would have run them, until
    ``done()``: first those aimed at ``fullname`` or below, then, if
    ``all_pending``, those aimed at its package's other modules (a package's
    modules import each other: httpie's ``pygments.formatter``, which
    ``pygments.formatters.terminal`` imports), then the rest (any of them may
    load it in turn, through other packages).  An import that fails here is
    not tried again by a later catch-up."""
    if _pending_submodules:
        _import_pending_submodules(fullname)
        if done():
            return
    aims = [fullname]
    if all_pending:
        aims += [fullname.rpartition(".")[0], None]
    for aim in aims:
        below = f"{aim}."
        progress = True
        while progress and not done():
            progress = False
            for state in _states(_pending_states):
                for name in list(state.pending):
                    entry = state.pending.get(name)
                    if entry is None or name in state.namespace or entry.failed_catch_up:
                        continue
                    if aim is not None and not _aims_at(state, entry, aim, below):
                        continue
                    try:
                        if aim == fullname and entry.kind == _TOP:
                            # ``import a.b`` (and ``import a.c``) binding ``a``: PEP 810
                            # imports the one read (``a.c``), the name stays pending
                            wanted = [module for module in entry.submodules
                                      if (module == aim or module.startswith(below))
                                      and module not in sys.modules]
                            if not wanted:
                                continue
                            for module in wanted:
                                builtins.__import__(module)
                        else:
                            state.resolve(name)
                            if _pending_submodules:
                                _import_pending_submodules(fullname)
                                if entry.kind == _TOP:
                                    # ``import a.b`` left ``a.b`` pending on ``a``: the
                                    # eager statement imported it
                                    for module in entry.submodules:
                                        _import_pending_submodules(module)
                    except Exception:
                        entry.failed_catch_up = True
                        continue
                    progress = True
                    if done():
                        return


class _PackageSubmodules:
    """The part of a rewritten package's state that answers for its
    submodules: ``pkg.sub`` when an eager program would have loaded it by now,
    and the repair of the order of its own submodule imports after a
    circular ImportError.  Mixed into :class:`_ModuleState`."""

    #: names the finders said are not submodules of this package
    not_submodules = _EMPTY
    is_package = False

    def _own(self, entry) -> bool:
        """Whether a pending entry of this package imports one of its own submodules."""
        target = _target(self, entry)
        return target is not None and target.startswith(self.name + ".")

    def _replay_in_order(self, name, thread) -> bool:
        """After a package's deferred import of one of its own submodules failed
        with an ImportError: run the package's own-submodule imports that come
        before it, in order, as the eager program had; True if there were any
        and they worked (the failed one is then tried once more).

        A package ``__init__`` imports its submodules in an order that settles
        the cycles between them (pandas imports ``io.excel._base``, whose class
        body imports ``_openpyxl``, before ``_openpyxl``, which imports from
        ``_base``); the first use of a later name imports its submodule first,
        and the cycle breaks with "cannot import name ... from partially
        initialized module".  Imports are not run in order ahead of time, which
        would undo laziness for every package; only a failure is repaired, once
        per thread at a time (a failure while repairing is the answer).
        """
        if getattr(_replaying, "active", False) or not self.is_package \
                or not self._own(self.pending[name]):
            return False
        earlier = []
        for other, entry in self.pending.items():
            if other == name:
                break
            if other not in self.namespace and (self, other, thread) not in _resolving \
                    and self._own(entry):
                earlier.append(other)
        if not earlier:
            return False
        _replaying.active = True
        try:
            for other in earlier:
                if other in self.pending and other not in self.namespace:
                    self.resolve(other)
        except ImportError:
            return False
        finally:
            _replaying.active = False
        return True

    def _not_submodule(self, name):
        if self.not_submodules is _EMPTY:
            self.not_submodules = set()
        self.not_submodules.add(name)

    def submodule(self, name, caller):
        """``pkg.name`` for a submodule an eager program would have loaded.

        An eager program has ``pkg.sub`` set if any of the imports still
        pending here (all of which it would have run by now) loads it,
        directly or through other modules.  So those are run, the ones
        aimed at the submodule first, until it appears; if it never does,
        the answer is the plain one: no such attribute (regrtest's probe
        ``hasattr(test_pkg, "test_main")`` imports nothing it should not).
        """
        if not self.is_package or not _pending[0] \
                or name in self.not_submodules or (name.startswith("__") and name.endswith("__")):
            return _MISSING
        fullname = f"{self.name}.{name}"
        if caller is not self.namespace and fullname not in sys.modules:
            if caller.get("__name__") in _IMPORTLIB_BOOTSTRAP:
                # `from pkg import name`: importlib probes with hasattr and
                # imports the submodule itself when the answer is no
                return _MISSING
            # Would an eager program have loaded it?  Only if one of the
            # imports still pending (all of which it would have run) loads
            # it: run them, those aimed at the submodule first, and look.
            if _pending_submodules:
                # left pending by a resolved ``import pkg.name`` (no search needed)
                _import_pending_submodules(fullname, raising=True)
                value = self.namespace.get(name, _MISSING)
                if value is _MISSING:
                    value = sys.modules.get(fullname, _MISSING)
                if value is not _MISSING:
                    return value
            if submodule_spec(fullname, self.namespace.get("__path__")) is None:
                self._not_submodule(name)
                return _MISSING
            # a package with a __getattr__ of its own (numpy's ``np.random``) answers
            # for submodules no import aims at itself: running every pending
            # import in the process to find out would undo all laziness
            has_own = self.user_getattr is not None or (
                self.namespace.get("__getattr__") not in (None, self.getattr_fn))
            _catch_up(fullname, lambda: name in self.namespace or fullname in sys.modules,
                      not has_own)
            value = self.namespace.get(name, _MISSING)
            if value is _MISSING:
                value = sys.modules.get(fullname, _MISSING)
            return value
        try:
            builtins.__import__(fullname, self.namespace, None, None, 0)
        except ModuleNotFoundError as exc:
            if exc.name != fullname:
                raise
            self._not_submodule(name)
            return _MISSING
        except AttributeError as exc:
            # escaping a __getattr__ it would read as "no such attribute"
            raise ImportError(f"import of {fullname!r} failed: "
                              f"{type(exc).__name__}: {exc}", name=fullname) from exc
        value = self.namespace.get(name, _MISSING)
        if value is _MISSING:
            value = sys.modules.get(fullname, _MISSING)
        return value


# ---------------------------------------------------------------------------
# Per-module state.

class _ModuleState(_PackageSubmodules):
    """What lazify keeps for one rewritten module.

    Every rewritten module makes one when its body starts (``__lazy_module__``,
    without an ``__init__``), so only what every module needs is set there; the
    rest starts as a class-level default and is set on the instance when it
    first changes.
    """

    #: the module's own class while it has pending names (see _Namespace), and how
    #: many times descriptors were set on it or taken off, by earlier modules too
    cls = None
    cls_changes = 0
    #: lazify's PEP 562 hooks for this module, made when first installed
    getattr_fn = dir_fn = None
    #: the module's own ``__getattr__`` when lazify's wraps it (one bound other
    #: than by a ``def`` with lazify's prologue), and its line (0: unknown,
    #: taken as bound before everything)
    user_getattr = None
    user_getattr_line = 0
    installed = False
    #: the settings generation this module's view of them is from, and whether
    #: all its statements are lazy in that view (not excluded, lazify on)
    generation = -1
    all_lazy = False
    #: the generation while all its statements are lazy in it, else -1 (one
    #: comparison on every registration)
    lazy_generation = -1
    #: imported where an ImportError is caught (see :func:`_guarded`); None
    #: until a deferred import of a package not loaded yet needs to know
    guarded = None
    #: fallback names whose _Unbound descriptor is on the class
    unbound = _EMPTY
    #: a PEP 810 ``lazy`` statement is registering its names: lazy whatever the
    #: settings, and a missing package raises where the name is first used, as 3.15
    #: defers such a statement (``__lazy_explicit_import__``)
    explicit = False

    #: the module's ``__lazy__`` (set by __lazy_module__, which makes it)
    instance = None
    # set by __lazy_module__ on every instance: ``namespace``, ``name``,
    # ``package``, ``pending`` (pending name -> _Entry: the shared empty
    # _NONE_PENDING until its first pending name); ``is_package`` when it is one

    # -- decisions ----------------------------------------------------------

    def _refresh(self) -> bool:
        """Take the settings in again after set_lazy_imports()/install(); return
        ``all_lazy``."""
        self.all_lazy = all_lazy = lazy_now(self.name)
        self.generation = generation = settings.generation
        self.lazy_generation = generation if all_lazy else -1
        return all_lazy

    def lazy_for(self, entry) -> bool:
        """Lazy or eager, decided when the statement executes."""
        if self.explicit:
            return True
        if "__lazy_modules__" in self.namespace and opted_in(
                self.namespace, entry.absolute(self.package)):
            return True
        if self.generation != settings.generation:
            self._refresh()
        return self.all_lazy

    # -- registration -------------------------------------------------------
    #
    # Every rewritten module runs these for each of its imports, so the common
    # case is kept short: an import whose target is already fully imported is
    # bound at once, without making a pending entry (costs nothing, keeps the
    # namespace complete); everything else goes through register().

    def register_import(self, module, asname, frame):
        """``import module`` (``as asname``), the statement running in ``frame``
        (its line is worked out only for a pending entry: that costs more than
        the rest of a registration)."""
        if asname is None:
            bound = module.partition(".")[0]
        else:
            bound = asname
        if self.generation != settings.generation:
            self._refresh()
        if not self.all_lazy or bound in self.pending:
            return self.register(bound, _Entry(_TOP if asname is None else _AS, module, 0,
                                                None, asname, frame))
        modules = sys.modules
        loaded = modules.get(module)
        if loaded is None and "." in module and _without_catch_up(module):
            # Eagerly ``import a.b`` sets ``a.b`` for every user of ``a``; a package
            # lazify does not rewrite has no __getattr__ to catch up with a pending
            # one (networkx: ``import collections`` then ``collections.abc``,
            # which inspect's ``import collections.abc`` had loaded): import now.
            __import__(module)
            loaded = modules.get(module)
        if loaded is None or getattr(getattr(loaded, "__spec__", None), "_initializing", False):
            return self.register(bound, _Entry(_TOP if asname is None else _AS, module, 0,
                                                None, asname, frame), True)
        if asname is None and bound != module:
            loaded = modules.get(bound)
            if loaded is None or getattr(getattr(loaded, "__spec__", None), "_initializing",
                                        False):
                return self.register(bound, _Entry(_TOP, module, 0, None, None, frame),
                                     True)
        self.namespace[bound] = loaded
        if bound in self.unbound:
            self._forget_unbound(bound)

    def register_from(self, module, level, attr, asname, frame, statement_module):
        """``from module import attr`` (``as asname``), the statement running in
        ``frame``."""
        bound = attr if asname is None else asname
        if self.generation != settings.generation:
            self._refresh()
        checked = False
        if self.all_lazy and bound not in self.pending:
            target = module if not level else _absolute(module, level, self.package)
            loaded = sys.modules.get(target) if target is not None else None
            if loaded is not None and not getattr(getattr(loaded, "__spec__", None),
                                                 "_initializing", False):
                # never through the module's own __getattr__ (lazy_loader packages)
                value = getattr(loaded, "__dict__", _NO_DICT).get(attr, _MISSING)
                if value is not _MISSING and (_LazyImportType is None
                                              or type(value) is not _LazyImportType):
                    self.namespace[bound] = value
                    if bound in self.unbound:
                        self._forget_unbound(bound)
                    return
            checked = target is not None
        self.register(bound, _Entry(_FROM, module, level, attr, asname, frame,
                                    statement_module), checked)

    def _forget_unbound(self, name):
        """A fallback-named name got bound: its _Unbound descriptor goes (the
        instance dict wins, but only a class without it is specialized)."""
        self.unbound.discard(name)
        self._drop_descriptor(name)

    def own_class(self):
        """The module's own subclass of _Namespace, put on ``__lazy__`` when
        first needed: one another module gave back, or a new one."""
        cls = self.cls
        if cls is None:
            if _free_classes:
                cls, self.cls_changes = _free_classes.pop()
            else:
                cls = type("__lazy__", (_Namespace,), {"__slots__": ()})
                self.cls_changes = 0
            self.cls = cls
            self.instance.__class__ = cls
        return cls

    def _drop_descriptor(self, name):
        """Take a name's descriptor off the module's class; back to the shared
        class once it holds none (what CPython specializes best)."""
        cls = self.cls
        if cls is None:
            return
        try:
            delattr(cls, name)
        except AttributeError:
            pass
        else:
            self.cls_changes += 1
        if not self.pending and not self.unbound:
            self.instance.__class__ = _Namespace
            self.cls = None
            if len(_free_classes) < _FREE_CLASSES and self.cls_changes < _CLASS_CHANGES_KEPT:
                _free_classes.append((cls, self.cls_changes))    # no descriptor left on it

    def register(self, bound, entry, lazy_and_not_loaded=False):
        """Make ``bound`` pending on ``entry``, or bind it now when the
        statement is eager or its target is loaded already (known, with
        ``lazy_and_not_loaded``, when the caller has just looked)."""
        namespace = self.namespace
        pending = self.pending
        existing = pending.get(bound)
        if existing is not None and existing.kind == _TOP and entry.kind == _TOP \
                and namespace.get(bound, _MISSING) is _MISSING:
            if entry.module not in existing.submodules:
                existing.submodules.append(entry.module)
            return
        if not lazy_and_not_loaded:
            if not self.lazy_for(entry):
                value = entry.load(namespace)
            else:
                value = self._already_loaded(entry)
            if value is not _MISSING:
                namespace[bound] = value
                if existing is not None:
                    self._unpend(bound, existing)
                elif bound in self.unbound:
                    self._forget_unbound(bound)
                return
        if existing is None:
            if not entry.level and not self.explicit \
                    and entry.module.partition(".")[0] not in sys.modules:
                _check_found(self, entry)
            if not pending:
                _track(_pending_states, self)
            _pending[0] += 1
            if _pending[0] == 1 and _package_states:
                _packages_need_hooks(True)
            if _recorder is not None:
                _recorder.deferred(self, entry, bound)
        namespace.pop(bound, None)
        if pending is _NONE_PENDING:
            self.pending = pending = {}
        pending[bound] = entry
        entry.state = self
        entry.name = bound
        setattr(self.cls or self.own_class(), bound, entry)
        self.cls_changes += 1
        if not self.installed:
            self.install()

    def _already_loaded(self, entry):
        """Bind at once what is already fully imported (costs nothing)."""
        if entry.kind == _TOP:
            module = entry.module
            top = module.partition(".")[0]
            if _loaded(module) is not None and (top == module or _loaded(top) is not None):
                return sys.modules[top]
            return _MISSING
        target = entry.absolute(self.package)
        if target is None:
            return _MISSING
        module = _loaded(target)
        if module is None:
            return _MISSING
        if entry.kind == _AS:
            return module
        # Never trigger the module's own __getattr__ (lazy_loader packages).
        value = getattr(module, "__dict__", {}).get(entry.attr, _MISSING)
        if _LazyImportType is not None and type(value) is _LazyImportType:
            # the module's own ``lazy import`` (3.15): getattr on the module makes
            # it real when this name resolves; bound raw, a routed read would get
            # the placeholder
            return _MISSING
        return value

    # -- resolution ---------------------------------------------------------

    def resolve(self, name, probe=False, attribute=False):
        """Import a pending name now and bind it into the module namespace.

        Re-entered while its own import runs (the imported module, or one it
        imports, reads the name back), it does what the statement would do at
        that moment, as PEP 690 does: import again (importlib hands the
        half-initialised module to the same thread) and bind the name if it
        is there by now, else raise the error an eager statement raises.
        Only importlib's own probe (``hasattr(pkg, "sub")`` in its fromlist
        handling, :param probe:) is answered "not there yet" instead, which
        is what the eager module, its statement not finished, would answer.
        So is an attribute of the module (:param attribute:, ``getattr(mod,
        name, None)``, ``from mod import name``) whose import, run again, fails:
        the eager module has not bound the name yet, and says so with an
        ``AttributeError`` (``hasattr`` is False, ``from`` an ``ImportError``).
        """
        namespace = self.namespace
        entry = self.pending.get(name)
        if entry is None:
            value = namespace.get(name, _MISSING)
            if value is _MISSING:
                raise NameError(f"name {name!r} is not defined", name=name)
            return value
        key = (self, name, get_ident())
        outer = _resolving.get(key)
        if outer is not None and (probe or outer[0] >= _MAX_REENTRY):
            raise AttributeError(
                f"module {self.name!r} has no attribute {name!r} yet "
                f"(its deferred import is in progress)", name=name)
        _resolving[key] = (1 if outer is None else outer[0] + 1, entry)
        try:
            try:
                value = entry.load(namespace)
            except ImportError as exc:
                if outer is not None or type(exc) is ModuleNotFoundError \
                        or not self._replay_in_order(name, key[2]):
                    raise
                value = entry.load(namespace)
        except BaseException as exc:
            if attribute and outer is not None and isinstance(exc, ImportError):
                raise AttributeError(
                    f"partially initialized module {self.name!r} has no attribute "
                    f"{name!r} (most likely due to a circular import)", name=name) from None
            error = _deferred_error(exc, self, entry)
            if error is exc:
                raise
            raise error from exc
        finally:
            if outer is None:
                del _resolving[key]
            else:
                _resolving[key] = outer
        current = namespace.get(name, _MISSING)
        if current is _MISSING:
            namespace[name] = value
        else:
            value = current   # bound while the import ran (a circular import
            #                   or the user): keep that value
        self._unpend(name, entry)
        if _recorder is not None:
            _recorder.resolved(self, entry, name)
        return value

    def defined_later(self, line) -> bool:
        """Whether a binding at ``line`` does not exist yet for the eager module:
        one of its own deferred imports from an earlier statement is running
        in this thread (the eager module would still be at that statement)."""
        if not _resolving:
            return False
        thread = get_ident()
        return any(state is self and tid == thread and entry.lineno < line
                   for (state, _name, tid), (_depth, entry) in list(_resolving.items()))

    def lookup(self, name, caller):
        """lazify's answer for an attribute missing from the module's dict,
        before the module's own ``__getattr__``: the value, or _MISSING.

        :param caller: the globals of the code asking.
        """
        if name in self.pending:
            return self.resolve(name, probe=caller.get("__name__") in _IMPORTLIB_BOOTSTRAP,
                                attribute=True)
        value = self.namespace.get(name, _MISSING)
        if value is not _MISSING:
            # asked through a copy of the module that replaced it in
            # sys.modules (pygments.lexers): the name was resolved into the
            # original's dict after the copy was made
            return value
        return self.submodule(name, caller)

    def _unpend(self, name, entry):
        pending = self.pending
        if pending.get(name) is not entry:
            return
        del pending[name]
        self._drop_descriptor(name)
        if not pending:
            _pending_states.pop(id(self), None)
            if self.installed:
                self.maybe_uninstall()
        _pending[0] -= 1
        if not _pending[0] and _package_states:
            _packages_need_hooks(False)

    def resolve_all(self, public_only=False):
        for name in list(self.pending):
            if public_only and name.startswith("_"):
                continue
            if self.namespace.get(name, _MISSING) is _MISSING:
                self.resolve(name)

    # -- PEP 562 hooks --------------------------------------------------------

    def install(self):
        """Make the module answer pending names from outside (PEP 562).

        A ``def __getattr__`` of the module's own that carries lazify's
        prologue answers them itself and stays; any other is wrapped.  A
        ``__dir__`` of the module's own stays too: ``dir(module)`` is what it
        returns, as in the eager program.
        """
        namespace = self.namespace
        if self.getattr_fn is None:
            # bound methods: one object each, where a closure is a function and a cell
            self.getattr_fn = self.module_getattr
            self.dir_fn = self.module_dir
        current = namespace.get("__getattr__")
        if current is None or current is self.getattr_fn or self._wraps_user_getattr(0):
            namespace["__getattr__"] = self.getattr_fn
        if "__dir__" not in namespace:
            namespace["__dir__"] = self.dir_fn
        self.installed = True

    def _serves_itself(self, func) -> bool:
        """Whether ``func`` is a ``def __getattr__`` of this module with lazify's prologue."""
        code = getattr(func, "__code__", None)
        return code is not None and "__lazy_getattr__" in code.co_names \
            and getattr(func, "__globals__", None) is self.namespace

    def maybe_uninstall(self):
        """Take lazify's __getattr__ out once nothing needs it: while a module
        holds ``__getattr__`` CPython specializes no attribute load on it."""
        if not self.installed or self.pending or (self.is_package and _pending[0]):
            return
        self.installed = False
        namespace = self.namespace
        if namespace.get("__getattr__") is self.getattr_fn:
            if self.user_getattr is None:
                del namespace["__getattr__"]
            else:
                namespace["__getattr__"] = self.user_getattr
        if namespace.get("__dir__") is self.dir_fn:
            del namespace["__dir__"]
        if not self.is_package:
            self.getattr_fn = self.dir_fn = None

    def module_getattr(self, name):
        """The module's PEP 562 ``__getattr__`` while lazify's hooks are in (its
        ``__name__`` is "__getattr__"): a pending name, a submodule an eager
        program would have loaded, or the module's own ``__getattr__``."""
        # lookup(), inlined: importlib probes every package it imports a submodule
        # from (``hasattr(pkg, "sub")``)
        caller = sys._getframe(1).f_globals
        if name in self.pending:
            __tracebackhide__ = True    # pytest's convention: this frame is machinery
            try:
                value = self.resolve(name,
                                     probe=caller.get("__name__") in _IMPORTLIB_BOOTSTRAP,
                                     attribute=True)
            except BaseException as exc:
                raise exc.with_traceback(_without_own_frames(exc))
        else:
            value = self.namespace.get(name, _MISSING)
            if value is _MISSING and (caller.get("__name__") not in _IMPORTLIB_BOOTSTRAP
                                      or f"{self.name}.{name}" in sys.modules):
                # (importlib's probe for a submodule not imported yet: no, as
                # submodule() would answer)
                value = self.submodule(name, caller)
        if value is not _MISSING:
            return value
        user = self.user_getattr
        if user is not None and not self.defined_later(self.user_getattr_line):
            return user(name)
        raise AttributeError(f"module {self.name!r} has no attribute {name!r}",
                             name=name)

    def module_dir(self):
        """The module's PEP 562 ``__dir__`` while lazify's hooks are in: its names
        with the pending ones, without lazify's hooks."""
        names = set(self.namespace)
        # lazify's own hooks leave once nothing is pending: listing them
        # would make ``getattr(mod, name) for name in dir(mod)`` fail
        # (unittest's loadTestsFromModule)
        if self.namespace.get("__getattr__") is self.getattr_fn and self.user_getattr is None:
            names.discard("__getattr__")
        names.discard("__dir__")
        names.update(self.pending)
        return sorted(names)

    def chain(self, line):
        """After a statement at ``line`` bound the module's own ``__getattr__``
        (other than a ``def`` with lazify's prologue): wrap it."""
        if self._wraps_user_getattr(line) and self.installed:
            self.namespace["__getattr__"] = self.getattr_fn

    def _wraps_user_getattr(self, line) -> bool:
        """Whether the module's ``__getattr__`` now is one of its own that
        lazify's must stand in front of (any but a ``def`` with lazify's
        prologue); it is remembered, with the ``line`` that bound it (0:
        before everything), unless it is the one remembered already."""
        current = self.namespace.get("__getattr__")
        if current is None or current is self.getattr_fn or self._serves_itself(current):
            return False
        if current is not self.user_getattr:
            self.user_getattr, self.user_getattr_line = current, line
        return True


for _hook, _name in ((_ModuleState.module_getattr, "__getattr__"),
                    (_ModuleState.module_dir, "__dir__")):
    _hook.__name__ = _name
    _hook.__qualname__ = f"lazify.{_name}"
del _hook, _name


def _without_own_frames(exc):
    """``exc``'s traceback without the runtime's frames, as importlib leaves out its own
    (import.c's ``remove_importlib_frames``): every one for an ImportError, and
    otherwise a run of them followed by a frame of other code (the imported module's,
    a ``__getattr__`` of the user's).  A run at the end, where the error was raised by
    the runtime itself (a bug of lazify's), is kept.  The frame the program's read
    called stays: the frame that raises is always in a traceback."""
    always = isinstance(exc, ImportError)
    kept = []
    run = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _RUNTIME_FILE:
            run.append(tb)
        else:
            run = []
            kept.append(tb)
        tb = tb.tb_next
    if not always:
        kept += run
    for index, tb in enumerate(kept):
        tb.tb_next = kept[index + 1] if index + 1 < len(kept) else None
    return kept[0] if kept else None


def _deferred_error(exc, state, entry):
    """The exception to raise for a failed deferred import."""
    filename = state.namespace.get("__file__") or state.name
    note = (f"lazify: raised by the deferred import at {filename}:{entry.lineno} "
            f"({entry.statement})")
    if isinstance(exc, AttributeError):
        # hasattr()/getattr(m, n, default)/from-import would read an
        # AttributeError as "no such attribute" and hide the real failure.
        exc = ImportError(f"deferred import {entry.statement!r} failed: "
                          f"{type(exc).__name__}: {exc}")
    add_note = getattr(exc, "add_note", None)
    if add_note is not None and note not in (getattr(exc, "__notes__", None) or ()):
        add_note(note)
    return exc


class _Unbound:
    """Non-data descriptor for a name not registered (yet): a global read."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, namespace, owner=None):
        if namespace is None:
            return self
        name = self.name
        builtins_dict = namespace.__dict__.get("__builtins__", builtins)
        if not isinstance(builtins_dict, dict):
            builtins_dict = vars(builtins_dict)
        value = builtins_dict.get(name, _MISSING)
        if value is _MISSING:
            raise NameError(f"name {name!r} is not defined", name=name)
        return value


# ---------------------------------------------------------------------------
# Annotations that import on read.

class _Annotations(dict):
    """An ``__annotations__`` dict that resolves the lazy names its deferred
    annotations mention before anything reads a value.

    Whoever reads a deferred annotation evaluates the string against the
    module's globals (``typing.get_type_hints``, ``dataclasses``,
    ``inspect.get_annotations``), where a pending name is missing.  Keys,
    length and membership need nothing; every way to a value goes through
    :meth:`_lazify_resolve`.  ``__iter__`` is overridden only so that
    ``dict(ann)`` and ``{**ann}`` take the path that calls ``keys`` and
    ``__getitem__`` instead of copying the storage directly.
    """

    __slots__ = ("_lazify_state", "_lazify_names", "_lazify_deferred")

    def _lazify_resolve(self):
        names = self._lazify_names
        if names:
            self._lazify_names = ()      # a read from inside the import: no loop
            state = self._lazify_state
            namespace = state.namespace
            for index, name in enumerate(names):
                if name in state.pending and name not in namespace:
                    try:
                        state.resolve(name)
                    except BaseException:
                        self._lazify_names = names[index:]
                        raise
        if self._lazify_deferred:
            # annotations evaluated on read (before 3.14): until all are, every
            # reader (another thread's too) evaluates what is left; a failure
            # leaves it for the next read
            _evaluate_deferred(self)
            self._lazify_deferred = False

    def __iter__(self):
        return dict.__iter__(self)

    def __getitem__(self, key):
        self._lazify_resolve()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._lazify_resolve()
        return dict.get(self, key, default)

    def items(self):
        self._lazify_resolve()
        return dict.items(self)

    def values(self):
        self._lazify_resolve()
        return dict.values(self)

    def copy(self):
        self._lazify_resolve()
        return dict(dict.items(self))

    def pop(self, *args):
        self._lazify_resolve()
        return dict.pop(self, *args)

    def popitem(self):
        self._lazify_resolve()
        return dict.popitem(self)

    def setdefault(self, key, default=None):
        self._lazify_resolve()
        return dict.setdefault(self, key, default)

    def __or__(self, other):
        self._lazify_resolve()
        return dict.__or__(dict(dict.items(self)), other)

    def __ror__(self, other):
        self._lazify_resolve()
        return dict.__or__(dict(other), dict(dict.items(self)))

    def __reduce_ex__(self, protocol):
        self._lazify_resolve()
        return dict, (dict(dict.items(self)),)

    # annotations evaluated on read (_Deferred values) show their values
    def __repr__(self):
        self._lazify_resolve()
        return dict.__repr__(self)

    def __eq__(self, other):
        self._lazify_resolve()
        if isinstance(other, _Annotations):
            other._lazify_resolve()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        self._lazify_resolve()
        if isinstance(other, _Annotations):
            other._lazify_resolve()
        return dict.__ne__(self, other)

    __hash__ = None


#: PEP 649/749 (3.14+): annotations are evaluated by ``__annotate__`` functions
_PEP649 = sys.version_info >= (3, 14)


def _annotations(state, ann, names):
    """``ann`` itself when all ``names`` are bound already (its annotations
    evaluated on read evaluated now), else a copy that imports them when read."""
    namespace = state.namespace
    if type(ann) is not dict:
        return ann
    if all(name in namespace for name in names):
        _evaluate_deferred(ann)
        return ann
    wrapped = _Annotations(ann)
    wrapped._lazify_state = state
    wrapped._lazify_names = names
    wrapped._lazify_deferred = True
    return wrapped


# annotationlib.Format (3.14+): the formats that evaluate names for real
_VALUE, _FORWARDREF = 1, 3


class _Annotate:
    """An ``__annotate__`` (PEP 649, 3.14+) that imports the lazy names its
    annotations mention before they are evaluated for real.

    The compiler's ``__annotate__`` evaluates the annotation expressions
    against the module's globals, where a pending name is missing.  Called
    with ``VALUE`` or ``FORWARDREF``, this one resolves its names first, then
    hands over to the compiler's.  Anything else (``STRING``, and the
    ``VALUE_WITH_FAKE_GLOBALS`` probe) goes to the compiler's function
    untouched: it declines ``STRING``/``FORWARDREF`` with
    ``NotImplementedError``, and ``annotationlib`` then runs the compiler's
    code object itself with fake globals, which it reads from this object
    (``__code__``, ``__globals__``, ``__closure__``, ...: every attribute is
    the compiler's function's).  So the annotation expressions are never
    rewritten, and a string or forward reference shows them as written.
    """

    __slots__ = ("_lazify_state", "_lazify_names", "_lazify_function", "_lazify_namespace")

    def __init__(self, state, names, function, namespace=None):
        self._lazify_state = state
        self._lazify_names = names
        #: the compiler's __annotate__, or None: a class body's, found in
        #: ``namespace`` once the body has run
        self._lazify_function = function
        self._lazify_namespace = namespace

    def _lazify_original(self):
        function = self._lazify_function
        if function is None:
            # the class body stores the compiler's function last
            function = self._lazify_namespace["__annotate_func__"]
            self._lazify_function = function
            self._lazify_namespace = None
        return function

    def __call__(self, format, /):
        if format == _VALUE or format == _FORWARDREF:
            state = self._lazify_state
            namespace = state.namespace
            for name in self._lazify_names:
                if name in state.pending and name not in namespace:
                    state.resolve(name)
        return self._lazify_original()(format)

    def __getattr__(self, name):
        if name.startswith("_lazify_"):
            raise AttributeError(name)
        return getattr(self._lazify_original(), name)

    def __repr__(self):
        return f"<lazify annotate of {self._lazify_original()!r}>"


# ---------------------------------------------------------------------------
# The module's namespace read inside its functions (PEP 690: the dict is
# complete whenever code looks at it).

class _Lookup:
    """What ``globals()`` stands for in ``globals()[k]``, ``globals().get(k, d)``,
    ``k in globals()``, ``del globals()[k]`` and ``globals()[k] += v``: those
    import ``k`` alone if it is pending (membership imports nothing), so a
    registry or a module ``__getattr__`` looking one name up imports nothing
    else.  The planner uses it only where the expression does nothing else
    with the dict."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def _namespace(self, key):
        state = self.state
        namespace = state.namespace
        if key in state.pending and key not in namespace:
            state.resolve(key)
        return namespace

    def __getitem__(self, key):
        return self._namespace(key)[key]

    def get(self, key, default=None):
        return self._namespace(key).get(key, default)

    def __contains__(self, key):
        state = self.state
        return key in state.namespace or key in state.pending

    def __delitem__(self, key):
        del self._namespace(key)[key]

    def __setitem__(self, key, value):
        self.state.namespace[key] = value


def _names(state):
    """The namespace for reading its keys: itself, or while lazify has names
    pending or hooks in it, a copy with the keys an eager module has (the
    pending names, with None for values; lazify's own hooks left out)."""
    namespace = state.namespace
    hooks = state.getattr_fn is not None and (
        namespace.get("__getattr__") is state.getattr_fn
        or namespace.get("__dir__") is state.dir_fn)
    if not state.pending and not hooks:
        return namespace
    names = dict(namespace)
    if hooks and names.get("__getattr__") is state.getattr_fn and state.user_getattr is None:
        del names["__getattr__"]
    if hooks and names.get("__dir__") is state.dir_fn:
        del names["__dir__"]
    for name in state.pending:
        names.setdefault(name, None)
    return names


# ---------------------------------------------------------------------------
# The namespace object.

#: The layout of ``__lazy__`` CPython specializes ``__lazy__.name`` loads on
#: (``LOAD_ATTR_WITH_HINT``): the module's state must not live in the module's
#: dict, so it is a slot up to 3.13 and, from 3.14, the one item of a tuple (3.14
#: specializes no load on an instance with a ``__dict__`` slot, 3.11 none on a
#: tuple subclass; the figures: docs/performance.md, "Costs behind design rules").
#: The layout is made in _Namespace itself, not in a base class between it and
#: ``tuple``/``object``: every class in the MRO is searched for each of the type
#: slots when a module's own subclass is made, so each base more costs every
#: rewritten module.
_TUPLE_LAYOUT = sys.version_info >= (3, 14)

_tuple_new = tuple.__new__
_object_new = object.__new__


class _Namespace(tuple if _TUPLE_LAYOUT else object):
    """Reads a module's globals as attributes: ``__dict__`` is that dict.

    Every module's ``__lazy__`` starts as an instance of this one shared class,
    whose attribute loads CPython specializes as plain instance-dict hits.  A
    module with pending names gets a subclass of its own for as long as it has
    any, holding a descriptor per pending name (a miss of the dict); making a
    class costs more than the rest of a module's registrations together, so
    modules whose imports are all loaded already never make one.
    """

    if _TUPLE_LAYOUT:
        # no __slots__: a __dict__ of its own (managed: what 3.14 specializes)
        __lazify_state__ = property(_itemgetter(0))
        __repr__ = object.__repr__
        __hash__ = object.__hash__
        __eq__ = object.__eq__
        __ne__ = object.__ne__

        def __new__(cls, state):
            return _tuple_new(cls, (state,))
    else:
        __slots__ = ("__dict__", "__lazify_state__")

        def __new__(cls, state):
            self = _object_new(cls)
            self.__lazify_state__ = state
            return self

    # Every rewritten module calls these two for each of its lazy statements, so
    # the common case, a target fully imported already while the module is lazy,
    # is bound here in this one frame (what register_import/register_from would
    # do); they do the rest, with the statement's frame for its line.

    def __lazy_import__(self, *aliases):
        """``import a.b, c as d``: ``('a.b', None), ('c', 'd')``."""
        state = self.__lazify_state__
        if state.lazy_generation == settings.generation or state._refresh():
            modules = sys.modules
            namespace = state.namespace
            pending = state.pending
            for module, asname in aliases:
                if asname is None:
                    if "." in module:
                        state.register_import(module, None, sys._getframe(1))
                        pending = state.pending
                        continue
                    bound = module
                else:
                    bound = asname
                if bound not in pending:
                    loaded = modules.get(module)
                    if loaded is not None:
                        try:
                            # importlib leaves it False on every module it loaded
                            # (sys and builtins have none: the AttributeError)
                            initializing = loaded.__spec__._initializing
                        except AttributeError:
                            initializing = False
                        if not initializing:
                            namespace[bound] = loaded
                            if state.unbound and bound in state.unbound:
                                state._forget_unbound(bound)
                            continue
                    elif "." not in module:
                        # not imported yet: pending (what register_import would decide)
                        state.register(bound, _Entry(_TOP if asname is None else _AS, module,
                                                     0, None, asname, sys._getframe(1)), True)
                        pending = state.pending
                        continue
                state.register_import(module, asname, sys._getframe(1))
                pending = state.pending
            return
        frame = sys._getframe(1)
        for module, asname in aliases:
            state.register_import(module, asname, frame)

    def __lazy_from__(self, module, *aliases):
        """``from ..m import p, q as r``: ``'..m', ('p', None), ('q', 'r')``."""
        state = self.__lazify_state__
        if state.lazy_generation == settings.generation or state._refresh():
            if module[0] != ".":
                loaded = sys.modules.get(module)
            else:
                target = _relative.get((module, state.package), _MISSING)
                if target is _MISSING:
                    name = module.lstrip(".")
                    target = _relative[module, state.package] = _absolute(
                        name, len(module) - len(name), state.package)
                loaded = sys.modules.get(target) if target is not None else None
            if loaded is not None:
                try:
                    # importlib leaves it False on every module it loaded
                    initializing = loaded.__spec__._initializing
                except AttributeError:
                    initializing = False
                if not initializing:
                    # never through the module's own __getattr__ (lazy_loader packages)
                    try:
                        space = loaded.__dict__
                    except AttributeError:
                        space = _NO_DICT
                    shared = None
                    namespace = state.namespace
                    for attr, asname in aliases:
                        value = space.get(attr, _MISSING)
                        bound = attr if asname is None else asname
                        # (type(value) is never None: no PEP 810 before 3.15)
                        if value is not _MISSING and type(value) is not _LazyImportType \
                                and bound not in state.pending:
                            namespace[bound] = value
                            if state.unbound and bound in state.unbound:
                                state._forget_unbound(bound)
                            continue
                        if shared is None and len(aliases) > 1:
                            shared = [None]
                        name = module.lstrip(".")
                        if bound in state.pending:
                            state.register_from(name, len(module) - len(name), attr, asname,
                                                sys._getframe(1), shared)
                        else:
                            # pending (what register_from would decide)
                            state.register(bound, _Entry(
                                _FROM, name, len(module) - len(name), attr, asname,
                                sys._getframe(1), shared), True)
                    return
        name = module.lstrip(".")
        level = len(module) - len(name)
        shared = [None] if len(aliases) > 1 else None
        frame = sys._getframe(1)
        for attr, asname in aliases:
            state.register_from(name, level, attr, asname, frame, shared)

    def __lazy_explicit_import__(self, *aliases):
        """``lazy import a.b, c as d`` (PEP 810, parsed by lazify before 3.15):
        lazy whatever the settings (:attr:`_ModuleState.explicit`)."""
        state = self.__lazify_state__
        frame = sys._getframe(1)
        state.explicit = True
        try:
            for module, asname in aliases:
                state.register_import(module, asname, frame)
        finally:
            state.explicit = False

    def __lazy_explicit_from__(self, module, *aliases):
        """``lazy from ..m import p, q as r``, as :meth:`__lazy_explicit_import__`."""
        state = self.__lazify_state__
        name = module.lstrip(".")
        level = len(module) - len(name)
        shared = [None] if len(aliases) > 1 else None
        frame = sys._getframe(1)
        state.explicit = True
        try:
            for attr, asname in aliases:
                state.register_from(name, level, attr, asname, frame, shared)
        finally:
            state.explicit = False

    def __lazy_annotated__(self, *names):
        """Innermost decorator of a function whose annotations name lazy imports."""
        state = self.__lazify_state__

        def decorate(func):
            namespace = state.namespace
            if all(name in namespace for name in names):
                if _deferred_made[0]:
                    # bound since an annotation of it was deferred
                    _evaluate_deferred(getattr(func, "__annotations__", None))
                return func
            try:
                annotate = getattr(func, "__annotate__", None)
                if annotate is not None:
                    # 3.14+ (PEP 649): nothing is evaluated until read
                    func.__annotate__ = _Annotate(state, names, annotate)
                    return func
                ann = func.__annotations__
                wrapped = _annotations(state, ann, names)
                if wrapped is not ann:
                    func.__annotations__ = wrapped
            except (AttributeError, TypeError):
                pass
            return func
        return decorate

    def __lazy_annotations__(self, ann, *names):
        """A class body's ``__annotations__``, before its first annotation."""
        return _annotations(self.__lazify_state__, ann, names)

    def __lazy_annotate__(self, *names):
        """3.14+ (PEP 649), before the statement of a class body or of the module
        that holds its first annotation: give the class (module) an
        ``__annotate__`` that imports ``names`` before evaluating, unless they
        are all bound already.  Before 3.14 (in a class body, where the portable
        source of ``lazify rewrite`` has it): what ``__lazy_annotations__`` does
        to the class body's ``__annotations__``."""
        state = self.__lazify_state__
        namespace = state.namespace
        if all(name in namespace for name in names):
            return
        # the class body's namespace (what __prepare__ returned), or the module's
        space = sys._getframe(1).f_locals
        if space is namespace:
            annotate = namespace.get("__annotate__")
            if annotate is not None and not isinstance(annotate, _Annotate):
                namespace["__annotate__"] = _Annotate(state, names, annotate)
        elif not _PEP649:
            # Before 3.14 (the portable source of `lazify rewrite`, before the first
            # annotated assignment of a class body): the class body's own
            # __annotations__ dict, made before the body runs, as
            # __lazy_annotations__ takes it.
            try:
                ann = space["__annotations__"]
            except (KeyError, TypeError):
                return
            wrapped = _annotations(state, ann, names)
            if wrapped is not ann:
                space["__annotations__"] = wrapped
        else:
            # A metaclass finds it first (annotationlib's
            # get_annotate_from_class_namespace), and so does type.__annotate__.
            space["__annotate__"] = _Annotate(state, names, None, space)

    def __lazy_chain__(self):
        self.__lazify_state__.chain(sys._getframe(1).f_lineno)

    def __lazy_getattr__(self, name):
        """First statement of the module's own ``def __getattr__``: True when
        lazify has the answer (:meth:`__lazy_result__` returns it), False to
        let the function's own body run."""
        state = self.__lazify_state__
        frame = sys._getframe(1)            # the module's __getattr__
        caller = frame.f_back
        if state.lookup(name, caller.f_globals if caller is not None else {}) is not _MISSING:
            return True
        if state.defined_later(frame.f_code.co_firstlineno):
            raise AttributeError(f"module {state.name!r} has no attribute {name!r}", name=name)
        return False

    def __lazy_result__(self, name):
        """The value :meth:`__lazy_getattr__` found for ``name``."""
        state = self.__lazify_state__
        value = state.namespace.get(name, _MISSING)
        if value is _MISSING:
            value = sys.modules.get(f"{state.name}.{name}", _MISSING)
        if value is _MISSING:
            raise AttributeError(f"module {state.name!r} has no attribute {name!r}", name=name)
        return value

    def __lazy_globals__(self, called=_GLOBALS):
        """``globals()`` in a function of the module (``called``: what the name
        ``globals`` is there), and the globals it gives ``eval``/``exec``: the
        namespace, its pending names imported first."""
        if called is not _GLOBALS:
            return called()
        state = self.__lazify_state__
        if state.pending:
            state.resolve_all()
        return state.namespace

    def __lazy_lookup__(self, called):
        """``globals()`` where one key alone is looked up: see :class:`_Lookup`."""
        if called is not _GLOBALS:
            return called()
        return _Lookup(self.__lazify_state__)

    def __lazy_names__(self, called, consumer=None):
        """``globals()`` whose keys alone are read: see :func:`_names`.  ``consumer``:
        what the builtin it is given to (``sorted(globals())``) is where it is called."""
        if called is not _GLOBALS:
            return called()
        if consumer is not None and consumer not in _KEY_CONSUMERS:
            return self.__lazy_globals__()      # shadowed: it gets the dict, complete
        return _names(self.__lazify_state__)

    def __lazy_eval__(self, called, locals_=_LOCALS):
        """Whether ``eval``/``exec`` called without globals (and ``locals``, when the
        caller's are given) are the builtins where they are called: then they get the
        module's globals complete, else they are called with the arguments written."""
        return (called is _EVAL or called is _EXEC) and locals_ is _LOCALS

    def __lazy_f_globals__(self, frame):
        """``sys._getframe().f_globals`` in a function of the module."""
        namespace = frame.f_globals
        state = self.__lazify_state__
        if namespace is state.namespace and state.pending:
            state.resolve_all()
        return namespace

    def __lazy_star__(self, module):
        """Before ``from m import *``: m's pending public names must be there."""
        state = self.__lazify_state__
        name = module.lstrip(".")
        level = len(module) - len(name)
        imported = builtins.__import__(name, state.namespace, None, ("*",), level)
        namespace = getattr(imported, "__dict__", None)
        if namespace is not None and "__all__" not in namespace:
            other = state_of(namespace)
            if other is not None:
                other.resolve_all(public_only=True)


def __lazy_module__(namespace, *fallback_names):
    """Create the ``__lazy__`` object of a rewritten module.

    :param fallback_names: lazy names a read may find unregistered (a
        builtin's name, a name imported only inside an ``if``): until they
        are registered, reading one falls back to builtins or raises
        NameError, as the global read it replaces would.
    """
    # _ModuleState(namespace), without the frame of an __init__
    state = _object_new(_ModuleState)
    state.namespace = namespace
    state.name = name = namespace.get("__name__") or ""
    state.pending = _NONE_PENDING     # its own dict from its first pending name on
    package = namespace.get("__package__")
    if "__path__" not in namespace:
        state.package = name.rpartition(".")[0] if package is None else package
    else:
        state.package = name if package is None else package
        state.is_package = True
        if name:
            _track(_package_states, state)
            if _pending[0]:
                state.install()
    # the settings as state._refresh() takes them in, without its frame
    state.generation = generation = settings.generation
    if name in lazy_importers or lazy_now(name):     # (lazy_now's first test, without its call)
        state.all_lazy = True
        state.lazy_generation = generation
    if _TUPLE_LAYOUT:
        instance = _tuple_new(_Namespace, (state,))
    else:
        instance = _object_new(_Namespace)     # as _Namespace(state), without a frame
        instance.__lazify_state__ = state
    state.instance = instance
    instance.__dict__ = namespace
    if fallback_names:
        state.unbound = set(fallback_names)
        cls = state.own_class()
        for name in fallback_names:
            setattr(cls, name, _Unbound(name))
        state.cls_changes += len(fallback_names)
    return instance


def _without_catch_up(module) -> bool:
    """Whether a package on the way to ``module`` (``a`` and ``a.b`` of ``a.b.c``)
    will have no lazify ``__getattr__`` to import it when ``a.b`` is read: one the
    hook never rewrites (the rewriter's own imports, importlib) or that is
    excluded, or one already imported without lazify's state (another loader)."""
    never = _settings.never_rewritten
    parent = module.rpartition(".")[0]
    while parent:
        loaded = sys.modules.get(parent)
        if loaded is not None:
            if state_of(getattr(loaded, "__dict__", _NO_DICT)) is None:
                return True
        elif (never is not None and never(parent)) or is_excluded(parent):
            return True
        parent = parent.rpartition(".")[0]
    return False


def catch_up(fullname, done) -> None:
    """Resolve the rewrite's pending imports as an eager program would have run them,
    until ``done()``: those aimed at ``fullname``, its package, then the rest
    (:func:`_catch_up`); for a module's late globals (:mod:`lazify._late_globals`)."""
    if _pending[0]:
        _catch_up(fullname, done, True)


def state_of(namespace):
    """The rewrite's state of the module whose globals are ``namespace``, or None."""
    obj = namespace.get("__lazy__")
    if isinstance(obj, _Namespace):
        return obj.__lazify_state__
    return None


#: the file of this module's code: its frames are import machinery to the
#: guarded-import check, and to _check_found's walk out to the module's own frame
_RUNTIME_FILE = state_of.__code__.co_filename
machinery_file(_RUNTIME_FILE)


def is_pending(namespace, name: str) -> bool:
    """Whether ``name`` is a pending lazy name of that rewritten module
    (:func:`lazify.is_lazy_import`)."""
    state = state_of(namespace)
    return state is not None and name in state.pending and name not in namespace


def resolve_pending(namespace) -> None:
    """Resolve every pending lazy name of that rewritten module
    (:func:`lazify.resolve_all`)."""
    state = state_of(namespace)
    if state is not None:
        state.resolve_all()


# ---------------------------------------------------------------------------
# Annotations evaluated on read (before 3.14): _plan.DeferredAnnotation.

class _Deferred:
    """The value an annotation gets where it is written while a lazy name it
    reads is pending: its owner's annotations dict (:class:`_Annotations`)
    replaces it by the annotation's value before any value is read."""

    __slots__ = ("thunk",)


#: whether any annotation was deferred in this process (the decorator of a
#: def whose names are all bound looks for them only then)
_deferred_made = [False]


def _evaluate_deferred(ann):
    """Replace each deferred annotation in the dict ``ann`` by its value."""
    if type(ann) is not dict and not isinstance(ann, _Annotations):
        return
    for key, value in list(dict.items(ann)):
        if type(value) is _Deferred and dict.get(ann, key) is value:
            dict.__setitem__(ann, key, value.thunk())


def __lazy_deferred__(self, thunk, *names):
    """An annotation written ``E``, compiled as ``__lazy__.__lazy_deferred__(lambda:
    E, *names)``: its value when ``names`` are all bound, else a placeholder the
    owner's annotations dict evaluates when read."""
    namespace = self.__lazify_state__.namespace
    for name in names:
        if name not in namespace:
            deferred = _Deferred()
            deferred.thunk = thunk
            _deferred_made[0] = True
            return deferred
    return thunk()


_Namespace.__lazy_deferred__ = __lazy_deferred__
del __lazy_deferred__


_record = sys.modules.get("lazify._import_record")
if _record is not None and _record.recording:
    _recorder = _record
del _record

_settings.register_runtime(sys.modules[__name__])
