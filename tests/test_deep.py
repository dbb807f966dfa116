"""Deeply nested source (lazify._deep): check, rewrite, diff and fix do with a file Python
compiles what they do with any other, or say in one line that it is too deep for them."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from lazify import _deep
from tests._util import child_env, write

#: a sum of 900 terms (generated code: a table, a long concatenation), which every Python
#: compiles: deeper than the default recursion limit lets the planner (3.10) and libcst
#: walk it, and libcst's parser overflowed a small main-thread stack (SIGSEGV)
DEEP = "import json\n\n\ndef f():\n    return json.x + %s\n" % " + ".join(["1"] * 900)

#: 3.12 counts C-level calls against a fixed limit no stack raises, and libcst's walks
#: make them: they stop at about 730 terms there (the planner's, in Python, do not)
TOO_DEEP_FOR_LIBCST = sys.version_info[:2] == (3, 12)

ARGV = {"rewrite": ["rewrite", "deep.py"], "diff": ["diff", "deep.py"],
        "fix": ["fix", "--diff", "deep.py"], "check": ["check", "deep.py"]}


#: The child under the small stack: lazify's command line and libcst imported once (about
#: 0.3 s of CPU a process), then each command in a fork of it (its own process: exit
#: status, stdout and stderr to files), on the main thread's stack ``ulimit -s`` set
DRIVER = r"""
import json, os, sys, traceback
import lazify._main, lazify._emit_cst
out = sys.argv[2]
for command, argv in json.loads(sys.argv[1]).items():
    pid = os.fork()
    if pid == 0:
        for fd, stream in ((1, "stdout"), (2, "stderr")):
            os.dup2(os.open(os.path.join(out, command + "." + stream),
                            os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        try:
            code = lazify._main.main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 1)
    with open(os.path.join(out, command + ".status"), "w") as f:
        f.write(str(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])))
    with open("deep.py") as f, open(os.path.join(out, command + ".after"), "w") as after:
        after.write(f.read())
"""


@pytest.fixture(scope="module")
def deep_runs(tmp_path_factory):
    """Each command of ARGV on deep.py under a 1 MiB main-thread stack (``ulimit -s
    1024``): {command: (exit status, stdout, stderr, deep.py after it)}."""
    import json
    import resource

    root = tmp_path_factory.mktemp("deep")
    out = tmp_path_factory.mktemp("deep-out")
    write(root, "deep.py", DEEP)
    stack = 1024 * 1024
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(ARGV), str(out)], cwd=root,
        capture_output=True, text=True, env=child_env({"LAZIFY_MECHANISM": "rewrite"}),
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (stack, stack)))
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return {command: (int((out / f"{command}.status").read_text()),
                      (out / f"{command}.stdout").read_text(),
                      (out / f"{command}.stderr").read_text(),
                      (out / f"{command}.after").read_text())
            for command in ARGV}


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
    assert after == DEEP


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
