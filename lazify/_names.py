"""Module names: the relative-import resolver and the package-prefix matcher that
every part of lazify uses (the runtime, the hook, the planner, the commands).

Imports nothing but :mod:`lazify._settings`, whose ``within`` it re-exports (the
settings need it at every start-up, this module only later).
"""

from ._settings import within as within


def absolute_name(name: str, level: int, package) -> str:
    """The absolute name of the module ``from .{level}name import`` imports from
    ``package`` (``name`` itself for level 0), as importlib resolves it.

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


