"""Audit hooks: a module that adds one (``sys.addaudithook``) may refuse imports from
then on, as ``pip install`` does (an error for every import once an install has
started, pip 26.3; a warning before).  What its package deferred would then fail where
it is first used.  So when such a module is imported, its top-level package's pending
imports are done, and the package's imports stay eager from then on (``audit-hook``):
``pip --version`` or ``pip list`` start lazily, ``pip install`` imports what it needs
before its hook is added, as it does without lazify.

The planner finds the call (:func:`adds_audit_hook`); the module's code then starts
with a call of :func:`imports_done` (the import hook's cache, ``lazify compile``),
and a cache miss served from the plain pyc is found by its code
(:func:`code_adds_audit_hook`).

Imports nothing but ``sys`` and lazify's settings (the tree walk, :mod:`lazify._ast_walk`,
when it walks one): it runs inside a program's imports.
"""

import sys

from . import _settings

#: the name a module calls to add an audit hook (``sys.addaudithook``, or bound by
#: ``from sys import addaudithook``)
NAME = "addaudithook"


def adds_audit_hook(tree, source=None) -> bool:
    """Whether the module parsed as ``tree`` calls ``addaudithook`` anywhere (module
    level or in a function).  ``source`` (text or bytes), when given, answers the
    common case, no such word in it, without walking the tree."""
    if source is not None and (NAME if type(source) is str else NAME.encode()) not in source:
        return False
    import ast

    from ._ast_walk import walk

    for node in walk(tree):
        if type(node) is ast.Call:
            func = node.func
            if (type(func) is ast.Attribute and func.attr == NAME) or \
                    (type(func) is ast.Name and func.id == NAME):
                return True
    return False


def code_adds_audit_hook(code) -> bool:
    """:func:`adds_audit_hook` for a compiled module (a cache miss served plain): its
    code, or a function's in it, names ``addaudithook``."""
    stack = [code]
    while stack:
        code = stack.pop()
        if NAME in code.co_names:
            return True
        stack.extend(c for c in code.co_consts if type(c) is type(code))
    return False


def imports_done(name: str) -> None:
    """Module ``name``, which adds an audit hook, starts: keep its top-level package's
    imports eager from now on and do every import its loaded modules still defer
    (until none is left: what one brings may defer more).  An import that fails stays
    pending and fails where it is used, as it would have.  Never raises."""
    try:
        if name == "__main__":
            # ``python -m pkg.tool``: the package is the spec's (a script has none)
            spec = getattr(sys.modules.get(name), "__spec__", None)
            name = getattr(spec, "name", None) or name
        top = name.partition(".")[0]
        if not top or not _settings.settings.enabled or top in _settings.eager_packages:
            return
        _settings.keep_eager(top)
        done = set()
        while True:
            loaded = [(key, module) for key, module in list(sys.modules.items())
                      if key not in done and (key == top or key.startswith(top + "."))]
            if not loaded:
                return
            for key, module in loaded:
                done.add(key)
                namespace = getattr(module, "__dict__", None)
                if type(namespace) is dict:
                    _resolve_pending(namespace)
    except Exception:
        pass


def _resolve_pending(namespace) -> None:
    """Resolve the names of one module still pending: PEP 810's proxies, and the
    rewrite's registrations once its runtime is loaded; one that fails stays."""
    lazy_type = None
    if sys.version_info >= (3, 15):
        from _types import LazyImportType as lazy_type
    if lazy_type is not None:
        for key, value in list(namespace.items()):
            if type(value) is lazy_type:
                try:
                    resolved = value.resolve()
                except Exception:
                    continue
                if namespace.get(key) is value:
                    namespace[key] = resolved
    runtime = _settings.runtime
    state = runtime.state_of(namespace) if runtime is not None else None
    if state is not None:
        for key in list(state.pending):
            if key not in namespace:
                try:
                    state.resolve(key)
                except Exception:
                    pass
