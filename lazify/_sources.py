"""Source files: which ones a command works on, their module names, reading and parsing.

``check``, ``rewrite``/``diff`` and ``compile`` find files, name modules and read sources
here, so they agree on what a tree holds; the import hook's pipeline (:mod:`lazify._rewrite`)
takes its parse and the extension-module fact from here too.  Nothing of lazify's is
imported but :mod:`lazify._keyword`, :mod:`lazify._names`, :mod:`lazify._os`,
:mod:`lazify._ast_walk` and the
settings, inside
:func:`excluding_for`; the rewriter may import it (only ``ast`` and start-up modules).
"""

import ast
import io
import os
import stat

from . import _os
from ._ast_walk import walk
from . import _keyword
from ._keyword import mentions
from ._names import absolute_name

#: Directory names never descended into when walking a tree (hidden directories, such as
#: ``.git`` and ``.tox``, are skipped too); a package of one of these names is code.
SKIP_DIRS = frozenset({".git", "__pycache__", ".venv", "venv", "build", "dist", "node_modules"})


def excluding_for(path: str, extra=()) -> frozenset:
    """What the runtime would exclude for an application at *path*.

    lazify's default list, ``[tool.lazify] excluding`` of the nearest pyproject.toml,
    ``LAZIFY_EXCLUDING``, and *extra* (``--excluding``): so that ``check`` reports, and
    ``rewrite``/``diff`` write, what ``lazify run`` and ``install()`` do.

    :raises lazify._config.ConfigError: when the settings are malformed.
    """
    from ._config import load_config
    from ._settings import DEFAULT_EXCLUDING

    start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return frozenset({*DEFAULT_EXCLUDING, *load_config(start).excluding, *extra})


def iter_files(paths, extra_excluding=None, unreadable=None):
    """Yield ``(file, excluding)`` for the Python files named by *paths*, each file once.

    A directory gives the ``.py`` files below it (:func:`python_files`); a file is given as it is,
    whatever its name, and a missing one too (reading it reports it).  *excluding* is
    :func:`excluding_for` the path it came from, or None when *extra_excluding* is None
    (``compile``: bytecode never depends on settings).

    :param unreadable: a list to add ``(directory, OS error message)`` to for each
        directory below a path that cannot be listed (None: skipped, as os.walk does).
    :raises lazify._config.ConfigError: when a path's settings are malformed.
    """
    seen = set()
    for path in paths:
        path = os.fspath(path)
        excluding = None if extra_excluding is None else excluding_for(path, extra_excluding)
        found = python_files(path, unreadable) if os.path.isdir(path) else [path]
        for file in found:
            key = os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                yield file, excluding


def python_files(top: str, unreadable=None) -> list:
    """The ``.py`` files under *top*, sorted, outside :data:`SKIP_DIRS`, hidden
    directories and virtual environments.  A name that is not a regular file (a FIFO, a
    socket, a device: reading one would block or never end) is not a source file and is
    left out; a broken symlink is kept, and reading it reports it.

    :param unreadable: a list to add ``(directory, OS error message)`` to for each
        directory that cannot be listed; None: such directories are skipped.
    """
    out = []

    def onerror(error: OSError) -> None:
        if unreadable is not None:
            unreadable.append((error.filename or top, error.strerror or str(error)))

    for dirpath, dirnames, filenames in os.walk(top, onerror=onerror):
        dirnames[:] = sorted(
            d
            for d in dirnames
            # a package named build or dist (pip/_internal/operations/build) is code
            if (d not in SKIP_DIRS or os.path.isfile(os.path.join(dirpath, d, "__init__.py")))
            and not d.startswith(".")
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        )
        out.extend(
            os.path.normpath(os.path.join(dirpath, f)) for f in sorted(filenames)
            if f.endswith(".py") and _regular_or_broken(os.path.join(dirpath, f))
        )
    return out


def _regular_or_broken(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:                      # a broken symlink, or gone since the walk
        return True


def module_name_for(path: str) -> tuple:
    """Return ``(module, is_package)`` for a source file, from ``__init__.py`` files above it.

    ``pkg/sub/mod.py`` with ``pkg/__init__.py`` and ``pkg/sub/__init__.py`` is ``pkg.sub.mod``;
    ``pkg/__init__.py`` is the package ``pkg``. A file outside any package is its stem, and a
    name that is not an identifier gives ``""`` (relative imports then keep their dots).
    """
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename.rpartition(".")[0] if "." in filename else filename
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    if not is_package and not stem.isidentifier():
        return "", False
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, name = os.path.split(directory)
        if not name.isidentifier():
            break
        parts.append(name)
    if is_package and not parts:
        return "", True
    return ".".join(reversed(parts)), is_package


def extension_submodules(path) -> frozenset:
    """Names of the extension modules (``.so``, ``.pyd``) beside a package's
    ``__init__.py``: the fact the planner needs from the file system."""
    import _imp

    suffixes = tuple(_imp.extension_suffixes())
    try:
        names = _os.listdir(_os.dirname(_os.abspath(path)))
    except OSError:
        return frozenset()
    return frozenset(name.partition(".")[0] for name in names if name.endswith(suffixes))


def submodule_imports(path, package: str):
    """For a module at ``path`` in ``package`` ("" for a top-level one; for a package's
    ``__init__.py``, the package itself): a function giving, for the name of a module
    beside it (a submodule of the package), the absolute names of the modules that
    module's source imports anywhere in it (empty when it has no readable, parsable
    source).  ``running=True`` leaves out the imports under ``if TYPE_CHECKING:``, which
    never run; ``at_import=True`` those in function bodies as well, keeping the ones that
    run while the module is imported.  With ``mentioning``, a source in which no line may
    import the module of that name is not parsed, and gives nothing
    (:func:`_may_import`).  Each source is read and parsed at most once.  The native
    mechanism's submodule-order and import-cycle rules need it
    (:func:`lazify._plan.plan_module`)."""
    # read as importlib reads a source, in its get_data (_cache): this runs while a
    # program's import does, and a blocking-call detector allows reads there only
    from ._cache import read_file

    directory = _os.dirname(_os.abspath(path))
    sources = {}
    seen = {}

    def source(sub: str):
        if sub not in sources:
            sources[sub] = None
            for candidate in (_os.join(directory, sub + ".py"),
                              _os.join(directory, sub, "__init__.py")):
                try:
                    sources[sub] = candidate, read_file(candidate)
                    break
                except OSError:
                    continue
        return sources[sub]

    def imports_of(sub: str, mentioning: str = "", at_import: bool = False,
                   running: bool = False) -> frozenset:
        found = source(sub)
        if found is None:
            return frozenset()
        candidate, data = found
        if mentioning and not _may_import(data, mentioning.encode()):
            return frozenset()
        key = (sub, at_import, running)
        if key in seen:
            return seen[key]
        names = set()
        try:
            tree = parse(data, candidate)
        except (SyntaxError, ValueError):
            tree = None
        own = f"{package}.{sub}" if candidate.endswith("__init__.py") else package
        nodes = () if tree is None else walk(tree) if not (at_import or running) \
            else _running_nodes(tree, functions=not at_import)
        for node in nodes:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                try:
                    base = absolute_name(node.module or "", node.level, own)
                except ImportError:      # Python raises at the statement
                    continue
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names)
        seen[key] = result = frozenset(names)
        return result

    return imports_of


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
def _may_import(data: bytes, name: bytes) -> bool:
    """Whether an import statement of ``data`` may import the module ``name`` (its last
    component): the word ``name`` in the text of a statement holding ``import``, from its
    line's start (``from pkg.name import x``) to its end, a parenthesised list and
    backslash continuations included.  A cheap test before parsing: the work is per
    ``import`` in the source, not per occurrence of a short name such as ``re``."""
    size = len(data)
    pos = data.find(b"import")
    while pos != -1:
        start = data.rfind(b"\n", 0, pos) + 1
        end = data.find(b"\n", pos)
        end = size if end == -1 else end
        paren = data.find(b"(", pos, end)
        if paren != -1:
            close = data.find(b")", paren)
            end = size if close == -1 else close
        while end < size and data[start:end].rstrip(b"\r").endswith(b"\\"):
            more = data.find(b"\n", end + 1)
            end = size if more == -1 else more
        hit = data.find(name, start, end)
        while hit != -1:
            after = hit + len(name)
            if (hit == 0 or data[hit - 1] not in _WORD) and (
                    after == size or data[after] not in _WORD):
                return True
            hit = data.find(name, after, end)
        pos = data.find(b"import", max(end, pos + 6))
    return False


def _running_nodes(tree, functions: bool):
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (their ``else`` runs),
    and outside function bodies unless ``functions`` (a class body runs at import)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if functions or not isinstance(child, _FUNCTIONS))


def is_type_checking(test) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (any ``X.TYPE_CHECKING``)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def parse(data, path: str, optimize: int = -1, validate: bool = True) -> ast.Module:
    """The module's ``ast``, parsed as ``compile()`` parses it.

    On the bytes: the coding cookie, BOM and every error are exactly ``compile()``'s, so
    a file that fails here is a file Python cannot import either.  A source with PEP
    810's ``lazy import`` statements gives 3.15's tree on every Python
    (:mod:`lazify._keyword`): its imports have ``is_lazy``; ``validate``: with 3.15's
    errors for such a statement where it is not allowed (see :func:`lazify._keyword.parse`).
    """
    if mentions(data):
        return _keyword.parse(data, path, optimize, validate)
    return compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True, optimize=optimize)


class SourceError(Exception):
    """A file that cannot be read or parsed; :meth:`short` and :meth:`located` say why."""

    def __init__(self, path: str, error: BaseException):
        super().__init__(path, error)
        self.path = path
        self.error = error

    def short(self) -> str:
        """``SyntaxError: msg (line N)``, as a report row that names the file beside it."""
        e = self.error
        if isinstance(e, OSError):
            return f"{type(e).__name__}: {e.strerror or e}"
        if isinstance(e, SyntaxError):
            return f"{type(e).__name__}: {e.msg}" + (f" (line {e.lineno})" if e.lineno else "")
        return f"{type(e).__name__}: {e}"

    def located(self) -> str:
        """``path:line:col: SyntaxError: msg``, as a compiler's message."""
        e = self.error
        if isinstance(e, OSError):
            return f"{self.path}: {e.strerror or e}"
        if isinstance(e, SyntaxError):
            where = f":{e.lineno}" if e.lineno else ""
            where += f":{e.offset}" if e.lineno and e.offset else ""
            return f"{self.path}{where}: {type(e).__name__}: {e.msg}"
        return f"{self.path}: {type(e).__name__}: {e}"


#: What parsing raises for source Python rejects: ValueError for null bytes before 3.12
#: and undecodable source (UnicodeDecodeError), the others for pathological input.
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def read(path: str) -> bytes:
    """The file's bytes (``io.open_code``: audit hooks see it as an import does).

    :raises SourceError: when it cannot be read.
    """
    try:
        with io.open_code(path) as f:
            return f.read()
    except OSError as e:
        raise SourceError(path, e) from None


def read_and_parse(path: str) -> tuple:
    """Return ``(bytes, ast.Module)`` for a file.

    :raises SourceError: when it cannot be read or does not parse.
    """
    data = read(path)
    try:
        return data, parse(data, path)
    except PARSE_ERRORS as e:
        raise SourceError(path, e) from None
