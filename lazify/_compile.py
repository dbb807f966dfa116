"""``lazify compile``: write the rewritten bytecode cache ahead of time.

A batch job over files and trees (a Docker build step, a read-only virtual environment):
files are found and named as ``check`` finds and names them (:mod:`lazify._sources`) and
rewritten by the import hook's own pipeline, with its busy flag, so the pycs are the ones
the hook would write.
"""

import os
import sys
import time

from . import _cache, _cache_write, _hook, _mode, _sources


def compile_paths(paths, *, hash_based=False, mechanism=None) -> int:
    """Write rewritten pycs ahead of time for files and trees.

    Errors are reported per file on stderr and the rest carry on.  A
    timestamp pyc is never written for a source modified in the last second,
    so such files wait until that second is over (at most about two
    seconds), and a source dated in the future gets a checked-hash pyc.

    :param mechanism: "native" or "rewrite" (None: ``LAZIFY_MECHANISM``, else the
        interpreter's default): the
        pycs carry it in their tag, and the hook reads those of its own mechanism.
    :returns: the exit code: 0, or 1 when any file failed.
    """
    rt = _mode
    rt._settings.mechanism = None if mechanism is None else rt.check_mechanism(mechanism)
    _cache.mechanism()                   # None: LAZIFY_MECHANISM, else the default
    errors = []
    written = 0
    fresh = []
    _hook.plain_modules()
    for path, _excluding in _sources.iter_files(paths_that_exist(paths, errors)):
        name, is_package = _sources.module_name_for(path)
        if _hook._never(name):
            continue
        try:
            st = os.stat(path)
            data = _sources.read(path)
            code = _hook._transform(data, path, name, is_package, -1)
        except _sources.SourceError as exc:
            errors.append(exc.located())
            continue
        except SyntaxError as exc:
            errors.append(_sources.SourceError(path, exc).located())
            continue
        except Exception as exc:
            errors.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        use_hash = hash_based or _cache_write.want_hash(path)
        if not use_hash and _cache_write.is_too_fresh(st.st_mtime):
            fresh.append((path, code, st, data))
            continue
        written += _write(path, code, st, data, use_hash, errors)
    if fresh:
        newest = max(int(st.st_mtime) for _, _, st, _ in fresh)
        delay = newest + 2 - _cache_write._now()
        if 0 < delay <= 3:
            time.sleep(delay)
        for path, code, st, data in fresh:
            try:
                if os.stat(path).st_mtime_ns != st.st_mtime_ns:
                    errors.append(f"{path}: modified while compiling")
                    continue
            except OSError as exc:
                errors.append(f"{path}: {exc}")
                continue
            written += _write(path, code, st, data, _cache_write.is_too_fresh(st.st_mtime), errors)
    for message in errors:
        print(f"lazify compile: {message}", file=sys.stderr)
    return 1 if errors else 0


def paths_that_exist(paths, errors) -> list:
    """The paths that name a file or a directory; the others go to *errors*."""
    found = []
    for path in map(os.fspath, paths):
        if os.path.isdir(path) or os.path.isfile(path):
            found.append(path)
        else:
            errors.append(f"{path}: no such file or directory")
    return found


def _write(path, code, st, data, use_hash, errors) -> bool:
    facts = {"source_mtime": st.st_mtime, "source_size": st.st_size, "source_mode": st.st_mode}
    if _cache_write.write_cached(path, code, source_bytes=data, hash_based=use_hash,
                                 force=True, **facts) is None:
        errors.append(f"{path}: could not write the cache file")
        return False
    return True
