"""Deeply nested source (lazify._deep): check, rewrite, diff and fix do with a file Python
compiles what they do with any other, or say in one line that it is too deep for them."""

from __future__ import annotations

import sys
import threading

import pytest

from lazify import _deep
from tests._util import child_env, lazify_forks, write

#: a sum of 900 terms (generated code: a table, a long concatenation), which every Python
#: compiles: deeper than the default recursion limit lets the planner (3.10) and libcst
#: walk it, and libcst's parser overflowed a small main-thread stack (SIGSEGV)
DEEP = "import json\n\n\ndef f():\n    return json.x + %s\n" % " + ".join(["1"] * 900)

#: 3.12 counts C-level calls against a fixed limit no stack raises, and libcst's walks
#: make them: they stop at about 730 terms there (the planner's, in Python, do not)
TOO_DEEP_FOR_LIBCST = sys.version_info[:2] == (3, 12)

ARGV = {"rewrite": ["rewrite", "deep.py"], "diff": ["diff", "deep.py"],
        "fix": ["fix", "--diff", "deep.py"], "check": ["check", "deep.py"]}


@pytest.fixture(scope="module")
def deep_runs(tmp_path_factory):
    """Each command of ARGV on deep.py under a 1 MiB main-thread stack (``ulimit -s
    1024``), each in a fork of one child (tests/_util.lazify_forks): {command: (exit
    status, stdout, stderr, {"deep.py": its text after the command})}."""
    import resource

    root = tmp_path_factory.mktemp("deep")
    write(root, "deep.py", DEEP)
    stack = 1024 * 1024
    return lazify_forks(
        ARGV, cwd=root, env=child_env({"LAZIFY_MECHANISM": "rewrite"}), watch=["deep.py"],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (stack, stack)))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_STACK")
@pytest.mark.parametrize("command", sorted(ARGV))
def test_a_deep_expression_python_compiles(deep_runs, command):
    """Under a 1 MiB main-thread stack (``ulimit -s 1024``): the commands run their walks
    on a stack of their own.  Before, rewrite, diff and fix died of SIGSEGV in libcst's
    parser (3.11-3.15), or said 'lazify internal error: RecursionError' (3.10, and check
    there too)."""
    status, stdout, stderr, after = deep_runs[command]
    if TOO_DEEP_FOR_LIBCST and command != "check":
        what = ("not fixable by `lazify fix`" if command == "fix"
                else "not rewritable by `lazify rewrite`/`diff`")
        assert (status, stdout, stderr) == (
            1, "", f"lazify {command}: deep.py: nested too deeply for lazify's recursive "
                   f"walks of the tree on Python 3.12; {what}, left as it is\n")
        return
    assert (status, stderr) == (1 if command == "fix" else 0, ""), stderr
    expected = {"rewrite": "__lazy__.json.x + 1 + 1", "diff": "+    return __lazy__.json.x",
                "fix": "+lazy import json", "check": "Lazy 1, Eager 0"}[command]
    assert expected in stdout
    assert after == {"deep.py": DEEP}


def test_the_large_stack_hands_back_what_the_work_did():
    """A result and an exception of the work's come back as they are; a RecursionError
    is TooDeep; the recursion limit and the stack size for new threads are restored."""
    limit, stack = sys.getrecursionlimit(), threading.stack_size()

    def deeper(n):
        return deeper(n + 1)

    def fails():
        raise KeyError("its own")

    assert _deep.on_large_stack(lambda a, b: (a, b, sys.getrecursionlimit()), 1, 2) == (
        1, 2, max(limit, _deep.LIMIT))
    with pytest.raises(KeyError, match="its own"):
        _deep.on_large_stack(fails)
    with pytest.raises(_deep.TooDeep, match="nested too deeply"):
        _deep.call(deeper, 0)
    assert (sys.getrecursionlimit(), threading.stack_size()) == (limit, stack)


def test_where_no_large_stack_can_be_had_the_work_runs_here(monkeypatch):
    """A stack size the system refuses (a 32-bit address space, strict overcommit): the
    work runs in the calling thread, as before, not 'too deep' for every file."""
    def refused(size=0):
        if size:
            raise ValueError("size not valid: %d bytes" % size)
        return 0

    monkeypatch.setattr(threading, "stack_size", refused)
    here = threading.get_ident()
    assert _deep.on_large_stack(lambda: threading.get_ident()) == here
    with pytest.raises(_deep.TooDeep):
        _deep.on_large_stack(lambda: (_ for _ in ()).throw(RecursionError()))
