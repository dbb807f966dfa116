"""Which modules the import hook never rewrites: measured, not listed.

The hook imports the rewriter (``lazify._rewrite`` and what it needs) on the
first cache miss.  Were one of the rewriter's own dependencies being rewritten
at that moment, the rewriter would meet it half initialised (``inspect``
imports ``ast``; rewriting ``ast`` needs ``ast``), a circular import no flag
can prevent.  So every module the rewriter imports stays plain, and which
those are depends on the Python: on 3.12 ``ast`` pulls in ``re`` and
``enum``, on 3.14 nothing.  Hand-kept lists broke ``install()`` when a new
Python added a dependency (``annotationlib`` on 3.14); this module measures
the set instead, on the running interpreter.

The measurement imports the rewriter in a bare child interpreter (``-I -S``:
no site, no sitecustomize, so nothing but the interpreter's own start-up
modules is loaded before it) and is kept beside lazify's own bytecode, keyed
by the interpreter and lazify's cache format; later starts read one small
file.  Where that file cannot be written (``PYTHONDONTWRITEBYTECODE``, a
read-only install with no per-user cache) the rewriter is imported in the
process itself when the hook is installed: everything it needs is then
loaded, plain, before anything is rewritten.
"""

import os
import sys

from . import _cache, _cache_write, _os

_MEASURE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "before = set(sys.modules)\n"
    "from lazify._rewriter_deps import exercise\n"
    "exercise()\n"
    "print(' '.join(sorted(set(sys.modules) - before)))\n"
)

#: Sources the rewriter is run on when it is measured: what it imports only when
#: it runs (``ast.walk`` imports ``collections`` on 3.15) counts too.  Between
#: them they take every path of the planner and the emitter.
SAMPLES = (
    '''"""Doc.

>>> json.dumps(1)
"""
from __future__ import annotations
import json, os.path as p, a.b.c
from . import sibling
from .sub import (x as y, z)
from m import *
try:
    import optional
except ImportError:
    optional = None
with ctx():
    import inside
if flag:
    import maybe
    from q import map
def f(arg: Path = json, *, k: "Thing" = None) -> p.Sep:
    """>>> y"""
    global z
    return [json for _ in a.b.c] + {k: v for k, v in z} + (lambda: y)()
class C(json.JSONEncoder, metaclass=maybe.Meta):
    attr: json.Thing = sibling
    def method(self) -> sibling.T:
        return y
def __getattr__(name):
    """Doc."""
    return json
__dir__ = lambda: []
print(f"{json=}", globals(), eval("1"), cast("json.X", 1))
match json:
    case {"a": inside} | [*inside]:
        pass
''',
    '''import json
from typing import Optional
__getattr__ = json.loads
x: Optional["json.Thing"] = None
class D:
    if x:
        y: json.Y = 1
    def g(self, v: json.V): return json
''',
)


def exercise() -> None:
    """Import the rewriter and run it on :data:`SAMPLES`."""
    from lazify._rewrite import rewrite_code

    for index, source in enumerate(SAMPLES):
        for is_package in (False, True):
            rewrite_code(source.encode(), f"<sample {index}>", module="pkg.mod",
                      is_package=is_package)


def top_level(names) -> frozenset:
    """The top-level package names of ``names``."""
    return frozenset(name.partition(".")[0] for name in names)


def measure() -> frozenset | None:
    """Top-level names of what importing the rewriter loads in a bare child
    interpreter; None if the child cannot be run."""
    package_parent = _os.dirname(_os.dirname(_os.abspath(__file__)))
    out = _run([sys.executable, "-I", "-S", "-c", _MEASURE, package_parent])
    names = out.decode("ascii", "replace").split() if out is not None else ()
    if "lazify._plan" not in names:
        return None
    return top_level(names) | {"lazify"}


def _run(argv) -> bytes | None:
    """The standard output of ``argv``, or None if it fails.  Where the OS has
    ``posix_spawn`` the user's process imports nothing for it (``subprocess``
    pulls in ``signal``, ``selectors``, ``locale``, ``re`` and ``enum``: the
    larger part of this measurement's cost on a first start)."""
    if _os.posix_spawn is None:
        import subprocess

        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=60)
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
        return proc.stdout if proc.returncode == 0 else None
    try:
        read_end, write_end = _os.pipe()
        devnull_in = _os.open_fd(os.devnull, os.O_RDONLY)
        devnull_out = _os.open_fd(os.devnull, os.O_WRONLY)
    except OSError:
        return None
    try:
        try:
            pid = _os.posix_spawn(argv[0], argv, os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull_in, 0), (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_DUP2, devnull_out, 2), (os.POSIX_SPAWN_CLOSE, read_end)])
        finally:
            _os.close(devnull_in)
            _os.close(devnull_out)
            _os.close(write_end)
        chunks = []
        while chunk := _os.read(read_end, 65536):
            chunks.append(chunk)
        _pid, status = _os.waitpid(pid, 0)
    except OSError:
        return None
    finally:
        _os.close(read_end)
    return b"".join(chunks) if _os.waitstatus_to_exitcode(status) == 0 else None


def keep_for_every_user() -> None:
    """Keep the measurement beside lazify's bytecode, where every user of the
    environment reads it (``lazify compile``, even under ``PYTHONDONTWRITEBYTECODE``:
    compile writes anyway).  A copy in the compiling user's per-user cache answers
    that user only: a container built as root and run as another user (no home)
    found none, and every start served the rewriter's dependencies (``ast``) as
    cache misses, with a warning to run the ``lazify compile --env`` just run."""
    if _cache.read_rewriter_deps(beside_lazify_only=True) is not None:
        return
    names = _cache.read_rewriter_deps() or measure()
    if names is not None:
        _cache_write.write_rewriter_deps(names)


def measured(import_rewriter) -> frozenset:
    """Top-level names of the modules the rewriter needs on this interpreter,
    measured now (the hook reads a kept measurement without importing this
    module): in a child interpreter, kept with :func:`_cache_write.write_rewriter_deps`,
    or, when nothing can be kept, by running the rewriter in this process.

    :param import_rewriter: imports and exercises the rewriter in this process
        (with the hook's busy flag set).
    """
    if not sys.dont_write_bytecode:
        names = measure()
        if names is not None and _cache_write.write_rewriter_deps(names):
            return names
    before = set(sys.modules)
    import_rewriter()
    return top_level(set(sys.modules) - before) | {"lazify"}
