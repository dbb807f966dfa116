"""``lazify rewrite`` and ``lazify diff``: main([...]) on tmp_path trees, and the CI example."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from lazify._cli import main
from tests._sample import full_only
from tests._util import child_env, interpreters, unreadable, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from lazify._emit_cst import HEADER

# lazify rewrite/diff print the rewrite's output (their default on every Python, which
# LAZIFY_MECHANISM=native would change) and the reviewed copies are the rewrite's
# (--mechanism native: tests/test_native.py)
pytestmark = pytest.mark.rewrite_only("the rewrite's output")

LAZY = "import json\n\n\ndef f():\n    return json.dumps(1)  # keep me\n"
LAZY_REWRITTEN = (
    f"{HEADER}; __lazy__.__lazy_import__(('json', None))\n\n\n"
    "def f():\n    return __lazy__.json.dumps(1)  # keep me\n"
)
PLAIN = "x = 1  # nothing to rewrite\n"


def _tree(root, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        path.write_bytes(content)


def _files(root) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root).replace(os.sep, "/")] = f.read()
    return out


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A small package in tmp_path/src, with tmp_path as the current directory."""
    _tree(
        tmp_path / "src",
        {
            "app/__init__.py": '"""The app."""\n',
            "app/lazy.py": LAZY,
            "app/plain.py": PLAIN,
            "app/data.txt": "not Python\n",
            "app/sub/__init__.py": "",
            "app/sub/deep.py": "from .. import lazy\n\n\ndef g():\n    return lazy.f()\n",
            "app/.hidden/skipped.py": LAZY,
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------- rewrite


def test_rewrite_file_to_stdout(project, capsysbinary):
    assert main(["rewrite", "src/app/lazy.py"]) == 0
    assert capsysbinary.readouterr().out == LAZY_REWRITTEN.encode()


def test_rewrite_file_with_nothing_to_do_prints_it_unchanged(project, capsysbinary):
    assert main(["rewrite", "src/app/plain.py"]) == 0
    assert capsysbinary.readouterr().out == PLAIN.encode()


def test_rewrite_keeps_encoding_and_newlines(tmp_path, capsysbinary):
    source = b'# -*- coding: latin-1 -*-\r\nimport json\r\ns = "\xe9"\r\nTrue and print(json.dumps(s))\r\n'
    (tmp_path / "m.py").write_bytes(source)
    assert main(["rewrite", str(tmp_path / "m.py")]) == 0
    out = capsysbinary.readouterr().out
    assert out == (
        b'# -*- coding: latin-1 -*-\r\n'
        + HEADER.encode() + b"; __lazy__.__lazy_import__(('json', None))\r\n"
        b's = "\xe9"\r\nTrue and print(__lazy__.json.dumps(s))\r\n'
    )


def test_rewrite_tree(project):
    assert main(["rewrite", "src/app", "-o", "out"]) == 0
    files = _files(project / "out")
    # Same relative paths; non-Python files and hidden directories are not copied.
    assert sorted(files) == ["__init__.py", "lazy.py", "plain.py", "sub/__init__.py", "sub/deep.py"]
    assert files["lazy.py"] == LAZY_REWRITTEN.encode()
    assert files["plain.py"] == PLAIN.encode()  # nothing to rewrite: written unchanged
    assert files["__init__.py"] == f'"""The app."""\n{HEADER}\n'.encode()  # a package always gets the header
    assert b"__lazy__.__lazy_from__('..', ('lazy', None))" in files["sub/deep.py"]


def test_rewrite_single_file_to_output(project):
    assert main(["rewrite", "src/app/lazy.py", "-o", "one.py"]) == 0
    assert (project / "one.py").read_bytes() == LAZY_REWRITTEN.encode()
    (project / "dir").mkdir()
    assert main(["rewrite", "src/app/lazy.py", "-o", "dir"]) == 0
    assert (project / "dir" / "lazy.py").read_bytes() == LAZY_REWRITTEN.encode()


@pytest.mark.parametrize(
    "argv",
    [["rewrite", "src/app"], ["rewrite", "missing.py"], ["rewrite", "src/app", "-o", "src/app/plain.py"]],
    ids=["dir-without-o", "missing", "output-is-a-file"],
)
def test_rewrite_usage_errors(project, capsys, argv):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lazify rewrite: ")


@pytest.mark.parametrize("argv", [["src/app", "-o", "src/app"], ["src/app", "-o", "src/app/."],
                                  ["src/app/lazy.py", "-o", "src/app/lazy.py"],
                                  ["src/app/lazy.py", "-o", "src/app"]],
                         ids=["tree-onto-itself", "tree-onto-itself-dot", "file-onto-itself",
                              "file-into-its-directory"])
def test_rewrite_never_writes_over_its_sources(project, capsys, argv):
    before = _files(project / "src")
    assert main(["rewrite", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lazify rewrite: -o ") and "would replace the sources" in err, err
    assert _files(project / "src") == before


def test_rewrite_parse_error_reported_others_written(project, capsys):
    _tree(project / "src", {"app/broken.py": "import json\ndef f(:\n    pass\n"})
    assert main(["rewrite", "src/app", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"src/app/broken\.py:2:\d+: SyntaxError: ", err), err
    files = _files(project / "out")
    assert "broken.py" not in files
    assert files["lazy.py"] == LAZY_REWRITTEN.encode()


# ---------------------------------------------------------------- diff


def test_diff_prints_changed_files_only(project, capsys):
    assert main(["diff", "src/app"]) == 0
    out = capsys.readouterr().out
    headers = re.findall(r"^(?:---|\+\+\+) (\S+)", out, re.M)
    assert headers == [
        "a/src/app/__init__.py",
        "b/src/app/__init__.py",
        "a/src/app/lazy.py",
        "b/src/app/lazy.py",
        "a/src/app/sub/__init__.py",
        "b/src/app/sub/__init__.py",
        "a/src/app/sub/deep.py",
        "b/src/app/sub/deep.py",
    ]
    assert "plain.py" not in out
    assert "-import json\n" in out
    assert f"+{HEADER}; __lazy__.__lazy_import__(('json', None))\n" in out
    assert "+    return __lazy__.json.dumps(1)  # keep me\n" in out


def test_diff_nothing_for_files_without_lazy_imports(project, capsys):
    assert main(["diff", "src/app/plain.py"]) == 0
    assert capsys.readouterr().out == ""


def test_diff_shows_missing_final_newline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import json\nTrue and json")
    assert main(["diff", "m.py"]) == 0
    out = capsys.readouterr().out
    assert "\n-True and json\n\\ No newline at end of file\n" in out
    assert out.endswith("\n+True and __lazy__.json\n\\ No newline at end of file\n")


def test_diff_parse_error_reported_others_diffed(project, capsys):
    _tree(project / "src", {"app/broken.py": "import json\nx = (\n"})
    assert main(["diff", "src/app"]) == 1
    captured = capsys.readouterr()
    assert "src/app/broken.py:" in captured.err and "SyntaxError" in captured.err
    assert "+++ b/src/app/lazy.py" in captured.out


def test_diff_check_matches_reviewed_tree(project, capsys):
    assert main(["rewrite", "src/app", "-o", "reviewed"]) == 0
    assert main(["diff", "src/app", "--check", "reviewed"]) == 0
    assert capsys.readouterr().out == ""


def test_diff_check_fails_with_the_diff_when_source_changed(project, capsys):
    assert main(["rewrite", "src/app", "-o", "reviewed"]) == 0
    (project / "src/app/plain.py").write_text("import re\nTrue and print(re)\n")
    assert main(["diff", "src/app", "--check", "reviewed"]) == 1
    out = capsys.readouterr().out
    assert "--- a/reviewed/plain.py\n+++ b/src/app/plain.py\n" in out
    assert "+True and print(__lazy__.re)\n" in out


def test_diff_check_fails_on_missing_and_stale_reviewed_files(project, capsys):
    assert main(["rewrite", "src/app", "-o", "reviewed"]) == 0
    os.remove(project / "reviewed/lazy.py")
    (project / "reviewed/gone.py").write_text(PLAIN)
    assert main(["diff", "src/app", "--check", "reviewed"]) == 1
    captured = capsys.readouterr()
    assert "--- /dev/null\n+++ b/src/app/lazy.py\n" in captured.out
    assert "reviewed/gone.py: no source file for it any more" in captured.err


@pytest.mark.parametrize(
    "argv",
    [["diff", "src/app", "--check", "nowhere"], ["diff", "missing.py"], ["diff", "src/app", "--check", "src/app/plain.py"]],
    ids=["check-dir-missing", "path-missing", "check-dir-is-a-file"],
)
def test_diff_usage_errors_exit_2(project, capsys, argv):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lazify diff: ")


def test_diff_exit_2_on_bad_arguments(capsys):
    with pytest.raises(SystemExit) as info:
        main(["diff"])
    assert info.value.code == 2


# ---------------------------------------------------------------- examples/ci


def _workflow_steps() -> list[str]:
    """The ``run: lazify ...`` lines of the example workflow, in order."""
    with open(os.path.join(ROOT, "examples", "ci", "lazify.yml"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^\s+run: (lazify .+)$", text, re.M)


def test_examples_ci_steps_pass_locally():
    """Run the workflow's lazify steps as the CI job would, from the project root."""
    steps = _workflow_steps()
    assert [s.split()[1] for s in steps] == ["check", "diff"]
    for step in steps:
        argv = shlex.split(step)
        result = subprocess.run(
            [sys.executable, "-m", "lazify", *argv[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": ROOT},
        )
        assert result.returncode == 0, f"{step}\n{result.stdout}\n{result.stderr}"


def test_examples_ci_check_fails_on_an_unreviewed_change(tmp_path, lazify_cli):
    """The CI job's diff step fails once the app changes and the copy is not regenerated."""
    import shutil

    app = tmp_path / "heavyapp"
    shutil.copytree(os.path.join(ROOT, "examples", "heavyapp"), app)
    with open(app / "cli.py", "a", encoding="utf-8") as f:
        f.write("\nimport textwrap\n\n\ndef unreviewed():\n    return textwrap\n")
    reviewed = os.path.join(ROOT, "examples", "ci", "rewritten", "heavyapp")
    result = lazify_cli(["diff", str(app), "--check", reviewed], cwd=ROOT)
    assert result.returncode == 1
    assert "+__lazy__.__lazy_import__(('textwrap', None))" in result.stdout


def test_examples_ci_rewritten_copy_runs_like_the_app():
    """The reviewed copy is runnable: with lazy imports on but no import hook, `total`
    gives the app's output and never imports the other commands' heavy modules."""
    code = (
        "import runpy, sys\n"
        "if sys.argv[1:] == ['lazy']:\n"
        "    import lazify\n"
        "    lazify.set_lazy_imports(True)\n"
        "sys.argv = ['heavyapp', 'total', '--json']\n"
        "try:\n"
        "    runpy.run_module('heavyapp', run_name='__main__', alter_sys=True)\n"
        "finally:\n"
        "    print(sorted(m for m in ('asyncio', 'sqlite3', 'xml.dom.minidom', 'http.client')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    results = {}
    for name, cwd, path, mode in [
        ("original", os.path.join(ROOT, "examples"), "", "eager"),
        ("rewritten", os.path.join(ROOT, "examples", "ci", "rewritten"), ROOT, "lazy"),
    ]:
        results[name] = subprocess.run(
            [sys.executable, "-c", code, mode],
            cwd=cwd,
            input="1.10\n2.20\n",
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": path},
        )
    original, rewritten = results["original"], results["rewritten"]
    assert rewritten.stdout == original.stdout == '{"count": 2, "total": "3.30"}\n'
    assert "asyncio" in original.stderr  # eager: every command module's imports ran
    assert rewritten.stderr.strip().splitlines()[-1] == "[]", rewritten.stderr


@full_only
def test_examples_ci_same_output_on_every_python():
    """The reviewed tree, annotations included, passes `diff --check` on every CPython
    3.10-3.15 found here (tests._util.interpreters; .ci/run gives its venvs): the output
    does not change with the Python that prints it. (The default run checks the running
    Python in test_examples_ci_steps_pass_locally.)"""
    reviewed = os.path.join(ROOT, "examples", "ci", "rewritten", "heavyapp")
    with open(os.path.join(reviewed, "commands", "total.py"), encoding="utf-8") as f:
        total = f.read()
    # a class body's and a def's annotations that name lazy imports
    assert "__lazy__.__lazy_annotate__(" in total and "__lazy__.__lazy_annotated__(" in total
    found = interpreters()
    assert tuple(sys.version_info[:2]) in found, found
    failed = {}
    for version, exe in found.items():
        result = subprocess.run(
            [exe, "-m", "lazify", "diff", os.path.join("examples", "heavyapp"), "--check",
             os.path.join("examples", "ci", "rewritten", "heavyapp")],
            cwd=ROOT, capture_output=True, text=True, env=child_env())
        if result.returncode != 0:
            failed["%d.%d" % version] = result.stdout + result.stderr
    assert not failed, failed


ANNOTATIONS_PROBE = """
import sys, typing
if sys.argv[1] == "hook":
    import lazify
    lazify.install()
else:
    import lazify
    lazify.set_lazy_imports(True)
from heavyapp.commands import total
print(sorted(m for m in ("decimal", "json") if m in sys.modules))
print(typing.get_type_hints(total.Total))
print(total.Total.__init__.__annotations__)
print(total.parse.__annotations__)
print(sorted(m for m in ("decimal", "json") if m in sys.modules))
"""


def test_examples_ci_annotations_mean_what_the_hook_does():
    """The reviewed copy's annotations (the portable form: the same source on every
    Python) give the values the import hook gives the app on this Python, and import
    nothing before they are read, as the hook does."""
    results = {}
    for name, cwd, mode in [("hook", os.path.join(ROOT, "examples"), "hook"),
                            ("rewritten", os.path.join(ROOT, "examples", "ci", "rewritten"), "plain")]:
        results[name] = subprocess.run([sys.executable, "-c", ANNOTATIONS_PROBE, mode], cwd=cwd,
                                       capture_output=True, text=True, env=child_env())
        assert results[name].returncode == 0, results[name].stderr
    assert results["rewritten"].stdout == results["hook"].stdout
    lines = results["hook"].stdout.splitlines()
    assert lines[0] == "[]" and lines[-1] == "['decimal']", lines
    assert "decimal.Decimal" in lines[1] and "Iterable[decimal.Decimal]" in lines[2]


def test_libcst_parse_failure_reported(project, capsys, monkeypatch):
    """Valid for this Python but not for the installed libcst: reported, others go on."""
    import libcst

    real = libcst.parse_module

    def parse_module(source, *args, **kwargs):
        if isinstance(source, bytes) and b"json" in source and b"keep me" in source:
            source = "x = (\n"
        return real(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", parse_module)
    assert main(["rewrite", "src/app", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert re.search(
        r"src/app/lazy\.py:\d+:\d+: libcst [\d.]+: [^;]+; not rewritable by `lazify rewrite`/`diff` "
        r"\(the import hook, which uses ast, still rewrites it\)", err), err
    assert sorted(_files(project / "out")) == ["__init__.py", "plain.py", "sub/__init__.py", "sub/deep.py"]


def test_diff_check_parse_error_is_not_a_stale_file(project, capsys):
    assert main(["rewrite", "src/app", "-o", "reviewed"]) == 0
    (project / "src/app/plain.py").write_text("x = (\n")
    assert main(["diff", "src/app", "--check", "reviewed"]) == 1
    err = capsys.readouterr().err
    assert "src/app/plain.py:" in err and "SyntaxError" in err
    assert "no source file" not in err


def test_internal_error_reported_unless_strict(project, capsys, monkeypatch):
    import lazify._emit_cst

    def broken(source, plan):
        raise lazify._emit_cst.EmitError("plan does not match")

    monkeypatch.setattr(lazify._emit_cst, "emit_cst", broken)
    monkeypatch.delenv("LAZIFY_STRICT", raising=False)
    assert main(["diff", "src/app/lazy.py"]) == 1
    assert "lazify internal error: EmitError: plan does not match (please report it)" in capsys.readouterr().err
    monkeypatch.setenv("LAZIFY_STRICT", "1")
    with pytest.raises(lazify._emit_cst.EmitError):
        main(["diff", "src/app/lazy.py"])


# ---------------------------------------------------------------- settings


@pytest.mark.parametrize("command", [["rewrite", "src/app/lazy.py"], ["diff", "src/app"]])
def test_malformed_tool_lazify_is_a_usage_error(project, capsys, command):
    """As in ``check``: the message, exit status 2, no traceback and nothing written."""
    (project / "pyproject.toml").write_text('[tool.lazify]\nexcluding = "oops"\n')
    assert main(command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"lazify {command[0]}: ")
    assert "excluding must be a list" in captured.err


@pytest.mark.parametrize("command", [["rewrite", "src/app/lazy.py"], ["diff", "src/app"]])
def test_malformed_lazify_excluding_is_a_usage_error(project, capsys, monkeypatch, command):
    monkeypatch.setenv("LAZIFY_EXCLUDING", "app.lazy, not a name")
    assert main(command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "not a module name in excluding: 'not a name'" in captured.err


def test_rewrite_and_diff_leave_excluded_modules_as_they_are(project, capsys, monkeypatch):
    """An excluded module is imported plain by the hook: rewrite and diff show it so, as
    ``check`` reports its imports eager (``excluded``)."""
    monkeypatch.delenv("LAZIFY_EXCLUDING", raising=False)
    (project / "pyproject.toml").write_text('[tool.lazify]\nexcluding = ["app.lazy"]\n')
    assert main(["rewrite", "src/app", "-o", "out"]) == 0
    files = _files(project / "out")
    assert files["lazy.py"] == LAZY.encode()
    assert HEADER.encode() in files["sub/deep.py"]
    assert main(["diff", "src/app"]) == 0
    out = capsys.readouterr().out
    assert "app/lazy.py" not in out and "app/sub/deep.py" in out
    monkeypatch.setenv("LAZIFY_EXCLUDING", "app")
    assert main(["diff", "src/app"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", "--format", "json", "src/app/lazy.py"]) == 0
    assert '"reason": "excluded"' in capsys.readouterr().out


# ------------------------------------------------------------ the command line


def test_rewrite_and_diff_dispatch(monkeypatch):
    seen = {}

    def cmd_rewrite(args):
        seen["rewrite"] = (args.path, args.output)
        return 5

    def cmd_diff(args):
        seen["diff"] = (args.paths, args.check)
        return 6

    import lazify._cli.diff
    import lazify._cli.rewrite

    monkeypatch.setattr(lazify._cli.rewrite, "run", cmd_rewrite)
    monkeypatch.setattr(lazify._cli.diff, "run", cmd_diff)
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


@pytest.mark.parametrize("command", ["diff", "rewrite"])
def test_diff_and_rewrite_unreadable_directory(tmp_path, capsys, monkeypatch, command):
    write(tmp_path, "app/ok.py", "import json\n")
    write(tmp_path, "app/secret/hidden.py", "import json\n")
    unreadable(monkeypatch, tmp_path / "app" / "secret")
    argv = [command, str(tmp_path / "app")] + (["-o", str(tmp_path / "out")] if command == "rewrite" else [])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"lazify {command}: {tmp_path / 'app' / 'secret'}: cannot read directory: Permission denied\n"


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
