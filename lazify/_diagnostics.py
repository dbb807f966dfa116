"""lazify's own diagnostics: never an exception in the program, each shown once.

A warning issued with ``warnings.warn`` is the program's exception under ``-W error``,
``PYTHONWARNINGS=error`` or pytest's ``filterwarnings = error`` (common in libraries'
suites): lazify's fallback warning, issued inside the program's ``import``, made the
import fail where lazify meant it to succeed eagerly.  So lazify says what it has to say
on ``sys.stderr`` itself, one line starting ``lazify:``, once per process.  The
program's warning filters still choose whether it is shown: a filter whose action is
``ignore`` for a ``RuntimeWarning`` from module ``lazify`` (``-W ignore``,
``-W ignore::RuntimeWarning``) silences it; ``error`` shows it as any other action does.

What is said about a module's source (a rewrite that failed, and the module imported
eagerly instead) is also remembered beside the module's cache file, keyed as the
bytecode is by the source's mtime and size (:func:`remember`, :func:`remembered`): the
next start imports the module eagerly at once, without the rewrite and without the
message, until the source changes.  ``LAZIFY_STRICT=1`` raises instead (the hook checks
it first).

Imports nothing at start-up but what :mod:`lazify._cache` has; writing imports
:mod:`lazify._cache_write`, as the cache does.
"""

import sys

from . import _cache

#: the messages shown in this process
_shown = set()


def _silenced(message: str) -> bool:
    """Whether the program's warning filters ignore a RuntimeWarning from lazify saying this."""
    filters = getattr(sys.modules.get("warnings") or sys.modules.get("_warnings"), "filters", ())
    for action, text, category, module, _lineno in filters:
        try:
            if not issubclass(RuntimeWarning, category):
                continue
            if text is not None and not text.match(message):
                continue
            if module is not None and not module.match("lazify"):
                continue
        except Exception:
            continue
        return action == "ignore"
    return False


def show(message: str) -> None:
    """Write ``lazify: message`` on stderr, once per process; never raises."""
    if message in _shown:
        return
    _shown.add(message)
    try:
        if _silenced(message):
            return
        stream = sys.stderr
        if stream is not None:
            stream.write(f"lazify: {message}\n")
            stream.flush()
    except Exception:   # a closed or missing stderr, a broken pipe: nothing to say it on
        pass


# ------------------------------------------------------ remembered beside the cache
# A record beside the module's cache file (``mod.cpython-312.opt-lazify<...>.failed``
# beside ``.pyc``): a 16-byte timestamp pyc header for the source, then the message.

_SUFFIX = ".failed"


def _beside(pyc_path: str) -> str:
    return (pyc_path[:-4] if pyc_path.endswith(".pyc") else pyc_path) + _SUFFIX


def _header(mtime, size) -> bytes:
    return (_cache.MAGIC_NUMBER + (0).to_bytes(4, "little")
            + (int(mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (int(size) & 0xFFFFFFFF).to_bytes(4, "little"))


def remembered(source_path: str, primary, mtime, size):
    """The message remembered for this source as it is now (mtime, size), or None.

    :param primary: the source's ``__pycache__`` cache file (the finder has it)."""
    if sys.dont_write_bytecode or primary is None:
        return None                     # none is written: no file to look for
    header = _header(mtime, size)
    try:
        paths = [_beside(primary)]
        root = _cache.fallback_root()
        if root is not None and _cache.fallback_trusted(root):
            fallback = _cache.fallback_path(source_path)
            if fallback is not None:
                paths.append(_beside(fallback))
        for path in paths:
            try:
                data = _cache.read_file(path)
            except OSError:
                continue
            if len(data) > 16 and data[:16] == header:
                return data[16:].decode("utf-8", "replace")
    except Exception:
        pass
    return None


def remember(source_path: str, primary, mtime, size, message: str) -> None:
    """Keep ``message`` beside the source's cache file (else in the per-user fallback)
    for the source as it is now; never raises.  Nothing where bytecode is not written."""
    if sys.dont_write_bytecode or primary is None:
        return
    try:
        from . import _cache_write

        data = _header(mtime, size) + message.encode("utf-8", "replace")
        try:
            _cache_write.write_to(_beside(primary), data, 0o644)
            return
        except OSError as exc:
            if not _cache_write.is_unwritable(exc):
                return
        root = _cache.fallback_root()
        fallback = _cache.fallback_path(source_path)
        if fallback is not None and root is not None and _cache_write.fallback_ready(root):
            _cache_write.write_to(_beside(fallback), data, 0o600, 0o700)
    except Exception:
        pass
