"""The pytest plugin (``pytest --lazify``), through pytest's own ``pytester``: each
session runs in a subprocess, as a user's would."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap

import pytest

from tests._sample import full_only

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("LAZIFY_MECHANISM", "rewrite")
    monkeypatch.delenv("LAZIFY_SUMMARY", raising=False)
    pytester.makepyfile(
        mylib=textwrap.dedent("""\
            import used_dep
            import unused_dep

            def value():
                '''
                >>> value()
                1
                '''
                return used_dep.VALUE
            """),
        used_dep="VALUE = 1\n",
        unused_dep="print('unused_dep ran')\n",
        test_lib=textwrap.dedent("""\
            import sys
            import mylib

            def test_value():
                assert mylib.value() == 1

            def test_modules():
                print("LAZIFY-MODULES", sorted(m for m in sys.modules if m.startswith("lazify")))
                print("UNUSED-RAN", "unused_dep" in sys.modules)
            """),
    )
    return pytester


_SESSIONS: dict = {}


@pytest.fixture
def lazy_session(request, monkeypatch):
    """``pytest -s --lazify --lazify-report=out.json`` on the project, a user's first run
    (lazify's default deferral, a bytecode cache it can write): one session for the tests
    that assert on it, run by the first of them in this process; (result, the project's
    directory)."""
    if "lazy" not in _SESSIONS:
        project = request.getfixturevalue("project")
        monkeypatch.delenv("LAZIFY_DEFER_REWRITE")          # lazify's default, not the suite's
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        result = project.runpytest_subprocess("-s", "--lazify", "--lazify-report=out.json")
        _SESSIONS["lazy"] = result, project.path
    return _SESSIONS["lazy"]


def modules_line(result):
    line = next(l for l in result.outlines if "LAZIFY-MODULES" in l)
    return line.partition("LAZIFY-MODULES ")[2]


def test_off_imports_no_lazify_module(project):
    result = project.runpytest_subprocess("-s")
    result.assert_outcomes(passed=2)
    assert modules_line(result) == "[]"
    assert "UNUSED-RAN True" in result.stdout.str()
    assert "lazy imports:" not in result.stdout.str()


def defers_and_summarises(result):
    result.assert_outcomes(passed=2)
    assert "UNUSED-RAN False" in result.stdout.str()
    result.stdout.fnmatch_lines([
        "*- lazify -*",
        "lazy imports: * modules rewritten, * imports deferred, * never resolved",
        "  mylib:2: import unused_dep",
    ])


def test_on_defers_and_summarises(lazy_session):
    defers_and_summarises(lazy_session[0])


def test_p_lazify_turns_it_on_as_the_option_does(project):
    defers_and_summarises(project.runpytest_subprocess("-s", "-p", "lazify"))


def test_an_option_of_the_plugin_alone_turns_it_on(project):
    """``--lazify-mechanism`` (as any ``--lazify-*`` option) asks for the lazy session
    without ``--lazify``, as docs/pytest.md says."""
    defers_and_summarises(project.runpytest_subprocess("-s", "--lazify-mechanism=rewrite"))


def first_run(result, lazy):
    result.assert_outcomes(passed=2)
    assert f"UNUSED-RAN {not lazy}" in result.stdout.str()
    # the summary lists mylib's deferred import only when mylib was rewritten, and says
    # how many modules were imported eagerly when they could not be
    assert ("  mylib:2: import unused_dep" in result.outlines) is lazy
    eager = [line for line in result.outlines if re.match(
        r"  [1-9]\d* modules? imported eagerly: missing from lazify's bytecode cache ", line)]
    assert len(eager) == (not lazy), result.outlines
    # said in the summary, not again by the warning at exit
    assert "cannot be written" not in result.stderr.str(), result.stderr.str()


def test_first_run_is_lazy_where_the_cache_can_be_written(lazy_session):
    """A test run that asks for lazy imports is lazy from its first run (a CI job's every
    run): misses are rewritten at once where the rewrite can be cached, not served plain
    until a later run as at a start of an enabled environment."""
    first_run(lazy_session[0], lazy=True)


def test_first_run_is_plain_where_the_cache_cannot_be_written(project, monkeypatch):
    """Where the rewrite cannot be cached, misses are served plain (the rewrite would be
    paid at every run), and the summary says so."""
    monkeypatch.delenv("LAZIFY_DEFER_REWRITE")          # lazify's default, not the suite's
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    # no warning given before in this environment (the marker in the temporary directory)
    monkeypatch.setenv("TMPDIR", str(project.path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(project.path / "xdg"))
    first_run(project.runpytest_subprocess("-s", "--lazify", "-p", "no:cacheprovider"),
              lazy=False)


def test_addopts(project):
    project.makeini("[pytest]\naddopts = --lazify\n")
    result = project.runpytest_subprocess("-s")
    assert "UNUSED-RAN False" in result.stdout.str()


def test_excluding(project):
    result = project.runpytest_subprocess("-s", "--lazify", "--lazify-excluding", "mylib")
    result.assert_outcomes(passed=2)
    assert "UNUSED-RAN True" in result.stdout.str()
    assert "mylib:2" not in result.stdout.str()


def test_pyproject_settings(project):
    project.makefile(".toml", pyproject='[tool.lazify]\nexcluding = ["mylib"]\n')
    result = project.runpytest_subprocess("-s", "--lazify")
    assert "UNUSED-RAN True" in result.stdout.str()


def test_json_report(lazy_session):
    result, path = lazy_session
    result.assert_outcomes(passed=2)
    report = json.loads((path / "out.json").read_text())
    records = {r["statement"]: r for r in report["deferred"] if r["module"] == "mylib"}
    assert records["import unused_dep"]["resolved"] is False
    assert records["import used_dep"]["resolved"] is True
    assert records["import used_dep"]["first_use"] == {"file": str(path / "mylib.py"),
                                                       "line": 9}
    assert report["summary"]["never_resolved"] >= 1


def test_doctest_modules_on_pending_names(project):
    result = project.runpytest_subprocess("--lazify", "--doctest-modules", "mylib.py")
    result.assert_outcomes(passed=1)


@pytest.fixture
def importlib_session(request):
    """``pytest -s --lazify --import-mode=importlib`` on the project, asked to write its
    report where it cannot: one session for the two tests that assert on it, run by the
    first of them in this process; its result."""
    if "importlib" not in _SESSIONS:
        project = request.getfixturevalue("project")
        _SESSIONS["importlib"] = project.runpytest_subprocess(
            "-s", "--lazify", "--import-mode=importlib", "--lazify-report=no/such/dir/out.json")
    return _SESSIONS["importlib"]


def test_importlib_import_mode(importlib_session):
    importlib_session.assert_outcomes(passed=2)
    assert "UNUSED-RAN False" in importlib_session.stdout.str()


def test_xdist_workers_lazy_and_summary_merged(project):
    pytest.importorskip("xdist")
    result = project.runpytest_subprocess("--lazify", "-n", "2", "--lazify-report=out.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["  mylib:2: import unused_dep"])
    report = json.loads((project.path / "out.json").read_text())
    statements = [r["statement"] for r in report["deferred"] if r["module"] == "mylib"]
    assert statements.count("import unused_dep") == 1


def test_bad_settings_are_a_usage_error(project):
    project.makefile(".toml", pyproject='[tool.lazify]\nbogus = 1\n')
    result = project.runpytest_subprocess("--lazify")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*lazify*unknown key*bogus*"])


def test_already_active_interpreter_keeps_pytests_output(project):
    # what LAZIFY=1 or an enabled environment does: lazify installed before pytest
    # starts; the session is lazy as any program there, and its output pytest's own
    project.makepyfile(sitecustomize="import lazify\nlazify.install()\n")
    project.syspathinsert()
    result = project.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert "UNUSED-RAN False" in result.stdout.str()
    result.stdout.no_fnmatch_line("*- lazify -*")
    result.stdout.no_fnmatch_line("lazy imports:*")
    # asked for, the summary is there
    result = project.runpytest_subprocess("-s", "--lazify")
    result.stdout.fnmatch_lines(["*- lazify -*", "  mylib:2: import unused_dep"])


def test_project_imports_named_first(lazy_session):
    lines = lazy_session[0].outlines
    start = next(i for i, l in enumerate(lines) if l.startswith("lazy imports:"))
    assert lines[start + 1] == "  mylib:2: import unused_dep"


def test_plugin_blocked(project):
    result = project.runpytest_subprocess("-s", "--lazify", "-p", "no:lazify")
    assert result.ret == pytest.ExitCode.USAGE_ERROR   # the option is the plugin's


@pytest.mark.skipif(not hasattr(sys, "set_lazy_imports_filter"), reason="PEP 810: 3.15+")
def test_native_mechanism(project):
    result = project.runpytest_subprocess("-s", "--lazify", "--lazify-mechanism=native",
                                          "--lazify-report=out.json")
    result.assert_outcomes(passed=2)
    assert "UNUSED-RAN False" in result.stdout.str()
    result.stdout.fnmatch_lines(["  mylib:2: import unused_dep"])
    report = json.loads((project.path / "out.json").read_text())
    assert report["mechanism"] == "native"
    records = {r["statement"]: r for r in report["deferred"] if r["module"] == "mylib"}
    assert records["import used_dep"]["resolved"] is True
    assert records["import unused_dep"]["resolved"] is False


def test_unwritable_report_is_one_line(importlib_session):
    result = importlib_session
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["lazify: cannot write the report no/such/dir/out.json: "
                                 "No such file or directory"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_unusable_mechanism_is_a_usage_error(project):
    if hasattr(sys, "set_lazy_imports_filter"):
        pytest.skip("this Python has the native mechanism")
    result = project.runpytest_subprocess("--lazify", "--lazify-mechanism=native")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*lazify*native mechanism needs*"])


def _conftest_importing_conflib(project):
    project.makeconftest("import conflib\n")
    project.makepyfile(conflib="import conf_unused\n", conf_unused="print('conf_unused ran')\n")


def test_what_conftest_imports_is_lazy(project):
    _conftest_importing_conflib(project)
    result = project.runpytest_subprocess("-s", "--lazify")
    result.assert_outcomes(passed=2)
    assert "conf_unused ran" not in result.stdout.str()
    result.stdout.fnmatch_lines(["  conflib:1: import conf_unused"])


@full_only
def test_what_conftest_imports_runs_without_lazify(project):
    """The scenario above is one: without --lazify, conflib's import runs."""
    _conftest_importing_conflib(project)
    plain = project.runpytest_subprocess("-s")
    assert "conf_unused ran" in plain.stdout.str()


def _has_activation_pth():
    import site

    return any(os.path.exists(os.path.join(path, "lazify-imports.pth"))
               for path in site.getsitepackages())


@pytest.mark.skipif(not _has_activation_pth(), reason="lazify-imports.pth not installed here")
def test_lazify_1_activation(project, monkeypatch):
    # LAZIFY=1 as for any program: lazy, pytest's output its own; LAZIFY_SUMMARY=1 adds
    # the summary at exit, as for any program
    monkeypatch.setenv("LAZIFY", "1")
    result = project.runpytest_subprocess("-s")
    result.assert_outcomes(passed=2)
    assert "UNUSED-RAN False" in result.stdout.str()
    result.stdout.no_fnmatch_line("*mylib:2: import unused_dep*")
    monkeypatch.setenv("LAZIFY_SUMMARY", "1")
    result = project.runpytest_subprocess("-s")
    result.assert_outcomes(passed=2)
    assert re.search(r"^lazify: \d+ modules rewritten, \d+ imports deferred",
                     result.stderr.str(), re.M), result.stderr.str()
