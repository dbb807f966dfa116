"""The rewrite pipeline: source bytes -> parse -> plan -> emit -> code object.

The import hook runs :func:`rewrite_code` on every cache miss (and ``lazify compile`` ahead
of time); ``check`` and ``rewrite``/``diff`` plan a file with :func:`plan_source`, so every
command plans a module from the same facts.  Imports only what the rewriter needs (``ast``
and lazify's own plain modules): see :mod:`lazify._rewriter_deps`.
"""

import gc

from ._ast_walk import walk
from ._emit_ast import emit, emit_native
from ._entry_points import AUDIT, AUDIT_CALL, LATE, LATE_CALL
from ._late_globals import declared, late_globals
from ._plan import header_position, plan_module
from ._sources import extension_submodules, parse, submodule_imports


def plan_source(tree, source, path: str, *, module: str = "", is_package: bool = False,
                excluding=None, mechanism: str = "rewrite", future_flags: bool = False,
                nodes=None, portable: bool = False):
    """Plan one module parsed from ``source`` (bytes or text) at ``path``.

    :param excluding: module names whose own imports stay eager; None (the hook, and
        ``compile``) leaves that to the runtime.
    :param mechanism: "rewrite" or "native" (:func:`lazify._plan.plan_module`).
    :param future_flags: the plan is for :func:`rewrite_code` (or reports what it
        does): ``from __future__`` imports may be lazy (:func:`lazify._plan.plan_module`).
    :param nodes: for :func:`lazify._emit_ast.emit` (:func:`lazify._plan.plan_module`).
    :param portable: source output for every Python (:func:`lazify._plan.plan_module`).
    """
    return plan_module(tree, module=module, is_package=is_package, excluding=excluding,
                       source=source,
                       extensions=extension_submodules(path) if is_package else frozenset(),
                       mechanism=mechanism,
                       submodules=submodule_imports(
                           path, module if is_package else module.rpartition(".")[0])
                       if mechanism == "native" else None,
                       future_flags=future_flags, nodes=nodes, portable=portable)


#: the word every import statement holds, for text and for bytes (indexed by
#: ``type(source) is bytes``): keywords are ASCII in every source encoding Python reads
_IMPORT = ("import", b"import")
#: a module-level annotation makes its code name one of these (before 3.14 the
#: ``__annotations__`` dict, from 3.14 the ``__annotate__`` function)
_ANNOTATED = frozenset({"__annotations__", "__annotate__"})


def rewrite_code(source, path: str, *, module: str = "", is_package: bool = False,
                 optimize: int = -1, mechanism: str = "rewrite"):
    """Source bytes -> rewritten code object.

    Raises ``SyntaxError`` exactly as ``compile()`` would for bad source, and
    :class:`lazify._plan.EmitError` when the plan does not fit the tree (a lazify bug).
    """
    if not is_package and _IMPORT[type(source) is bytes] not in source:
        # No import statement anywhere (nor ``__import__``, ``lazy import``): the plan
        # would leave every statement as it is and compile the tree unchanged, which
        # gives the code compile() gives for the source, without building the tree
        # (a package is rewritten all the same: see plan_module).
        code = compile(source, path, "exec", dont_inherit=True, optimize=optimize)
        if _ANNOTATED.isdisjoint(code.co_names):
            return code
        tree = parse(source, path, optimize, validate=False)
        return _marked_late(code, tree, declared(tree), path, 0, optimize)
    # The tree and what is made from it are freed by reference counting: the
    # cyclic collector would only walk them, about a tenth of the rewrite's time
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        # the native mechanism's compile() raises 3.15's errors for a misplaced
        # ``lazy`` statement itself
        tree = parse(source, path, optimize, validate=mechanism != "native")
        nodes = {}
        late = declared(tree)            # before the emitter changes the tree
        plan = plan_source(tree, source, path, module=module, is_package=is_package,
                           mechanism=mechanism, future_flags=True, nodes=nodes)
        if plan.changes_module:
            # a module asked for natively may take the rewrite (``Plan.takes_rewrite``)
            tree = emit_native(tree, plan) if plan.mechanism == "native" \
                else emit(tree, plan, nodes)
        if plan.audit_hook:
            _start_with_call(tree, AUDIT, AUDIT_CALL)
        # lazy ``from __future__`` imports are out of the tree: their features are flags
        flags = plan.future_flags if plan.changes_module else 0
        code = compile(tree, path, "exec", flags, dont_inherit=True, optimize=optimize)
        return _marked_late(code, tree, late, path, flags, optimize)
    finally:
        if collecting:
            gc.enable()


def _marked_late(code, tree, declared_names, path, flags, optimize):
    """``code``, or, where the module has late globals among ``declared_names`` (a global
    declared by annotation alone, :mod:`lazify._late_globals`), ``tree`` compiled again
    starting with the call that asks for the hook's late-global catch-up."""
    late = late_globals(code, declared_names) if declared_names else ()
    if not late:
        return code
    _start_with_call(tree, LATE, LATE_CALL, late)
    return compile(tree, path, "exec", flags, dont_inherit=True, optimize=optimize)


def _start_with_call(tree, module, function, names=None) -> None:
    """Put ``__import__(module, None, None, (function,)).function(__name__)`` (and
    ``names``, a tuple of strings, when given) first in the module after its docstring
    and ``from __future__`` imports, at the line of the statement it comes before: a
    module that adds an audit hook (:mod:`lazify._audit`), or one with late globals
    (:mod:`lazify._late_globals`)."""
    import ast

    body = tree.body
    index = header_position(tree)[0]
    where = body[index] if index < len(body) else (body[-1] if body else None)
    line = where.lineno if where is not None else 1
    args = [ast.Name(id="__name__", ctx=ast.Load())]
    if names is not None:
        args.append(ast.Tuple([ast.Constant(name) for name in names], ast.Load()))
    call = ast.Call(
        func=ast.Attribute(
            value=ast.Call(func=ast.Name(id="__import__", ctx=ast.Load()),
                           args=[ast.Constant(module), ast.Constant(None),
                                 ast.Constant(None), ast.Tuple([ast.Constant(function)],
                                                               ast.Load())],
                           keywords=[]),
            attr=function, ctx=ast.Load()),
        args=args, keywords=[])
    statement = ast.Expr(call)
    for node in walk(statement):
        node.lineno = node.end_lineno = line
        node.col_offset = node.end_col_offset = 0
    body.insert(min(index, len(body)), statement)
