"""``lazify check``: ``main([...])`` plus ``capsys`` on ``tmp_path`` trees, and the example app."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

from lazify import _reasons
from lazify._cli import check as check_command
from lazify._cli import main
from tests._util import ROOT, run_python, unreadable, write

EXAMPLES = os.path.join(ROOT, "examples")


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
        Point = True and collections.namedtuple("Point", "x y")
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
        Point = True and collections.namedtuple("Point", "x y")  # used-at-import
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
    "app/read.py": "import colorsys\nHSV = colorsys.rgb_to_hsv(0, 0, 0)\n",  # read-at-import
    # a function installed into the import system reads asyncio: it stays eager
    "app/patcher.py": "import asyncio\nimport os\n\ndef checked_stat(path):\n"
                      "    asyncio.get_running_loop\n    return path\n\n"
                      "def activate():\n    os.stat = checked_stat\n",
    "app/skipped.py": "import json\n",
    # modules called lazy and eager (Django has a django.utils.functional.lazy), imported
    # lazily and eagerly: `grep -w LAZY`/`EAGER` must not confuse them with verdicts
    "app/names.py": "import lazy\nfrom eager import lazy as eager_lazy\ntry:\n"
                    "    import eager\nexcept ImportError:\n    pass\n"
                    "def f():\n    return lazy, eager_lazy\n",
}


ALL_REASONS = sorted(_reasons.WORDS, key=str)


def whole_word(word: str, line: str) -> list[int]:
    """Where ``word`` occurs in ``line`` as ``grep -w`` matches it."""
    return [m.start() for m in re.finditer(rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", line)]


def test_reason_words_and_tags_name_no_verdict():
    # the verdict column is the only place LAZY or EAGER appears: not in the legend
    for reason in ALL_REASONS:
        for word in ("LAZY", "EAGER"):
            assert not whole_word(word, reason.words), reason
    for tag, meaning in check_command.TAGS.values():
        for word in ("LAZY", "EAGER"):
            assert not whole_word(word, tag) and not whole_word(word, meaning), (tag, word)


@pytest.mark.rewrite_only("every reason the rewrite reports (the native verdicts: tests/test_native.py)")
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
    # (submodule-order and import-cycle are the native mechanism's: tests/test_native.py;
    # not-opted-in, machinery and plain-package are tests/test_check_runtime.py's,
    # audit-hook tests/test_audit_hook.py's)
    assert set(report["summary"]["eager_by_reason"]) == set(map(str, ALL_REASONS)) - {
        "submodule-order", "import-cycle", "not-opted-in", "machinery", "plain-package",
        "audit-hook"}
    legend = out[out.index("\nTags:\n"):]
    for key, (tag, _meaning) in check_command.TAGS.items():
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
    # read by the module body right after the import: eager, as plainly
    assert db["sqlite3"]["verdict"] == "eager" and db["sqlite3"]["reason"] == "read-at-import"


def test_lazify_check_text_on_the_example_app():
    proc = run_python(["-m", "lazify", "check", "examples/heavyapp"], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "Files that failed: 0" in proc.stdout


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


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_check_fail_on_without_a_code_is_a_usage_error(tmp_path, capsys, value):
    """`--fail-on "$CODES"` with CODES unset in a CI job: a usage error, not a gate that
    passes whatever the check finds."""
    path = write(tmp_path, "mod.py", GATE)
    assert main(["check", path, "--fail-on", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lazify check: --fail-on: no code given (known: eager, ")


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


def test_check_unreadable_directory_is_a_failure(tmp_path, capsys, monkeypatch):
    write(tmp_path, "app/ok.py", "import json\n")
    write(tmp_path, "app/secret/hidden.py", "import json\n")
    unreadable(monkeypatch, tmp_path / "app" / "secret")
    assert main(["check", str(tmp_path / "app")]) == 1
    out = capsys.readouterr().out
    secret = str(tmp_path / "app" / "secret")
    assert f"{secret}: error: cannot read directory: Permission denied\n" in out
    assert f"Files that failed: 1\n  {secret}\n" in out
    code, report = check_json(capsys, str(tmp_path / "app"))
    assert code == 1 and report["summary"]["files_failed"] == 1


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
