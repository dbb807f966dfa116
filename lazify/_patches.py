"""Functions a module installs into the import system, and the imports they read.

A module that replaces a function the import system calls while it imports
(``os.stat = checked_stat``, ``_io.open_code = ...``, ``builtins.__import__ = ...``:
blocking-call detectors, sandboxes, fake filesystems) with a function of its own that
reads a module the file imports at top level: plain Python imported that module before
the patch was made.  Lazily, the first import under the patch runs the patch, which
resolves the deferred import, which imports, which runs the patch again, inside the
half-imported module (3.15's ``-X lazy_imports=all``: ``ImportCycleError``).  The
planner keeps the imports such a function reads eager (``import-system-patch``).

Found statically, and only in the shapes that say what they install where:
``ROOT.attr[.attr...] = VALUE`` and ``setattr(ROOT[.attr...], "name", VALUE)``, anywhere
in the module, where ``ROOT`` is a name an import binds to one of
:data:`IMPORT_SYSTEM` (or to a name imported from one: ``from io import
BufferedReader``), and ``VALUE`` is a module-level function of the module (by name), a
lambda, or a call that makes one from module-level functions (``wrap(checked)``,
``make_checker()``).  What the function reads counts with what the module's functions it
reads by name read.  A patch made through variables (blockbuster's
``setattr(module, name, wrapper)`` over a table) is not seen: docs/how-it-works.md,
limitations.

Called by :func:`lazify._facts.gather` only when the walk saw an attribute of such a
name assigned (rare): nothing of this runs for the other modules.
"""

from __future__ import annotations

import ast

from ._ast_walk import walk

#: the modules whose functions the import system calls while it imports (a module
#: counts with its submodules: ``importlib.machinery``, ``os.path``)
IMPORT_SYSTEM = frozenset({
    "os", "posixpath", "ntpath", "genericpath", "posix", "nt", "io", "_io", "builtins",
    "sys", "marshal", "_imp", "importlib", "zipimport", "_frozen_importlib",
    "_frozen_importlib_external", "_bootstrap", "_bootstrap_external"})

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_import_system(module: str) -> bool:
    """Whether ``module`` (absolute) is one of :data:`IMPORT_SYSTEM` or inside one."""
    return module.partition(".")[0] in IMPORT_SYSTEM


def import_system_names(sites) -> frozenset:
    """The names the module's imports (:class:`lazify._facts._Site`) bind to an
    import-system module, or to something imported from one."""
    names = set()
    for site in sites:
        node = site.node
        if type(node) is ast.ImportFrom:
            if node.level == 0 and node.module and is_import_system(node.module):
                names.update(bound for bound, *_rest in site.bindings if bound != "*")
        else:
            for bound, imported, _asname, _signature in site.bindings:
                if is_import_system(imported):
                    names.add(bound)
    return frozenset(names)


def _root(node):
    while type(node) is ast.Attribute:
        node = node.value
    return node.id if type(node) is ast.Name else None


def patch_readers(tree, sites, stores, global_loads, module_bound) -> dict:
    """``{imported name: line of the patch}`` for the names the module's imports bind
    that a function it installs into the import system reads (see the module's
    docstring).

    :param stores: ``(target, value, statement)`` per attribute assignment or
        ``setattr`` the walk saw whose target's root is a name some import binds:
        ``value`` is the assigned value, or None for an assignment (then found in
        ``statement``, the top-level statement holding it).
    :param global_loads: name -> the loads that read the module-level name
        (:attr:`lazify._facts.ModuleFacts.global_loads`).
    :param module_bound: the names bound at module level other than by imports: a
        function installed by name is one of the module's own (``sys.stdout =
        StringIO()`` installs none: the common case ends here).
    """
    system = import_system_names(sites)
    installed = []                      # (value node, line)
    values = {}                         # id(target) -> value, per statement walked
    walked = set()
    for target, value, statement in stores:
        if _root(target) not in system:
            continue
        if value is None:
            if id(statement) not in walked:
                walked.add(id(statement))
                for sub in walk(statement):
                    if type(sub) is ast.Assign:
                        for t in sub.targets:
                            _pair(t, sub.value, values)
            value = values.get(id(target))
        if value is not None and _may_install(value, module_bound):
            installed.append((value, target.lineno))
    if not installed:
        return {}
    defs = {}
    _module_defs(tree.body, defs)
    load_of = {id(load.node): name for name, loads in global_loads.items()
               for load in loads}
    readers = {}
    for value, line in installed:
        for name in _reads(_functions(value, defs), defs, load_of):
            readers.setdefault(name, line)
    return readers


def _pair(target, value, values) -> None:
    """Map each target of an assignment to its value (``os.stat, os.lstat = f, g``
    element by element)."""
    values[id(target)] = value
    if type(target) in (ast.Tuple, ast.List) and type(value) in (ast.Tuple, ast.List) \
            and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            _pair(t, v, values)


def _may_install(value, module_bound) -> bool:
    """Whether ``value`` may be (or make) a function of the module's own."""
    kind = type(value)
    if kind is ast.Lambda:
        return True
    if kind is ast.Name:
        return value.id in module_bound
    if kind is ast.Call:
        return any(_may_install(part, module_bound)
                   for part in (value.func, *value.args, *(k.value for k in value.keywords)))
    return False


def _module_defs(body, defs) -> None:
    """The module-level functions, by name (in ``if``/``try``/``with`` blocks too)."""
    for node in body:
        kind = type(node)
        if kind in _DEFS:
            defs.setdefault(node.name, []).append(node)
        elif kind is not ast.ClassDef:
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(node, field, None)
                if type(block) is list:
                    _module_defs(block, defs)


def _functions(value, defs) -> list:
    """The code ``value`` installs: a lambda, a function of the module named, or what
    a call of the module's functions makes (the functions called and passed)."""
    if type(value) is ast.Lambda:
        return [value]
    if type(value) is ast.Name:
        return list(defs.get(value.id, ()))
    if type(value) is ast.Call:
        found = []
        for part in (value.func, *value.args, *(k.value for k in value.keywords)):
            found += _functions(part, defs)
        return found
    return []


def _reads(functions, defs, load_of) -> set:
    """The imported names the functions read, with those the module's functions they
    name read (transitively)."""
    names = set()
    seen = set()
    todo = list(functions)
    while todo:
        function = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        for sub in walk(function):
            if type(sub) is ast.Name:
                name = load_of.get(id(sub))
                if name is not None:
                    names.add(name)
                elif sub.id in defs and type(sub.ctx) is ast.Load:
                    todo.extend(defs[sub.id])
    return names
