"""What is lazy: the global mode, the exclusions, the mechanism, and the
decisions taken at an import statement whatever the mechanism.

Everything :func:`lazify.install` and the public API need before any module is
rewritten: the settings (PEP 690's ``-L`` and its exclusions), the mechanism
(lazify's generated code, or PEP 810's ``lazy`` statements on 3.15+) with the
interpreter's filter for the native one, and whether a module is imported
where an ImportError is caught.  The rewrite's runtime
(:mod:`lazify._importlib_bootstrap`) is imported by the first rewritten module,
not here: under the native mechanism it is never imported.

On every user's start-up path: it imports nothing but ``os`` and ``sys``.
"""

import os
import sys

#: the module the generated code imports (:data:`lazify._entry_points.RUNTIME`)
_RUNTIME = "lazify._importlib_bootstrap"
_NO_DICT = {}
_modules = sys.modules


def _lazy_import_type():
    """PEP 810's ``types.LazyImportType`` (what a ``lazy import`` binds until first
    use), None before 3.15.  Asked for by the public helpers only: the built-in
    ``_types`` is not imported at start-up, where the interpreter has no use for it."""
    if sys.version_info < (3, 15):
        return None
    from _types import LazyImportType

    return LazyImportType


#: Packages whose import-time order no static rule sees; imports *within*
#: them stay eager.  Each entry: the reason, and what broke.
DEFAULT_EXCLUDING = {
    "sympy": "import-time registration order: `Catalan = S.Catalan` in "
             "sympy.core needs `.numbers` imported first (broke cfn-lint)",
    "alembic": "import order: alembic.context's imports load alembic.ddl before "
               "alembic.operations.base, and alembic.ddl.postgresql registers "
               "operations on Operations while it imports; in another order the "
               "cycle between them breaks (ImportError: cannot import name "
               "'Operations' from partially initialized module)",
    "sqlalchemy.orm": "import order: orm.collections' module-level __go() imports "
                      "from orm.mapped_collection, which decorates its classes with "
                      "orm.collections' `collection` while it imports; eagerly another "
                      "module always imports orm.collections first (ImportError: cannot "
                      "import name 'KeyFuncDict' from partially initialized module)",
    "pandas._config": "import-time registry: importing pandas._config.display registers "
                      "the display options that pandas reads by key "
                      "(config['display']['encoding']); the package imports it only for "
                      "that, through a name nothing reads (KeyError: 'encoding')",
    "matplotlib": "import-time registry: docstrings interpolate %(Axes:kwdoc)s "
                  "through _docstring.interpd, which finds the class by walking "
                  "Artist.__subclasses__(); the modules defining the classes must "
                  "be imported first (KeyError: 'Axes:kwdoc')",
    "_pytest.assertion": "an import hook that needs its package's imports while it finds: "
                         "the assertion rewriter's find_spec calls "
                         "_pytest.pathlib.fnmatch_ex, whose deferred `import fnmatch` is "
                         "then resolved inside the find_spec for fnmatch itself; where "
                         "nothing imported fnmatch at start-up (Debian's 3.15) pytest does "
                         "not start (AttributeError: module '_pytest.pathlib' has no "
                         "attribute 'fnmatch' yet; ImportCycleError natively)",
    "_pytest.pathlib": "what the assertion rewriter's find_spec calls (_pytest.assertion): "
                       "its `import fnmatch` is done when the rewriter is imported",
}


#: the mechanisms lazify has: "rewrite" (every Python; PEP 690's transparent
#: namespace, in generated code) and "native" (3.15+: the planner's lazy imports
#: become PEP 810 ``lazy`` statements, which the interpreter defers itself)
MECHANISMS = ("native", "rewrite")
#: whether this interpreter has PEP 810's lazy imports (3.15+)
NATIVE_AVAILABLE = hasattr(sys, "set_lazy_imports_filter")


def default_mechanism() -> str:
    """"native" where the interpreter has PEP 810's lazy imports, else "rewrite"."""
    return "native" if NATIVE_AVAILABLE else "rewrite"


def check_mechanism(mechanism) -> str:
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


class _Settings:
    __slots__ = ("enabled", "excluding", "generation", "mechanism", "previous")

    def __init__(self):
        self.enabled = False
        self.excluding = None        # None: DEFAULT_EXCLUDING
        self.generation = 0
        #: the mechanism the hook compiles modules for: set by install(), else
        #: worked out on first use (:func:`lazify._cache.mechanism`)
        self.mechanism = None
        #: the interpreter's lazy imports mode and filter before lazify set its
        #: own (native mechanism), restored by :func:`native_off`; None if not set
        self.previous = None


_settings = _Settings()


def set_lazy_imports(enabled: bool = True, *, excluding=None) -> None:
    """Make import statements executed from now on lazy (or eager).

    :param excluding: a container of module names supporting ``in``; imports
        *within* those modules (and their submodules) stay eager.  ``None``
        means lazify's default list (:data:`DEFAULT_EXCLUDING`); pass ``()``
        to clear it, or ``{*DEFAULT_EXCLUDING, "mypkg"}`` to extend it.
    """
    _settings.enabled = bool(enabled)
    _settings.excluding = excluding
    _settings.generation += 1
    _excluded_importers.clear()
    _lazy_importers.clear()


def set_mechanism(name: str) -> None:
    """Compile modules for mechanism ``name`` from now on (checked), and set the
    interpreter up for it: PEP 810's "normal" mode and lazify's filter for
    "native", the interpreter's previous mode and filter otherwise."""
    name = check_mechanism(name)
    _settings.mechanism = name
    if name == "native":
        native_on()
    else:
        native_off()


# ---------------------------------------------------------------------------
# The native mechanism (3.15+): the interpreter defers the ``lazy`` statements
# the hook compiled; lazify's filter makes one eager when lazify is off, when
# its importer is excluded, or when it is guarded and its package is missing.

#: module name -> whether it is excluded, for the settings of now (the hook asks for
#: every module, the runtime when its body starts, the filter at its statements)
_excluded_importers = {}


def excluded(name: str) -> bool:
    """:func:`is_excluded`, remembered until the settings change."""
    known = _excluded_importers.get(name)
    if known is None:
        known = _excluded_importers[name] = is_excluded(name)
    return known


#: modules whose code the import hook made for the native mechanism: their ``lazy``
#: statements are lazify's, eager when lazify is off or the module is excluded
#: (any other module's are the program's own)
_native_modules = set()

#: importers whose lazy imports of a module already loaded are lazy as written
#: (lazify on, not excluded): the filter's first test, one lookup each.  Emptied
#: when the settings change
_lazy_importers = set()


def _lazy_imports_filter(importer, name, fromlist):
    """PEP 810's filter: False makes this lazy import eager.

    The interpreter calls it at every ``lazy`` statement (a Python call each, about
    1 % of a tool's start-up): the common case, a module already loaded, imported
    from a module lazify defers in, is answered first."""
    if importer in _lazy_importers:
        if name in _modules:
            return True
    elif excluded(importer or "") or not _settings.enabled:
        if importer not in _native_modules:
            # the program's own ``lazy`` statement (the hook compiled no lazy ones
            # there): lazy, as PEP 810's "normal" mode has it
            return True
        # lazy only where the module opts in with PEP 810's __lazy_modules__, as the
        # rewrite's runtime decides (_ModuleState.lazy_for)
        module = sys.modules.get(importer)
        explicit = getattr(module, "__dict__", _NO_DICT).get("__lazy_modules__")
        if explicit is None or name not in explicit:
            return False
    elif importer is not None:
        _lazy_importers.add(importer)
    top = name.partition(".")[0]
    if top in _modules or not top:
        return True
    # Not loaded yet: eagerly, a missing package raises at this statement, which
    # matters where the importing module is imported under an ImportError handler.
    if not _guarded(sys._getframe(1)):
        return True
    try:
        return found(top)
    except Exception:
        return True                      # a finder's own trouble: leave it to the import


def native_on() -> None:
    """PEP 810's "normal" mode (explicit ``lazy`` statements only: the hook's and
    the program's own) with lazify's filter; the previous ones are kept."""
    if not NATIVE_AVAILABLE:
        return
    if _settings.previous is None:
        _settings.previous = (sys.get_lazy_imports(), sys.get_lazy_imports_filter())
    sys.set_lazy_imports("normal")
    sys.set_lazy_imports_filter(_lazy_imports_filter)


def native_off() -> None:
    """Give the interpreter back the lazy imports mode and filter it had."""
    previous, _settings.previous = _settings.previous, None
    if previous is not None:
        sys.set_lazy_imports(previous[0])
        sys.set_lazy_imports_filter(previous[1])


#: what :mod:`lazify._config` reads from the environment
SETTINGS_VARIABLES = ("LAZIFY_DISABLE", "LAZIFY_EXCLUDING", "LAZIFY_MECHANISM")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
#: the problems reported in this process (each is reported once)
_reported = set()


def report(message: str) -> None:
    """One line on stderr, ``lazify: message``, once per process: a settings problem is
    found by every entry point that reads the settings, and said once.  Not a warning:
    at start-up (a ``.pth`` file) the warnings machinery is not there yet, and a
    program's warning filters are not the place to hide a broken setting."""
    if message in _reported:
        return
    _reported.add(message)
    try:
        sys.stderr.write(f"lazify: {message}\n")
    except Exception:                    # no stderr, or a closed one
        pass


def env_flag(name: str, default: bool = False, environ=None):
    """A boolean environment variable: 1/0, true/false, yes/no, on/off in any case;
    unset or empty is *default*, anything else is reported once and is *default*."""
    value = (os.environ if environ is None else environ).get(name)
    if not value:
        return default
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    if word:
        what = "unset" if default is None else int(default)
        report(f"{name}={value!r} is not one of 1/0, true/false, yes/no, on/off; "
               f"taken as {what}")
    return default


def find_pyproject(start_dir=None):
    """Return the nearest ``pyproject.toml`` in *start_dir* (default: the current
    directory) or above it, or None."""
    here = os.path.abspath(os.fspath(start_dir) if start_dir is not None else os.getcwd())
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def recorded():
    """The settings ``lazify enable`` recorded for this environment, as its ``.pth``
    file handed them over at start-up (:mod:`lazify._startup`), or None."""
    startup = _modules.get("lazify._startup")
    return None if startup is None else startup.recorded


def has_settings(environ=None) -> bool:
    """Whether :mod:`lazify._config` must resolve the settings: one of its variables is
    set.  Otherwise the settings are the recorded ones as they are
    (:func:`recorded_settings`), and :func:`lazify.install` does not import ``_config``;
    the current directory plays no part: a program gets the same settings wherever it
    is started."""
    env = os.environ if environ is None else environ
    return any(env.get(name) for name in SETTINGS_VARIABLES)


def recorded_settings(record, enabled=None):
    """``(enabled, excluding names, mechanism)`` from the recorded settings alone (no
    variable set): what :func:`lazify._config.resolve` gives then, without importing it
    (``lazify enable`` checked the record when it wrote it)."""
    if enabled is None:
        enabled = record.get("enabled", True)
    return bool(enabled), tuple(record.get("excluding") or ()), record.get("mechanism")


def is_lazy_imports_enabled() -> bool:
    """Whether global lazy imports are on (PEP 690's ``-L``)."""
    return _settings.enabled


def is_excluded(name: str) -> bool:
    """Whether imports within module ``name`` stay eager."""
    excluding = _settings.excluding
    if excluding is None:
        excluding = DEFAULT_EXCLUDING
    if not name:
        return False
    while True:
        if name in excluding:
            return True
        dot = name.rfind(".")
        if dot < 0:
            return False
        name = name[:dot]


# ---------------------------------------------------------------------------
# Optional imports: an ImportError must surface where the importer expects it.
#
# ``try: import plugin except ImportError: skip`` (or ``__import__`` or
# ``importlib.import_module`` in such a ``try``, or ``contextlib.suppress``):
# eagerly, a missing dependency of ``plugin`` raises inside that ``try``.
# Lazily, plugin's own imports are deferred, so it imports fine and the error
# moves to the first use, for every user of the library.  So a module imported
# where an ImportError is caught is "guarded": each of its deferred imports is
# *found* at once (a finder's lookup, nothing executed) and a module that is not
# there raises ModuleNotFoundError at its statement, as eagerly.  A module
# imported while a guarded one runs is guarded too.

#: exception names whose handler catches ImportError
_IMPORT_ERROR_NAMES = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})
#: file name -> whether its code is import machinery (skipped when looking for
#: the importer).  Keyed by the name, not the code object: a code object's hash is
#: recomputed on every lookup, over its constants and nested code objects
_machinery_files = {}
#: id(code) -> (code, the byte ranges its exception handlers cover (3.10: its try
#: and with blocks)), for code that names ImportError; the code is kept so that
#: the id stays its own
_code_ranges = {}
#: id(frame) of a module body under the native mechanism -> (id of its globals,
#: its code, whether it is guarded); a few are kept, never more.  The code is kept
#: so that its id stays its own (a guarded module that failed is freed, and the next
#: module's frame and globals may get its addresses); the globals' id, not the
#: object: a new container holding a module's globals makes the cyclic GC
#: (3.14's incremental one above all) walk the whole module again, which
#: measured as 3 M instructions for black's start-up
_native_guarded = {}
_NATIVE_GUARDED_KEPT = 64


def _is_machinery(filename):
    machinery = _machinery_files.get(filename)
    if machinery is None:
        machinery = _machinery_files[filename] = (
            filename.startswith("<frozen importlib")
            or filename.endswith(("importlib/__init__.py", "importlib\\__init__.py")))
    return machinery


def _facts(code):
    """() when ``code`` cannot guard (no handler, or it names no ImportError),
    else the byte ranges its handlers cover."""
    if not getattr(code, "co_exceptiontable", True) or _IMPORT_ERROR_NAMES.isdisjoint(code.co_names):
        return ()
    known = _code_ranges.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    if not hasattr(code, "co_exceptiontable"):
        ranges = _block_ranges(code.co_code)
    else:
        ranges = _handler_ranges(code.co_exceptiontable)
    _code_ranges[id(code)] = (code, ranges)
    return ranges


def _handler_ranges(table):
    """Byte ranges covered by an exception handler, from a 3.11+ exception table."""
    ranges = []
    index, size = 0, len(table)

    def varint():
        nonlocal index
        byte = table[index]
        index += 1
        value = byte & 63
        while byte & 64:
            byte = table[index]
            index += 1
            value = (value << 6) | (byte & 63)
        return value
    try:
        while index < size:
            start = varint() * 2
            length = varint() * 2
            varint()                     # handler target
            varint()                     # depth and lasti
            ranges.append((start, start + length))
    except IndexError:
        return ()
    return tuple(ranges)


#: 3.10's opcodes that push a block an exception can be caught in (SETUP_FINALLY,
#: SETUP_WITH, SETUP_ASYNC_WITH) and EXTENDED_ARG
_SETUP_OPS = frozenset({122, 143, 154})
_EXTENDED_ARG = 144


def _block_ranges(co_code):
    """Byte ranges of the try/with blocks in 3.10 bytecode (no exception table
    there): from each SETUP_* to its handler, whose relative jump counts
    instructions."""
    ranges = []
    arg = 0
    for offset in range(0, len(co_code), 2):
        op = co_code[offset]
        arg = arg << 8 | co_code[offset + 1]
        if op == _EXTENDED_ARG:
            continue
        if op in _SETUP_OPS:
            ranges.append((offset, offset + 2 + 2 * arg))
        arg = 0
    return tuple(ranges)


def _guarded(frame) -> bool:
    """Whether the module whose body runs in ``frame`` is being imported where an
    ImportError would be caught: the first frame above the import machinery is
    covered by a handler in code that names ImportError, ModuleNotFoundError or
    Exception (on 3.10, inside a try or with block of such code), or is the body
    of a guarded module.

    One walk up the stack, not a recursion, at most once per module body: the
    answer is kept for the body in ``frame`` and for the module bodies passed on
    the way up (the rewrite keeps it in each module's state, the native mechanism
    in a small table), so the next question stops at them.
    """
    if frame.f_code.co_name == "<module>":
        known = _known_guarded(frame)
        if known is not None:
            return known
        passed = [frame]
    else:
        passed = []
    guarded = False
    machinery_files = _machinery_files
    while True:
        frame = frame.f_back
        while frame is not None:
            filename = frame.f_code.co_filename
            machinery = machinery_files.get(filename)
            if machinery is None:
                machinery = _is_machinery(filename)
            if not machinery:
                break
            frame = frame.f_back
        if frame is None:
            break
        code = frame.f_code
        facts = _facts(code)
        if facts:
            lasti = frame.f_lasti
            if any(start <= lasti < end for start, end in facts):
                guarded = True
                break
        if code.co_name != "<module>":
            break
        known = _known_guarded(frame)
        if known is not None:
            guarded = known
            break
        passed.append(frame)
    for frame in passed:
        _keep_guarded(frame, guarded)
    return guarded


def _rewritten_state(frame):
    """The rewrite's state of the module whose body runs in ``frame``, or None."""
    owner = frame.f_globals.get("__lazy__")
    runtime = sys.modules.get(_RUNTIME) if owner is not None else None
    if runtime is not None and isinstance(owner, runtime._Namespace):
        return owner.__lazify_state__
    return None


def _known_guarded(frame):
    """A module body's guardedness if worked out already, None if not yet (the
    walk goes on above it).  Under the rewrite a body lazify did not rewrite
    defers nothing: False, and the walk stops there."""
    state = _rewritten_state(frame)
    if state is not None:
        return state.guarded
    if _settings.mechanism != "native":
        return False
    known = _native_guarded.get(id(frame))
    if known is not None and known[0] == id(frame.f_globals) and known[1] is frame.f_code:
        return known[2]
    return None


def _keep_guarded(frame, guarded) -> None:
    state = _rewritten_state(frame)
    if state is not None:
        state.guarded = guarded
        return
    if len(_native_guarded) >= _NATIVE_GUARDED_KEPT:
        _native_guarded.clear()
    _native_guarded[id(frame)] = (id(frame.f_globals), frame.f_code, guarded)


def machinery_file(filename) -> None:
    """Count the frames of code from ``filename`` as import machinery: the
    rewrite's runtime, whose frames a deferred import runs in."""
    _machinery_files[filename] = True


def _find_spec(fullname, path):
    return sys.modules["_frozen_importlib"]._find_spec(fullname, path)


#: top-level name -> the length of sys.path when a finder last had it: a guarded
#: module's deferred imports of a package not loaded yet search for it once, not
#: once per statement (http's modules ask for ``_ssl`` nine times).  Only what was
#: found is kept (a module missing now may appear; eagerly it would be found), and it
#: is searched again after ``importlib.invalidate_caches()``, ``uninstall()`` or an
#: entry added to or taken from sys.path, as lazify's finder does with its misses
_found = {}


def found(top) -> bool:
    """Whether a finder has the top-level module ``top`` (a finder's error propagates)."""
    if _found.get(top) == len(sys.path):
        return True
    if _find_spec(top, None) is None:
        return False
    _found[top] = len(sys.path)
    return True


# ---------------------------------------------------------------------------
# Public helpers (re-exported by lazify/__init__.py).

def is_lazy_import(namespace, name: str) -> bool:
    """True while ``name`` in that module namespace is an unresolved lazy
    import.  Never resolves it.

    :param namespace: a module's ``__dict__`` or ``globals()``.
    """
    lazy_type = _lazy_import_type()
    if lazy_type is not None and type(namespace.get(name)) is lazy_type:
        return True                      # PEP 810's proxy (the native mechanism)
    runtime = sys.modules.get(_RUNTIME)  # no rewritten module before it is imported
    return runtime is not None and runtime.is_pending(namespace, name)


def resolve_all(module_or_namespace) -> None:
    """Resolve every pending lazy name of that module now."""
    namespace = module_or_namespace
    if not isinstance(namespace, dict):
        namespace = vars(module_or_namespace)
    runtime = sys.modules.get(_RUNTIME)
    if runtime is not None:
        runtime.resolve_pending(namespace)
    lazy_type = _lazy_import_type()
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
