"""The rewrite of cache misses, out of the start-up path.

A module missing from lazify's cache is served from its plain pyc, as Python itself
would load it (:meth:`lazify._hook.LazifyLoader._deferred`, :mod:`lazify._miss`), and noted.  When the
process exits, or while it keeps running once its imports have settled (at a garbage
collection: :func:`lazify._miss._on_collect`), :func:`finish` (imported then, never at
start-up) hands the notes to a detached child interpreter at the lowest priority, which rewrites those modules into
lazify's cache (:func:`main`); the next start finds them there.  The program never
waits for it: the child is spawned, not waited for, in a session of its own, with its
standard streams on ``/dev/null``.

Where nothing can hold the cache (``PYTHONDONTWRITEBYTECODE``, a read-only tree and no
per-user cache directory) no child is started and :func:`finish` warns once per
environment (a marker remembers it) what to do about it.
"""

import os
import sys

from . import _cache, _os

#: the code the child runs: ``python -I -S -c CHILD PACKAGE_PARENT ARGS...``
CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from lazify._deferred_child import main; main(sys.argv[2:])")

#: at most this many bytes of module arguments on one child's command line (Linux
#: allows 2 MiB in all); the misses past it are rewritten after a later start
ARGV_BUDGET = 256 * 1024


#: no warning at exit in this process, and the marker left for a program: set by
#: lazify's own commands (all but ``lazify run``: what their process imported eagerly
#: is lazify's, and 'run `lazify compile --env`' ended that very command) and by
#: ``pytest --lazify`` once its summary has said it
no_exit_warning = False


# ------------------------------------------------------------------- in the program

def finish(missed, warn=True, debug=None) -> list:
    """Start the rewrite of the modules that can be cached (at exit, or while a
    long-running process runs), and warn once about those that cannot (``warn``:
    at exit); returns those."""
    if sys.dont_write_bytecode:
        if warn:
            # no directory helps: only a cache written ahead of time is read
            _warn_once(len(missed), "PYTHONDONTWRITEBYTECODE (or -B) forbids writing it", "",
                       uncovered_roots(missed))
        return list(missed)
    writable, unwritable = [], []
    verdicts = {}
    fallback = None
    for entry in missed:
        directory = os.path.dirname(_cache.cache_path(entry[1]) or "")
        ok = verdicts.get(directory)
        if ok is None:
            ok = directory != "" and _can_create(directory)
            if not ok:
                if fallback is None:
                    fallback = _fallback_usable()
                ok = fallback
            verdicts[directory] = ok
        (writable if ok else unwritable).append(entry)
    if writable:
        pid = spawn(writable)
        if debug is not None:
            debug(f"rewriting {len(writable)} cache misses out of the program "
                  f"({'at exit' if warn else 'while it runs'}, child {pid})")
    if unwritable and warn:
        root = _cache.fallback_root()
        _warn_once(len(unwritable), f"neither the __pycache__ directories under "
                   f"{_root(unwritable[0])}" + (f" nor {root}" if root else "") + " can be written",
                   ", or set XDG_CACHE_HOME to a writable directory", uncovered_roots(unwritable))
    return unwritable


def can_cache(source_path: str) -> bool:
    """Whether lazify's cache file for this source can be written (``__pycache__``
    or the per-user directory); ``sys.dont_write_bytecode`` is the caller's."""
    # called while a program's import runs: the interpreter's functions (lazify._os)
    directory = _os.dirname(_cache.cache_path(source_path) or "")
    return (directory != "" and _can_create(directory)) or _fallback_usable()


def _can_create(directory: str) -> bool:
    """Whether a file can be created in ``directory`` (or the directory itself,
    in the nearest ancestor that exists)."""
    while directory and not _os.isdir(directory):
        parent = _os.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return bool(directory) and _os.access(directory, _os.W_OK_X_OK)


def _fallback_usable() -> bool:
    root = _cache.fallback_root()
    if root is None:
        return False
    if _os.isdir(root):
        return _cache.fallback_trusted(root) and _os.access(root, _os.W_OK_X_OK)
    return _can_create(root)


def spawn(missed) -> int | None:
    """Start the child that rewrites ``missed`` into lazify's cache; its pid, or None.

    Never raises and never waits: a first start must not be slower for it.  Not from
    PID 1 (a container's main process: its exit kills the child mid-write)."""
    executable = sys.executable
    if not executable or os.getpid() == 1:
        return None
    argv = [executable, "-I", "-S"]
    if sys.pycache_prefix:
        argv += ["-X", f"pycache_prefix={sys.pycache_prefix}"]
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argv += ["-c", CHILD, package_parent, _cache.mechanism(), str(sys.flags.optimize)]
    budget = ARGV_BUDGET
    for name, path, is_package in missed:
        budget -= len(name) + len(path) + 8
        if budget < 0:
            break
        argv += [name, path, "1" if is_package else "0"]
    try:
        return _spawn_detached(argv)
    except Exception:
        return None


def _spawn_detached(argv) -> int:
    if hasattr(os, "posix_spawn"):
        null = os.open(os.devnull, os.O_RDWR)
        try:
            return os.posix_spawn(argv[0], argv, os.environ, setsid=True, file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                (os.POSIX_SPAWN_DUP2, null, 2)])
        finally:
            os.close(null)
    import subprocess

    flags = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) | \
        getattr(subprocess, "IDLE_PRIORITY_CLASS", 0) | getattr(subprocess, "DETACHED_PROCESS", 0)
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, creationflags=flags,
                            start_new_session=os.name == "posix").pid


def marker_paths() -> list:
    """The files that can remember the warning was given for this environment (the
    interpreter's prefix and lazify's cache tag), the one to write first: in the
    per-user cache directory when it is usable, and in the temporary directory.  Both
    are looked at, since the per-user directory may appear between two starts."""
    # not sys.executable: python and python3.X of one environment are one environment
    key = f"{sys.prefix}|{_cache.cache_tag()}".encode("utf-8", "replace")
    name = f"nocache-warned-{_cache.source_hash(key).hex()}"
    paths = []
    root = _cache.fallback_root()
    if root is not None and os.path.isdir(root) and _cache.fallback_trusted(root) \
            and os.access(root, os.W_OK | os.X_OK):
        paths.append(os.path.join(root, name))
    tmp = os.environ.get("TMPDIR") or ("/tmp" if os.name == "posix" else None)
    if tmp and os.path.isdir(tmp):
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        paths.append(os.path.join(tmp, f"lazify-{uid}-{name}"))
    return paths


def _root(entry) -> str:
    """The ``sys.path`` entry a miss ``(name, path, is a package)`` was found in."""
    name, path, is_package = entry
    root = os.path.dirname(path)
    for _ in range(name.count(".") + (1 if is_package else 0)):
        root = os.path.dirname(root)
    return root


def uncovered_roots(missed) -> list:
    """The ``sys.path`` entries of these misses that ``lazify compile --env`` leaves
    out (the script's directory, ``PYTHONPATH``'s, as :func:`lazify._compile.environment_paths`
    does): the warning names them after ``--env``, which alone compiled none of a
    program's own modules."""
    entries = sys.path if getattr(sys.flags, "safe_path", False) else sys.path[1:]
    pythonpath = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    covered = {os.path.abspath(p or os.curdir) for p in entries} - pythonpath
    roots = []
    for entry in missed:
        root = _root(entry)
        if root not in covered and root not in roots:
            roots.append(root)
    return roots


def _quoted(path: str) -> str:
    """``path`` as a POSIX shell reads it (shlex.quote, without importing shlex at exit)."""
    safe = path and all(c.isalnum() or c in "@%+=:,./-_" for c in path)
    return path if safe else "'" + path.replace("'", "'\\''") + "'"


def compile_command(paths=()) -> str:
    """The command that writes the cache this process reads: lazify's pycs are per
    optimization level, and ``lazify compile`` writes its own interpreter's (a program
    run with ``-O`` told to run plain ``lazify compile --env`` was told it again); and
    ``paths``, the program's directories ``--env`` leaves out."""
    level = sys.flags.optimize
    command = f"python -{'O' * level} -m lazify compile --env" if level else "lazify compile --env"
    return " ".join([command, *map(_quoted, paths)])


def _warn_once(count: int, why: str, or_else: str, roots=()) -> None:
    """Say once per environment that modules were imported eagerly because lazify's
    cache cannot be written, and what to do (*or_else*: a remedy besides
    ``lazify compile --env``, only where it helps).  Said only when a marker can be
    left: a warning on every start would be noise of its own."""
    if no_exit_warning:
        return
    paths = marker_paths()
    if not paths or any(os.path.exists(path) for path in paths):
        return                           # warned before (or nowhere to remember it)
    try:
        fd = os.open(paths[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return
    os.close(fd)
    try:
        sys.stderr.write(
            f"lazify: {count} module{'s' if count != 1 else ''} imported eagerly: lazify's "
            f"bytecode cache cannot be written ({why}). Run `{compile_command(roots)}` where it "
            f"can be (at image build time){or_else}. (Said once for this environment.)\n")
        sys.stderr.flush()
    except Exception:
        # not said (stderr closed or None, a broken pipe): not remembered as said either
        try:
            os.unlink(paths[0])
        except OSError:
            pass
