"""Guarded imports: an ImportError must surface where the importer expects it.

``try: import plugin except ImportError: skip`` (or ``__import__`` or
``importlib.import_module`` in such a ``try``, or ``contextlib.suppress``):
eagerly, a missing dependency of ``plugin`` raises inside that ``try``.
Lazily, plugin's own imports are deferred, so it imports fine and the error
moves to the first use, for every user of the library.  So a module imported
where an ImportError is caught is "guarded": each of its deferred imports is
*found* at once (a finder's lookup, nothing executed) and a module that is not
there raises ModuleNotFoundError at its statement, as eagerly.  A module
imported while a guarded one runs is guarded too.

The check itself: :func:`guarded` walks up from a module body to the first frame
above the import machinery and asks whether that frame runs inside a handler of
code naming ImportError (the exception table on 3.11+, the try/with blocks of
3.10's bytecode).  Used by the rewrite's runtime and by the native filter.

On every user's start-up path: it imports nothing but ``sys``, :mod:`lazify._os` and
:mod:`lazify._settings`.
"""

import sys

from . import _os, _settings

#: exception names whose handler catches ImportError
_IMPORT_ERROR_NAMES = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})
#: file name -> whether its code is import machinery (skipped when looking for
#: the importer).  Keyed by the name, not the code object: a code object's hash is
#: recomputed on every lookup, over its constants and nested code objects
_machinery_files = {}
#: id(code) -> (code, the byte ranges its exception handlers cover (3.10: its try
#: and with blocks)), for code that names ImportError; the code is kept so that
#: the id stays its own
_code_ranges = {}
#: id(frame) of a module body under the native mechanism -> (id of its globals,
#: its code, whether it is guarded); a few are kept, never more.  The code is kept
#: so that its id stays its own (a guarded module that failed is freed, and the next
#: module's frame and globals may get its addresses); the globals' id, not the
#: object: a new container holding a module's globals makes the cyclic GC
#: (3.14's incremental one above all) walk the whole module again
#: (docs/performance.md, "Costs behind design rules")
_native_guarded = {}
_NATIVE_GUARDED_KEPT = 64


def _is_machinery(filename):
    machinery = _machinery_files.get(filename)
    if machinery is None:
        machinery = _machinery_files[filename] = (
            filename.startswith("<frozen importlib")
            or filename.endswith(("importlib/__init__.py", "importlib\\__init__.py")))
    return machinery


def handler_ranges(code):
    """() when ``code`` cannot guard (no handler, or it names no ImportError),
    else the byte ranges its handlers cover."""
    if not getattr(code, "co_exceptiontable", True) or _IMPORT_ERROR_NAMES.isdisjoint(code.co_names):
        return ()
    known = _code_ranges.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    if not hasattr(code, "co_exceptiontable"):
        ranges = _block_ranges(code.co_code)
    else:
        ranges = _table_ranges(code.co_exceptiontable)
    _code_ranges[id(code)] = (code, ranges)
    return ranges


def _table_ranges(table):
    """Byte ranges covered by an exception handler, from a 3.11+ exception table."""
    ranges = []
    index, size = 0, len(table)

    def varint():
        nonlocal index
        byte = table[index]
        index += 1
        value = byte & 63
        while byte & 64:
            byte = table[index]
            index += 1
            value = (value << 6) | (byte & 63)
        return value
    try:
        while index < size:
            start = varint() * 2
            length = varint() * 2
            varint()                     # handler target
            varint()                     # depth and lasti
            ranges.append((start, start + length))
    except IndexError:
        return ()
    return tuple(ranges)


#: 3.10's opcodes that push a block an exception can be caught in (SETUP_FINALLY,
#: SETUP_WITH, SETUP_ASYNC_WITH) and EXTENDED_ARG
_SETUP_OPS = frozenset({122, 143, 154})
_EXTENDED_ARG = 144


def _block_ranges(co_code):
    """Byte ranges of the try/with blocks in 3.10 bytecode (no exception table
    there): from each SETUP_* to its handler, whose relative jump counts
    instructions."""
    ranges = []
    arg = 0
    for offset in range(0, len(co_code), 2):
        op = co_code[offset]
        arg = arg << 8 | co_code[offset + 1]
        if op == _EXTENDED_ARG:
            continue
        if op in _SETUP_OPS:
            ranges.append((offset, offset + 2 + 2 * arg))
        arg = 0
    return tuple(ranges)


def guarded(frame):
    """Whether the module whose body runs in ``frame`` is being imported where an
    ImportError would be caught: the first frame above the import machinery is
    covered by a handler in code that names ImportError, ModuleNotFoundError or
    Exception (on 3.10, inside a try or with block of such code), or is the body
    of a guarded module.

    One walk up the stack, not a recursion, at most once per module body: the
    answer is kept for the body in ``frame`` and for the module bodies passed on
    the way up (the rewrite keeps it in each module's state, the native mechanism
    in a small table), so the next question stops at them.
    """
    if frame.f_code.co_name == "<module>":
        known = _known_guarded(frame)
        if known is not None:
            return known
        passed = [frame]
    else:
        passed = []
    guarded = False
    machinery_files = _machinery_files
    while True:
        frame = frame.f_back
        while frame is not None:
            filename = frame.f_code.co_filename
            machinery = machinery_files.get(filename)
            if machinery is None:
                machinery = _is_machinery(filename)
            if not machinery:
                break
            frame = frame.f_back
        if frame is None:
            break
        code = frame.f_code
        ranges = handler_ranges(code)
        if ranges:
            lasti = frame.f_lasti
            for start, end in ranges:    # (a loop: a generator is one more code object)
                if start <= lasti < end:
                    guarded = True
                    break
            if guarded:
                break
        if code.co_name != "<module>":
            break
        known = _known_guarded(frame)
        if known is not None:
            guarded = known
            break
        passed.append(frame)
    for frame in passed:
        _keep_guarded(frame, guarded)
    return guarded


def known_guarded(frame):
    """:func:`guarded`'s answer for the module body in ``frame`` if it was worked out
    already, else None (no walk)."""
    return _known_guarded(frame) if frame.f_code.co_name == "<module>" else None


def _rewritten_state(frame):
    """The rewrite's state of the module whose body runs in ``frame``, or None."""
    runtime = _settings.runtime
    return None if runtime is None else runtime.state_of(frame.f_globals)


def _known_guarded(frame):
    """A module body's guardedness if worked out already, None if not yet (the
    walk goes on above it).  A body lazify did not rewrite (all its imports eager:
    read-at-import) passes it on: a module it imports may defer (a plugin's helper)."""
    runtime = _settings.runtime          # (_rewritten_state, inline: once per import)
    if runtime is not None:
        state = runtime.state_of(frame.f_globals)
        if state is not None:
            return state.guarded
    known = _native_guarded.get(id(frame))
    if known is not None and known[0] == id(frame.f_globals) and known[1] is frame.f_code:
        return known[2]
    return None


def _keep_guarded(frame, guarded):
    state = _rewritten_state(frame)
    if state is not None:
        state.guarded = guarded
        return
    if len(_native_guarded) >= _NATIVE_GUARDED_KEPT:
        _native_guarded.clear()
    _native_guarded[id(frame)] = (id(frame.f_globals), frame.f_code, guarded)


def machinery_file(filename):
    """Count the frames of code from ``filename`` as import machinery: the
    rewrite's runtime, whose frames a deferred import runs in."""
    _machinery_files[filename] = True


_bootstrap = sys.modules["_frozen_importlib"]
#: the ``__module__`` of lazify's own finder, which finds nothing itself: it asks the
#: finders after it and wraps their spec for its loader (:class:`lazify._hook.LazifyFinder`)
_OWN_FINDER = "lazify._hook"


def find_spec(fullname, path):
    """The spec the finders on sys.meta_path give, asked as importlib asks them (in
    order, each under the import lock; no loading), lazify's own finder passed by:
    its answer is a later finder's, and the loader it wraps the spec with would be
    thrown away (about a third of a guarded module's search for a package)."""
    for finder in list(sys.meta_path):
        if type(finder).__module__ == _OWN_FINDER:
            continue
        with _bootstrap._ImportLockContext():
            find = getattr(finder, "find_spec", None)
            spec = None if find is None else find(fullname, path, None)
        if spec is not None:
            return spec
    return None


def submodule_spec(fullname, path):
    """:func:`find_spec` for a name read from a package that may be its submodule: None
    also where a finder fails (the reader gets the interpreter's AttributeError, not a
    finder's error)."""
    try:
        return find_spec(fullname, path)
    except Exception:
        return None


#: top-level name -> the length of sys.path when a finder last had it: a guarded
#: module's deferred imports of a package not loaded yet search for it once, not
#: once per statement (http's modules ask for ``_ssl`` nine times).  Only what was
#: found is kept (a module missing now may appear; eagerly it would be found), and it
#: is searched again after ``importlib.invalidate_caches()``, ``uninstall()`` or an
#: entry added to or taken from sys.path, as lazify's finder does with its misses
_findable = {}


#: the standard library's directory (3.11+), where it is on sys.path: the import system
#: finds a pure-Python module there whatever is before it
_STDLIB = getattr(sys, "_stdlib_dir", None)


def _in_stdlib(top):
    """Whether ``top`` is a pure-Python module or package of the standard library's
    directory, on sys.path: one stat or two, where the finders' search costs about
    0.2 M instructions on 3.15 (pytest's guarded modules ask for ``shutil`` and
    ``glob``).  An extension module (``_bz2``, ``_ssl``: a build may lack them) and
    anything else are searched."""
    if _STDLIB is None or _STDLIB not in sys.path:
        return False
    base = f"{_STDLIB}{_os.sep}{top}"
    for path in (base + ".py", f"{base}{_os.sep}__init__.py"):
        try:
            _os.stat(path)
        except (OSError, ValueError):
            continue
        return True
    return False


#: pure-Python modules of the standard library that import a module a build may lack,
#: and that module: eagerly they raise ImportError although their file is there (Debian
#: ships tkinter apart; a Python built without a library's headers has no ``_sqlite3``,
#: ``_lzma``, ``_bz2``, ``_ctypes``...), so a guarded module's import of one asks for both
_NEEDS = {"bz2": "_bz2", "crypt": "_crypt", "ctypes": "_ctypes", "curses": "_curses",
          "gzip": "zlib", "idlelib": "tkinter", "lzma": "_lzma", "sqlite3": "_sqlite3",
          "ssl": "_ssl", "tkinter": "_tkinter", "turtle": "tkinter", "turtledemo": "tkinter"}


def found_without_search(top):
    """Whether the top-level module ``top`` is known to be there without the finders'
    search: found before, or a pure-Python module of the standard library that needs
    no module a build may lack."""
    if _findable.get(top) == len(sys.path):
        return True
    if top not in _NEEDS and _in_stdlib(top):
        _findable[top] = len(sys.path)
        return True
    return False


def missing_dependency(top):
    """The module that the standard library's ``top`` imports and this build lacks
    (``_sqlite3`` for ``sqlite3``), else None (a finder's error propagates)."""
    needed = _NEEDS.get(top)
    while needed is not None:
        if needed in sys.modules:
            if sys.modules[needed] is None:   # as the import system: not there
                return needed
        elif needed not in sys.builtin_module_names and find_spec(needed, None) is None:
            return needed
        needed = _NEEDS.get(needed)
    return None


def findable(top):
    """Whether a finder has the top-level module ``top``, and what it needs from the
    standard library (a finder's error propagates)."""
    return found_without_search(top) or found_by_search(top)


def found_by_search(top):
    """:func:`findable` where :func:`found_without_search` said no: the finders'
    search, remembered when it finds ``top``."""
    if find_spec(top, None) is None or missing_dependency(top) is not None:
        return False
    _findable[top] = len(sys.path)
    return True


def forget_findable():
    """Search again for every package: after ``importlib.invalidate_caches()`` or
    ``uninstall()``."""
    _findable.clear()
