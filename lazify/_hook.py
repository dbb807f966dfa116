"""The import hook: a meta-path finder that gives a spec's loader lazify's ``get_code``.

The finder sits at ``sys.meta_path[0]`` and asks the finders *after* it for
a spec (PathFinder, and whatever editable installs append).  Only a spec
whose loader is exactly ``SourceFileLoader`` gets ``LazifyLoader``'s
``get_code``, as an attribute of that loader object, which stays CPython's
own class (programs look loaders up by exact type); every other loader
(pytest's assertion rewriter, typeguard, beartype, PyInstaller, zipimport,
extensions, frozen, namespace packages) is returned untouched.  So
``exec_module``, ``get_data``, ``get_source``, ``importlib.resources`` and
``pkgutil`` support are CPython's own.

Nothing heavy is imported here: the rewriter (``lazify._rewrite`` and the
``ast`` it needs) is imported on the first cache miss, with a thread-local
busy flag set so that those modules pass through untransformed; the modules
it imports are never rewritten (:mod:`lazify._rewriter_deps` measures them).
"""

import _thread
import os
import sys

# CPython's own loaders, from the frozen module importlib.machinery re-exports:
# importing the importlib package costs warnings and more at every start
import _frozen_importlib_external

from . import _cache, _guarded, _native, _os, _settings

SourceFileLoader = _frozen_importlib_external.SourceFileLoader

#: top-level packages never rewritten whatever the rewriter imports: lazify
#: itself, importlib (the import system) and what decoding a source file
#: can import
MACHINERY = frozenset({"lazify", "importlib", "encodings", "codecs"})
#: importlib's libraries, which use the import system rather than make it up:
#: rewritten like any module (importlib.metadata alone imports email, zipfile,
#: csv, json, pathlib and more, for the tools that read their version)
IMPORTLIB_LIBRARIES = ("importlib.metadata", "importlib.resources")

#: top-level packages never rewritten: the hook's machinery and every module
#: the rewriter imports, measured on this interpreter by :mod:`_rewriter_deps`
#: when the hook is installed (None until then)
_PLAIN = None

#: whether the interpreter reads PEP 810's ``lazy import`` itself (3.15+)
_NATIVE_KEYWORD = _native.NATIVE_AVAILABLE

#: environment switches, read once (LAZIFY_STRICT is read when it matters)
_DEBUG = _settings.env_flag("LAZIFY_DEBUG")

#: what the hook did in this process; tests read it, LAZIFY_DEBUG prints it
#: ("deferred": cache misses served from the plain pyc, see LazifyLoader._deferred)
stats = {"compiled": 0, "cached": 0, "plain": 0, "foreign": 0, "failed": 0, "deferred": 0}

#: whether a cache miss is served from the plain pyc and rewritten out of the
#: start-up path (True), or rewritten at once (False), or rewritten at once only where
#: the rewrite can be cached (:data:`WHERE_UNCACHED`); None: not read yet
#: (``LAZIFY_DEFER_REWRITE``, :func:`set_defer_rewrite`)
_DEFER = None

#: :func:`set_defer_rewrite`'s third choice, for the commands that ask for a lazy run
#: (``lazify run``, ``pytest --lazify``): a miss is rewritten at once and cached (one
#: slower start, lazy from the first), and served plain only where the rewrite cannot be
#: cached (where it would be paid again at every start)
WHERE_UNCACHED = "where-uncached"


class _State(_thread._local):
    busy = False


_state = _State()


def _debug(message):
    if _DEBUG:
        try:
            sys.stderr.write(f"lazify: {message}\n")
        except Exception:
            pass


def _never(fullname):
    top = fullname.partition(".")[0]
    if top not in (_PLAIN or MACHINERY):
        return False
    if top != "importlib" or _IMPORTLIB_USED:
        return True
    # the package itself (so that it catches up with a pending ``import
    # importlib.util`` as any rewritten package does) and its libraries
    return not (fullname == "importlib" or fullname.startswith(IMPORTLIB_LIBRARIES))


_settings.register_hook(_never)


def _import_rewriter():
    busy, _state.busy = _state.busy, True
    try:
        from . import _rewriter_deps

        _rewriter_deps.exercise()
    finally:
        _state.busy = busy


def plain_modules():
    """The top-level packages the hook never rewrites (measured once per process, and
    kept for the next starts where it can be)."""
    global _PLAIN, _IMPORTLIB_USED
    if _PLAIN is None:
        names = _cache.read_rewriter_deps()
        if names is None:
            from . import _rewriter_deps

            names = _rewriter_deps.measured(_import_rewriter)
        _IMPORTLIB_USED = "importlib" in names
        _PLAIN = MACHINERY | names
    return _PLAIN


def _kept_plain_modules():
    """Take the kept measurement of the rewriter's dependencies, if there is one;
    else leave it to the first rewrite in this process (:meth:`LazifyLoader._lazy_code`)
    or to the rewrite at exit, which keeps it for the next starts.  Until then only
    :data:`MACHINERY` is passed by; the rest of the rewriter's dependencies can only
    be cache misses (nothing writes their rewrite), served plain."""
    global _PLAIN, _IMPORTLIB_USED
    if _PLAIN is None:
        names = _cache.read_rewriter_deps()
        if names is not None:
            _IMPORTLIB_USED = "importlib" in names
            _PLAIN = MACHINERY | names


#: whether the rewriter itself imports importlib: then none of it is rewritten
_IMPORTLIB_USED = True


def _wanted(fullname):
    """Whether global mode asks for this module to be rewritten (no I/O)."""
    try:
        return _settings.lazy_now(fullname)
    except Exception:  # a broken setting must not break every import
        return False


def _deferring():
    """Whether cache misses are served plain and rewritten after the program
    (``LAZIFY_DEFER_REWRITE``, default on; read once)."""
    global _DEFER
    if _DEFER is None:
        _DEFER = _settings.env_flag("LAZIFY_DEFER_REWRITE", True)
    return _DEFER


def set_defer_rewrite(defer):
    """Serve a module missing from lazify's cache from its plain pyc and rewrite
    it after the program (True, the default), or rewrite it at once (False:
    every first start lazy, and as slow as the rewrite), or rewrite it at once where
    the rewrite can be cached and serve it plain where not (:data:`WHERE_UNCACHED`)."""
    global _DEFER
    _DEFER = defer if defer == WHERE_UNCACHED else bool(defer)


def defer_unless_set(defer):
    """:func:`set_defer_rewrite`, unless ``LAZIFY_DEFER_REWRITE`` chose already."""
    if os.environ.get("LAZIFY_DEFER_REWRITE") is None:
        set_defer_rewrite(defer)


def _strict():
    return _settings.env_flag("LAZIFY_STRICT")


def _transform(data, path, fullname, is_package, optimize):
    """Run the rewriter with the busy flag set: its own imports pass through."""
    busy, _state.busy = _state.busy, True
    try:
        from ._rewrite import rewrite_code

        return rewrite_code(data, path, module=fullname, is_package=is_package, optimize=optimize,
                            mechanism=_cache.mechanism())
    finally:
        _state.busy = busy


def never_rewritten(fullname):
    """Whether the hook leaves *fullname* plain whatever the settings (lazify, the import
    system and the modules the rewriter imports): :func:`plain_modules` first."""
    return _never(fullname)


def rewritten_code(data, path, fullname, is_package, optimize=-1):
    """The code object the hook would compile for a source (``lazify compile``'s pycs)."""
    return _transform(data, path, fullname, is_package, optimize)


_BYTES_WARNING = sys.flags.bytes_warning

#: module name -> the late globals its code is marked with, for its ``__getattr__``
_late_names = {}


def late_catch_up_for(fullname, names):
    """Give the module ``fullname``, whose body starts with this call (the compiler put
    it there: :mod:`lazify._late_globals`), the ``__getattr__`` of the late-global
    catch-up for ``names`` (that module is imported only when one is asked for while
    missing); not when it has one already (a package's submodule catch-up, natively),
    nor when its body runs outside the module (``runpy``)."""
    module = sys.modules.get(fullname)
    namespace = getattr(module, "__dict__", None)
    if namespace is None or "__getattr__" in namespace \
            or sys._getframe(1).f_globals is not namespace:
        return
    _late_names[fullname] = names
    namespace["__getattr__"] = _late_getattr.__get__(module)


def _late_getattr(module, name):
    from ._late_globals import answer

    return answer(module, name, _late_names.get(module.__name__, ()))


_late_getattr.__name__ = _late_getattr.__qualname__ = "__getattr__"

#: get_code: the plain compile raised a SyntaxError
_UNREAD = object()


def _opts_in(code):
    """Whether module-level code names ``__lazy_modules__`` (PEP 810's opt-in)."""
    if "__lazy_modules__" in code.co_names:
        return True
    if not _BYTES_WARNING:
        return "__lazy_modules__" in code.co_consts
    # under ``python -b``/``-bb`` comparing the name with a bytes constant is a
    # BytesWarning (an error with -bb)
    for const in code.co_consts:         # (a loop: a generator is one more code object)
        if type(const) is str and const == "__lazy_modules__":
            return True
    return False


#: lazify's own directory: its frames are left out of an error's traceback
_OWN = _os.dirname(_os.abspath(__file__)) + _os.sep

# The loader's get_code as importlib sees its own: a SyntaxError (an encoding error,
# null bytes) raised while importing a module shows the importer's frame and the file,
# nothing of the import system.  CPython removes importlib's frames from such a
# traceback (import.c, remove_importlib_frames): a run of frames whose file is
# "<frozen importlib._bootstrap>" or "<frozen importlib._bootstrap_external>" that ends
# in a function named _call_with_frames_removed, the one importlib calls compile() and
# the module's code through.  get_code is such a function, called by importlib's
# exec_module: the run from the import statement to it goes, and so does what lazify's
# own modules add after it (the hook, the rewriter); frames of other code stay.
# Called from elsewhere (runpy, inspect), it shows as importlib's frame does.
def _call_with_frames_removed(self, fullname):
    try:
        return get_code(self, fullname)  # noqa: F821  (globals of the copy: _frames_removed)
    except Exception as exc:
        raise exc.with_traceback(outside(exc.__traceback__.tb_next))  # noqa: F821


def _outside(tb):
    """The frames of ``tb`` that are not lazify's own."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_OWN):
            kept.append(tb)
        tb = tb.tb_next
    for index, tb in enumerate(kept):
        tb.tb_next = kept[index + 1] if index + 1 < len(kept) else None
    return kept[0] if kept else None


def _frames_removed(get_code):
    """``_call_with_frames_removed`` above as importlib's own: its code under importlib's
    file name and line 1, its globals the two names it reads.  (The code object is
    relabelled rather than compiled from source: on 3.15 the first ``compile()`` of a
    process builds the ``ast`` module's types, a cost no start-up may pay for this.)"""
    code = _call_with_frames_removed.__code__.replace(
        co_filename="<frozen importlib._bootstrap_external>", co_firstlineno=1)
    namespace = {"__name__": __name__, "get_code": get_code, "outside": _outside}
    function = type(_outside)(code, namespace, "get_code")
    function.__qualname__ = "LazifyLoader.get_code"
    function.__doc__ = get_code.__doc__
    return function


class LazifyLoader(SourceFileLoader):
    """``SourceFileLoader`` whose code is the rewritten module, cached under lazify's tag."""

    #: set by the finder: whether global mode wants the module rewritten, and
    #: its cache file (worked out once per import, not again in get_code)
    wanted = None
    cached = None
    #: set by the finder: the spec's own ``SourceFileLoader``, whose ``get_code`` this
    #: loader's is (:meth:`LazifyFinder.find_spec`); None: this loader is the spec's
    front = None

    def source_to_code(self, data, path, *, _optimize=-1, fullname=None):
        """Return the rewritten code; SyntaxError exactly as ``compile`` raises it.

        Any other failure is a lazify bug: say so on stderr, naming the module,
        and fall back to the plain compile, because lazify must never be why a
        program does not start (typeguard#340); never a warning, which ``-W error``
        would make the program's exception (:mod:`lazify._diagnostics`).
        ``LAZIFY_STRICT=1`` raises instead.
        """
        return self._rewrite(data, path, fullname or self.name, _optimize)[0]

    def _rewrite(self, data, path, name, optimize=-1, st=None):
        """Return (code, rewritten): rewritten is False after a fallback, which is
        remembered beside the cache file when the source's ``st`` is given."""
        try:
            code = _transform(data, path, name, self._is_pkg(name), optimize)
        except SyntaxError:
            raise
        except Exception as exc:
            stats["failed"] += 1
            if _strict():
                raise
            from . import _diagnostics

            message = (f"could not rewrite module {name!r} ({path}): {type(exc).__name__}: "
                       f"{exc}; importing it eagerly")
            if st is not None:
                message += " until the file changes (LAZIFY_STRICT=1 raises the error)"
                _diagnostics.remember(path, self._primary(path), st.st_mtime, st.st_size,
                                      message)
            _diagnostics.show(message)
            return super().source_to_code(data, path, _optimize=optimize), False
        stats["compiled"] += 1
        _debug(f"compiled {name}")
        return code, True

    def _primary(self, source_path):
        """The source's cache file in ``__pycache__`` (or ``sys.pycache_prefix``)."""
        return self.cached if self.cached is not None else _cache.cache_path(source_path)

    def _is_pkg(self, name):
        try:
            return self.is_package(name)
        except ImportError:
            return False

    def _get_code(self, fullname):
        """Return the module's code: lazify's cache, else read, rewrite and cache.

        A module that global mode leaves alone (lazy imports disabled, or the
        module excluded) gets CPython's own code and pyc, unless it opts in
        with ``__lazy_modules__`` or, before 3.15, ``lazy import`` statements (PEP 810).
        """
        wanted = self.wanted if self.wanted is not None else _wanted(fullname)
        if _never(fullname) or not wanted:
            try:
                plain = SourceFileLoader(fullname, self.path).get_code(fullname)
            except SyntaxError:
                # Before 3.15, PEP 810's ``lazy import`` is one (lazify._keyword):
                # the rewrite reads it, or raises the error again (outside this
                # handler: not chained to this one)
                if _NATIVE_KEYWORD or _never(fullname):
                    raise
                plain = _UNREAD
            if plain is _UNREAD:
                return self._lazy_code(fullname)
            # A module that binds __lazy_modules__ at module level has the
            # name in co_names (or in co_consts: globals()["__lazy_modules__"]);
            # checking the plain code needs no second read of the source.
            if plain is None or _never(fullname) or not _opts_in(plain):
                stats["plain"] += 1
                return plain
            # gone before the rewrite is marshalled: its constants are the rewrite's
            # too, and marshal flags an object by its reference count (the bytes of
            # the pyc would depend on the settings)
            del plain
        code = self._lazy_code(fullname)
        if code is not None and self.path.endswith("__init__.py") \
                and fullname in _native.native_modules:
            _native.catch_up_for(fullname, code)     # package-submodule catch-up
        return code

    get_code = _frames_removed(_get_code)
    #: the finder gives a spec's loader this object itself as its ``get_code``: one
    #: object a module, where the bound method was a second
    __call__ = get_code

    def _deferred(self, fullname, source_path):
        """The plain code for a cache miss, as Python itself would load it (its pyc,
        else compiled and its pyc written), or None when the module must be rewritten
        now: it asks for lazy imports itself (``__lazy_modules__``, ``lazy import``),
        or it does not compile as plain Python (``lazy import`` before 3.15: the
        rewrite raises compile()'s SyntaxError, or knows the syntax).

        The module is noted (:mod:`lazify._miss`, imported at the first such miss) for
        :mod:`lazify._deferred`, which rewrites the misses of this process into
        lazify's cache in a detached child.

        On 3.15 a module that asks for lazy imports is served plain as well: the
        interpreter defers its explicitly lazy imports itself.  Before 3.15 it is
        served plain only where its rewrite could not be cached (it would be
        rewritten at every start): as the interpreter does, which ignores
        ``__lazy_modules__``; the warning at exit counts it, and ``lazify compile``
        makes it lazy.
        """
        from . import _miss

        code = _miss.plain_code(self, fullname, source_path)
        if code is None:
            return None
        # 3.15 makes the plain code's explicitly lazy imports lazy itself (PEP 810:
        # ``lazy import`` and ``__lazy_modules__``), as lazify's filter lets them be
        if not _NATIVE_KEYWORD and _opts_in(code) and _can_cache(source_path):
            return None
        stats["deferred"] += 1
        _debug(f"deferred {fullname}")
        _miss.note((fullname, source_path, self._is_pkg(fullname)), code, _state, _debug)
        try:
            _record_cached(fullname, self.front or self, _frozen_importlib_external.cache_from_source(source_path))
        except Exception:
            pass
        return code

    def _lazy_code(self, fullname):
        if _NATIVE_KEYWORD and _cache.mechanism() == "native":
            _native.native_modules.add(fullname)
        # get_filename checks the name, then gives self.path
        source_path = self.path if fullname == self.name else self.get_filename(fullname)
        st = None
        try:
            st = _os.stat(source_path)
        except OSError:
            pass
        if st is not None:
            code, used = _cache.read_cached_from(source_path, source_mtime=st.st_mtime,
                                                 source_size=st.st_size, primary=self.cached)
            if code is not None:
                stats["cached"] += 1
                if _DEBUG:
                    _debug(f"cached {fullname}")
                if used != self.cached:
                    _record_cached(fullname, self.front or self, used)
                return code
            if not _strict():
                from . import _diagnostics

                # a rewrite that failed for the source as it is: eager, and said once
                if _diagnostics.remembered(source_path, self._primary(source_path),
                                           st.st_mtime, st.st_size) is not None:
                    stats["plain"] += 1
                    return SourceFileLoader(fullname, self.path).get_code(fullname)
        defer = _deferring()
        if defer and (defer is True or not _can_cache(source_path)):
            code = self._deferred(fullname, source_path)
            if code is not None:
                return code
        if _PLAIN is None:
            # the measurement was not kept (deferring leaves it to the rewrite at exit):
            # take it, and keep it, before the first rewrite in this process, in a child
            # interpreter: the module loading now may be one of the rewriter's own
            # dependencies (``enum``), which importing the rewriter here would meet half
            # initialised ('cannot import name IntEnum from partially initialized module').
            # Where the child cannot tell (or nothing can be kept) the rewriter is
            # imported here, and a module it meets half initialised is served plain
            # (ImportError, or on 3.12 re's AttributeError on a half-initialised enum).
            try:
                plain_modules()
                plain = _never(fullname)
            except Exception:
                plain = True
            if plain:
                stats["plain"] += 1
                return SourceFileLoader(fullname, self.path).get_code(fullname)
        source_bytes = self.get_data(source_path)
        code, rewritten = self._rewrite(source_bytes, source_path, fullname, st=st)
        if st is not None and rewritten:
            busy, _state.busy = _state.busy, True  # an import while writing: pytest#3506
            try:
                from . import _cache_write

                used = _cache_write.write_cached(
                    source_path,
                    code,
                    source_mtime=st.st_mtime,
                    source_size=st.st_size,
                    source_mode=st.st_mode,
                    source_bytes=source_bytes,
                )
            finally:
                _state.busy = busy
            _record_cached(fullname, self.front or self, used)
        return code


def _can_cache(source_path):
    """Whether the rewrite of this source can be kept in lazify's cache."""
    from . import _miss

    return _miss.can_cache(source_path, _state)


def _record_cached(fullname, loader, used):
    """Make ``__spec__.cached``/``__cached__`` name the file actually used.

    The finder sets the ``__pycache__`` path; only when the per-user
    fallback served or took the file does the module being executed (it is
    in sys.modules by now) get the real path.
    """
    if used is None:
        return
    module = sys.modules.get(fullname)
    spec = getattr(module, "__spec__", None)
    if spec is None or spec.loader is not loader or spec.cached == used:
        return
    try:
        spec.cached = used
        if "__cached__" in module.__dict__:    # 3.15 sets no __cached__
            module.__cached__ = used
    except Exception:
        pass


class LazifyFinder:
    """A meta-path finder that delegates to the finders after it and swaps the loader.

    Duck-typed rather than an ``importlib.abc.MetaPathFinder`` subclass:
    ``importlib.abc`` imports ``typing`` on 3.11+, too heavy for startup.
    """

    def __repr__(self):
        return "<lazify.LazifyFinder>"

    def find_spec(self, fullname, path=None, target=None):
        """Return the first spec the later finders give, with ``LazifyLoader`` when it fits.

        When none of them has the module, the import system asks them all again
        after this finder; a name none had is left to the import system from then
        on (one search per failed import, not two: optional dependencies are
        tried again and again, ``nt`` seven times by every ``ntpath``), until
        ``importlib.invalidate_caches()`` or an entry added to or taken from sys.path.
        """
        if _state.busy or _never(fullname):
            return None
        if _missing.get(fullname) == len(sys.path):
            return None                      # (sys.path grew or shrank since: ask again)
        finders = sys.meta_path
        try:
            later = finders[finders.index(self) + 1:]
        except ValueError:                   # not installed: ask them all
            later = finders[:]
        for finder in later:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            _missing[fullname] = len(sys.path)
            return None
        loader = spec.loader
        if type(loader) is not SourceFileLoader:
            if isinstance(loader, SourceFileLoader) or type(loader).__module__ not in _STOCK:
                # another tool's hook wins; the module stays eager
                stats["foreign"] += 1
                kind = type(loader)
                _debug(f"not lazified {fullname}: loaded by {kind.__module__}.{kind.__qualname__}")
            return spec
        # Minimal mutation of the spec the later finder built: origin, loader_state,
        # submodule_search_locations, and the loader itself stay. The loader stays
        # CPython's SourceFileLoader, with lazify's get_code as its own attribute (the
        # finder made it for this spec alone): programs look loaders up by exact type
        # (pip's vendored distlib: "Unable to locate finder"), runpy's __main__ included.
        new = LazifyLoader(loader.name, loader.path)
        new.front = loader
        loader.get_code = new
        try:
            new.wanted = _wanted(fullname)
            if new.wanted:
                new.cached = _cache.cache_path(loader.path)
                if new.cached is not None:
                    spec.cached = new.cached
        except Exception:
            pass
        return spec

    def invalidate_caches(self):
        """Forget the names no finder had, and the packages a guarded module's
        deferred imports found (the later finders get their own call)."""
        _forget_searches()


#: name of a module none of the finders after lazify's had (see find_spec) -> the
#: length of sys.path then (a path entry added or taken away since: ask again)
_missing = {}


def _forget_searches():
    """Forget what lazify remembers of the finders' answers (its misses, and the
    packages guarded modules found: :func:`lazify._guarded.findable`)."""
    _missing.clear()
    _guarded.forget_findable()


#: modules of CPython's own loaders (builtin, frozen, extension, sourceless,
#: zip, namespace): passing those through is not worth a debug line
_STOCK = frozenset({"_frozen_importlib", "_frozen_importlib_external", "zipimport", "builtins"})

_finder = LazifyFinder()


def install(*, enabled=True, excluding=None, mechanism=None):
    """Install the import hook (idempotent) and set global lazy mode.

    :param enabled: global mode, PEP 690's ``-L``; ``False`` keeps the hook
        for modules that opt in with ``__lazy_modules__``.
    :param excluding: module names whose own imports stay eager.
    :param mechanism: "native" (3.15+) or "rewrite"; None: ``LAZIFY_MECHANISM``,
        else native where the interpreter has PEP 810, else the rewrite.  ValueError for "native"
        elsewhere.
    """
    if mechanism is None:
        # LAZIFY_MECHANISM when it names one this interpreter has (lazify.install and
        # lazify run report a bad one: they read the settings), else the default
        _settings.settings.mechanism = None
        mechanism = _cache.mechanism()
    mechanism = _native.check_mechanism(mechanism)
    _settings.set_lazy_imports(enabled, excluding=excluding)
    _native.set_mechanism(mechanism)
    record = sys.modules.get("lazify._import_record")
    if record is not None:
        record.attach_native()
    elif _settings.env_flag("LAZIFY_SUMMARY"):
        from . import _import_record

        _import_record.summary_at_exit()
    if _deferring():
        _kept_plain_modules()
    else:
        plain_modules()
    if not is_installed():
        sys.meta_path.insert(0, _finder)
    if _settings.settings.unbundled is not None:
        _write_startup_bundle()


def _write_startup_bundle():
    """Write lazify's start-up bundle once, when this start imported lazify's modules
    one by one (``lazify/__init__.py``; :mod:`lazify._startup_bundle`, imported only to
    write): not under ``PYTHONDONTWRITEBYTECODE``, not where this user cannot create
    the file (its directory, or the one above when ``__pycache__`` is not there yet),
    not while a source is too fresh to be recorded (:func:`_cache.is_too_fresh`).
    Where one of these persists (a lazify installed where its user cannot write, a
    source dated in the future) every start would import the writer for nothing:
    1.9 M instructions on 3.15, more than the bundle saves."""
    from . import STARTUP_MODULES

    bundle, _settings.settings.unbundled = _settings.settings.unbundled, None
    if sys.dont_write_bytecode:
        return
    directory = _os.dirname(bundle)
    if not _os.exists(directory):
        directory = _os.dirname(directory)
    if not _os.access(directory, _os.W_OK_X_OK):
        return
    here = _os.dirname(_os.abspath(__file__)) + _os.sep
    try:
        for name in STARTUP_MODULES:
            if _cache.is_too_fresh(_os.stat(f"{here}{name}.py").st_mtime):
                return
    except OSError:
        return
    from . import _startup_bundle

    _startup_bundle.write(here)


def uninstall():
    """Remove the import hook; modules already imported keep working.  The
    interpreter gets back the lazy imports mode and filter it had before."""
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _finder]
    _forget_searches()
    _native.native_off()


def is_installed():
    """Whether the hook is in ``sys.meta_path``."""
    for finder in sys.meta_path:         # (a loop: a generator is one more code object)
        if finder is _finder:
            return True
    return False
