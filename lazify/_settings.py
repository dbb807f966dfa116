"""What is lazy now: the settings (PEP 690's ``-L`` and its exclusions), the one
question every mechanism asks at an import statement (:func:`lazy_now`, and PEP 810's
``__lazy_modules__`` opt-in: :func:`opted_in`), the settings' environment switches,
and the registrations of lazify's modules that load later: the rewrite's runtime and
the import hook register themselves here when they are imported, so that nothing
looks them up in ``sys.modules``.

On every user's start-up path: it imports nothing but ``os`` and ``sys``.
"""

import os
import sys

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


def within(name, names):
    """Whether ``names`` (a container supporting ``in``) holds module ``name`` or a
    package above it (``a.b`` and ``a`` for ``a.b.c``).  Here rather than in
    :mod:`lazify._names`, which re-exports it: the settings need it at every start-up,
    where one module less is loaded."""
    while name:
        if name in names:
            return True
        name = name.rpartition(".")[0]
    return False


def absolute_name(name, level, package):
    """The absolute name of the module ``from .{level}name import`` imports from
    ``package`` (``name`` itself for level 0), as importlib resolves it.  Here rather
    than in :mod:`lazify._names`, which re-exports it: the rewrite's runtime needs it
    at every start-up, where one module less is loaded.

    :raises ImportError: with Python's own message where Python raises it: a
        relative import without a package, or one above the top-level package.
    """
    if not level:
        return name
    if not package:
        raise ImportError("attempted relative import with no known parent package")
    parts = package.rsplit(".", level - 1)
    if len(parts) < level:
        raise ImportError("attempted relative import beyond top-level package")
    return f"{parts[0]}.{name}" if name else parts[0]


class Settings:
    """The settings of this process: one instance, :data:`settings`."""

    __slots__ = ("enabled", "excluding", "generation", "mechanism", "previous", "unbundled")

    def __init__(self):
        self.enabled = False
        self.excluding = None        # None: DEFAULT_EXCLUDING
        #: bumped by every change of ``enabled`` or ``excluding``: the rewrite's
        #: runtime compares it with the one each module's view was taken at
        self.generation = 0
        #: the mechanism the hook compiles modules for: set by install(), else
        #: worked out on first use (:func:`lazify._cache.mechanism`)
        self.mechanism = None
        #: the interpreter's lazy imports mode and filter before lazify set its
        #: own (native mechanism), restored by :func:`lazify._native.native_off`;
        #: None if not set
        self.previous = None
        #: the start-up bundle's path when this start imported lazify's modules one
        #: by one (it was missing, stale or corrupt): the hook's install() writes it
        #: (lazify/__init__.py, :mod:`lazify._startup_bundle`)
        self.unbundled = None


#: the settings of this process
settings = Settings()

#: the rewrite's runtime (:mod:`lazify._importlib_bootstrap`) once the first rewritten
#: module imported it (it registers itself: :func:`register_runtime`), else None
runtime = None
#: the hook's "lazify never rewrites this module" (:mod:`lazify._hook` registers it:
#: :func:`register_hook`), None until the hook is imported
never_rewritten = None
#: the settings ``lazify enable`` recorded for this environment, as its ``.pth`` file
#: handed them over at start-up (:func:`lazify._startup.enabled`), else None
_recorded = None


def register_runtime(module):
    """The rewrite's runtime, once imported: the public helpers and the guarded-import
    check ask it about rewritten modules."""
    global runtime
    runtime = module


def register_hook(never):
    """The import hook, once imported: its predicate ``never(name)``, true for a module
    lazify never rewrites (the runtime's catch-up of submodules asks it)."""
    global never_rewritten
    never_rewritten = never


def keep_recorded(record):
    """Keep the settings ``lazify enable`` recorded (:func:`recorded`)."""
    global _recorded
    _recorded = record


def recorded():
    """The settings ``lazify enable`` recorded for this environment, as its ``.pth``
    file handed them over at start-up (:mod:`lazify._startup`), or None."""
    return _recorded


def set_lazy_imports(enabled=True, *, excluding=None):
    """Make import statements executed from now on lazy (or eager).

    :param excluding: a container of module names supporting ``in``; imports
        *within* those modules (and their submodules) stay eager.  ``None``
        means lazify's default list (:data:`DEFAULT_EXCLUDING`); pass ``()``
        to clear it, or ``{*DEFAULT_EXCLUDING, "mypkg"}`` to extend it.
    """
    settings.enabled = bool(enabled)
    settings.excluding = excluding
    settings.generation += 1
    _excluded_importers.clear()
    lazy_importers.clear()


def is_lazy_imports_enabled():
    """Whether global lazy imports are on (PEP 690's ``-L``)."""
    return settings.enabled


def is_excluded(name):
    """Whether imports within module ``name`` stay eager."""
    excluding = settings.excluding
    return within(name, DEFAULT_EXCLUDING if excluding is None else excluding) or (
        bool(eager_packages) and within(name, eager_packages))


#: top-level packages whose imports stay eager for the rest of the process, whatever
#: the settings: one of their modules adds an audit hook (:mod:`lazify._audit`)
eager_packages = set()


def keep_eager(package):
    """Keep the imports within ``package`` eager from now on (:mod:`lazify._audit`)."""
    eager_packages.add(package)
    settings.generation += 1
    _excluded_importers.clear()
    lazy_importers.clear()


#: module name -> whether it is excluded, for the settings of now (the hook asks for
#: every module, the runtime when its body starts, the filter at its statements)
_excluded_importers = {}


def excluded(name):
    """:func:`is_excluded`, remembered until the settings change."""
    known = _excluded_importers.get(name)
    if known is None:
        known = _excluded_importers[name] = is_excluded(name)
    return known


#: importers :func:`lazy_now` said yes for under the settings of now (emptied when
#: they change): the native filter's first test, one lookup each
lazy_importers = set()


def lazy_now(name):
    """Whether the imports of module ``name`` are lazy by the settings of now: global
    mode on and ``name`` not excluded (whatever the mechanism)."""
    if name in lazy_importers:
        return True
    if not settings.enabled or excluded(name):
        return False
    lazy_importers.add(name)
    return True


def opted_in(namespace, target):
    """Whether the module whose globals are ``namespace`` opts in to lazy imports of
    module ``target`` with PEP 810's ``__lazy_modules__`` (None: never)."""
    explicit = namespace.get("__lazy_modules__")
    return explicit is not None and target is not None and target in explicit


#: what :mod:`lazify._config` reads from the environment
SETTINGS_VARIABLES = ("LAZIFY_DISABLE", "LAZIFY_EXCLUDING", "LAZIFY_MECHANISM")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
#: the problems reported in this process (each is reported once)
_reported = set()


def report(message):
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


def env_flag(name, default=False, environ=None):
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
        # one wording whatever *default* this reader has: two readers of one variable
        # (the .pth file's and install()'s LAZIFY) report one line, not two that differ
        report(f"{name}={value!r} is not one of 1/0, true/false, yes/no, on/off; "
               "taken as unset")
    return default


def has_settings(environ=None):
    """Whether :mod:`lazify._config` must resolve the settings: one of its variables is
    set.  Otherwise the settings are the recorded ones as they are
    (:func:`recorded_settings`), and :func:`lazify.install` does not import ``_config``;
    the current directory plays no part: a program gets the same settings wherever it
    is started."""
    env = os.environ if environ is None else environ
    for name in SETTINGS_VARIABLES:      # (a loop: a generator is one more code object)
        if env.get(name):
            return True
    return False


def recorded_settings(record, enabled=None):
    """``(enabled, excluding names, mechanism)`` from the recorded settings alone (no
    variable set): what :func:`lazify._config.resolve` gives then, without importing it
    (``lazify enable`` checked the record when it wrote it)."""
    if enabled is None:
        enabled = record.get("enabled", True)
    return bool(enabled), tuple(record.get("excluding") or ()), record.get("mechanism")
