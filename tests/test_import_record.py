"""The runtime's record of deferred and resolved imports, and the summary printed at exit."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from tests._util import run_python


def tree(tmp_path):
    (tmp_path / "used_dep.py").write_text("VALUE = 1\n")
    (tmp_path / "unused_dep.py").write_text("print('unused_dep ran')\n")
    (tmp_path / "app.py").write_text(textwrap.dedent("""\
        import used_dep
        import unused_dep

        def main():
            return used_dep.VALUE
        """))
    (tmp_path / "main.py").write_text("import app\nprint(app.main())\n")
    return tmp_path


@pytest.mark.parametrize("mechanism", [
    "rewrite",
    pytest.param("native", marks=pytest.mark.skipif(
        not hasattr(sys, "set_lazy_imports_filter"), reason="PEP 810: 3.15+")),
])
def test_run_summary_names_what_was_never_needed(tmp_path, mechanism):
    root = tree(tmp_path)
    proc = run_python(["-m", "lazify", "run", "--summary", "main.py"], cwd=root,
                      env_extra={"LAZIFY_MECHANISM": mechanism})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "1\n"
    first, *named = proc.stderr.splitlines()
    assert first.startswith("lazify: ") and "imports deferred, 1 never resolved" in first
    assert named == ["  app:2: import unused_dep"]


def test_summary_counts_one_in_the_singular(tmp_path):
    """One module rewritten (the -c program), one import deferred: said in the singular."""
    (tmp_path / "app.py").write_text("VALUE = 1\n")
    proc = run_python(["-m", "lazify", "run", "--summary", "-c", "import app"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "lazify: 1 module rewritten, 1 import deferred, 1 never resolved"), proc.stderr


def test_summary_variable_with_install(tmp_path):
    root = tree(tmp_path)
    code = "import lazify; lazify.install(); import app; print(app.main())"
    proc = run_python(code, cwd=root, env_extra={"LAZIFY_SUMMARY": "1"})
    assert proc.stdout == "1\n", proc.stderr
    assert proc.stderr.splitlines()[1:] == ["  app:2: import unused_dep"]
    quiet = run_python(code, cwd=root)
    assert quiet.stderr == ""


@pytest.mark.rewrite_only("first use is recorded by the rewrite's resolver; natively the interpreter reifies")
def test_snapshot_is_plain_data_with_where_and_first_use(tmp_path):
    root = tree(tmp_path)
    code = textwrap.dedent("""\
        import json, lazify
        from lazify import _import_record
        _import_record.start()
        lazify.install()
        import app
        app.main()
        print(json.dumps(_import_record.snapshot()))
        """)
    proc = run_python(code, cwd=root)
    snap = json.loads(proc.stdout)
    records = {r["name"]: r for r in snap["deferred"] if r["module"] == "app"}
    assert records["used_dep"] == {
        "module": "app", "file": str(root / "app.py"), "line": 1,
        "statement": "import used_dep", "name": "used_dep", "resolved": True,
        "first_use": {"file": str(root / "app.py"), "line": 5}}
    assert records["unused_dep"]["resolved"] is False
    assert records["unused_dep"]["first_use"] is None
    assert snap["modules_rewritten"] >= 1


def test_record_off_by_default_imports_nothing(tmp_path):
    root = tree(tmp_path)
    proc = run_python("import sys, lazify; lazify.install(); import app; app.main(); "
                      "print('lazify._import_record' in sys.modules)", cwd=root)
    assert proc.stdout == "False\n", proc.stderr


@pytest.mark.rewrite_only("first use is recorded by the rewrite's resolver; natively the interpreter reifies")
def test_first_use_through_a_modules_own_getattr_is_the_importer(tmp_path):
    (tmp_path / "dep.py").write_text("def dumps():\n    pass\n")
    (tmp_path / "mod.py").write_text(
        "from dep import dumps\n\ndef __getattr__(name):\n    raise AttributeError(name)\n")
    (tmp_path / "main.py").write_text(textwrap.dedent("""\
        import lazify
        from lazify import _import_record
        _import_record.start()
        lazify.install()
        import mod
        from mod import dumps
        print([r["first_use"] for r in _import_record.snapshot()["deferred"]
               if r["module"] == "mod"])
        """))
    proc = run_python(["main.py"], cwd=tmp_path)
    assert proc.stdout.strip() == repr([{"file": str(tmp_path / "main.py"), "line": 6}]), \
        proc.stderr


def test_summary_lines_of_many_statements_in_one_module(tmp_path):
    """The summary's line of each never-resolved import, worked out for all of a module's
    statements in one walk of its line table (lazify._import_record._lines): imports
    spread over a long module, several names of one statement, one resolved."""
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"dep_{name}.py").write_text("X = Y = 1\n")
    body = ["import dep_a", "x = 0"]
    body += [f"x += {i}" for i in range(300)]
    body += ["from dep_b import X, Y", "if x:", "    import dep_c", "import dep_d",
             "def main():", "    return dep_d.X"]
    (tmp_path / "app.py").write_text("\n".join(body) + "\n")
    # (read under if: main.py's import of app stays lazy, not read-at-import)
    (tmp_path / "main.py").write_text("import app\nif True:\n    print(app.main())\n")
    proc = run_python(["-m", "lazify", "run", "--summary", "main.py"], cwd=tmp_path,
                      env_extra={"LAZIFY_MECHANISM": "rewrite"})
    assert proc.stdout == "1\n", proc.stderr
    first, *named = proc.stderr.splitlines()
    assert "6 imports deferred, 4 never resolved" in first, proc.stderr
    assert named == ["  app:1: import dep_a", "  app:303: from dep_b import X",
                     "  app:303: from dep_b import Y", "  app:305: import dep_c"], proc.stderr
