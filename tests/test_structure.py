"""The shape of lazify's modules, read from their AST: no import cycle between them
(function-level imports included), no module using another's private names and no
function over 100 lines."""

import ast
import functools
import os

import lazify

PACKAGE = os.path.dirname(lazify.__file__)
LONGEST = 100

@functools.cache
def _modules():
    """(name, is_package, tree) of every module of lazify, subpackages included: parsed
    once for the tests of this module, which only read the trees."""
    found = []
    for directory, _dirs, files in sorted(os.walk(PACKAGE)):
        parts = os.path.relpath(directory, PACKAGE).split(os.sep)
        prefix = ".".join(["lazify", *(p for p in parts if p != ".")])
        for file in sorted(files):
            if file.endswith(".py"):
                is_package = file == "__init__.py"
                name = prefix if is_package else f"{prefix}.{file[:-3]}"
                with open(os.path.join(directory, file), encoding="utf-8") as source:
                    found.append((name, is_package, ast.parse(source.read(), file)))
    return tuple(found)


def _parents(name):
    """The packages that importing ``name`` runs first (edges into them say nothing)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _imports(name, is_package, tree, known):
    """The lazify modules ``name`` imports anywhere in its code."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = package + (f".{base}" if base else "")
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found - _parents(name)


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                result.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


def test_no_import_cycle_between_lazifys_modules():
    modules = {name: (is_package, tree) for name, is_package, tree in _modules()}
    # a module's parent packages run first whatever it imports (lazify/__init__.py for
    # every one): edges into them say nothing
    graph = {name: _imports(name, is_package, tree, modules.keys())
             for name, (is_package, tree) in modules.items()}
    assert graph["lazify._importlib_bootstrap"] >= {"lazify._settings", "lazify._guarded"}
    assert "lazify._cli.check" in graph
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [frozenset({"a", "b", "c"})]


def test_no_function_over_100_lines():
    long = set()
    for name, _is_package, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > LONGEST:
                    long.add(f"{name}.{node.name}")
    assert long == set()


def _private_uses(name, is_package, tree, known):
    """``module._name`` for each private name (one underscore) of another lazify module
    that ``name`` imports (``from lazify._x import _y``) or reads (``_x._y``)."""
    package = name if is_package else name.rpartition(".")[0]
    aliases, found = {}, set()

    def private(module, attr):
        if attr.startswith("_") and not attr.startswith("__") and f"{module}.{attr}" not in known:
            found.add(f"{module}.{attr}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif base in known and base != name:
                    private(base, alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and aliases.get(node.value.id, name) != name:
            private(aliases[node.value.id], node.attr)
    return found


def test_no_module_uses_anothers_private_names():
    """What a module uses of another is public there: a leading underscore means
    "this module's own", so renaming it never breaks a module that does not say so."""
    modules = {name: (is_package, tree) for name, is_package, tree in _modules()}
    used = set()
    for name, (is_package, tree) in modules.items():
        used.update(f"{name}: {use}" for use in _private_uses(name, is_package, tree, modules.keys()))
    assert used == set()


def test_the_private_name_finder_finds_them():
    source = ("from . import _cache\nfrom ._hook import _never, plain_modules\n"
              "import lazify._plan as plan\n"
              "def f():\n    return _cache._read_file, plan._replaced, _cache.read_cached, _never\n"
              "def g(self):\n    return self._own\n")
    known = {"lazify", "lazify._cache", "lazify._hook", "lazify._plan", "lazify._x"}
    assert _private_uses("lazify._x", False, ast.parse(source), known) == {
        "lazify._cache._read_file", "lazify._hook._never", "lazify._plan._replaced"}
