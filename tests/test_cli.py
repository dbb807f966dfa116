"""The ``lazify`` command line: ``main([...])`` plus ``capsys`` on ``tmp_path`` trees."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

from lazify import _cli, _reasons
from lazify._cli import main
from tests._util import ROOT, run_python

EXAMPLES = os.path.join(ROOT, "examples")


def write(root, relpath: str, text: str = "", *, raw: bytes | None = None) -> str:
    path = os.path.join(str(root), relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(raw if raw is not None else textwrap.dedent(text).encode("utf-8"))
    return path


def check_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def by_name(report: dict, path_end: str) -> dict:
    """The imports of the file whose path ends with *path_end*, keyed by bound name."""
    (entry,) = [f for f in report["files"] if f["path"].replace(os.sep, "/").endswith(path_end)]
    return {imp["name"]: imp for imp in entry["imports"]}


SIMPLE = """\
    import json
    try:
        import readline
    except ImportError:
        readline = None

    def f():
        import decimal
        return json.dumps(str(decimal))
"""


# ------------------------------------------------------------------- text report


def test_check_text_report(tmp_path, capsys):
    path = write(tmp_path, "mod.py", SIMPLE)
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    (json_line,) = [line for line in lines if line.startswith(f"{path}:1 ")]
    assert "import json" in json_line and json_line.split()[-1] == "LAZY"
    (try_line,) = [line for line in lines if line.startswith(f"{path}:3 ")]
    assert "import readline" in try_line and try_line.split()[-1] == "EAGER:try"
    (func_line,) = [line for line in lines if line.startswith(f"{path}:8 ")]
    assert func_line.split()[-1] == "EAGER:function"
    assert "1 file, 3 imports: Lazy 1, Eager 2" in out
    assert "Eager by reason: function 1, try 1" in out
    assert "Files that failed: 0" in out
    # the reasons in words once, in the legend after the summary
    legend = out[out.index("\nReasons:\n"):].splitlines()[2:]
    assert legend == ["  function  inside a function body",
                      "  try       inside try/except/else/finally"]
    assert "Tags:" not in out      # no tag occurs: no legend


def test_check_text_used_at_import_and_unused(tmp_path, capsys):
    path = write(
        tmp_path,
        "mod.py",
        """\
        import collections
        import readline
        Point = collections.namedtuple("Point", "x y")
        """,
    )
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    (line1,) = [line for line in out.splitlines() if line.startswith(f"{path}:1 ")]
    assert line1.endswith("  LAZY  used-at-import(3)")
    (line2,) = [line for line in out.splitlines() if line.startswith(f"{path}:2 ")]
    assert line2.endswith("  LAZY  unused")
    assert "Lazy with tags: used-at-import 1, unused 1\n" in out
    # the legend explains the tags that occur, once, after the summary
    legend = out[out.index("\nTags:\n"):].splitlines()[2:]
    assert [line.split()[0] for line in legend if not line.startswith("    ")] == [
        "used-at-import(N)", "unused"]
    assert "lazify.eager_imports()" in out[out.index("\nTags:\n"):]


def test_check_text_names_split_when_verdicts_differ(tmp_path, capsys):
    path = write(tmp_path, "mod.py", "import os, sys\nsys = 1\nprint(os)\n")
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert "import os, sys  [os]" in out
    (sys_line,) = [line for line in out.splitlines() if "[sys]" in line]
    assert sys_line.split()[-1] == "EAGER:rebound"
    assert "bound again" in out[out.index("\nReasons:\n"):]


#: A tree whose report has every reason code and every tag.
EVERY_ROW = {
    "app/__init__.py": """\
        from ._speedups import fast
        from .x import x
        from . import events  # noqa: F401
        from .duration import Duration

        def duration():
            return Duration, fast
    """,
    "app/_speedups" + EXTENSION_SUFFIXES[-1]: "",
    "app/mod.py": """\
        \"\"\"Module.

        >>> doctested.VALUE
        \"\"\"
        from __future__ import annotations
        import collections
        import readline
        import decimal
        import doctested
        import rebound_mod
        import typing_mod
        import shadowed
        from os.path import *
        from . import __all__
        from app.mod import helper
        try:
            import tried
        except ImportError:
            tried = None
        with open(__file__):
            import within
        rebound_mod = 1
        Point = collections.namedtuple("Point", "x y")
        value: typing_mod.T = None

        def total(amount: decimal.Decimal):
            import inner
            return inner

        def find(name):
            return globals()[name]

        class C:
            import in_class
            shadowed = shadowed
    """,
    # the namespace read keeps json eager, and so the __future__ import (one of its
    # names eager: all stay first; mod.py's is lazy)
    "app/dyn.py": "from __future__ import annotations\nimport json\n_names = sorted(globals())\n",
    "app/plain.py": "import readline\n",
    "app/skipped.py": "import json\n",
    # modules called lazy and eager (Django has a django.utils.functional.lazy), imported
    # lazily and eagerly: `grep -w LAZY`/`EAGER` must not confuse them with verdicts
    "app/names.py": "import lazy\nfrom eager import lazy as eager_lazy\ntry:\n"
                    "    import eager\nexcept ImportError:\n    pass\n"
                    "def f():\n    return lazy, eager_lazy\n",
}

ALL_REASONS = sorted(_reasons._WORDS, key=str)


def whole_word(word: str, line: str) -> list[int]:
    """Where ``word`` occurs in ``line`` as ``grep -w`` matches it."""
    return [m.start() for m in re.finditer(rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", line)]


def test_reason_words_and_tags_name_no_verdict():
    # the verdict column is the only place LAZY or EAGER appears: not in the legend
    for reason in ALL_REASONS:
        for word in ("LAZY", "EAGER"):
            assert not whole_word(word, reason.words), reason
    for tag, meaning in _cli.TAGS.values():
        for word in ("LAZY", "EAGER"):
            assert not whole_word(word, tag) and not whole_word(word, meaning), (tag, word)


def test_check_text_report_greps(tmp_path):
    """``lazify check PATH | grep -w EAGER`` lists the eager rows and nothing else;
    ``grep -w LAZY`` the lazy ones, on code that imports modules called lazy and eager."""
    for name, text in EVERY_ROW.items():
        write(tmp_path, name, text)
    if sys.version_info >= (3, 15):
        write(tmp_path, "app/explicit.py", "lazy import json\n")
    args = ["-m", "lazify", "check", "--excluding", "app.skipped", "app"]
    proc = run_python(args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(run_python([*args[:3], "--format", "json", *args[3:]], cwd=tmp_path,
                                   check=True).stdout)
    out = proc.stdout
    # every reason code and every tag occurs
    # (submodule-order is the native mechanism's: tests/test_native.py; not-opted-in
    # machinery and plain-package are tests/test_check_runtime.py's)
    assert set(report["summary"]["eager_by_reason"]) == set(map(str, ALL_REASONS)) - {
        "submodule-order", "not-opted-in", "machinery", "plain-package"}
    legend = out[out.index("\nTags:\n"):]
    for key, (tag, _meaning) in _cli.TAGS.items():
        if key == "explicit" and sys.version_info < (3, 15):
            continue        # PEP 810's lazy import is 3.15 syntax
        assert f"  {tag}  " in legend
    rows = {}
    for line in out.splitlines():
        if line.startswith("app/"):
            found = re.match(r"^app/\S+:\d+  .*?  (LAZY|EAGER:[a-z-]+)( |$)", line)
            assert found, line
            rows[line] = found.group(1).partition(":")[0]
    # modules called lazy and eager are imported, lazily and eagerly
    assert any("import lazy" in line for line in rows) and any("import eager" in line for line in rows)
    for word in ("LAZY", "EAGER"):
        grepped = [line for line in out.splitlines() if whole_word(word, line)]
        assert grepped == [line for line, verdict in rows.items() if verdict == word], word
        assert all(len(whole_word(word, line)) == 1 for line in grepped)
        if shutil.which("grep"):
            real = subprocess.run(["grep", "-w", word], input=out, capture_output=True, text=True)
            assert real.stdout.splitlines() == grepped
    # the docs' recipe for one reason
    assert [line for line in out.splitlines() if "EAGER:try" in line] == [
        line for line in rows if line.split()[-1] == "EAGER:try"]
    names = sum(len(f["imports"]) for f in report["files"])
    assert names == report["summary"]["imports"]


# ------------------------------------------------------------------- JSON report


def test_check_json_shape(tmp_path, capsys):
    path = write(tmp_path, "mod.py", SIMPLE)
    code, report = check_json(capsys, path)
    assert code == 0
    assert set(report) == {"schema_version", "files", "summary"}
    assert report["schema_version"] == 1
    (entry,) = report["files"]
    assert set(entry) == {"path", "module", "error", "imports", "takes_rewrite"}
    assert entry["path"] == path
    assert entry["module"] == "mod"
    assert entry["error"] is None
    keys = {
        "line", "col", "statement", "name", "module", "verdict", "reason",
        "used_at_import", "unused", "in_annotations", "explicit", "resolved_by",
    }
    for imp in entry["imports"]:
        assert set(imp) == keys
    imports = {imp["name"]: imp for imp in entry["imports"]}
    assert imports["json"] == {
        "line": 1,
        "col": 0,
        "statement": "import json",
        "name": "json",
        "module": "json",
        "verdict": "lazy",
        "reason": None,
        "used_at_import": None,
        "unused": False,
        "in_annotations": False,
        "explicit": False,
        "resolved_by": [],
    }
    assert imports["readline"]["verdict"] == "eager"
    assert imports["readline"]["reason"] == "try"
    assert imports["readline"]["col"] == 4
    assert imports["decimal"]["reason"] == "function"
    summary = report["summary"]
    assert summary["files"] == 1
    assert summary["files_failed"] == 0
    assert summary["imports"] == 3
    assert summary["lazy"] == 1
    assert summary["eager"] == 2
    assert summary["eager_by_reason"] == {"function": 1, "try": 1}


def test_check_json_one_entry_per_name_and_normalised_statement(tmp_path, capsys):
    path = write(tmp_path, "mod.py", "import  os.path ,  sys as  system\nfrom collections import (\n    deque,\n    OrderedDict as OD,\n)\n")
    _, report = check_json(capsys, path)
    imports = by_name(report, "mod.py")
    assert set(imports) == {"os", "system", "deque", "OD"}
    assert imports["os"]["statement"] == "import os.path, sys as system"
    assert imports["os"]["module"] == "os.path"
    assert imports["system"]["module"] == "sys"
    assert imports["OD"]["statement"] == "from collections import deque, OrderedDict as OD"
    assert imports["OD"]["module"] == "collections"
    assert imports["deque"]["line"] == 2


def test_check_json_relative_imports_resolved_from_init_files(tmp_path, capsys):
    write(tmp_path, "pkg/__init__.py", "from .sub import mod\n")
    write(tmp_path, "pkg/other.py", "z = 1\n")
    write(tmp_path, "pkg/sub/__init__.py", "")
    write(tmp_path, "pkg/sub/sibling.py", "y = 1\n")
    write(
        tmp_path,
        "pkg/sub/mod.py",
        "from .sibling import y\nfrom ..other import z\nfrom ...toplevel import w\n",
    )
    code, report = check_json(capsys, str(tmp_path / "pkg"))
    assert code == 0
    modules = {f["path"].replace(os.sep, "/").rpartition("/pkg/")[2]: f["module"] for f in report["files"]}
    assert modules == {
        "__init__.py": "pkg",
        "other.py": "pkg.other",
        "sub/__init__.py": "pkg.sub",
        "sub/sibling.py": "pkg.sub.sibling",
        "sub/mod.py": "pkg.sub.mod",
    }
    imports = by_name(report, "pkg/sub/mod.py")
    assert imports["y"]["module"] == "pkg.sub.sibling"
    assert imports["z"]["module"] == "pkg.other"
    assert imports["y"]["statement"] == "from .sibling import y"
    assert by_name(report, "pkg/__init__.py")["mod"]["module"] == "pkg.sub"


# --------------------------------------------------------------------- walking


def test_check_skips_vcs_caches_venvs_and_build_dirs(tmp_path, capsys):
    write(tmp_path, "app.py", "import json\n")
    for skipped in (
        ".git/hook.py", "__pycache__/x.py", ".venv/lib/x.py", "venv/lib/x.py",
        "build/lib/x.py", "dist/x.py", "node_modules/x.py", ".tox/py311/x.py",
    ):
        write(tmp_path, skipped, "import os\n")
    # Any directory holding pyvenv.cfg is a virtual environment, whatever its name.
    write(tmp_path, "myenv/pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path, "myenv/lib/site.py", "import os\n")
    write(tmp_path, "notes.txt", "import os\n")
    code, report = check_json(capsys, str(tmp_path))
    assert code == 0
    assert [os.path.relpath(f["path"], tmp_path) for f in report["files"]] == ["app.py"]


def test_check_explicit_file_in_skipped_dir_is_analysed(tmp_path, capsys):
    path = write(tmp_path, "build/gen.py", "import json\n")
    code, report = check_json(capsys, path, path)
    assert code == 0
    assert [f["path"] for f in report["files"]] == [path]


def test_check_walk_order_is_sorted(tmp_path, capsys):
    for name in ("b.py", "a.py", "c/__init__.py", "c/z.py"):
        write(tmp_path, name, "import os\n")
    _, report = check_json(capsys, str(tmp_path))
    assert [os.path.relpath(f["path"], tmp_path) for f in report["files"]] == [
        "a.py", "b.py", os.path.join("c", "__init__.py"), os.path.join("c", "z.py"),
    ]


# ---------------------------------------------------------------------- errors


def error_files(tmp_path) -> dict[str, str]:
    files = {
        "syntax": write(tmp_path, "syntax.py", "def f(:\n    pass\n"),
        "undecodable": write(tmp_path, "undecodable.py", raw=b'import os\nx = "\xff\xfe"\n'),
        "bad_cookie": write(tmp_path, "bad_cookie.py", raw=b"# -*- coding: no-such-codec -*-\nimport os\n"),
        "null": write(tmp_path, "null.py", raw=b"import os\x00\n"),
    }
    broken = os.path.join(str(tmp_path), "unreadable.py")
    os.symlink(os.path.join(str(tmp_path), "does-not-exist.py"), broken)
    files["unreadable"] = broken
    return files


def test_check_error_files_reported_others_analysed(tmp_path, capsys):
    files = error_files(tmp_path)
    good = write(tmp_path, "good.py", "import json\n")
    code, report = check_json(capsys, str(tmp_path))
    assert code == 1
    entries = {f["path"]: f for f in report["files"]}
    assert entries[good]["error"] is None
    assert [imp["name"] for imp in entries[good]["imports"]] == ["json"]
    for kind, path in files.items():
        entry = entries[path]
        assert entry["error"], kind
        assert entry["imports"] == [], kind
    assert "SyntaxError" in entries[files["syntax"]]["error"]
    assert "line 1" in entries[files["syntax"]]["error"]
    assert "FileNotFoundError" in entries[files["unreadable"]]["error"]
    assert report["summary"]["files"] == 6
    assert report["summary"]["files_failed"] == 5


def test_check_error_files_are_the_ones_compile_rejects(tmp_path, capsys):
    files = error_files(tmp_path)
    for kind, path in files.items():
        if kind == "unreadable":
            continue
        with open(path, "rb") as f:
            data = f.read()
        with pytest.raises((SyntaxError, ValueError)):
            compile(data, path, "exec", dont_inherit=True)
    # And a file with a valid coding cookie is not an error.
    latin = write(tmp_path, "latin.py", raw=b'# coding: latin-1\nimport os\nx = "\xe9"\n')
    code, report = check_json(capsys, latin)
    assert code == 0 and report["files"][0]["error"] is None


def test_check_error_text_report(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", "x = (\n")
    good = write(tmp_path, "good.py", "import json\n")
    assert main(["check", bad, good]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: error: SyntaxError:" in out
    assert f"{good}:1" in out
    assert "Files that failed: 1" in out
    assert f"Files that failed: 1\n  {bad}\n" in out


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read a mode-000 file"
)
def test_check_permission_denied(tmp_path, capsys):
    path = write(tmp_path, "secret.py", "import os\n")
    os.chmod(path, 0)
    try:
        code, report = check_json(capsys, path)
    finally:
        os.chmod(path, 0o644)
    assert code == 1
    assert "PermissionError" in report["files"][0]["error"]


def test_check_missing_path(tmp_path, capsys):
    code, report = check_json(capsys, str(tmp_path / "nope.py"))
    assert code == 1
    assert "FileNotFoundError" in report["files"][0]["error"]


def test_check_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--format", "xml", "x.py"])
    assert exc.value.code == 2


def test_main_without_command_exits_2(capsys):
    assert main([]) == 2


# ------------------------------------------------------------------- excluding


def test_check_excluding(tmp_path, capsys):
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "pkg/mod.py", "import json\n")
    write(tmp_path, "pkg/other.py", "import json\n")
    code, report = check_json(capsys, "--excluding", "pkg.mod", str(tmp_path / "pkg"))
    assert code == 0
    assert by_name(report, "pkg/mod.py")["json"]["verdict"] == "eager"
    assert by_name(report, "pkg/mod.py")["json"]["reason"] == "excluded"
    assert by_name(report, "pkg/other.py")["json"]["verdict"] == "lazy"
    code, report = check_json(
        capsys, "--excluding", "x", "--excluding", "pkg.other", str(tmp_path / "pkg")
    )
    assert by_name(report, "pkg/mod.py")["json"]["verdict"] == "lazy"
    assert by_name(report, "pkg/other.py")["json"]["reason"] == "excluded"


def test_check_uses_default_excluding_list(tmp_path, capsys):
    from lazify import DEFAULT_EXCLUDING

    assert "sympy" in DEFAULT_EXCLUDING
    write(tmp_path, "sympy/__init__.py", "import json\n")
    write(tmp_path, "sympy/core/__init__.py", "import json\n")
    _, report = check_json(capsys, str(tmp_path / "sympy"))
    assert by_name(report, "sympy/__init__.py")["json"]["reason"] == "excluded"
    assert by_name(report, "sympy/core/__init__.py")["json"]["reason"] == "excluded"


def test_check_reads_tool_lazify_excluding(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LAZIFY_EXCLUDING", raising=False)
    write(tmp_path, "pyproject.toml", '[tool.lazify]\nexcluding = ["app.plugins"]\n')
    write(tmp_path, "app/__init__.py")
    write(tmp_path, "app/plugins.py", "import json\n")
    write(tmp_path, "app/core.py", "import json\n")
    _, report = check_json(capsys, str(tmp_path / "app"))
    assert by_name(report, "app/plugins.py")["json"]["reason"] == "excluded"
    assert by_name(report, "app/core.py")["json"]["verdict"] == "lazy"
    monkeypatch.setenv("LAZIFY_EXCLUDING", "app.core")
    _, report = check_json(capsys, str(tmp_path / "app" / "core.py"))
    assert by_name(report, "app/core.py")["json"]["reason"] == "excluded"


def test_check_bad_config_is_a_usage_error(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[tool.lazify]\nexcluding = "oops"\n')
    path = write(tmp_path, "m.py", "import json\n")
    assert main(["check", path]) == 2
    assert "excluding must be a list" in capsys.readouterr().err


# ---------------------------------------------------------------- subprocesses


def test_python_m_lazify_check_on_the_example_app():
    proc = run_python(["-m", "lazify", "check", "--format", "json", "heavyapp"], cwd=EXAMPLES)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["summary"]["files_failed"] == 0
    total = by_name(report, "heavyapp/commands/total.py")
    assert total["decimal"]["verdict"] == "lazy"
    assert total["json"]["verdict"] == "lazy"
    assert report["files"][0]["module"].startswith("heavyapp")
    db = by_name(report, "heavyapp/commands/dbstats.py")
    assert db["sqlite3"]["used_at_import"] == 8


def test_lazify_check_text_on_the_example_app():
    proc = run_python(["-m", "lazify", "check", "examples/heavyapp"], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "Files that failed: 0" in proc.stdout


@pytest.mark.parametrize(
    "argv, stdin, expected",
    [
        (["total", "--json"], "1.10\n2.20\n", '{"count": 2, "total": "3.30"}\n'),
        (["db", "b", "a", "b"], None, "   2  b\n   1  a\n"),
        (["xml"], "<a><b/></a>", '<?xml version="1.0" ?>\n<a>\n  <b/>\n</a>\n'),
    ],
)
@pytest.mark.parametrize("mode", ["plain", "run", "sitecustomize"])
def test_example_app_runs(mode, argv, stdin, expected):
    if mode == "plain":
        args, env = ["-m", "heavyapp", *argv], None
    elif mode == "run":
        args, env = ["-m", "lazify", "run", "-m", "heavyapp", *argv], None
    else:
        site = os.path.join(EXAMPLES, "heavyapp_sitecustomize")
        args = ["-m", "heavyapp", *argv]
        env = {"PYTHONPATH": os.pathsep.join([site, ROOT])}
    proc = run_python(args, cwd=EXAMPLES, env_extra=env, input=stdin)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert proc.stderr == ""


def test_example_app_lazy_imports_only_what_the_command_uses():
    probe = (
        "import sys\n"
        "sys.argv = ['heavyapp', 'total']\n"
        "import heavyapp.cli\n"
        "heavyapp.cli.main()\n"
        "print(sorted(m for m in ('sqlite3', 'asyncio', 'xml.dom.minidom', 'http.client', 'decimal') if m in sys.modules))\n"
    )
    site = os.path.join(EXAMPLES, "heavyapp_sitecustomize")
    eager = run_python(probe, cwd=EXAMPLES, input="1\n")
    lazy = run_python(
        probe, cwd=EXAMPLES, input="1\n", env_extra={"PYTHONPATH": os.pathsep.join([site, ROOT])}
    )
    assert eager.returncode == 0, eager.stderr
    assert lazy.returncode == 0, lazy.stderr
    assert eager.stdout.splitlines()[-1] == "['asyncio', 'decimal', 'http.client', 'sqlite3', 'xml.dom.minidom']"
    assert lazy.stdout.splitlines()[-1] == "['decimal']"


# ------------------------------------------------------------------------- run


@pytest.fixture
def script_dir(tmp_path):
    write(tmp_path, "heavy_dep.py", "print('imported heavy_dep')\nVALUE = 42\n")
    return tmp_path


def lazify_run(*args: str, cwd=None, input=None):
    return run_python(["-m", "lazify", "run", *args], cwd=cwd, input=input)


def test_run_script_argv_name_and_path(script_dir):
    script = write(
        script_dir,
        "script.py",
        """\
        import sys
        import heavy_dep
        print("argv", sys.argv)
        print("name", __name__)
        print("path0", sys.path[0])
        print("file", __file__)
        """,
    )
    proc = lazify_run(script, "a", "--flag", "-m", cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"argv {[script, 'a', '--flag', '-m']!r}" in lines
    assert "name __main__" in lines
    assert f"path0 {os.path.realpath(str(script_dir))}" in lines
    assert f"file {os.path.abspath(script)}" in lines
    # The main script itself is rewritten: heavy_dep is never read, so never imported.
    assert "imported heavy_dep" not in lines


def test_run_script_imports_on_first_use(script_dir):
    script = write(
        script_dir,
        "script.py",
        """\
        import heavy_dep

        def show():
            print(heavy_dep.VALUE)

        print("before")
        show()
        """,
    )
    proc = lazify_run(script, cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["before", "imported heavy_dep", "42"]
    plain = run_python([script], cwd=str(script_dir))
    assert plain.stdout.splitlines() == ["imported heavy_dep", "before", "42"]


@pytest.mark.parametrize(
    "body, code",
    [
        ("import sys\nsys.exit(3)\n", 3),
        ("raise SystemExit\n", 0),
        ("import sys\nsys.exit('bye')\n", 1),
        ("pass\n", 0),
    ],
)
def test_run_script_exit_code(tmp_path, body, code):
    script = write(tmp_path, "script.py", body)
    proc = lazify_run(script)
    assert proc.returncode == code
    plain = run_python([script])
    assert plain.returncode == code
    assert proc.stderr == plain.stderr


def test_run_script_traceback_is_pythons(tmp_path):
    script = write(
        tmp_path,
        "script.py",
        """\
        def f():
            return 1 / 0

        f()
        """,
    )
    proc = lazify_run(script)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert f'File "{script}", line 4, in <module>' in proc.stderr
    assert f'File "{script}", line 2, in f' in proc.stderr
    assert proc.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr and "runpy" not in proc.stderr
    plain = run_python([script])
    assert proc.stderr == plain.stderr


def test_run_script_syntax_error(tmp_path):
    script = write(tmp_path, "script.py", "x = (\n")
    proc = lazify_run(script)
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr


def test_run_missing_script(tmp_path):
    proc = lazify_run(str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    assert "No such file or directory" in proc.stderr


def test_run_module_package(script_dir):
    write(script_dir, "app/__init__.py", "")
    write(
        script_dir,
        "app/__main__.py",
        """\
        import sys
        import heavy_dep
        from . import helper
        print("argv", sys.argv[1:])
        print("name", __name__)
        print("helper", helper.X)
        print("path0", sys.path[0])
        sys.exit(7)
        """,
    )
    write(script_dir, "app/helper.py", "X = 'ok'\n")
    proc = lazify_run("-m", "app", "x", "--y", cwd=str(script_dir))
    assert proc.returncode == 7, proc.stderr
    lines = proc.stdout.splitlines()
    assert "argv ['x', '--y']" in lines
    assert "name __main__" in lines
    assert "helper ok" in lines
    assert f"path0 {os.path.realpath(str(script_dir))}" in [
        "path0 " + os.path.realpath(line[6:]) for line in lines if line.startswith("path0 ")
    ]
    assert "imported heavy_dep" not in lines


def test_run_directory_with_main(script_dir):
    write(
        script_dir,
        "appdir/__main__.py",
        """\
        import sys
        import heavy_dep
        print("argv", sys.argv)
        print("name", __name__)
        print("path0", sys.path[0], sys.path.count(sys.path[0]))
        """,
    )
    write(script_dir, "appdir/heavy_dep.py", "print('imported heavy_dep')\n")
    target = str(script_dir / "appdir")
    proc = lazify_run(target, "x", cwd=str(script_dir))
    plain = run_python([target, "x"], cwd=str(script_dir))
    assert proc.returncode == 0, proc.stderr
    assert plain.stdout.splitlines() == ["imported heavy_dep", *proc.stdout.splitlines()]


def test_run_module_traceback(tmp_path):
    write(tmp_path, "boom.py", "def f():\n    raise KeyError('k')\nf()\n")
    proc = lazify_run("-m", "boom", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert "boom.py\", line 3, in <module>" in proc.stderr
    assert proc.stderr.rstrip().endswith("KeyError: 'k'")
    assert "_run.py" not in proc.stderr and "_cli.py" not in proc.stderr and "runpy" not in proc.stderr


def test_run_module_not_found(tmp_path):
    proc = lazify_run("-m", "no_such_module_xyz", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "No module named" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_package_without_main(tmp_path):
    write(tmp_path, "lib/__init__.py", "")
    proc = lazify_run("-m", "lib", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "cannot be directly executed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_with_lazify_disable(script_dir):
    script = write(script_dir, "script.py", "import heavy_dep\nprint('main')\n")
    proc = run_python(
        ["-m", "lazify", "run", script], cwd=str(script_dir), env_extra={"LAZIFY_DISABLE": "1"}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["imported heavy_dep", "main"]


def test_run_does_not_import_check_machinery():
    # `lazify run` must not import, eagerly, what the program may want lazily.
    proc = run_python(
        "import sys; import lazify._cli; "
        "print(sorted(m for m in ('json', 'ast', 'lazify._plan') if m in sys.modules))"
    )
    assert proc.stdout.strip() == "[]", proc.stderr


# --------------------------------------------------------------------- compile


def test_compile_dispatches_to_the_batch_driver(tmp_path, monkeypatch):
    calls = []

    def compile_paths(paths, *, hash_based=False, mechanism=None, **options):
        calls.append((list(paths), hash_based))
        return 1

    import lazify._compile

    monkeypatch.setattr(lazify._compile, "compile_paths", compile_paths)
    assert main(["compile", "a.py", "b"]) == 1
    assert main(["compile", "--hash", "c"]) == 1
    assert calls == [(["a.py", "b"], False), (["c"], True)]


def test_compile_writes_cache(tmp_path):
    write(tmp_path, "mod.py", "import json\n")
    proc = run_python(["-m", "lazify", "compile", str(tmp_path)])
    assert proc.returncode == 0, proc.stderr
    assert any("lazify" in name for name in os.listdir(tmp_path / "__pycache__"))


# -------------------------------------------------------------- rewrite / diff


def test_rewrite_and_diff_dispatch(monkeypatch):
    seen = {}

    def cmd_rewrite(args):
        seen["rewrite"] = (args.path, args.output)
        return 5

    def cmd_diff(args):
        seen["diff"] = (args.paths, args.check)
        return 6

    fake = type(sys)("lazify._diff")
    fake.cmd_rewrite = cmd_rewrite
    fake.cmd_diff = cmd_diff
    monkeypatch.setitem(sys.modules, "lazify._diff", fake)
    import lazify

    monkeypatch.setattr(lazify, "_diff", fake, raising=False)
    assert main(["rewrite", "x.py"]) == 5
    assert seen["rewrite"] == ("x.py", None)
    seen.clear()
    assert main(["rewrite", "src", "-o", "out"]) == 5
    assert seen["rewrite"] == ("src", "out")
    assert main(["diff", "a.py", "b"]) == 6
    assert seen["diff"] == (["a.py", "b"], None)
    seen.clear()
    assert main(["diff", "a.py", "--check", "reviewed"]) == 6
    assert seen["diff"] == (["a.py"], "reviewed")


def test_rewrite_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["rewrite"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["diff", "--check"])
    assert exc.value.code == 2


# ------------------------------------------------------------------- the CI gate


GATE = """\
import json
import readline
try:
    import csv
except ImportError:
    csv = None


def f():
    return json, csv
"""


@pytest.mark.parametrize("codes, status, found", [
    (["unused"], 1, "unused 1"),
    (["try,unused"], 1, "try 1, unused 1"),
    (["try", "unused"], 1, "try 1, unused 1"),
    (["eager"], 1, "eager 1"),
    (["with"], 0, None),
    ([], 0, None),
])
def test_check_fail_on(tmp_path, capsys, codes, status, found):
    path = write(tmp_path, "mod.py", GATE)
    argv = ["check", path] + [arg for code in codes for arg in ("--fail-on", code)]
    assert main(argv) == status
    err = capsys.readouterr().err
    if found is None:
        assert err == ""
    else:
        assert err == f"lazify check: --fail-on: found {found}\n"


def test_check_fail_on_unknown_code_is_a_usage_error(tmp_path, capsys):
    path = write(tmp_path, "mod.py", GATE)
    assert main(["check", path, "--fail-on", "unused,nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lazify check: --fail-on: unknown code(s) nonsense (known: eager, ")


def test_check_format_github(tmp_path, capsys):
    path = write(tmp_path, "a,b.py", GATE)
    bad = write(tmp_path, "bad.py", "def f(:\n")
    assert main(["check", "--format", "github", "--fail-on", "unused,try", path, bad]) == 1
    lines = capsys.readouterr().out.splitlines()
    file = path.replace(",", "%2C").replace(":", "%3A")
    assert lines[0] == (f"::error file={file},line=2,col=1,title=lazify LAZY::"
                        "import readline [readline]: LAZY: unused")
    assert lines[1] == (f"::error file={file},line=4,col=5,title=lazify EAGER%3Atry::"
                        "import csv [csv]: EAGER:try: inside try/except/else/finally")
    assert lines[2].startswith(f"::error file={bad.replace(':', '%3A')},title=lazify check::")
    assert len(lines) == 3


def test_check_without_path_checks_the_current_directory(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/mod.py", "import json\n")
    proc = run_python(["-m", "lazify", "check"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "pkg/mod.py:1  import json  LAZY" in proc.stdout.replace(os.sep, "/")


# ------------------------------------------------------------------- conventions


@pytest.mark.parametrize("argv", [
    ["check", "big.py"], ["check", "--format", "json", "big.py"],
    ["check", "--format", "github", "--fail-on", "unused", "big.py"],
    ["diff", "big.py"], ["rewrite", "big.py"],
])
def test_output_to_a_closed_pipe_ends_quietly(tmp_path, argv):
    """`lazify check ... | head`: no BrokenPipeError traceback, exit status 1."""
    write(tmp_path, "big.py", "".join(f"import a_module_with_a_rather_long_name_{i:05d}_{'x' * 40}\n"
                                      for i in range(1500)))
    proc = subprocess.Popen([sys.executable, "-m", "lazify", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": ROOT})
    proc.stdout.readline()
    proc.stdout.close()       # as head does after its lines
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 1
    assert err == ""


def _unreadable(monkeypatch, directory):
    """os.walk meets a directory it may not list (as a user other than root would)."""
    real = os.scandir

    def scandir(path="."):
        if os.path.abspath(os.fspath(path)) == os.path.abspath(directory):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_check_unreadable_directory_is_a_failure(tmp_path, capsys, monkeypatch):
    write(tmp_path, "app/ok.py", "import json\n")
    write(tmp_path, "app/secret/hidden.py", "import json\n")
    _unreadable(monkeypatch, tmp_path / "app" / "secret")
    assert main(["check", str(tmp_path / "app")]) == 1
    out = capsys.readouterr().out
    secret = str(tmp_path / "app" / "secret")
    assert f"{secret}: error: cannot read directory: Permission denied\n" in out
    assert f"Files that failed: 1\n  {secret}\n" in out
    code, report = check_json(capsys, str(tmp_path / "app"))
    assert code == 1 and report["summary"]["files_failed"] == 1


@pytest.mark.parametrize("command", ["diff", "rewrite"])
def test_diff_and_rewrite_unreadable_directory(tmp_path, capsys, monkeypatch, command):
    write(tmp_path, "app/ok.py", "import json\n")
    write(tmp_path, "app/secret/hidden.py", "import json\n")
    _unreadable(monkeypatch, tmp_path / "app" / "secret")
    argv = [command, str(tmp_path / "app")] + (["-o", str(tmp_path / "out")] if command == "rewrite" else [])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"lazify {command}: {tmp_path / 'app' / 'secret'}: cannot read directory: Permission denied\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every directory")
def test_check_really_unreadable_directory(tmp_path):
    write(tmp_path, "app/secret/hidden.py", "import json\n")
    os.chmod(tmp_path / "app" / "secret", 0)
    try:
        proc = run_python(["-m", "lazify", "check", "app"], cwd=tmp_path)
    finally:
        os.chmod(tmp_path / "app" / "secret", 0o755)
    assert proc.returncode == 1
    assert "cannot read directory: Permission denied" in proc.stdout


def test_rewrite_write_errors_are_one_line(tmp_path, capsys):
    write(tmp_path, "app/a.py", "import json\n\n\ndef f():\n    return json\n")
    write(tmp_path, "app/b.py", "import csv\n\n\ndef f():\n    return csv\n")
    in_the_way = write(tmp_path, "out/app", "a file where a directory should be\n")
    assert main(["rewrite", str(tmp_path / "app"), "-o", in_the_way]) == 2   # usage: not a dir
    capsys.readouterr()
    write(tmp_path, "out2/a.py/keep", "")          # a directory where a file should be
    assert main(["rewrite", str(tmp_path / "app"), "-o", str(tmp_path / "out2")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"lazify rewrite: {tmp_path / 'out2' / 'a.py'}: ")
    assert "directory" in err[0].lower()
    with open(tmp_path / "out2" / "b.py", encoding="utf-8") as f:
        assert "__lazy__.csv" in f.read()      # the others are written
    # an output directory that cannot be made: said once
    assert main(["rewrite", str(tmp_path / "app"), "-o", str(tmp_path / "out" / "app" / "x")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"lazify rewrite: {tmp_path / 'out' / 'app' / 'x'}: Not a directory"]


@pytest.mark.parametrize("command, default", [
    ("rewrite", "else rewrite on every Python"),
    ("diff", "else rewrite on every Python"),
    ("check", "else native on 3.15+ and rewrite before"),
    ("compile", "else native on 3.15+ and rewrite before"),
])
def test_help_states_the_real_default_mechanism(command, default, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: LAZIFY_MECHANISM, else [tool.lazify] mechanism, " + default in text
