"""Every node of a syntax tree, as ``ast.walk`` yields them, importing nothing.

``ast.walk`` imports ``collections`` at its first call (3.15, and Debian's 3.14).
Called by the rewriter while the hook rewrites a module, that import is served plain,
as everything the rewriter imports then; unless the kept measurement of the
rewriter's dependencies (:mod:`lazify._rewriter_deps`, made on samples) saw it too,
the next start rewrote ``collections``, ``keyword`` and ``reprlib`` and loaded the
rewriter to do so.  Every walk of the rewriter is this one: ``collections`` is not a
dependency, and stays rewritable.
"""

import ast


def walk(node):
    """Every node below ``node`` (and itself), in no particular order."""
    stack = [node]
    while stack:
        node = stack.pop()
        stack.extend(ast.iter_child_nodes(node))
        yield node
