"""Settings: ``[tool.lazify]`` in the nearest ``pyproject.toml``, then the environment.

This runs at interpreter start-up (``lazify.install()`` in ``sitecustomize``), so it
stays light: it imports nothing beyond ``os`` until it has found a ``pyproject.toml``
that mentions lazify, and only then a TOML parser.

Recognised keys::

    [tool.lazify]
    enabled = true                  # false: install() installs the hook for opt-ins only
    excluding = ["sympy", "myapp.plugins"]
    mechanism = "rewrite"           # or "native" (3.15+, the default there)

Environment (wins over the file): ``LAZIFY_DISABLE=1`` turns global mode off,
``LAZIFY_EXCLUDING=a,b.c`` adds module names to ``excluding``,
``LAZIFY_MECHANISM=native|rewrite`` chooses the mechanism.
"""

import os

from ._mode import find_pyproject

__all__ = ["Config", "ConfigError", "find_pyproject", "load_config", "read_pyproject"]

_KEYS = frozenset({"enabled", "excluding", "mechanism"})
_MECHANISMS = ("native", "rewrite")
_TRUE = frozenset({"1", "true", "yes", "on"})


class ConfigError(ValueError):
    """``[tool.lazify]`` is malformed; the message names the file."""


class Config:
    """The effective settings for one application.

    A plain class, not a dataclass: ``dataclasses`` imports ``inspect``, about 5 ms
    on every start-up.
    """

    __slots__ = ("enabled", "excluding", "path", "mechanism")

    def __init__(self, enabled: bool = True, excluding: tuple = (), path: str | None = None,
                 mechanism: str | None = None):
        #: global mode (the PEP's ``-L``); False with ``enabled = false`` or ``LAZIFY_DISABLE=1``
        self.enabled = enabled
        #: module names whose own imports stay eager (lazify's default list is added
        #: by the runtime, not here)
        self.excluding = tuple(excluding)
        #: the ``pyproject.toml`` that was read, or None
        self.path = path
        #: "native", "rewrite", or None (not set: the interpreter's default)
        self.mechanism = mechanism

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
    """Return the ``[tool.lazify]`` table of *path* ({} when there is none)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    if b"lazify" not in data:
        # The common case at start-up: no TOML parser is imported at all.
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
        table = doc.get("tool", {}).get("lazify", {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: tool.lazify must be a table")
    return table


def load_config(
    start_dir: str | os.PathLike[str] | None = None,
    *,
    environ: "os._Environ[str] | dict[str, str] | None" = None,
) -> Config:
    """Return the settings for an application living in *start_dir* (default: cwd).

    :param start_dir: where to start looking for ``pyproject.toml``, upwards.
    :param environ: the environment to read (default ``os.environ``).
    :raises ConfigError: when ``[tool.lazify]`` is malformed. Callers at start-up should
        catch it and warn: lazify must never be why a program does not start.
    """
    env = os.environ if environ is None else environ
    path = find_pyproject(start_dir)
    table = read_pyproject(path) if path is not None else {}
    where = path or "<environment>"
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) in [tool.lazify]: {', '.join(unknown)}")

    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: [tool.lazify] enabled must be true or false")
    excluding = table.get("excluding", [])
    if not isinstance(excluding, list) or not all(isinstance(x, str) for x in excluding):
        raise ConfigError(f"{where}: [tool.lazify] excluding must be a list of module names")
    names = [x.strip() for x in excluding]
    names += [x.strip() for x in env.get("LAZIFY_EXCLUDING", "").split(",")]
    for name in names:
        if name and not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(f"{where}: not a module name in excluding: {name!r}")
    if env.get("LAZIFY_DISABLE", "").strip().lower() in _TRUE:
        enabled = False
    mechanism = table.get("mechanism")
    if mechanism is not None and mechanism not in _MECHANISMS:
        raise ConfigError(f'{where}: [tool.lazify] mechanism must be "native" or "rewrite"')
    from_env = env.get("LAZIFY_MECHANISM", "").strip().lower()
    if from_env:
        if from_env not in _MECHANISMS:
            raise ConfigError(f"LAZIFY_MECHANISM must be native or rewrite, not {from_env!r}")
        mechanism = from_env
    return Config(
        enabled=enabled,
        excluding=tuple(dict.fromkeys(n for n in names if n)),
        path=path,
        mechanism=mechanism,
    )


def usable_mechanism(mechanism, stacklevel: int = 2):
    """A configured mechanism this interpreter has: "native" before 3.15 gives a
    warning and "rewrite" (an explicit ``install(mechanism="native")`` raises instead)."""
    import sys

    if mechanism == "native" and not hasattr(sys, "set_lazy_imports_filter"):
        import warnings

        warnings.warn('lazify: mechanism "native" needs Python 3.15+ (PEP 810); '
                      'using "rewrite"', RuntimeWarning, stacklevel=stacklevel + 1)
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

    Only what lazify's keys need: ``key = true|false|"string"|[strings]``, arrays may span
    lines, ``#`` comments. Anything else raises ConfigError saying to install tomli.
    """
    table: dict = {}
    lines = text.splitlines()
    i, n = 0, len(lines)
    inside = False
    while i < n:
        line = _strip_comment(lines[i]).strip()
        i += 1
        if line.startswith("["):
            inside = line.replace(" ", "") == "[tool.lazify]"
            continue
        if not inside or not line:
            continue
        key, eq, value = line.partition("=")
        key = key.strip().strip("\"'")
        value = value.strip()
        if not eq or not key:
            raise _unsupported(path, line)
        if value.startswith("["):
            while value.count("[") > value.count("]") and i < n:
                value += " " + _strip_comment(lines[i]).strip()
                i += 1
        table[key] = _parse_value(value, path)
    return table


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
