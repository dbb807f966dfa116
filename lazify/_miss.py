"""A cache miss served plain: its code as Python loads it, noted, and handed over.

The hook (:mod:`lazify._hook`) imports this at a process's first cache miss that it
serves from the plain pyc (``LAZIFY_DEFER_REWRITE``, the default); a start whose
modules are all in lazify's cache never reads it.  The misses noted here are handed to
:mod:`lazify._deferred`, which rewrites them into the cache in a detached child: at a
garbage collection once the process's imports have settled (:func:`_on_collect`), and
at exit (:func:`_at_exit`).

The hook passes its busy flag (a thread-local whose ``busy`` is set while lazify
imports its own modules: those imports pass through the hook) and its debug printer.
"""

import _thread
import os
import sys

import _frozen_importlib_external

#: the cache misses served plain in this process, for the rewrite out of it:
#: (module name, source path, is a package)
missed = []

#: a process that keeps running hands its misses over while it runs, at a garbage
#: collection once no new miss came for QUIET seconds (its start-up has settled),
#: or once the oldest waiting miss is AT_MOST seconds old (:func:`_on_collect`);
#: the rest are handed over at exit
QUIET = 10.0
AT_MOST = 120.0

#: the process the misses belong to (a forked child starts its own), how many of
#: them are handed over, and the entries that cannot be cached (for the warning at
#: exit)
_miss_pid = None
_handed = 0
_uncachable = []
#: (len(missed), when that count was first seen) by :func:`_on_collect`
_seen = (0, 0.0)
#: when :func:`_on_collect` first saw the oldest miss that is waiting
_first_waiting = 0.0
_handing = _thread.allocate_lock()

#: the hook's busy flag and debug printer (:func:`note`)
_state = None
_debug = None


def plain_code(loader, fullname, source_path):
    """The module's plain code, as Python itself would load it (its pyc, else compiled
    and its pyc written); None where it does not compile as plain Python."""
    SourceFileLoader = _frozen_importlib_external.SourceFileLoader
    try:
        if fullname == "__main__":   # lazify run's script: as python compiles it, no pyc
            return SourceFileLoader.source_to_code(loader, loader.get_data(source_path),
                                                   source_path)
        return SourceFileLoader(fullname, loader.path).get_code(fullname)
    except SyntaxError:
        return None


def can_cache(source_path, state) -> bool:
    """Whether the rewrite of this source can be kept in lazify's cache."""
    if sys.dont_write_bytecode:
        return False
    busy, state.busy = state.busy, True
    try:
        from . import _deferred

        return _deferred.can_cache(source_path)
    except Exception:
        return True
    finally:
        state.busy = busy


def note(entry, code, state, debug) -> None:
    """Note a miss served plain, ``(name, source path, is a package)``, for the rewrite
    out of the program; ``code`` is what it is served."""
    from ._audit import code_adds_audit_hook, imports_done

    if code_adds_audit_hook(code):
        imports_done(entry[0])     # as the rewrite's code starts (lazify._audit)
    if _miss_pid != os.getpid():
        _first_miss(state, debug)
    missed.append(entry)


def _first_miss(state, debug):
    """This process's first cache miss (a forked child's first of its own: the
    parent hands over what it inherited): the exit handler, and the collector's
    callback that hands misses over while the process keeps running.  ``atexit``
    and ``gc`` are built-in modules."""
    global _miss_pid, _handed, _seen, _state, _debug
    import atexit
    import gc

    _state, _debug = state, debug
    inherited = _miss_pid is not None
    _miss_pid = os.getpid()
    del missed[:], _uncachable[:]
    _handed, _seen = 0, (0, 0.0)
    atexit.register(_at_exit, _miss_pid)
    # imported now rather than when the misses are handed over: a program may forbid
    # imports by then (pip install's audit hook)
    from . import _deferred  # noqa: F401
    if not inherited and not sys.dont_write_bytecode:
        gc.callbacks.append(_on_collect)


def _on_collect(phase, info):
    """A garbage collection's end: hand the waiting misses to a child once none came
    for ``QUIET`` seconds (or the oldest waited ``AT_MOST``).

    A thread would do it on time, but a thread alive at ``os.fork()`` is a
    DeprecationWarning from 3.12 (an error under ``-W error``) and shows in
    ``threading.enumerate()``; a program that runs allocates, and collects.  Runs
    wherever a collection runs: never while this thread is in the hook, in an
    import, or handing over already; nothing of it may raise."""
    global _seen, _first_waiting
    if phase != "stop" or _handed >= len(missed) or _state.busy \
            or _miss_pid != os.getpid():
        return
    try:
        from time import monotonic

        count, since = _seen
        now = monotonic()
        if count != len(missed):         # a new miss since the last collection
            if count <= _handed:
                _first_waiting = now
            _seen = (len(missed), now)
            return
        if now - since < QUIET and now - _first_waiting < AT_MOST:
            return
        import _imp

        if _imp.lock_held():
            return
        _hand_over(missed[_handed:])
    except Exception:
        pass


def _hand_over(pending):
    """Start the rewrite of ``pending`` now, while the process runs; what cannot be
    cached waits for the warning at exit."""
    global _handed
    if not _handing.acquire(False):
        return
    busy, _state.busy = _state.busy, True
    try:
        _handed += len(pending)
        from . import _deferred

        _uncachable.extend(_deferred.finish(pending, warn=False, debug=_debug))
    finally:
        _state.busy = busy
        _handing.release()


def _at_exit(pid):
    """Hand this process's cache misses that are still waiting to
    :mod:`lazify._deferred` (not in a forked child that inherited the handler: the
    parent does it)."""
    if os.getpid() != pid or not (_uncachable or len(missed) > _handed):
        return
    busy, _state.busy = _state.busy, True
    try:
        from . import _deferred

        _deferred.finish(_uncachable + missed[_handed:], debug=_debug)
    except Exception:
        pass                             # nothing of this may disturb the exit
    finally:
        _state.busy = busy
