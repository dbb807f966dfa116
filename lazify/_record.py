"""Frozen plain-data classes for the planner's output, without ``dataclasses``.

The planner runs inside the import hook, and every module the rewriter imports
must stay plain (a half-initialised one met on a cold cache would break the
rewrite).  ``dataclasses`` imports ``inspect``, ``re``, ``enum``, ``copy`` and
more; this decorator gives what ``@dataclass(frozen=True, slots=True)`` gave
the plan classes (keyword or positional construction, defaults, equality,
hashing, a readable repr) from ``sys`` alone, so those modules can be lazy.
"""

from __future__ import annotations

_NO_DEFAULT = object()


def record(cls):
    """Return a frozen, slotted version of ``cls`` whose fields are its annotations.

    Fields are in definition order; a class attribute of the same name is its
    default.  Properties and methods of ``cls`` are kept.
    """
    body = dict(cls.__dict__)
    annotations = body.pop("__annotations__", None)
    if annotations is None:
        annotations = cls.__annotations__
    fields = tuple(annotations)
    defaults = tuple(body.pop(name, _NO_DEFAULT) for name in fields)
    for key in ("__dict__", "__weakref__", "__annotate_func__", "__annotate__",
                "__annotations_cache__"):
        body.pop(key, None)
    body["__slots__"] = fields
    body["__match_args__"] = fields

    def __init__(self, *args, **kwargs):
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} positional arguments")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        for name, default in zip(fields, defaults):
            value = values.get(name, default)
            if value is _NO_DEFAULT:
                raise TypeError(f"{cls.__name__}() missing argument {name!r}")
            object.__setattr__(self, name, value)

    def _values(self):
        return tuple(getattr(self, name) for name in fields)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return _values(self) == _values(other)

    def __hash__(self):
        return hash(_values(self))

    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
        return f"{cls.__name__}({inner})"

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}: {cls.__name__} is frozen")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}: {cls.__name__} is frozen")

    def __reduce__(self):
        return type(self), _values(self)

    for method in (__init__, __eq__, __hash__, __repr__, __setattr__, __delattr__, __reduce__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        body[method.__name__] = method
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    return new
