"""The record of what lazy imports did in this process: which imports were deferred,
where each was written (module, line, statement), which were resolved, and what first
used each (file and line).

Off unless asked for (:func:`start`: ``lazify run --summary``, ``LAZIFY_SUMMARY=1``, the
pytest plugin): while it is off the runtime tests one module global, and only where it
defers or resolves an import, never where a resolved name is read.  The record is plain
data (:func:`snapshot`: dicts, lists, strings, ints), what ``--lazify-report`` writes as
JSON and what a ``lazify report`` command can read back.

Under the rewrite, the runtime (:mod:`lazify._importlib_bootstrap`) reports each deferral
and each resolution.  Under the native mechanism (3.15+) the interpreter defers and
resolves: lazify's filter is wrapped to record each deferral, and what is still a
``types.LazyImportType`` in a module's namespace when the record is read was never
resolved; the interpreter says nothing when it resolves one, so "first used at" is
unknown there (None).
"""

import os
import sys

from . import _api, _mechanism, _os, _settings
from ._entry_points import NAMESPACE
from ._native import lazy_imports_filter

#: whether the record is being kept
recording = False
#: (importer module, bound name, id of the statement's code, offset in it) -> [module
#: state, pending entry, name, resolved, first use]: what a deferral costs while the
#: program runs; the line and the statement's text are worked out by :func:`snapshot`
#: (``entry.lineno`` walks the code's line table: at every deferral, that made the
#: record the whole of lazify's cost in a test suite's collection)
_deferred = {}
#: the native filter's deferrals: (importer, imported module, fromlist, file, line,
#: the importer's globals)
_native = []

#: how many never-resolved imports the summary names before "and N more"
SHOWN = 20


def start() -> None:
    """Keep the record from now on (idempotent)."""
    global recording
    recording = True
    runtime = _settings.runtime
    if runtime is not None:
        runtime._recorder = sys.modules[__name__]
    attach_native()


def attach_native() -> None:
    """Under the native mechanism, put the recording filter in front of lazify's."""
    if not recording or not _mechanism.NATIVE_AVAILABLE or _settings.settings.mechanism != "native":
        return
    if sys.get_lazy_imports_filter() is lazy_imports_filter:
        sys.set_lazy_imports_filter(_recording_filter)


def _recording_filter(importer, name, fromlist):
    lazy = lazy_imports_filter(importer, name, fromlist)
    if lazy:
        frame = sys._getframe(1)
        _native.append((importer, name, fromlist, frame.f_code.co_filename, frame.f_lineno,
                        frame.f_globals))
    return lazy


# --------------------------------------------------------------------- the rewrite


def _key(state, entry, name):
    code, offset = entry.where              # the statement's code and offset
    return (state.name, name, id(code), offset)


def deferred(state, entry, name) -> None:
    """The runtime made ``name`` of ``state``'s module pending on ``entry``."""
    key = _key(state, entry, name)
    if key not in _deferred:
        _deferred[key] = [state, entry, name, False, None]


def resolved(state, entry, name) -> None:
    """The runtime imported ``name`` of ``state``'s module for a reader."""
    record = _deferred.get(_key(state, entry, name))
    if record is None or record[3]:
        return
    record[3] = True
    record[4] = _first_user_frame()


def _rewrite_records() -> list:
    """The rewrite's deferrals as :func:`snapshot` gives them, one per statement line
    and name (a module run again, ``importlib.reload``, adds none)."""
    records = {}
    deferrals = list(_deferred.values())
    lines = _lines([entry.where for _state, entry, *_rest in deferrals])
    for state, entry, name, was_resolved, first_use in deferrals:
        code, offset = entry.where
        line = lines[id(code), offset]
        key = (state.name, name, line)
        record = records.get(key)
        if record is None:
            records[key] = {
                "module": state.name, "file": state.namespace.get("__file__"),
                "line": line, "statement": entry.statement, "name": name,
                "resolved": was_resolved, "first_use": first_use,
            }
        elif was_resolved and not record["resolved"]:
            record["resolved"], record["first_use"] = True, first_use
    return list(records.values())


def _lines(wheres) -> dict:
    """``{(id(code), offset): line}`` for the statements at ``(code, offset)``: what
    each entry's ``lineno`` gives, one walk of each code's line table for all its
    offsets (``lineno`` walks it from the start for each: 72 M instructions for the
    884 deferrals of a test suite's collection)."""
    by_code = {}
    for code, offset in wheres:
        by_code.setdefault(id(code), (code, set()))[1].add(offset)
    lines = {}
    for code, offsets in by_code.values():
        todo = sorted(offsets)
        i, n = 0, len(todo)
        for start, end, line in code.co_lines():
            while i < n and todo[i] < end:
                offset = todo[i]
                # before the first range (never, in practice): as _line_at, the first line
                found = line if offset >= start and line is not None else code.co_firstlineno
                lines[id(code), offset] = found
                i += 1
            if i == n:
                break
        for offset in todo[i:]:
            lines[id(code), offset] = code.co_firstlineno
    return lines


#: lazify's own directory, as its frames name it (the interpreter's own path functions,
#: not os.path's, which a program may have patched: lazify._os)
_OWN = _os.dirname(_os.abspath(__file__))


def _first_user_frame():
    """``{"file", "line"}`` of the innermost frame outside lazify and importlib."""
    own = _OWN
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        if not (filename.startswith("<frozen importlib")
                or (filename.startswith(own) and _os.dirname(filename) == own)
                or filename.endswith(("importlib/__init__.py", "importlib\\__init__.py"))
                # a rewritten module's own PEP 562 hook, whose prologue asks lazify
                or (code.co_name in ("__getattr__", "__dir__")
                    and NAMESPACE in frame.f_globals)):
            return {"file": filename, "line": frame.f_lineno}
        frame = frame.f_back
    return None


# ------------------------------------------------------------------------- reading


def _native_records():
    """The native mechanism's deferrals, each resolved unless a LazyImportType
    still stands for it in its importer's namespace."""
    lazy_type = _api.lazy_import_type()
    pending = set()
    namespaces = {id(entry[5]): entry for entry in _native}
    for importer, _name, _fromlist, _filename, _line, namespace in namespaces.values():
        for value in list(namespace.values()):
            if type(value) is lazy_type:
                pending.add((importer, repr(value)))
    records = []
    seen = set()
    for importer, name, fromlist, filename, line, _namespace in _native:
        if (importer, name, line) in seen:
            continue
        seen.add((importer, name, line))
        if fromlist:
            statement = f"from {name} import {', '.join(fromlist)}"
            targets = [f"<lazy_import '{name}.{attr}'>" for attr in fromlist]
            targets.append(f"<lazy_import '{name}'>")
        else:
            statement = f"import {name}"
            targets = [f"<lazy_import '{name}'>", f"<lazy_import '{name.partition('.')[0]}'>"]
        still = any((importer, target) in pending for target in targets)
        records.append({
            "module": importer, "file": filename, "line": line, "statement": statement,
            "name": ", ".join(fromlist) if fromlist else name,
            "resolved": not still, "first_use": None,
        })
    return records


def snapshot() -> dict:
    """The record as plain data: ``{"mechanism", "modules_rewritten", "served_plain",
    "deferred": [...]}`` (``served_plain``: the modules missing from lazify's cache,
    imported eagerly from their plain pycs),
    each deferral ``{"module", "file", "line", "statement", "name", "resolved",
    "first_use": {"file", "line"} or None}`` in the order they happened."""
    hook = sys.modules.get("lazify._hook")
    stats = getattr(hook, "stats", None) or {}
    records = _rewrite_records() + _native_records()
    return {
        "mechanism": _settings.settings.mechanism,
        "modules_rewritten": stats.get("compiled", 0) + stats.get("cached", 0),
        "served_plain": stats.get("deferred", 0),
        "deferred": records,
    }


def merge(snapshots) -> dict:
    """One record from several processes' (pytest-xdist's workers): modules rewritten
    add up; a deferral resolved in any process is resolved."""
    merged = {"mechanism": None, "modules_rewritten": 0, "served_plain": 0, "deferred": []}
    by_key = {}
    for snap in snapshots:
        merged["mechanism"] = merged["mechanism"] or snap.get("mechanism")
        merged["modules_rewritten"] += snap.get("modules_rewritten", 0)
        merged["served_plain"] += snap.get("served_plain", 0)
        for record in snap.get("deferred", ()):
            key = (record["module"], record["name"], record["line"])
            known = by_key.get(key)
            if known is None:
                by_key[key] = dict(record)
                merged["deferred"].append(by_key[key])
            elif record["resolved"] and not known["resolved"]:
                known["resolved"] = True
                known["first_use"] = record["first_use"]
    return merged


def summary(snap: dict) -> dict:
    """Counts and the never-resolved deferrals of a snapshot."""
    never = [r for r in snap["deferred"] if not r["resolved"]]
    return {
        "mechanism": snap.get("mechanism"),
        "modules_rewritten": snap["modules_rewritten"],
        "served_plain": snap.get("served_plain", 0),
        "imports_deferred": len(snap["deferred"]),
        "never_resolved": len(never),
        "never_resolved_imports": never,
    }


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def format_summary(snap: dict, shown: int = SHOWN, title: str = "lazify", first=None) -> str:
    """The summary section as text lines (what ``--summary`` and pytest print).

    :param first: a directory: the never-resolved imports written in files under it
        (the project under test) are named before the others.
    """
    s = summary(snap)
    if first is not None:
        prefix = os.path.join(os.path.abspath(first), "")
        s["never_resolved_imports"].sort(
            key=lambda r: not (r["file"] or "").startswith(prefix))
    lines = [f"{title}: {_many(s['modules_rewritten'], 'module')} rewritten, "
             f"{_many(s['imports_deferred'], 'import')} deferred, "
             f"{s['never_resolved']} never resolved"]
    if s["served_plain"]:
        # a cold cache: the counts above are less than lazify defers once it is written
        lines.append(f"  {_many(s['served_plain'], 'module')} imported eagerly: missing from "
                     "lazify's bytecode cache (not writable here: PYTHONDONTWRITEBYTECODE, "
                     "a read-only site-packages; or not written yet); `lazify compile --env` "
                     "writes it")
    for record in s["never_resolved_imports"][:shown]:
        lines.append(f"  {record['module']}:{record['line']}: {record['statement']}")
    more = s["never_resolved"] - shown
    if more > 0:
        lines.append(f"  and {more} more")
    return "\n".join(lines) + "\n"


def summary_at_exit() -> None:
    """Record from now on and print the summary to stderr when the program exits."""
    global _at_exit
    start()
    if not _at_exit:
        _at_exit = True
        import atexit

        atexit.register(_print_summary)


_at_exit = False


def _print_summary() -> None:
    try:
        sys.stderr.write(format_summary(snapshot()))
        sys.stderr.flush()
    except Exception:  # a closed stderr at exit: nothing to say it on
        pass
