"""The shape of lazify's modules, read from their AST: no import cycle between them
(function-level imports included) and no function over 100 lines."""

import ast
import os

import lazify

PACKAGE = os.path.dirname(lazify.__file__)
LONGEST = 100

# The command-line modules are being made a package with one module per command
# (issue 28, branch scli); what they still have is allowed here until that merges.
# Drop these two allowlists then.
CLI_CYCLES = {
    frozenset({"lazify._cli", "lazify._diff", "lazify._fix", "lazify._report"}),
}
CLI_LONG_FUNCTIONS = {
    "lazify._cli._commands",
}


def _modules():
    for file in sorted(os.listdir(PACKAGE)):
        if file.endswith(".py"):
            name = "lazify" if file == "__init__.py" else f"lazify.{file[:-3]}"
            with open(os.path.join(PACKAGE, file), encoding="utf-8") as source:
                yield name, file, ast.parse(source.read(), file)


def _imports(name, tree, known):
    """The lazify modules ``name`` imports anywhere in its code."""
    package = name if name == "lazify" else name.rpartition(".")[0]
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
    return found


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
    modules = {name: tree for name, _file, tree in _modules()}
    # ``lazify`` itself is every module's parent package: importing lazify.x runs
    # lazify/__init__.py first whatever x imports, so edges into it say nothing
    graph = {name: _imports(name, tree, modules.keys() - {"lazify"})
             for name, tree in modules.items()}
    assert graph["lazify._importlib_bootstrap"] >= {"lazify._settings", "lazify._guarded"}
    assert set(_cycles(graph)) - CLI_CYCLES == set()


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [frozenset({"a", "b", "c"})]


def test_no_function_over_100_lines():
    long = set()
    for name, _file, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > LONGEST:
                    long.add(f"{name}.{node.name}")
    assert long - CLI_LONG_FUNCTIONS == set()
