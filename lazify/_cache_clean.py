"""``lazify cache clean``: remove lazify's cache files, and nothing else.

lazify's files are recognised by name, never by where they are: its pycs carry its tag
(``mod.cpython-312.opt-lazify....pyc``, ``opt-1lazify...``, ``opt-lazifyn...`` for the
native mechanism: :func:`lazify._cache.cache_tag`), the measurement of the rewriter's
dependencies is ``rewriter-deps.*.txt`` and the start-up bundle ``__startup__.*.pyc``
(:mod:`lazify._startup_bundle`) in lazify's own ``__pycache__``, and a write cut
short leaves ``<one of those>.<pid>.<thread>.tmp``.  They are looked for in the
``__pycache__`` directories under this environment's ``sys.path`` (the stdlib included,
as ``lazify compile --env`` writes them), in the directories mirroring them below
``sys.pycache_prefix`` (no ``__pycache__`` level there),
and anywhere in the per-user cache directory, whose emptied directories go too; given
trees, only those trees' (beside them, below the prefix, in the per-user directory).
Plain pycs and everything else stay.
"""

import os
import re
import sys

from . import _cache

#: a lazify pyc (any version, level or mechanism), or a temporary file of one
LAZIFY_PYC = re.compile(r"\.opt-\d*lazifyn?[0-9a-z]+\.pyc(\.\d+\.\d+\.tmp)?\Z")
#: the kept measurement of the rewriter's dependencies, or a temporary file of one
REWRITER_DEPS = re.compile(r"\Arewriter-deps\..+\.txt(\.\d+\.\d+\.tmp)?\Z")
#: lazify's start-up bundle (any interpreter, level), or a temporary file of one
STARTUP_BUNDLE = re.compile(r"\A__startup__\..+\.pyc(\.\d+\.\d+\.tmp)?\Z")
#: the marker of the warning about an unwritable cache (:mod:`lazify._deferred`)
WARNED = re.compile(r"\A(lazify-\w+-)?nocache-warned-[0-9a-f]+\Z")


def is_lazify_file(name: str, in_lazify_dir: bool = False) -> bool:
    """Whether a file name is one of lazify's cache files."""
    return bool(LAZIFY_PYC.search(name)) or (
        in_lazify_dir and bool(REWRITER_DEPS.match(name) or STARTUP_BUNDLE.match(name)))


def _pycache_files(root):
    """lazify's files in the ``__pycache__`` directories under ``root``."""
    if os.path.isfile(root):
        directory = os.path.join(os.path.dirname(root) or os.curdir, "__pycache__")
        stem = os.path.splitext(os.path.basename(root))[0] + "."
        if os.path.isdir(directory):
            for name in sorted(os.listdir(directory)):
                if name.startswith(stem) and is_lazify_file(name):
                    yield os.path.join(directory, name)
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if os.path.basename(dirpath) != "__pycache__":
            continue
        in_lazify = os.path.basename(os.path.dirname(dirpath)) == "lazify"
        for name in sorted(filenames):
            if is_lazify_file(name, in_lazify):
                yield os.path.join(dirpath, name)


def _prefix_files(root, prefix):
    """lazify's files of ``root`` below ``sys.pycache_prefix``: a tree mirroring the
    sources' directories, with the pycs in them (no ``__pycache__`` level)."""
    if os.path.isfile(root):
        directory = _mirrored(os.path.dirname(root), prefix)
        stem = os.path.splitext(os.path.basename(root))[0] + "."
        if os.path.isdir(directory):
            for name in sorted(os.listdir(directory)):
                if name.startswith(stem) and is_lazify_file(name):
                    yield os.path.join(directory, name)
        return
    for dirpath, dirnames, filenames in os.walk(_mirrored(root, prefix)):
        dirnames.sort()
        in_lazify = os.path.basename(dirpath) == "lazify"
        for name in sorted(filenames):
            if is_lazify_file(name, in_lazify):
                yield os.path.join(dirpath, name)


def _per_user_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if is_lazify_file(name, True) or WARNED.match(name):
                yield os.path.join(dirpath, name)


def _temporary_markers():
    tmp = os.environ.get("TMPDIR") or ("/tmp" if os.name == "posix" else None)
    if not tmp or not hasattr(os, "getuid"):
        return
    lead = f"lazify-{os.getuid()}-nocache-warned-"
    try:
        names = sorted(os.listdir(tmp))
    except OSError:
        return
    for name in names:
        if name.startswith(lead) and WARNED.match(name):
            yield os.path.join(tmp, name)


def _mirrored(root, base):
    """Where a tree of ``base`` mirroring absolute paths holds ``root``'s files."""
    return os.path.join(base, os.path.splitdrive(os.path.abspath(root))[1].lstrip(os.sep))


def found(paths=()):
    """lazify's cache files of ``paths`` (beside them, below ``sys.pycache_prefix`` and
    in the per-user directory), or without paths those of this environment and all of
    the per-user directory; each once."""
    from ._compile import environment_paths

    roots = list(map(os.path.abspath, paths)) or environment_paths()[0]
    user = _cache.fallback_root()
    if user is not None and not (os.path.isdir(user) and _cache.fallback_trusted(user)):
        user = None
    seen = set()
    for root in roots:
        if not os.path.exists(root):
            continue
        sources = [_pycache_files(root)]
        if sys.pycache_prefix:
            sources.append(_prefix_files(root, sys.pycache_prefix))
        mirrored = _mirrored(root, user) if paths and user is not None else None
        if mirrored is not None and os.path.exists(mirrored):
            sources.append(_per_user_files(mirrored))
        for files in sources:
            for path in files:
                if path not in seen:
                    seen.add(path)
                    yield path
    if paths:
        return
    if user is not None:
        for path in _per_user_files(user):
            if path not in seen:
                seen.add(path)
                yield path
    yield from _temporary_markers()


#: the files that could not be removed listed one a line; the rest counted in one
#: (as ``lazify compile`` lists its failures: a read-only environment as nobody
#: would be a line for each of its thousands of files)
SHOWN_FAILURES = 10


def clean(paths=(), *, dry_run=False) -> int:
    """Remove (or with ``dry_run`` list) lazify's cache files; the exit code."""
    missing = [p for p in paths if not os.path.exists(p)]
    for path in missing:
        print(f"lazify cache clean: {path}: no such file or directory", file=sys.stderr)
    count = size = failed = 0
    # PATHs given and none there: clean nothing (not the default, the whole environment)
    present = [p for p in paths if p not in missing]
    for path in found(present) if present or not paths else ():
        try:
            bytes_ = os.lstat(path).st_size
            if not dry_run:
                os.unlink(path)
        except FileNotFoundError:
            continue                     # gone meanwhile (a concurrent clean)
        except OSError as exc:
            failed += 1
            if failed <= SHOWN_FAILURES:
                print(f"lazify cache clean: cannot remove {path}: [Errno {exc.errno}] "
                      f"{exc.strerror}", file=sys.stderr)
            continue
        size += bytes_                   # what was (or would be) removed, no more
        count += 1
        if dry_run:
            # outside the try: a closed stdout (``| head``) is the command line's to
            # end quietly, not a file that "could not be removed"
            print(path)
    if failed > SHOWN_FAILURES:
        print(f"lazify cache clean: {failed - SHOWN_FAILURES} more files could not be removed "
              "(not listed)", file=sys.stderr)
    root = _cache.fallback_root()
    if not dry_run and root is not None and os.path.isdir(root) and _cache.fallback_trusted(root):
        _prune(root)
    verb = "would remove" if dry_run else "removed"
    print(f"lazify cache clean: {verb} {count} file{'s' if count != 1 else ''} "
          f"({size / 1e6:.1f} MB)" + (f"; {failed} could not be removed" if failed else ""),
          file=sys.stderr if dry_run else sys.stdout)
    return 1 if failed or missing else 0


def _prune(root):
    """Remove the empty directories below the per-user root (lazify made them)."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        if dirpath != root and not os.listdir(dirpath):
            try:
                os.rmdir(dirpath)
            except OSError:
                pass
