"""The import hook: a meta-path finder that swaps in a loader which rewrites.

The finder sits at ``sys.meta_path[0]`` and asks the finders *after* it for
a spec (PathFinder, and whatever editable installs append).  Only a spec
whose loader is exactly ``SourceFileLoader`` gets ``LazifyLoader``; every
other loader (pytest's assertion rewriter, typeguard, beartype,
PyInstaller, zipimport, extensions, frozen, namespace packages) is
returned untouched.  The loader overrides ``source_to_code`` and
``get_code`` only, so ``exec_module``, ``get_data``, ``get_source``,
``importlib.resources`` and ``pkgutil`` support are CPython's own.

Nothing heavy is imported here: the rewriter (``lazify._rewrite`` and the
``ast`` it needs) is imported on the first cache miss, with a thread-local
busy flag set so that those modules pass through untransformed; the modules
it imports are never rewritten (:mod:`lazify._rewriter_deps` measures them).
"""

import _thread
import _warnings
import os
import sys

# CPython's own loaders, from the frozen module importlib.machinery re-exports:
# importing the importlib package costs warnings and more at every start
import _frozen_importlib_external

from . import _cache, _mode

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
_NATIVE_KEYWORD = _mode.NATIVE_AVAILABLE

#: environment switches, read once (LAZIFY_STRICT is read when it matters)
_DEBUG = os.environ.get("LAZIFY_DEBUG", "") not in ("", "0")

#: what the hook did in this process; tests read it, LAZIFY_DEBUG prints it
stats = {"compiled": 0, "cached": 0, "plain": 0, "foreign": 0, "failed": 0}


class _State(_thread._local):
    busy = False


_state = _State()


def _debug(message: str) -> None:
    if _DEBUG:
        try:
            sys.stderr.write(f"lazify: {message}\n")
        except Exception:
            pass


def _never(fullname: str) -> bool:
    top = fullname.partition(".")[0]
    if top not in (_PLAIN or MACHINERY):
        return False
    if top != "importlib" or _IMPORTLIB_USED:
        return True
    # the package itself (so that it catches up with a pending ``import
    # importlib.util`` as any rewritten package does) and its libraries
    return not (fullname == "importlib" or fullname.startswith(IMPORTLIB_LIBRARIES))


def _import_rewriter():
    busy, _state.busy = _state.busy, True
    try:
        from . import _rewriter_deps

        _rewriter_deps.exercise()
    finally:
        _state.busy = busy


def plain_modules() -> frozenset:
    """The top-level packages the hook never rewrites (measured once per process)."""
    global _PLAIN, _IMPORTLIB_USED
    if _PLAIN is None:
        names = _cache.read_rewriter_deps()
        if names is None:
            from . import _rewriter_deps

            names = _rewriter_deps.measured(_import_rewriter)
        _IMPORTLIB_USED = "importlib" in names
        _PLAIN = MACHINERY | names
    return _PLAIN


#: whether the rewriter itself imports importlib: then none of it is rewritten
_IMPORTLIB_USED = True


def _wanted(fullname: str) -> bool:
    """Whether global mode asks for this module to be rewritten (no I/O)."""
    try:
        return _mode._settings.enabled and not _mode.excluded(fullname)
    except Exception:  # a broken setting must not break every import
        return False


def _strict() -> bool:
    return os.environ.get("LAZIFY_STRICT", "") not in ("", "0")


def _transform(data: bytes, path: str, fullname: str, is_package: bool, optimize: int):
    """Run the rewriter with the busy flag set: its own imports pass through."""
    busy, _state.busy = _state.busy, True
    try:
        from ._rewrite import rewrite_code

        return rewrite_code(data, path, module=fullname, is_package=is_package, optimize=optimize,
                            mechanism=_cache.mechanism())
    finally:
        _state.busy = busy


_BYTES_WARNING = sys.flags.bytes_warning

#: get_code: the plain compile raised a SyntaxError
_UNREAD = object()


def _opts_in(code) -> bool:
    """Whether module-level code names ``__lazy_modules__`` (PEP 810's opt-in)."""
    if "__lazy_modules__" in code.co_names:
        return True
    if not _BYTES_WARNING:
        return "__lazy_modules__" in code.co_consts
    # under ``python -b``/``-bb`` comparing the name with a bytes constant is a
    # BytesWarning (an error with -bb)
    return any(type(const) is str and const == "__lazy_modules__" for const in code.co_consts)


class LazifyLoader(SourceFileLoader):
    """``SourceFileLoader`` whose code is the rewritten module, cached under lazify's tag."""

    #: set by the finder: whether global mode wants the module rewritten, and
    #: its cache file (worked out once per import, not again in get_code)
    wanted = None
    cached = None

    def source_to_code(self, data, path, *, _optimize=-1, fullname=None):
        """Return the rewritten code; SyntaxError exactly as ``compile`` raises it.

        Any other failure is a lazify bug: warn, naming the module, and fall
        back to the plain compile, because lazify must never be why a program
        does not start (typeguard#340).  ``LAZIFY_STRICT=1`` raises instead.
        """
        return self._rewrite(data, path, fullname or self.name, _optimize)[0]

    def _rewrite(self, data, path, name, optimize=-1):
        """Return (code, rewritten): rewritten is False after a fallback."""
        try:
            code = _transform(data, path, name, self._is_pkg(name), optimize)
        except SyntaxError:
            raise
        except Exception as exc:
            stats["failed"] += 1
            if _strict():
                raise
            # _warnings, not warnings: the module that failed may be warnings itself
            _warnings.warn(
                f"lazify could not rewrite module {name!r} ({path}): "
                f"{type(exc).__name__}: {exc}; importing it eagerly",
                RuntimeWarning,
                stacklevel=2,
            )
            return super().source_to_code(data, path, _optimize=optimize), False
        stats["compiled"] += 1
        _debug(f"compiled {name}")
        return code, True

    def _is_pkg(self, name):
        try:
            return self.is_package(name)
        except ImportError:
            return False

    def get_code(self, fullname):
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
        return self._lazy_code(fullname)

    def _lazy_code(self, fullname):
        if _NATIVE_KEYWORD and _cache.mechanism() == "native":
            _mode._native_modules.add(fullname)
        source_path = self.get_filename(fullname)
        st = None
        try:
            st = os.stat(source_path)
        except OSError:
            pass
        if st is not None:
            code, used = _cache.read_cached_from(source_path, source_mtime=st.st_mtime,
                                                 source_size=st.st_size, primary=self.cached)
            if code is not None:
                stats["cached"] += 1
                _debug(f"cached {fullname}")
                _record_cached(fullname, self, used)
                return code
        source_bytes = self.get_data(source_path)
        code, rewritten = self._rewrite(source_bytes, source_path, fullname)
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
            _record_cached(fullname, self, used)
        return code


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
        # Minimal mutation of the spec the later finder built (as typeguard
        # does): origin, loader_state, submodule_search_locations stay.
        spec.loader = new = LazifyLoader(loader.name, loader.path)
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
    packages guarded modules found: :func:`lazify._mode.found`)."""
    _missing.clear()
    _mode._found.clear()


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
    rt = _mode
    if mechanism is None:
        # LAZIFY_MECHANISM when it names one this interpreter has (lazify.install and
        # lazify run report a bad one: they read the settings), else the default
        rt._settings.mechanism = None
        mechanism = _cache.mechanism()
    mechanism = rt.check_mechanism(mechanism)
    rt.set_lazy_imports(enabled, excluding=excluding)
    rt.set_mechanism(mechanism)
    plain_modules()
    if not any(f is _finder for f in sys.meta_path):
        sys.meta_path.insert(0, _finder)


def uninstall():
    """Remove the import hook; modules already imported keep working.  The
    interpreter gets back the lazy imports mode and filter it had before."""
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _finder]
    _forget_searches()
    _mode.native_off()


def is_installed():
    """Whether the hook is in ``sys.meta_path``."""
    return any(f is _finder for f in sys.meta_path)
