"""The child that rewrites a program's cache misses after it exits
(:mod:`lazify._deferred` spawns it: ``python -I -S -c CHILD``), so that the next
starts find them in the cache.  A process of its own: it imports the import hook's
pipeline, which the program's side of :mod:`lazify._deferred` never does.
"""

import os

from . import _cache, _cache_write, _hook, _mechanism, _settings


def _lower_priority() -> None:
    try:
        os.nice(19)
    except (AttributeError, OSError):
        pass
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass


def _stop(signum, frame):
    raise SystemExit(128 + signum)


def main(args) -> int:
    """The child: rewrite ``NAME PATH IS_PACKAGE`` triples into lazify's cache.

    ``args``: the mechanism, the optimization level, then the triples.  A module
    whose cache a concurrent start wrote meanwhile is left alone; writes are atomic
    and a termination signal unwinds them (no temporary file is left behind).
    """
    import signal

    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop)
    _lower_priority()

    mechanism, optimize, rest = args[0], int(args[1]), args[2:]
    _settings.settings.mechanism = _mechanism.check_mechanism(mechanism)
    _hook.set_defer_rewrite(False)
    _hook.plain_modules()                # measured once and kept, for the next starts
    done = 0
    for at in range(0, len(rest) - 2, 3):
        name, path, is_package = rest[at], rest[at + 1], rest[at + 2] == "1"
        if _hook.never_rewritten(name):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        if _cache.read_cached(path, source_mtime=st.st_mtime, source_size=st.st_size,
                              optimize=optimize) is not None:
            continue
        try:
            data = _cache.read_file(path)
            code = _hook.rewritten_code(data, path, name, is_package, optimize)
        except Exception:
            continue                     # the program imported it plain; so will the next
        if _cache_write.write_cached(path, code, source_mtime=st.st_mtime,
                                     source_size=st.st_size, source_mode=st.st_mode,
                                     source_bytes=data, optimize=optimize) is not None:
            done += 1
    return done
