"""The start-up bundle: the code of lazify's start-up modules in one file.

Every start with lazify on loads the modules of :data:`lazify.STARTUP_MODULES`.
Imported one by one, each costs the path finder's search, a stat and a pyc read
(about 0.2 M instructions a module on 3.15); ``lazify/__init__.py`` reads them from
one file instead, beside lazify's own pycs (``__pycache__/__startup__.<tag>.pyc``),
when every source's mtime and size are the ones recorded there.  The sources stay
as they are, one module a job.

This module is imported only to write that file: when it is missing or not current
(the modules were imported one by one, as Python imports them), unless bytecode is
not to be written (``PYTHONDONTWRITEBYTECODE``, ``-B``: ``lazify compile`` writes it
then) or this user cannot write there (every start imports the modules one by one,
as before the bundle).

The format: the interpreter's magic number, then the marshalled tuple of
``(name, source mtime, source size, code)`` for each module, in order.  The mtime
is in whole seconds, as a pyc records it: a copy that keeps only seconds (GNU tar's
default format, a zip) leaves the bundle current, as it leaves CPython's own pycs;
nanoseconds would make every start after such a copy import the modules one by one
and write the bundle again.  A source modified within the last second is not
bundled (:func:`lazify._cache.is_too_fresh`): an edit in the same second, of the
same size, could not be told apart.
"""

import marshal

import _frozen_importlib_external as _external

from . import STARTUP_BUNDLE, STARTUP_MODULES


def write(here):
    """Write the bundle from the sources as they are now; False where it cannot be
    (a source too fresh to be told from its next edit, an unwritable directory)."""
    try:
        data = bundle_bytes(here)
        if data is None:
            return False
        from ._cache_write import write_to

        write_to(_external.cache_from_source(here + STARTUP_BUNDLE), data, 0o666)
    except (OSError, SyntaxError, ValueError):
        return False
    return True


def bundle_bytes(here):
    """The bundle's bytes, or None when a source was modified within the last second
    (an edit in the same second, of the same size, could not be told apart)."""
    from ._cache import is_too_fresh

    entries = []
    for name in STARTUP_MODULES:
        path = f"{here}{name}.py"
        st = _external._os.stat(path)        # before the code: an edit after it is seen
        if is_too_fresh(st.st_mtime):
            return None
        fullname = f"{__package__}.{name}"
        code = _external.SourceFileLoader(fullname, path).get_code(fullname)
        entries.append((name, int(st.st_mtime), st.st_size, code))
    return _external.MAGIC_NUMBER + marshal.dumps(tuple(entries))
