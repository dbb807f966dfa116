"""PEP 810's ``lazy`` keyword on every Python: lazify's parse, hook and commands, compared
with the same source run natively on 3.15.

Where a Python 3.15 is at hand (the running one, or ``LAZIFY_PYTHON315``, else
``/opt/sid-python/3.15/bin/python3.15``) each test runs it on the same files and compares;
the expectations written here were recorded from it (3.15.2) and are checked either way.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from lazify import _keyword, _sources
from tests._sample import full
from tests._util import child_env, run_python

NATIVE = sys.version_info >= (3, 15)


def _python315():
    if NATIVE:
        return sys.executable
    for candidate in (os.environ.get("LAZIFY_PYTHON315"), "/opt/sid-python/3.15/bin/python3.15"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


PY315 = _python315()


def _run315(args, cwd):
    """Run the 3.15 interpreter without lazify (None when there is none)."""
    if PY315 is None:
        return None
    return subprocess.run([PY315, *args], cwd=cwd, env=child_env({"PYTHONPATH": None}),
                          capture_output=True, text=True, timeout=120)


def write(root, files):
    """Write {relative path: text}, dated an hour back (so that it is cacheable)."""
    old = time.time() - 3600
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        os.utime(path, (old, old))
    return root


# ------------------------------------------------------------------ parsing

#: source -> 3.15's SyntaxError (msg, lineno, offset, end_lineno, end_offset), or None
#: where 3.15 accepts it
PARSE_CASES = {
    "def f():\n    lazy import json\n":
        ("lazy import not allowed inside functions", 2, 5, 2, 21),
    "async def f():\n    lazy import json\n":
        ("lazy import not allowed inside functions", 2, 5, 2, 21),
    "class C:\n    lazy import json\n": ("lazy import not allowed inside classes", 2, 5, 2, 21),
    "try:\n    lazy import json\nexcept ImportError: pass\n":
        ("lazy import not allowed inside try/except blocks", 2, 5, 2, 21),
    "try:\n    pass\nfinally:\n    lazy import json\n":
        ("lazy import not allowed inside try/except blocks", 4, 5, 4, 21),
    "try:\n    class C:\n        lazy import x\nexcept: pass\n":
        ("lazy import not allowed inside classes", 3, 9, 3, 22),
    "class C:\n    try:\n        lazy import x\n    except: pass\n":
        ("lazy import not allowed inside try/except blocks", 3, 9, 3, 22),
    "def f():\n    x = 1; lazy from a import b\n":
        ("lazy from ... import not allowed inside functions", 2, 12, 2, 32),
    "def f():\n    é = 1; lazy from a import b\n":
        ("lazy from ... import not allowed inside functions", 2, 13, 2, 33),
    "def f():\n    lazy from a import (b,\n        c)\n":
        ("lazy from ... import not allowed inside functions", 2, 5, 3, 11),
    "def f():\n\tlazy import x\n": ("lazy import not allowed inside functions", 2, 2, 2, 15),
    "lazy from json import *\n": ("lazy from ... import * is not allowed", 1, 1, 1, 24),
    "lazy import a; lazy from b import *\n": ("lazy from ... import * is not allowed", 1, 16, 1, 36),
    "é=1; lazy from x import *\n": ("lazy from ... import * is not allowed", 1, 7, 1, 27),
    "lazy from __future__ import annotations\n":
        ("lazy from __future__ import is not allowed", 1, 1, 1, 5),
    "lazy import a\nlazy from __future__ import b\n":
        ("lazy from __future__ import is not allowed", 2, 1, 2, 5),
    "é=1; lazy from __future__ import x\n": ("lazy from __future__ import is not allowed", 1, 6, 1, 10),
    "lazy import a\nfrom __future__ import annotations\n":
        ("from __future__ imports must occur at the beginning of the file", 2, 1, 2, 35),
    "lazy from a import (b,\n  c)\ndef f():\n    lazy import (x)\n": ("invalid syntax", 4, 17, 4, 18),
    "try:\n  pass\nexcept* E:\n  lazy import x\n":
        ("lazy import not allowed inside try/except blocks", 4, 3, 4, 16),
    # accepted
    "with x:\n    lazy import json\n": None,
    "if x:\n    lazy import json\n": None,
    "x = 1; lazy import json\n": None,
    "if 1: lazy import json\n": None,
    "lazy  import  json\n": None,
    "lazy\\\n import json\n": None,
    "lazy import json.x as y, os\n": None,
    "lazy from . import x\n": None,
    "é = 1; lazy from a import b\n": None,
    '"""doc"""\nlazy import a\n': None,
    "lazy import a  # c\n\n\nlazy from b import (c as d,\n   e)\nif x:\n  lazy import f\n"
    "else:\n  lazy import g\n": None,
    "lazy import x\r\nlazy import y\r\n": None,
    # ``lazy`` as a name
    "lazy = 1\nprint(lazy)\n": None,
    "lazy [1]\n": None,
    "lazy.import_x()\n": None,
    "def f(lazy): return lazy\n": None,
    "match lazy:\n    case 1: pass\n": None,
    "raise lazy from e\n": None,
    "x = lazy\nimport os\n": None,
    "x = (lazy\n, lazy)\nimport os\n": None,
    # ``:`` that starts no block
    "x: lazy import y\n": ("invalid syntax", 1, 9, 1, 15),
    "f = lambda: lazy import y\n": ("invalid syntax", 1, 18, 1, 24),
}


def _norm(node):
    """A tree as comparable data: what 3.15's ast.dump omits (empty lists, ctx) left out."""
    if isinstance(node, list):
        return [_norm(x) for x in node]
    if not isinstance(node, ast.AST):
        return node
    out = {"_": type(node).__name__}
    for field in node._fields + node._attributes:
        value = getattr(node, field, None)
        if value not in (None, []) and field != "ctx":
            out[field] = _norm(value)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        out["is_lazy"] = getattr(node, "is_lazy", 0)
    return out


def _outcome(source: str):
    """What parsing and compiling ``source`` gives: 3.15's SyntaxError, or the tree."""
    try:
        tree = _sources.parse(source.encode(), "/nonexistent/m.py")
        compile(tree, "/nonexistent/m.py", "exec", dont_inherit=True)
    except SyntaxError as e:
        return ["SyntaxError", e.msg, e.lineno, e.offset, e.end_lineno, e.end_offset]
    return _norm(tree)


_NATIVE_OUTCOMES = """
import ast, json, sys
cases = json.loads(sys.stdin.read())
def norm(node):
    if isinstance(node, list):
        return [norm(x) for x in node]
    if not isinstance(node, ast.AST):
        return node
    out = {"_": type(node).__name__}
    for field in node._fields + node._attributes:
        value = getattr(node, field, None)
        if value not in (None, []) and field != "ctx":
            out[field] = norm(value)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        out["is_lazy"] = getattr(node, "is_lazy", 0)
    return out
result = []
for source in cases:
    try:
        tree = compile(source.encode(), "/nonexistent/m.py", "exec", ast.PyCF_ONLY_AST)
        compile(source.encode(), "/nonexistent/m.py", "exec")
        result.append(norm(tree))
    except SyntaxError as e:
        result.append(["SyntaxError", e.msg, e.lineno, e.offset, e.end_lineno, e.end_offset])
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def native_outcomes():
    """3.15's own outcome for every case (None without a 3.15)."""
    if PY315 is None:
        return None
    proc = subprocess.run([PY315, "-c", _NATIVE_OUTCOMES], input=json.dumps(list(PARSE_CASES)),
                          capture_output=True, text=True, timeout=120, env=child_env())
    assert proc.returncode == 0, proc.stderr
    return dict(zip(PARSE_CASES, json.loads(proc.stdout)))


@pytest.mark.parametrize("source", PARSE_CASES)
def test_parse_as_315(source, native_outcomes):
    """lazify's parse gives 3.15's tree (positions, ``is_lazy``) and 3.15's SyntaxError
    (message, line, column, end)."""
    if "except*" in source and sys.version_info < (3, 11):
        pytest.skip("except* is 3.11 syntax")
    got = _outcome(source)
    recorded = PARSE_CASES[source]
    if recorded is not None:
        assert got == ["SyntaxError", *recorded]
    else:
        assert isinstance(got, dict)
        assert sum(1 for n in ast.walk(_sources.parse(source.encode(), "m.py"))
                   if getattr(n, "is_lazy", 0)) == len(re.findall(
                       r"(?m)(?:^|; |: )\s*lazy\\?\s+(?:import|from) ", source))
    if native_outcomes is not None:
        assert native_outcomes[source] == (["SyntaxError", *recorded] if recorded else got)


@pytest.mark.parametrize("source, found", [
    (b"import json\n", False),
    (b"lazy = 1\nx = lazy\n", False),
    (b"lazy import json\n", True),
    (b"lazy\tfrom x import y\n", True),
    (b"lazy\\\n import json\n", True),
    (b"x = lazy\nimport os\n", False),
    (b"lazy_import = 1\nlazyimport = 2\n", False),
    ("lazy import é\n", True),
    (b"x = 1; lazy import json\n", True),
    (b"if x: lazy from y import z\n", True),
    (b"\xef\xbb\xbflazy import json\n", True),
    (b"# a lazy import of json\n", False),      # a mention: no tokenizing
    (b'"""Uses a lazy from-import."""\n', False),
])
def test_mentions_is_a_byte_search(source, found):
    assert _keyword.mentions(source) is found


def test_plain_modules_are_parsed_by_compile_alone(monkeypatch):
    """A source without the words costs nothing more: the tokenizer is never run."""
    calls = []
    monkeypatch.setattr(_keyword, "_statements", lambda text: calls.append(text) or ([], None))
    _sources.parse(b"import json\nlazy = 1\nprint(lazy)\n", "m.py")
    assert calls == []


# ------------------------------------------------------------------ scenarios

DEFERRED = {
    "mod.py": '''
        """Explicit lazy imports, and ``lazy`` as a name beside them."""
        import sys
        lazy import colorsys
        lazy from fractions import Fraction, gcd as _unused_name
        lazy import xml.dom.minidom
        lazy import email.mime.text as mt
        if True:
            lazy import wave
        print("at import", [m in sys.modules for m in
              ("colorsys", "fractions", "xml.dom.minidom", "email.mime.text", "wave")])
        lazy = [10, 20]
        print(lazy [1], lazy.index(20))
        def twice(lazy):
            return lazy * 2
        match lazy:
            case [a, b]:
                print("match", a, twice(lazy=b))
        def use():
            return (colorsys.__name__, str(Fraction(1, 3)),
                    xml.dom.minidom.__name__, mt.__name__, wave.__name__)
    ''',
    "main.py": '''
        import sys
        import mod
        print("after import", "colorsys" in sys.modules, "fractions" in sys.modules)
        print(mod.use())
        print("after use", [m in sys.modules for m in
              ("colorsys", "fractions", "xml.dom.minidom", "email.mime.text", "wave")])
    ''',
}

DEFERRED_OUT = """\
at import [False, False, False, False, False]
20 1
match 10 40
after import False False
('colorsys', '1/3', 'xml.dom.minidom', 'email.mime.text', 'wave')
after use [True, True, True, True, True]
"""

#: lazify's two modes: explicit lazy imports are lazy in both
MODES = {"global": "import lazify; lazify.install()\n",
         "explicit only": "import lazify; lazify.install(enabled=False)\n"}


def _lazified(root, mode, script="main.py", env=None):
    code = MODES[mode] + f"import runpy; runpy.run_path({script!r}, run_name='__main__')\n"
    xdg = str(root.parent / ".xdg")
    return run_python(["-c", code], cwd=root, env_extra={"XDG_CACHE_HOME": xdg, **(env or {})})


@pytest.mark.parametrize("mode", MODES)
def test_explicit_lazy_imports_run_as_on_315(tmp_path, mode):
    root = write(tmp_path / "app", DEFERRED)
    proc = _lazified(root, mode)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == DEFERRED_OUT
    native = _run315(["main.py"], root)
    if native is not None:
        assert (native.returncode, native.stdout) == (0, DEFERRED_OUT), native.stderr


@pytest.mark.skipif(NATIVE, reason="3.15 reads the keyword itself")
def test_without_lazify_the_keyword_is_a_syntax_error(tmp_path):
    root = write(tmp_path / "app", DEFERRED)
    proc = run_python(["main.py"], cwd=root)
    assert proc.returncode == 1
    assert proc.stderr.rstrip().endswith("SyntaxError: invalid syntax")


#: module source -> the SyntaxError line of the report: the message, and where
INVALID = {
    "def f():\n    lazy import json\n": "lazy import not allowed inside functions 2 5 2 21",
    "class C:\n    lazy from json import dumps\n":
        "lazy from ... import not allowed inside classes 2 5 2 32",
    "try:\n    lazy import json\nexcept ImportError:\n    pass\n":
        "lazy import not allowed inside try/except blocks 2 5 2 21",
    "lazy from json import *\n": "lazy from ... import * is not allowed 1 1 1 24",
    "lazy from __future__ import annotations\n":
        "lazy from __future__ import is not allowed 1 1 1 5",
}

_REPORT = """
import os, traceback
for name in sorted(n[:-3] for n in os.listdir(".") if n.startswith("bad")):
    print("==", name)
    try:
        __import__(name)
    except SyntaxError as e:
        base = os.path.basename(e.filename)
        print(e.msg, e.lineno, e.offset, e.end_lineno, e.end_offset)
        print(repr(e.text), base)
        print("".join(traceback.format_exception_only(type(e), e)).replace(e.filename, base))
"""


@pytest.mark.parametrize("mode", MODES)
def test_invalid_uses_raise_315s_syntax_error(tmp_path, mode):
    """Inside a function, a class, a ``try``; ``*``; ``__future__``: the SyntaxError
    3.15 raises, as the traceback shows it (the line and its carets). One run imports
    every case (module ``badN``), then each is imported uncaught in a run of its own."""
    sources = list(INVALID)
    root = write(tmp_path / "app", {"main.py": _REPORT})
    for i, source in enumerate(sources):
        (root / f"bad{i}.py").write_text(source)
        (root / f"uncaught{i}.py").write_text(f"import bad{i}\n")
    proc = _lazified(root, mode)
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.split("== ")[1:]
    assert len(blocks) == len(sources), proc.stdout
    for i, (source, block) in enumerate(zip(sources, blocks)):
        lines = block.splitlines()
        assert lines[0] == f"bad{i}"
        assert lines[1] == INVALID[source]
        line = source.splitlines()[int(INVALID[source].split()[-4]) - 1]
        assert lines[2] == repr(line + "\n") + f" bad{i}.py"
    native = _run315(["main.py"], root)
    if native is not None:
        assert native.stdout == proc.stdout, native.stderr
    # uncaught: one SyntaxError, not one chained to the plain compile's (the messages
    # are the caught run's; by default one case a mode, LAZIFY_FULL_TESTS=1 every one)
    for i, source in enumerate(sources):
        if not full() and i != list(MODES).index(mode):
            continue
        uncaught = _lazified(root, mode, script=f"uncaught{i}.py")
        assert uncaught.returncode == 1
        assert "During handling" not in uncaught.stderr
        assert uncaught.stderr.rstrip().endswith("SyntaxError: " + INVALID[source].rsplit(" ", 4)[0])


TRACEBACK = {
    "mod.py": '''
        lazy import colorsys
        lazy from no_such_module_xyz import thing
        def f():
            return   [thing][0]
        value = {"a": 1}
        def g():
            return colorsys.hsv_to_rgb(0, 0, 0)[value["b"]]
    ''',
    "main.py": '''
        import traceback
        import mod
        for call in (mod.f, mod.g):
            try:
                call()
            except Exception as e:
                frames = [(f.name, f.lineno, getattr(f, "colno", "-"), getattr(f, "end_colno", "-"),
                           f.line) for f in traceback.extract_tb(e.__traceback__)
                          if f.filename.endswith("mod.py")]
                print(type(e).__name__, str(e), frames)
    ''',
}

TRACEBACK_OUT = """\
ModuleNotFoundError No module named 'no_such_module_xyz' [('f', 4, 14, 19, 'return   [thing][0]')]
KeyError 'b' [('g', 7, 40, 50, 'return colorsys.hsv_to_rgb(0, 0, 0)[value["b"]]')]
"""


@pytest.mark.parametrize("mode", MODES)
def test_errors_point_at_the_users_line_and_column(tmp_path, mode):
    """A failing explicit import raises where its name is first used (not at the
    statement, even in a module imported under ``try``), and every frame of the user's
    keeps its line and columns."""
    root = write(tmp_path / "app", TRACEBACK)
    proc = _lazified(root, mode)
    assert proc.returncode == 0, proc.stderr
    expected = TRACEBACK_OUT
    if sys.version_info < (3, 11):
        expected = re.sub(r", \d+, \d+, '", ", '-', '-', '", expected)
    assert proc.stdout == expected
    native = _run315(["main.py"], root)
    if native is not None:
        assert native.stdout == TRACEBACK_OUT, native.stderr


@pytest.mark.skipif(NATIVE, reason="the hook's reading of the keyword is for 3.10-3.14")
def test_module_with_the_keyword_is_cached_like_any_other(tmp_path):
    """The second start reads lazify's cache: no parse, no rewrite."""
    root = write(tmp_path / "app", DEFERRED)
    first = _lazified(root, "global", env={"LAZIFY_DEBUG": "1"})
    assert "lazify: compiled mod" in first.stderr.splitlines()
    for mode in MODES:         # the same code whatever the mode
        again = _lazified(root, mode, env={"LAZIFY_DEBUG": "1"})
        assert first.stdout == again.stdout == DEFERRED_OUT, again.stderr
        assert "lazify: cached mod" in again.stderr.splitlines()


@pytest.mark.rewrite_only("lazify rewrite's output for explicit lazy imports")
def test_check_reports_explicit_and_rewrite_output_runs(tmp_path, lazify_cli):
    """``check`` reads the keyword on every Python (``lazy (explicit)``); the output of
    ``rewrite`` runs on this Python, and ``compile`` fills the cache the hook reads."""
    root = write(tmp_path / "app", DEFERRED)
    check = run_python(["-m", "lazify", "check", "--mechanism", "rewrite", "mod.py"], cwd=root)
    assert check.returncode == 0, check.stderr
    rows = [line for line in check.stdout.splitlines() if line.startswith("mod.py:")]
    assert re.search(r"mod\.py:3 +lazy import colorsys +LAZY +explicit$", rows[1]), rows
    assert "explicit 6" in check.stdout
    proc = lazify_cli(["rewrite", "mod.py"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    rewritten = proc.stdout
    # before 3.15 the statements become lazify's; 3.15 defers them itself
    statements = re.findall(r"(?m)^\s*lazy (?:import|from) ", rewritten)
    assert len(statements) == (5 if NATIVE else 0), rewritten
    assert ("__lazy_explicit_import__(('colorsys', None))" in rewritten) is not NATIVE
    (root / "mod.py").write_text(rewritten)
    plain = run_python(["main.py"], cwd=root)         # the runtime, without the hook
    assert (plain.returncode, plain.stdout) == (0, DEFERRED_OUT), plain.stderr


@pytest.mark.skipif(NATIVE, reason="the hook's reading of the keyword is for 3.10-3.14")
def test_compile_writes_the_cache_for_a_module_with_the_keyword(tmp_path):
    root = write(tmp_path / "app", DEFERRED)
    proc = run_python(["-m", "lazify", "compile", "."], cwd=root)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    run = _lazified(root, "global", env={"LAZIFY_DEBUG": "1"})
    assert run.stdout == DEFERRED_OUT, run.stderr
    assert "lazify: cached mod" in run.stderr.splitlines()


def test_excluded_module_keeps_its_explicit_imports_lazy(tmp_path):
    """An excluded module's own imports stay eager; its ``lazy`` ones stay lazy (as
    ``__lazy_modules__`` does), as 3.15 has them."""
    root = write(tmp_path / "app", {
        "mod.py": "import sys\nlazy import colorsys\nimport wave\n"
                  "print('colorsys' in sys.modules, 'wave' in sys.modules)\n",
        "main.py": "import mod\n"})
    proc = _lazified(root, "global", env={"LAZIFY_EXCLUDING": "mod"})
    assert (proc.returncode, proc.stdout) == (0, "False True\n"), proc.stderr


def test_explicit_only_mode_under_bytes_warnings_as_errors(tmp_path):
    """``python -bb``: the hook's check of a plain module for ``__lazy_modules__`` compares
    no str with its bytes constants (click's own test suite runs a child with -bb)."""
    root = write(tmp_path / "app", {"mod.py": "DASH = b'-'\nimport json\nprint(DASH.decode())\n",
                                    "kw.py": "lazy import json\nX = b'x'\n"})
    code = MODES["explicit only"] + "import mod, kw; print(kw.X.decode())\n"
    proc = run_python(["-bb", "-c", code], cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "-\nx\n"), proc.stderr


KEPT_EAGER = '''\
import typing as t
if t.TYPE_CHECKING:
    lazy from decimal import Decimal
lazy import json, colorsys
def f():
    """>>> Decimal(1)
    Decimal('1')
    """
    return json, colorsys
'''


@pytest.mark.skipif(NATIVE, reason="3.15 keeps the statements as written")
def test_explicit_import_the_rewrite_keeps_eager_loses_its_keyword():
    """An explicit import the rewrite cannot defer (a doctest reads it: doctest copies
    the module's namespace) stays eager and, in ``rewrite``'s source as in the hook's tree, is a plain import:
    the output compiles before 3.15, and both emitters make the same program."""
    from lazify._emit_ast import emit
    from lazify._emit_cst import emit_cst
    from lazify._rewrite import plan_source

    data = KEPT_EAGER.encode()
    nodes = {}
    tree = _sources.parse(data, "m.py")
    plan = plan_source(tree, data, "m.py", module="m", nodes=nodes)
    verdicts = {n.name: (n.lazy, n.reason and str(n.reason)) for s in plan.imports for n in s.names}
    assert verdicts["Decimal"] == (False, "doctest")
    assert verdicts["json"] == verdicts["colorsys"] == (True, None)
    source = emit_cst(data, plan)
    assert b"    from decimal import Decimal\n" in source
    assert not re.search(rb"(?m)^\s*lazy (import|from) ", source)
    assert ast.dump(compile(source, "m.py", "exec", ast.PyCF_ONLY_AST)) == \
        ast.dump(emit(tree, plan, nodes))
