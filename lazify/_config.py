"""Settings: one resolver for every entry point.

For each setting the first of these that gives it wins:

1. the argument (``install(...)``, ``--mechanism``, ``--excluding``);
2. the environment variable (``LAZIFY_DISABLE``, ``LAZIFY_EXCLUDING``, ``LAZIFY_MECHANISM``);
3. the settings recorded for the environment by ``lazify enable`` (``install()``, the
   ``.pth`` files, ``run``, ``compile``), or ``[tool.lazify]`` of the project's
   ``pyproject.toml`` (``check``, ``rewrite``, ``diff``: the nearest one above the path);
4. lazify's defaults.

``excluding`` adds up instead: lazify's default list, the recorded (or the project's)
names, ``LAZIFY_EXCLUDING`` and ``--excluding``; only ``install(excluding=...)`` replaces
them all.  The current directory plays no part at run time: a program started from
``/`` gets the settings it gets anywhere.

This runs at interpreter start-up when there are settings, so it stays light: nothing
beyond ``os`` is imported until a file must be read, and a TOML parser only for a file
that mentions lazify.

Recognised keys::

    [tool.lazify]
    enabled = true                  # false: install() installs the hook for opt-ins only
    excluding = ["sympy", "myapp.plugins"]
    mechanism = "rewrite"           # or "native" (3.15+, the default there)
"""

import os

from . import _settings
from ._mechanism import MECHANISMS, NATIVE_AVAILABLE

__all__ = ["Config", "ConfigError", "find_pyproject", "load_config", "read_pyproject",
           "resolve", "settings_from_file"]

_KEYS = frozenset({"enabled", "excluding", "mechanism"})
_UNSET = object()


class ConfigError(ValueError):
    """``[tool.lazify]`` is malformed; the message names the file."""


class Config:
    """The effective settings for one application.

    A plain class, not a dataclass: ``dataclasses`` imports ``inspect``, which
    start-up must not import (docs/performance.md, "Costs behind design rules").
    """

    __slots__ = ("enabled", "excluding", "path", "mechanism", "sources")

    def __init__(self, enabled: bool = True, excluding: tuple = (), path: str | None = None,
                 mechanism: str | None = None, sources: dict | None = None):
        #: global mode (the PEP's ``-L``); False with ``enabled = false`` or ``LAZIFY_DISABLE=1``
        self.enabled = enabled
        #: module names whose own imports stay eager (lazify's default list is added
        #: by the runtime, not here)
        self.excluding = tuple(excluding)
        #: the file the settings were read from (a ``pyproject.toml``, or the one
        #: ``lazify enable`` recorded them from), or None
        self.path = path
        #: "native", "rewrite", or None (not set: the interpreter's default)
        self.mechanism = mechanism
        #: where each came from, for ``lazify status``: "enabled" and "mechanism" -> a
        #: label; "excluding" -> [(label, names)]
        self.sources = sources or {}

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return (self.enabled, self.excluding, self.path, self.mechanism) == (
            other.enabled, other.excluding, other.path, other.mechanism)

    def __repr__(self):
        mechanism = "" if self.mechanism is None else f", mechanism={self.mechanism!r}"
        return (f"Config(enabled={self.enabled!r}, excluding={self.excluding!r}, "
                f"path={self.path!r}{mechanism})")


def read_pyproject(path: str | os.PathLike[str]) -> dict:
    """Return the ``[tool.lazify]`` table of *path* ({} when there is none).

    :raises ConfigError: the file cannot be read, decoded or parsed (one line naming it).
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it: {e.strerror or e}") from None
    if b"lazify" not in data:
        # The common case: no TOML parser is imported at all.
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8: {e}") from None
    loads = _toml_loads()
    if loads is None:
        table = _parse_minimal(text, path)
    else:
        try:
            doc = loads(text)
        except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
            raise ConfigError(f"{path}: {e}") from None
        tool = doc.get("tool", {})
        table = tool.get("lazify", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: tool.lazify must be a table")
    return table


def settings_from_file(path) -> dict:
    """``[tool.lazify]`` of *path*, checked: ``{"enabled", "excluding", "mechanism"}`` as
    given there (a key the table does not set is absent).

    :raises ConfigError: the file cannot be read or the table is malformed.
    """
    return _checked(read_pyproject(path), os.fspath(path))


def _checked(table: dict, where: str) -> dict:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) in [tool.lazify]: {', '.join(unknown)}")
    out = {}
    if "enabled" in table:
        if not isinstance(table["enabled"], bool):
            raise ConfigError(f"{where}: [tool.lazify] enabled must be true or false")
        out["enabled"] = table["enabled"]
    if "excluding" in table:
        excluding = table["excluding"]
        if not isinstance(excluding, list) or not all(isinstance(x, str) for x in excluding):
            raise ConfigError(f"{where}: [tool.lazify] excluding must be a list of module names")
        names = [x.strip() for x in excluding]
        bad = _bad_name(names)
        if bad is not None:
            raise ConfigError(f"{where}: not a module name in excluding: {bad!r}")
        out["excluding"] = [n for n in names if n]
    if "mechanism" in table:
        if table["mechanism"] not in MECHANISMS:
            raise ConfigError(f'{where}: [tool.lazify] mechanism must be "native" or "rewrite"')
        out["mechanism"] = table["mechanism"]
    return out


def _bad_name(names):
    for name in names:
        if name and not all(part.isidentifier() for part in name.split(".")):
            return name
    return None


def resolve(*, enabled=None, mechanism=None, extra_excluding=(), project=None,
            record=_UNSET, environ=None, strict: bool = True) -> Config:
    """The settings, by the order in this module's docstring.

    :param enabled: ``mechanism``, ``extra_excluding``: the arguments (None: not given).
    :param project: a directory or file: read ``[tool.lazify]`` of the nearest
        ``pyproject.toml`` above it (``check``, ``rewrite``, ``diff``) instead of the
        recorded settings.
    :param record: the recorded settings (default: those this process started with,
        :func:`lazify._settings.recorded`).
    :param strict: a malformed environment variable raises ConfigError (a command's
        usage error); otherwise it is reported once and ignored (at run time).
    :raises ConfigError: the project's file or (strict) a variable is malformed.
    """
    env = os.environ if environ is None else environ
    path = None
    if project is not None:
        path = find_pyproject(project if os.path.isdir(project) else os.path.dirname(
            os.path.abspath(project)))
        base = _checked(read_pyproject(path), path) if path is not None else {}
        label = path
    else:
        record = _settings.recorded() if record is _UNSET else record
        base = dict(record or {})
        path = base.get("from")
        label = "recorded by lazify enable" + (f" from {path}" if path else "")
    sources = {}

    if enabled is not None:
        enabled, sources["enabled"] = bool(enabled), "argument"
    else:
        disable = _settings.env_flag("LAZIFY_DISABLE", None, env)
        if disable is not None:
            enabled, sources["enabled"] = not disable, "LAZIFY_DISABLE"
        elif "enabled" in base:
            enabled, sources["enabled"] = bool(base["enabled"]), label
        else:
            enabled, sources["enabled"] = True, "default"

    if mechanism is not None:
        sources["mechanism"] = "argument"
    else:
        from_env = env.get("LAZIFY_MECHANISM", "").strip()
        if from_env and from_env.lower() in MECHANISMS:
            mechanism, sources["mechanism"] = from_env.lower(), "LAZIFY_MECHANISM"
        else:
            if from_env:
                _problem(f"LAZIFY_MECHANISM must be native or rewrite, not {from_env!r}", strict)
            if base.get("mechanism") is not None:
                mechanism, sources["mechanism"] = base["mechanism"], label
            else:
                sources["mechanism"] = "default"

    excluding = []
    sources["excluding"] = []
    for where, names in ((label, list(base.get("excluding") or ())),
                         ("LAZIFY_EXCLUDING", _env_names(env, strict)),
                         ("argument", [x.strip() for x in extra_excluding])):
        names = [n for n in names if n]
        if names:
            sources["excluding"].append((where, names))
            excluding += names
    return Config(enabled=enabled, excluding=tuple(dict.fromkeys(excluding)), path=path,
                  mechanism=mechanism, sources=sources)


def _env_names(env, strict):
    names = [x.strip() for x in env.get("LAZIFY_EXCLUDING", "").split(",")]
    bad = _bad_name(names)
    if bad is None:
        return names
    _problem(f"LAZIFY_EXCLUDING: not a module name in excluding: {bad!r}", strict)
    return [n for n in names if n and _bad_name([n]) is None]


def _problem(message, strict):
    if strict:
        raise ConfigError(message)
    _settings.report(f"{message}; ignored")


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


def load_config(
    start_dir: str | os.PathLike[str] | None = None,
    *,
    environ: "os._Environ[str] | dict[str, str] | None" = None,
) -> Config:
    """The settings for the project at *start_dir* (default: cwd): ``[tool.lazify]``
    of the nearest ``pyproject.toml``, then the environment (``check``, ``rewrite``,
    ``diff``).

    :raises ConfigError: when ``[tool.lazify]`` or a variable is malformed.
    """
    start = os.fspath(start_dir) if start_dir is not None else os.getcwd()
    return resolve(project=start, environ=environ, strict=True)


def usable_mechanism(mechanism):
    """A configured mechanism this interpreter has: "native" before 3.15 is said once,
    as every other settings problem is (one ``lazify:`` line, not a warning whose
    location is lazify's own code), and is "rewrite" (an explicit
    ``install(mechanism="native")`` raises instead)."""
    if mechanism == "native" and not NATIVE_AVAILABLE:
        _settings.report('mechanism "native" needs Python 3.15+ (PEP 810); using "rewrite"')
        return "rewrite"
    return mechanism


def _toml_loads():
    try:
        import tomllib  # 3.11+
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None
    return tomllib.loads


def _parse_minimal(text: str, path: str) -> dict:
    """Parse ``[tool.lazify]`` without a TOML library (Python 3.10 without tomli).

    Only what lazify's keys need: ``key = true|false|"string"|[strings]`` under
    ``[tool.lazify]``, or with a dotted key (``tool.lazify.excluding = [...]`` at the top,
    ``lazify.excluding = [...]`` under ``[tool]``); arrays may span lines, ``#`` comments.
    Anything else about lazify raises ConfigError saying to install tomli.
    """
    table: dict = {}
    lines = text.splitlines()
    i, n = 0, len(lines)
    section: list = []
    while i < n:
        line = _strip_comment(lines[i]).strip()
        i += 1
        if line.startswith("["):
            section = _dotted(line.strip("[]"))
            if section[:2] == ["tool", "lazify"] and len(section) > 2:
                raise _unsupported(path, line)
            continue
        if not line:
            continue
        key, eq, value = line.partition("=")
        full = section + _dotted(key)
        if full[:2] != ["tool", "lazify"][:len(full)] and full[:2] != ["tool", "lazify"]:
            continue                      # another tool's key
        if full[:2] != ["tool", "lazify"] or len(full) != 3 or not eq:
            raise _unsupported(path, line)   # tool = {...}, tool.lazify = {...}, a.b.c.d
        value = value.strip()
        if value.startswith("["):
            while value.count("[") > value.count("]") and i < n:
                value += " " + _strip_comment(lines[i]).strip()
                i += 1
        table[full[2]] = _parse_value(value, path)
    return table


def _dotted(key: str) -> list:
    """``tool . "lazify"`` -> ``["tool", "lazify"]``."""
    return [part.strip().strip("\"'") for part in key.split(".")]


def _strip_comment(line: str) -> str:
    quote = None
    for j, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:j]
    return line


def _parse_value(value: str, path: str):
    if value == "true":
        return True
    if value == "false":
        return False
    if value.lstrip("+-").isdigit():
        return int(value)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if value[0] == '"' and "\\" in inner:
            raise _unsupported(path, value)
        return inner
    if value.startswith("[") and value.endswith("]"):
        items = [x.strip() for x in value[1:-1].split(",")]
        return [_parse_value(x, path) for x in items if x]
    raise _unsupported(path, value)


def _unsupported(path: str, text: str) -> ConfigError:
    return ConfigError(
        f"{path}: cannot read {text!r} in [tool.lazify] on Python 3.10 without a TOML "
        "library; install tomli (pip install tomli) or simplify the table"
    )
