"""Package-submodule catch-up for the native mechanism (3.15+): ``pkg.sub`` that a
still-pending lazy import of lazify's would have loaded, as an eager program has it.

Eagerly ``pkg.sub`` is set whenever any import of ``pkg.sub`` ran, often as a side
effect of another module's import (httpie reads ``pygments.token`` after ``import
pygments``: pygments' lexers imported it).  The interpreter sets the submodules named
in pending ``lazy import pkg.sub`` statements itself (``sys.lazy_modules``); one that
only another pending import would load is missing.  The rewrite's runtime answers
from its package ``__getattr__`` (``_importlib_bootstrap._PackageSubmodules``); here
a package the hook compiled natively gets a ``__getattr__`` when its body starts
(:func:`lazify._native.catch_up_for`: the one name lazify adds to a native module),
which the interpreter calls only for a missing attribute.  When lazy imports are
pending and the package's finders have the name as a submodule not imported yet, it
imports this module, which runs the pending lazy imports of the modules the hook
compiled natively, those aimed at the submodule first, then those aimed at the
package's other modules, then the rest, until the submodule appears; otherwise the
package answers as it would without it.  A package that defines its own
``__getattr__`` (PEP 562) replaces lazify's and answers for itself.

Not imported on a start where no submodule needs catching up: the questions before
(a dunder, importlib's probe, no lazy import pending, no such submodule) are
answered in :mod:`lazify._native`.
"""

import sys


_PREFIX = "<lazy_import '"

#: the names of the modules the hook compiled natively (``_native.native_modules``,
#: set by :func:`lazify._native._catch_up`, which imports this module)
native_modules = frozenset()
#: (importer, name, target) of pending imports that failed during a catch-up: not
#: tried again by a later one (their first use raises, as the interpreter has it)
_failed = set()
#: id() of the proxies being resolved by a catch-up (one that reads another missing
#: submodule does not run them again)
_resolving = set()


def missing(module, name, fullname, marker):
    """``module.name``, missing from the package's namespace, which its finders have
    as the submodule ``fullname``, not imported yet (its ``__getattr__``,
    :func:`lazify._native._getattr_for`, asked them while lazy imports are pending):
    caught up when a pending import would have loaded it, else ``marker``."""
    namespace = module.__dict__
    catch_up(fullname, lambda: name in namespace or fullname in sys.modules)
    value = namespace.get(name, marker)
    if value is marker:
        value = sys.modules.get(fullname, marker)
    return value


def _pending(aim):
    """(importer, name, target, proxy) of the lazy imports still pending in the modules
    the hook compiled natively, in the order the modules started, aimed at ``aim`` or
    a module below it (any when ``aim`` is None)."""
    from _types import LazyImportType as lazy_type

    waiting = sys.lazy_modules
    below = None if aim is None else f"{aim}."
    native = native_modules
    found = []
    for importer, module in list(sys.modules.items()):
        if importer not in native:
            continue
        namespace = getattr(module, "__dict__", None)
        if namespace is None:
            continue
        for name, value in list(namespace.items()):
            if type(value) is not lazy_type or id(value) in _resolving:
                continue
            text = repr(value)
            target = text[len(_PREFIX):-2] if text.startswith(_PREFIX) else None
            if target is None or target not in waiting:
                continue
            if below is not None and target != aim and not target.startswith(below):
                continue
            if (importer, name, target) not in _failed:
                found.append((importer, name, target, value))
    return found


def catch_up(fullname, done) -> None:
    """Resolve pending lazy imports as an eager program would have run them, until
    ``done()``: those aimed at ``fullname`` or below, then those aimed at its package
    or below (a package's modules import each other: httpie's ``pygments.formatter``,
    which ``pygments.formatters.terminal`` imports), then the rest (any of them may
    load it in turn, through other packages).  Each runs once per catch-up; one that
    fails is not tried again.  Also a module's late globals' (:mod:`lazify._late_globals`)."""
    tried = {}                           # id -> proxy (kept, so that ids stay unique)
    for aim in (fullname, fullname.rpartition(".")[0], None):
        progress = True
        while progress and not done():
            progress = False
            for importer, name, target, proxy in _pending(aim):
                if id(proxy) in tried or target not in sys.lazy_modules:
                    continue                 # resolved meanwhile, by another
                tried[id(proxy)] = proxy
                _resolving.add(id(proxy))
                try:
                    proxy.resolve()
                    if target in sys.lazy_modules and name == target.partition(".")[0]:
                        # ``import a.b`` binding ``a``: PEP 810 imports ``a`` alone and
                        # leaves ``a.b`` pending on it; the eager statement imported it
                        __import__(target)
                except Exception:
                    _failed.add((importer, name, target))
                    continue
                finally:
                    _resolving.discard(id(proxy))
                progress = True
                if done():
                    return
