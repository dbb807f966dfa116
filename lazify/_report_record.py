"""The runtime's record of deferred imports, as ``lazify report`` reads it: where each
deferred import statement was written, and what first used its name (or that nothing
did).  The smallest interface the report needs: :func:`enable` and :func:`entries`.

Off unless :func:`enable` is called: then the runtime's one check, ``_record is not
None``, at the two places below, is all it costs.  On, the runtime calls

- ``deferred(state, entry)`` when a statement's name becomes pending (nothing is kept
  but the entry; its line is worked out in :func:`entries`);
- ``resolved(state, entry)`` when a pending name is imported and bound: the first
  frame outside lazify's runtime and importlib is the first use.

The rewrite mechanism only: under the native one (3.15+), the interpreter defers and
reifies, and this record stays empty.
"""

from __future__ import annotations

import sys

_recorder = None


class _Recorder:
    __slots__ = ("deferred_entries", "uses")

    def __init__(self):
        self.deferred_entries = []     # (module, its package, its file, entry), in order
        self.uses = {}                 # id(entry) -> (code, offset) of the first use

    def deferred(self, state, entry):
        self.deferred_entries.append((state.name, state.package,
                                      state.namespace.get("__file__"), entry))

    def resolved(self, state, entry):
        key = id(entry)
        if key in self.uses:
            return
        frame = sys._getframe(1)
        while frame is not None and (_internal(frame.f_code.co_filename)
                                     or _getattr_prologue(frame)):
            frame = frame.f_back
        self.uses[key] = None if frame is None else (frame.f_code, frame.f_lasti)


def _internal(filename):
    return filename.startswith("<frozen importlib") or filename == _BOOTSTRAP_FILE


def _getattr_prologue(frame):
    """A module's own ``def __getattr__``, whose first statement (lazify's) answered a
    pending name: the use is its caller's (``pkg.name`` read from outside)."""
    return frame.f_code.co_name == "__getattr__" and "__lazy__" in frame.f_globals


_BOOTSTRAP_FILE = None


def enable() -> None:
    """Start recording (idempotent); nothing under the native mechanism."""
    global _recorder, _BOOTSTRAP_FILE
    from lazify import _mode

    if _recorder is not None or _mode._settings.mechanism == "native":
        return
    from lazify import _importlib_bootstrap

    _BOOTSTRAP_FILE = _importlib_bootstrap.__file__
    _recorder = _Recorder()
    _importlib_bootstrap._record = _recorder


def entries() -> list[dict]:
    """One dict per deferred import (plain data: ``repr`` reads back with
    ``ast.literal_eval``): ``module``, ``file``, ``line``, ``statement``, ``name``,
    ``targets`` (the absolute modules it imports), ``resolved`` (``file``, ``line``,
    ``function`` of the first use, or None)."""
    if _recorder is None:
        return []
    from lazify._importlib_bootstrap import _line_at

    out = []
    for module, package, file, entry in list(_recorder.deferred_entries):
        target = entry.absolute(package) or entry.module
        targets = list(entry.submodules or [target])
        if entry.attr is not None:
            targets.append(f"{target}.{entry.attr}")
        use = _recorder.uses.get(id(entry))
        resolved = None
        if use is not None:
            code, offset = use
            resolved = {"file": code.co_filename, "line": _line_at(code, offset),
                        "function": code.co_qualname if hasattr(code, "co_qualname")
                        else code.co_name}
        out.append({"module": module, "file": file, "line": entry.lineno,
                    "statement": entry.statement, "name": entry.name,
                    "targets": targets, "resolved": resolved})
    return out
