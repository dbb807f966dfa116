"""``lazify compile``: write the rewritten bytecode cache ahead of time.

A batch job over files and trees (a Docker build step, a read-only virtual environment),
or over everything an environment imports (``--env``: the stdlib and site-packages):
files are found and named as ``check`` finds and names them (:mod:`lazify._sources`) and
rewritten by the import hook's own pipeline, with its busy flag, so the pycs are the ones
the hook would write.  The files are shared out to one process per core (forked after the
rewriter is imported, as ``compileall -j`` shares them out); a file whose cache is valid
already is left alone.  A progress bar on a terminal (a line every tenth otherwise), then
a summary: compiled, up to date, skipped and why, failed (each with its path and the OS
error), and the time.
"""

import os
import sys
import time

from . import (_cache, _cache_write, _hook, _mechanism, _os, _rewriter_deps, _settings, _sources,
               _startup_bundle)

#: below this many files the work is done in this process: a pool costs more
IN_PROCESS_BELOW = 48

#: what a file came to (the first element of a result)
COMPILED, FALLBACK, UP_TO_DATE, NEVER, SYNTAX, FAILED, FRESH = (
    "compiled", "fallback", "up to date", "never", "syntax", "failed", "fresh")


def compile_paths(paths, *, hash_based=False, mechanism=None, jobs=None, env=False,
                  force=False, progress=True) -> int:
    """Write rewritten pycs ahead of time for files and trees.

    Errors are reported per file on stderr and the rest carry on.  A
    timestamp pyc is never written for a source modified in the last second,
    so such files wait until that second is over (at most about two
    seconds), and a source dated in the future gets a checked-hash pyc.

    :param mechanism: "native" or "rewrite" (None: ``LAZIFY_MECHANISM``, else the
        interpreter's default): the
        pycs carry it in their tag, and the hook reads those of its own mechanism.
    :param jobs: processes (None or 0: one per core).
    :param env: also compile what this environment imports (:func:`environment_paths`).
    :param force: rewrite files whose cache is valid already.
    :param progress: show progress (a bar or lines) on stderr; errors are said either way.
    :returns: the exit code: 0, or 1 when any file failed or could not be compiled.
    """
    started = time.perf_counter()
    _unwritable.clear()                  # a directory may have been made writable since
    _settings.settings.mechanism = (None if mechanism is None
                                    else _mechanism.check_mechanism(mechanism))
    _cache.mechanism()                   # None: LAZIFY_MECHANISM, else the default
    errors = []
    roots = list(paths_that_exist(paths, errors))
    skip_under = ()
    if env:
        env_roots, skip_under = environment_paths()
        roots += env_roots
    # the rewriter's dependencies, measured and kept even under PYTHONDONTWRITEBYTECODE
    # (compile writes anyway): the starts that follow read them, and never measure
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        _rewriter_deps.keep_for_every_user()
        _hook.plain_modules()
    finally:
        sys.dont_write_bytecode = dont_write
    from . import _rewrite  # noqa: F401  (imported once, before the workers fork)

    files = [path for path, _excluding in _sources.iter_files(roots)
             if not path.startswith(skip_under)]
    tally = {key: [] for key in (COMPILED, FALLBACK, UP_TO_DATE, NEVER, SYNTAX, FAILED, FRESH)}
    progress = _Progress(len(files), shown=progress)

    def said(kind, detail):
        # every syntax error; the first SHOWN_FAILURES files that failed, the rest counted
        # (a read-only environment compiled as nobody fails thousands the same way)
        if kind == SYNTAX or len(tally[FAILED]) <= SHOWN_FAILURES:
            progress.clear()
            print(f"lazify compile: {detail}", file=sys.stderr)

    for result in _results(files, hash_based, force, jobs):
        tally[result[0]].append(result)
        if result[0] in (SYNTAX, FAILED):
            said(result[0], result[2])
        progress.step()
    progress.clear()
    for kind, path, detail in _wait_out_fresh(tally.pop(FRESH), hash_based):
        tally[kind].append((kind, path, detail))
        if kind == FAILED:
            said(kind, detail)
    if env:
        _write_startup_bundle()
    if len(tally[FAILED]) > SHOWN_FAILURES:
        print(f"lazify compile: {len(tally[FAILED]) - SHOWN_FAILURES} more files failed "
              f"(not listed)", file=sys.stderr)
    why = _fallback_unusable() if tally[FAILED] else None
    if why is not None:
        print(f"lazify compile: {why}", file=sys.stderr)
    for message in errors:
        print(f"lazify compile: {message}", file=sys.stderr)
    _summary(tally, errors, time.perf_counter() - started, _jobs(jobs, len(files)))
    return 1 if errors or tally[FAILED] or tally[SYNTAX] else 0


def _write_startup_bundle():
    """lazify's start-up bundle (:mod:`lazify._startup_bundle`), for ``--env``, even under
    ``PYTHONDONTWRITEBYTECODE`` (no start writes it then), waiting out the second its
    sources were written in as :func:`_wait_out_fresh` does: ``pip install lazify &&
    lazify compile --env`` runs within it, and a source too fresh is not bundled."""
    from . import STARTUP_MODULES

    here = _os.dirname(_os.abspath(_hook.__file__)) + _os.sep
    try:
        newest = max(int(os.stat(f"{here}{name}.py").st_mtime) for name in STARTUP_MODULES)
    except OSError:
        return
    delay = newest + 2 - _cache.clock()
    if 0 < delay <= 3:
        time.sleep(delay)
    _startup_bundle.write(here)


#: files that failed, listed one line each before the rest are only counted
SHOWN_FAILURES = 10


def _jobs(jobs, count) -> int:
    jobs = jobs or os.cpu_count() or 1
    return 1 if count < IN_PROCESS_BELOW else max(1, min(jobs, count))


def _results(files, hash_based, force, jobs):
    """Each file's result, from a pool of processes (or this one, for a few files)."""
    jobs = _jobs(jobs, len(files))
    if jobs == 1:
        for path in files:
            yield _one(path, hash_based, force)
        return
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:                   # no fork here (Windows): the default
        context = multiprocessing.get_context()
    chunk = max(1, min(16, len(files) // (jobs * 8)))
    # the workers ignore Ctrl-C (the whole process group gets it): the parent's
    # KeyboardInterrupt ends the pool, and says so once (lazify._cli).  While the pool
    # starts, SIGINT is only noted (_Held): a worker forked then, before its initializer
    # runs, prints no traceback, and the parent passes a Ctrl-C it got then on once the
    # pool has started (ignored, it was lost: the command ran on to the end)
    import signal

    held = _Held()
    try:
        previous = signal.signal(signal.SIGINT, held)
    except ValueError:                   # not the main thread: the initializer alone
        previous = None
    try:
        pool = context.Pool(jobs, initializer=_ignore_sigint)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if held.signals:
        try:
            signal.raise_signal(signal.SIGINT)   # to the handler that was there
        except BaseException:
            pool.terminate()
            raise
    with pool:
        yield from pool.imap_unordered(_one_star, [(p, hash_based, force) for p in files], chunk)


class _Held:
    """A SIGINT handler that notes the signal and does nothing else."""

    def __init__(self):
        self.signals = 0

    def __call__(self, signum, frame):
        self.signals += 1


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _one_star(args):
    return _one(*args)


#: this process's cache directories where a write failed (there and in the per-user
#: directory), with the reason: the directory's other files fail the same way, and are
#: not rewritten first (a read-only stdlib as nobody: 3452 files rewritten for nothing)
_unwritable = {}


def _one(path, hash_based, force):
    """(kind, path, detail) for one source file; the rewritten code too for FRESH."""
    name, is_package = _sources.module_name_for(path)
    if _hook.never_rewritten(name):
        return (NEVER, path, None)
    try:
        st = os.stat(path)
        if not force and _cache.read_cached(path, source_mtime=st.st_mtime,
                                            source_size=st.st_size) is not None:
            return (UP_TO_DATE, path, None)
        target = _cache.cache_path(path) or path
        why = _unwritable.get(os.path.dirname(target))
        data = _sources.read(path)
        if why is not None:
            # not rewritten for nothing, but compiled: a syntax error is said as one,
            # as compileall says it, not as the directory's
            compile(data, path, "exec", dont_inherit=True)
            return (FAILED, path, f"{path}: cannot write {target}: {why}")
        code = _hook.rewritten_code(data, path, name, is_package)
    except _sources.SourceError as exc:  # not readable
        return (FAILED, path, f"{path}: cannot read: {_os_error(exc.error)}")
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes, undecodable
        return (SYNTAX, path, _sources.SourceError(path, exc).located())
    except OSError as exc:
        return (FAILED, path, f"{path}: {_os_error(exc)}")
    except Exception as exc:
        return (FAILED, path, f"{path}: {type(exc).__name__}: {exc}")
    use_hash = hash_based or _cache_write.want_hash(path)
    if not use_hash and _cache.is_too_fresh(st.st_mtime):
        return (FRESH, path, None)       # the parent waits out that second
    return _write(path, code, st, data, use_hash)


def _wait_out_fresh(fresh, hash_based):
    """The files modified in the last second, written once that second is over."""
    if not fresh:
        return
    stats = {}
    for _kind, path, _detail in fresh:
        try:
            stats[path] = os.stat(path)
        except OSError as exc:
            yield (FAILED, path, f"{path}: {_os_error(exc)}")
    if not stats:
        return
    newest = max(int(st.st_mtime) for st in stats.values())
    delay = newest + 2 - _cache.clock()
    if 0 < delay <= 3:
        time.sleep(delay)
    for path, st in stats.items():
        try:
            if os.stat(path).st_mtime_ns != st.st_mtime_ns:
                yield (FAILED, path, f"{path}: modified while compiling")
                continue
            data = _sources.read(path)
            name, is_package = _sources.module_name_for(path)
            code = _hook.rewritten_code(data, path, name, is_package)
        except Exception as exc:
            yield (FAILED, path, f"{path}: {type(exc).__name__}: {exc}")
            continue
        yield _write(path, code, st, data, hash_based or _cache.is_too_fresh(st.st_mtime))


def _os_error(exc: OSError, named: bool = True) -> str:
    """An OSError as one line: the error and, when it names one (and ``named``), the file."""
    what = exc.strerror or str(exc)
    code = f"[Errno {exc.errno}] " if exc.errno else ""
    return f"{code}{what}" + (f": {exc.filename}" if exc.filename and named else "")


def paths_that_exist(paths, errors) -> list:
    """The paths that name a file or a directory; the others go to *errors*."""
    found = []
    for path in map(os.fspath, paths):
        if os.path.isdir(path) or os.path.isfile(path):
            found.append(path)
        else:
            errors.append(f"{path}: no such file or directory")
    return found


def environment_paths():
    """``(roots, skipped prefixes)``: the directories this environment imports from
    (``sys.path`` without the script's directory and ``PYTHONPATH``'s entries: the
    stdlib, site-packages, and what ``.pth`` files add), and what to leave out below
    them: the stdlib's own test suite, and site-packages directories that are not on
    ``sys.path`` (the base interpreter's, seen from a virtual environment)."""
    entries = list(sys.path)
    if entries and not getattr(sys.flags, "safe_path", False):
        entries = entries[1:]            # the script's directory, or the working one
    pythonpath = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    roots = []
    for entry in entries:
        entry = os.path.abspath(entry or os.curdir)
        if entry in pythonpath or not os.path.isdir(entry) or entry in roots:
            continue
        roots.append(entry)
    import sysconfig

    skip = set()
    for key in ("stdlib", "platstdlib"):
        stdlib = sysconfig.get_paths().get(key)
        if not stdlib:
            continue
        skip.add(os.path.join(stdlib, "test") + os.sep)
        for name in ("site-packages", "dist-packages"):
            nested = os.path.join(stdlib, name)
            if nested not in roots:
                skip.add(nested + os.sep)
    return roots, tuple(sorted(skip))


def _write(path, code, st, data, use_hash):
    failures = []
    written = _cache_write.write_cached(
        path, code, source_bytes=data, hash_based=use_hash, force=True, errors=failures,
        source_mtime=st.st_mtime, source_size=st.st_size, source_mode=st.st_mode)
    if written is None:
        target = _cache.cache_path(path) or path
        why = _os_error(failures[0]) if failures else "could not write the cache file"
        if failures and _cache_write.is_unwritable(failures[0]):
            # the directory's error (and the per-user one's), not this file's own (its
            # name too long, a directory where its pyc goes): its other files fail too,
            # said in the same words, without the name of this file's temporary file
            # (each line named the directory's first file's: __hello__'s for _colorize)
            why = _os_error(failures[0], named=False)
            _unwritable[os.path.dirname(target)] = why
        return (FAILED, path, f"{path}: cannot write {target}: {why}")
    if written != _cache.cache_path(path):
        return (FALLBACK, path, written)
    return (COMPILED, path, written)


class _Progress:
    """A bar on a terminal; a line every tenth of the files otherwise (for 200 or more)."""

    def __init__(self, total, shown=True):
        self.total = total
        self.quiet = not shown
        self.done = 0
        self.shown = 0.0
        try:
            self.tty = sys.stderr.isatty()
        except Exception:
            self.tty = False
        self.drawn = False
        self.tenth = 0

    def step(self):
        self.done += 1
        if self.quiet:
            return
        if self.tty:
            now = time.monotonic()
            if now - self.shown >= 0.1 or self.done == self.total:
                self.shown = now
                width = 30
                filled = width * self.done // max(self.total, 1)
                sys.stderr.write(f"\rlazify compile [{'#' * filled}{'.' * (width - filled)}] "
                                 f"{self.done}/{self.total}")
                sys.stderr.flush()
                self.drawn = True
        elif self.total >= 200:
            tenth = 10 * self.done // self.total
            if tenth > self.tenth:
                self.tenth = tenth
                print(f"lazify compile: {self.done}/{self.total} files", file=sys.stderr)

    def clear(self):
        if self.drawn:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.drawn = False


def _fallback_unusable():
    """Why the per-user cache directory took none of the files whose ``__pycache__``
    could not hold them (shared by several users, no HOME), or None when it is usable:
    the failures alone name only ``__pycache__``."""
    root = _cache.fallback_root()
    if root is None:
        return ("no per-user cache directory to fall back to either (no HOME: set "
                "XDG_CACHE_HOME to a directory of this user's)")
    if _cache_write.fallback_ready(root):
        return None
    if os.path.isdir(root):
        return (f"the per-user cache directory {root} is not used either: it is not this "
                "user's alone (another user's, or writable by others)")
    return f"the per-user cache directory {root} is not used either: it cannot be created"


def _summary(tally, errors, seconds, jobs):
    compiled = len(tally[COMPILED]) + len(tally[FALLBACK])
    parts = [f"{compiled} compiled"]
    if tally[FALLBACK]:
        root = _cache.fallback_root()
        parts[0] += f" ({len(tally[FALLBACK])} into {root}: __pycache__ not writable)"
    parts.append(f"{len(tally[UP_TO_DATE])} up to date")
    skipped = []
    if tally[SYNTAX]:
        skipped.append(f"{len(tally[SYNTAX])} not valid Python")
    if tally[NEVER]:
        skipped.append(f"{len(tally[NEVER])} never rewritten (lazify and the modules its "
                       "rewriter imports)")
    parts.append(f"{len(tally[SYNTAX]) + len(tally[NEVER])} skipped"
                 + (f" ({', '.join(skipped)})" if skipped else ""))
    failed = len(tally[FAILED]) + len(errors)
    parts.append(f"{failed} failed")
    print(f"lazify compile: {', '.join(parts)}; {seconds:.1f} s, "
          f"{jobs} process{'es' if jobs != 1 else ''}")
