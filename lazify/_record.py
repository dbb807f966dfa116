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


def record(cls=None, *, frozen: bool = True):
    """Return a frozen, slotted version of ``cls`` whose fields are its annotations.

    Fields are in definition order; a class attribute of the same name is its
    default.  Properties and methods of ``cls`` are kept.

    ``@record(frozen=False)``: a slotted class with the same ``__init__`` and repr,
    whose fields can be assigned, compared and hashed by identity (the facts walk's
    working state); a default is shared by every instance, so a list or set that
    each instance fills is passed in, not defaulted.
    """
    if cls is None:
        return lambda cls: _build(cls, frozen)
    return _build(cls, frozen)


def _build(cls, frozen: bool):
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

    # ``__init__`` is compiled for the fields (as ``dataclasses`` does): the planner
    # makes a record per routed read, and a generic loop over the fields cost the hook
    # about a tenth of its planning time
    params = ", ".join(name if default is _NO_DEFAULT else f"{name}=_default_{name}"
                       for name, default in zip(fields, defaults))
    lines = [f"def __init__(self, {params}):"] if fields else ["def __init__(self):"]
    # a frozen record's ``__setattr__`` refuses: its ``__init__`` sets each slot
    # through the slot's descriptor
    store = "    _set_{0}(self, {0})" if frozen else "    self.{0} = {0}"
    lines.extend(store.format(name) for name in fields)
    lines.append("    pass")
    namespace = {f"_default_{name}": default for name, default in zip(fields, defaults)}

    def _values(self):
        return tuple(getattr(self, name) for name in fields)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return _values(self) == _values(other)

    def __hash__(self):
        # computed once: the emitters put every item they apply in a set
        try:
            return self._hash
        except AttributeError:
            value = hash(_values(self))
            object.__setattr__(self, "_hash", value)
            return value

    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
        return f"{cls.__name__}({inner})"

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}: {cls.__name__} is frozen")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}: {cls.__name__} is frozen")

    def __reduce__(self):
        return type(self), _values(self)

    methods = (__eq__, __hash__, __repr__, __setattr__, __delattr__, __reduce__) if frozen \
        else (__repr__,)
    for method in methods:
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        body[method.__name__] = method
    bases = cls.__bases__ if cls.__bases__ != (object,) or not frozen else (_Record,)
    new = type(cls)(cls.__name__, bases, body)
    new.__qualname__ = cls.__qualname__
    for name in fields:
        namespace[f"_set_{name}"] = new.__dict__[name].__set__
    exec("\n".join(lines), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    new.__init__ = init
    return new


class _Record:
    """The base of every record: the slot its hash is kept in once computed (not a
    field: ``__slots__`` of a record class are its fields)."""

    __slots__ = ("_hash",)
