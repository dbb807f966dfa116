"""Late-global catch-up: a module global that the module declares by annotation alone
(``python_grammar: Grammar``) and that later code binds (an ``initialize()`` with
``global python_grammar``), read from outside while lazy imports are pending.

Eagerly such a name is there as soon as any import that binds it has run, often
another module's import (black's ``blib2to3.pygram`` is initialised by importing
``black.nodes``; ``black.parsing`` imports that module for a name it reads later and
reads ``pygram.python_grammar`` first: 'module blib2to3.pygram has no attribute
python_grammar_async_keywords', where black's own cache directory cannot be made).
The compiler starts such a module's code with a call that gives the module a
``__getattr__`` (``lazify._hook.late_catch_up_for``, with the names: an entry point of
the generated code), which the interpreter calls only for a missing attribute, and
which imports this module then.  For a
declared name while lazy imports are pending, it runs them until the name is bound:
the reading module's own first, then as the package-submodule catch-up does (those
aimed at the module, then its package, then the rest); otherwise, and for every other
name, the interpreter answers, with its own ``AttributeError``.  A module's own ``__getattr__`` (PEP 562)
replaces it and answers for itself.

Imported by the rewriter, and while a program runs only when such a module is asked
for a name it lacks.
"""

import sys

from . import _native


def declared(tree) -> frozenset:
    """The names ``tree``'s module body declares by annotation alone (``name: T`` at
    its top level, in ``if``/``try`` blocks too, not in functions or classes)."""
    import ast

    names = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.AnnAssign):
            if node.value is None and node.simple and isinstance(node.target, ast.Name):
                names.add(node.target.id)
        elif isinstance(node, (ast.If, ast.Try, getattr(ast, "TryStar", ast.Try))):
            todo.extend(node.body)
            todo.extend(node.orelse)
            todo.extend(getattr(node, "finalbody", ()))
            for handler in getattr(node, "handlers", ()):
                todo.extend(handler.body)
    return frozenset(names)


def late_globals(code, names) -> tuple:
    """Those of the declared ``names`` that the module-level ``code`` never names
    (``co_names``: bound or read there, a name is no late global), sorted."""
    return tuple(sorted(set(names).difference(code.co_names)))


def answer(module, name, names):
    """``module.name`` for the module's ``__getattr__`` (``lazify._hook``): a late
    global among ``names`` caught up, else the interpreter's own answer (its exact
    ``AttributeError``: partially initialised modules, suggestions)."""
    namespace = module.__dict__
    if name in names and name not in namespace and _catch_up(
            module.__name__, namespace, name, _reader(sys._getframe(1))):
        return namespace[name]
    return _native.interpreters_answer(module, name)


def _reader(frame):
    """The namespace of the module whose code read the name: the first frame outside
    lazify's own modules (the rewrite's ``__getattr__`` stands in front of this one)."""
    while frame is not None:
        namespace = frame.f_globals
        if not str(namespace.get("__name__")).startswith("lazify."):
            return namespace
        frame = frame.f_back
    return {}


def _catch_up(fullname, namespace, name, reader) -> bool:
    """Run pending lazy imports until ``name`` is bound in ``namespace``, as an eager
    program would have run them all by now: first the reading module's own (black's
    parsing imports the module that initialises the one it reads), then, of either
    mechanism, those aimed at the module, at its package, and the rest, as the
    package-submodule catch-up does; whether it is.  An import that fails here raises
    at its first use, as it would have without the catch-up."""
    def done():
        return name in namespace

    from ._settings import runtime

    lazy_type = _native.lazy_import_type()
    for value in list(reader.values()) if lazy_type is not None else ():
        if type(value) is lazy_type:
            try:
                value.resolve()
            except Exception:
                pass
            if done():
                return True
    state = runtime.state_of(reader) if runtime is not None else None
    if state is not None:
        for pending in list(state.pending):
            if pending not in state.namespace:
                try:
                    state.resolve(pending)
                except Exception:
                    pass
                if done():
                    return True
    if getattr(sys, "lazy_modules", None):
        from . import _native_catchup

        _native_catchup.native_modules = _native.native_modules
        _native_catchup.catch_up(fullname, done)
    if not done() and runtime is not None:
        runtime.catch_up(fullname, done)
    return done()
