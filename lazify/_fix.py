"""``lazify fix``: adopt PEP 810 in the source, for the imports ``check`` finds safe to defer.

Each file is planned as ``lazify check --mechanism native`` plans it (PEP 810's semantics:
the verdicts the interpreter's own lazy imports need, on whichever Python runs ``fix``),
and an import is marked lazy when it is *safely* lazy: lazy, not read while the module
is imported (no ``used at import``: deferring it gains nothing) and read somewhere (no
``unused``: an import kept for what importing it does would not happen).  Eager verdicts
(a ``try`` block, a function, an excluded module, a star import, ...) stay eager, and
``lazy`` statements already there stay as written.  With the native mechanism's verdicts
an import read through ``globals()`` is eager (``dynamic-namespace``) and one named in
annotations is lazy: 3.15 imports it when the annotations are evaluated.

Two styles:

* ``keyword``: ``lazy import x`` / ``lazy from m import y`` (a statement whose names
  differ is split, the lazy names on the same line): 3.15, or lazify before 3.15.
* ``lazy-modules``: one ``__lazy_modules__ = [...]`` after the docstring and the
  ``from __future__`` imports, naming each module all of whose module-level imports are
  safely lazy (3.15 makes every module-level import of a listed module lazy, except in
  ``try`` blocks).  A plain list to earlier Pythons: the file imports and runs
  unchanged there, eagerly, and lazify's hook honours it.  A ``__lazy_modules__`` of
  the module's own is extended, never shortened.

The edit is made with libcst (:mod:`lazify._emit_cst`): comments, formatting and every
other line stay as they are.  A second run changes nothing.
"""

from __future__ import annotations


STYLES = ("keyword", "lazy-modules")

#: verdicts at which PEP 810's ``__lazy_modules__`` does not apply: the statement is not
#: one the interpreter could defer (it stays eager whatever the list says)
_NOT_LISTED = ("function", "class", "try", "star", "future")

#: a list longer than this is written one module a line
_WIDTH = 88


class FixFailed(Exception):
    """A file that could not be fixed; the message names it and the cause."""


def _safe(name) -> bool:
    """Whether ``fix`` marks this imported name lazy (see the module's docstring)."""
    return name.lazy and not name.explicit and name.used_at_import is None and not name.unused


def plan_for(path: str, data: bytes, tree, excluding):
    """The native mechanism's plan of one file (``check --mechanism native``)."""
    from lazify import _sources
    from lazify._rewrite import plan_source

    module, is_package = _sources.module_name_for(path)
    return plan_source(tree, data, path, module=module, is_package=is_package,
                       excluding=excluding, mechanism="native")


def lazy_modules(plan) -> list:
    """The modules ``__lazy_modules__`` may name: every module-level import of each is
    safely lazy (an explicit ``lazy`` one is lazy anyway and does not count)."""
    verdicts = {}
    for site in plan.imports:
        for name in site.names:
            if name.explicit or (name.reason is not None and str(name.reason) in _NOT_LISTED):
                continue
            target = name.module
            verdicts[target] = verdicts.get(target, True) and _safe(name)
    return sorted(m for m, ok in verdicts.items() if ok and m and not m.startswith("."))


def fix_source(data: bytes, path: str, style: str, excluding=None) -> bytes:
    """Return the file's bytes with its safely lazy imports marked in ``style``.

    :raises FixFailed: when the file cannot be parsed (by Python or by libcst).
    """
    from lazify import _deep, _sources
    from lazify._emit_cst import CannotParse

    try:
        tree = _sources.parse(data, path)
    except _sources.PARSE_ERRORS as e:
        raise FixFailed(_sources.SourceError(path, e).located()) from None
    try:
        return _deep.on_large_stack(_fixed, path, data, tree, style, excluding)
    except _deep.TooDeep as e:
        raise FixFailed(f"{path}: {e}; not fixable by `lazify fix`, left as it is") from None
    except CannotParse as e:
        raise FixFailed(f"{path}: {e}; not fixable by `lazify fix`") from None


def _fixed(path, data, tree, style, excluding) -> bytes:
    """The planner and the libcst edit on one parsed file (recursive walks both)."""
    plan = plan_for(path, data, tree, excluding)
    if style == "keyword":
        return _keyword(data, plan)
    return _lazy_modules(data, tree, plan)


def _keyword(data: bytes, plan) -> bytes:
    """``lazy`` before each safely lazy import: the native emitter, given a plan in which
    the other names are eager."""
    from lazify._emit_cst import emit_cst
    from lazify._plan import replaced

    imports = tuple(
        site if site.explicit else replaced(site, names=tuple(
            name if _safe(name) else replaced(name, lazy=False) for name in site.names))
        for site in plan.imports)
    plan = replaced(plan, imports=imports, changes_module=any(site.any_lazy for site in imports))
    return emit_cst(data, plan)


def _own_list(tree):
    """The module's own top-level ``__lazy_modules__ = [...]``: ``(statement, names)``,
    names None when it is not a literal of strings; None when there is none."""
    import ast

    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__lazy_modules__" for t in node.targets):
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple, ast.Set)) and all(
                    isinstance(e, ast.Constant) and type(e.value) is str for e in value.elts):
                return node, [e.value for e in value.elts]
            return node, None
    return None


def _list_text(names) -> str:
    one_line = "[" + ", ".join(f'"{name}"' for name in names) + "]"
    if len("__lazy_modules__ = ") + len(one_line) <= _WIDTH:
        return one_line
    return "[\n" + "".join(f'    "{name}",\n' for name in names) + "]"


def _lazy_modules(data: bytes, tree, plan) -> bytes:
    """One ``__lazy_modules__`` list after the docstring and ``__future__`` imports (or
    the module's own, extended)."""
    import libcst as cst

    wanted = lazy_modules(plan)
    own = _own_list(tree)
    if own is not None:
        statement, names = own
        if names is None or set(wanted) <= set(names):
            return data
        wanted = names + sorted(set(wanted) - set(names))
    elif not wanted:
        return data
    module = _parse(data)
    value = cst.parse_expression(_list_text(wanted))
    if own is not None:
        return _replace_value(module, statement.lineno, value).bytes
    assignment = cst.parse_statement(f"__lazy_modules__ = {_list_text(wanted)}\n")
    body = list(module.body)
    before = 0      # small statements of the module before the list
    for i, line in enumerate(body):
        if before == plan.header_index:
            body.insert(i, assignment)
            break
        smalls = list(line.body)      # the docstring and __future__ imports are simple
        if before + len(smalls) > plan.header_index:
            # ``from __future__ import x; import y``: on the line, before ``import y``
            j = plan.header_index - before
            smalls[j:j] = [assignment.body[0].with_changes(
                semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))]
            smalls[j - 1] = smalls[j - 1].with_changes(
                semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))
            body[i] = line.with_changes(body=smalls)
            break
        before += len(smalls)
    else:
        body.append(assignment)
    return module.with_changes(body=body).bytes


def _parse(data: bytes):
    """libcst's module; :class:`lazify._emit_cst.CannotParse` when it cannot read it."""
    import libcst as cst

    from lazify._emit_cst import CannotParse

    try:
        return cst.parse_module(data)
    except Exception as e:
        raise CannotParse(f"libcst cannot parse it ({type(e).__name__}: "
                          f"{str(e).strip().splitlines()[0] if str(e).strip() else ''})") from e


def _replace_value(module, line: int, value):
    """``module`` with the value of its top-level ``__lazy_modules__ = ...`` on ``line``
    replaced by ``value``."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    class Replace(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def leave_Assign(self, original, updated):
            if self.get_metadata(PositionProvider, original).start.line == line and any(
                    isinstance(t.target, cst.Name) and t.target.value == "__lazy_modules__"
                    for t in original.targets):
                return updated.with_changes(value=value)
            return updated

    return MetadataWrapper(module, unsafe_skip_copy=True).visit(Replace())
