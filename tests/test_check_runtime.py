"""`lazify check` says what the runtime does (tests/compat/check_vs_runtime.py): a sample of
real modules, imported through the hook, in global and opt-in mode, with the rewrite and
(3.15+) the native mechanism; then the cases where the two disagreed."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

from tests._util import ROOT, run_python

#: modules per mode and mechanism: a fast sample by default, more in .ci/run
SAMPLE = int(os.environ.get("LAZIFY_CHECK_RUNTIME_SAMPLE", "5"))
MECHANISMS = ["rewrite"] + (["native"] if sys.version_info >= (3, 15) else [])


def _load():
    path = os.path.join(ROOT, "tests", "compat", "check_vs_runtime.py")
    spec = importlib.util.spec_from_file_location("_lazify_check_vs_runtime", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


differential = _load()


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("mode", ["global", "opt-in"])
def test_check_says_what_the_runtime_does_on_real_code(mode, mechanism):
    disagree, observed, errors = {}, 0, []
    for path, module in differential.sample(SAMPLE):
        outcome, disagreements, seen = differential.compare(path, module, mode == "global", mechanism)
        observed += seen
        if disagreements:
            disagree[module] = disagreements
        if outcome.startswith("error") and module not in differential.KNOWN_RUNTIME_ERRORS:
            errors.append((module, outcome))
    assert not disagree
    assert not errors
    assert observed >= 5, "the sample observed (almost) nothing"


def _tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


OPT_IN = {
    "app/__init__.py": "",
    "app/one.py": "ONE = 1\n",
    "app/two.py": "TWO = 2\n",
    "app/three.py": "THREE = 3\n",
    "app/main.py": (
        "import app.three\n"
        "__lazy_modules__ = ['app.one', 'app.three']\n"
        "import app.one\n"
        "from app import two\n"
        "\n"
        "def f():\n"
        "    return app.one.ONE, two.TWO\n"
    ),
}


def _check_json(tmp_path, *paths, env_extra=None):
    proc = run_python(["-m", "lazify", "check", "--format", "json", *paths], cwd=tmp_path,
                      env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    return {(n["line"], n["name"]): n for f in report["files"] for n in f["imports"]}


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("how", ["pyproject", "environment"])
def test_opt_in_mode_lazy_only_what_lazy_modules_names(tmp_path, how, mechanism):
    """enabled = false (or LAZIFY_DISABLE=1): the module's __lazy_modules__ makes the
    imports of the modules it names lazy, after it; check said every import was lazy."""
    _tree(tmp_path, OPT_IN)
    env = {"LAZIFY_MECHANISM": mechanism}
    if how == "pyproject":
        (tmp_path / "pyproject.toml").write_text("[tool.lazify]\nenabled = false\n")
    else:
        env["LAZIFY_DISABLE"] = "1"
    rows = _check_json(tmp_path, "app/main.py", env_extra=env)
    assert rows[(3, "app")]["verdict"] == "lazy"
    assert rows[(4, "two")]["verdict"] == "eager"
    assert rows[(4, "two")]["reason"] == "not-opted-in"
    # before __lazy_modules__ is bound: eager, though it names app.three
    assert rows[(1, "app")]["reason"] == "not-opted-in"
    outcome, disagreements, observed = differential.compare(
        str(tmp_path / "app" / "main.py"), "app.main", enabled=False, mechanism=mechanism,
        cwd=str(tmp_path))
    assert (outcome, disagreements) == ("ok", [])
    assert observed == 2       # app, two


def test_excluded_module_with_lazy_modules(tmp_path):
    """An excluded module that opts in is rewritten, and what it names is lazy."""
    _tree(tmp_path, OPT_IN)
    (tmp_path / "pyproject.toml").write_text('[tool.lazify]\nexcluding = ["app.main"]\n')
    rows = _check_json(tmp_path, "app/main.py")
    assert rows[(3, "app")]["verdict"] == "lazy"
    assert rows[(4, "two")]["reason"] == "excluded"
    outcome, disagreements, observed = differential.compare(
        str(tmp_path / "app" / "main.py"), "app.main", enabled=True, cwd=str(tmp_path))
    assert (outcome, disagreements, observed) == ("ok", [], 2)


def test_global_mode_everything_lazy_whatever_lazy_modules_says(tmp_path):
    _tree(tmp_path, OPT_IN)
    rows = _check_json(tmp_path, "app/main.py")
    assert {n["verdict"] for n in rows.values()} == {"lazy"}
    outcome, disagreements, observed = differential.compare(
        str(tmp_path / "app" / "main.py"), "app.main", cwd=str(tmp_path))
    assert (outcome, disagreements, observed) == ("ok", [], 2)


def test_future_import_is_not_unused(tmp_path):
    """The hook defers the name a __future__ import binds, and keeps its feature (the
    compiler flag): nothing is lost, so it is not tagged unused (--fail-on unused)."""
    _tree(tmp_path, {"m.py": "from __future__ import annotations\nimport json\n\n\n"
                             "def f(x: json.JSONDecoder) -> None:\n    pass\n"})
    rows = _check_json(tmp_path, "m.py", env_extra={"LAZIFY_MECHANISM": "rewrite"})
    assert rows[(1, "annotations")]["verdict"] == "lazy"
    assert rows[(1, "annotations")]["unused"] is False


def test_import_in_a_method_is_in_a_function(tmp_path):
    _tree(tmp_path, {"m.py": "class A:\n    import json\n\n    def f(self):\n        import csv\n"
                             "        return csv\n\n\ntry:\n    def g():\n        import shlex\n"
                             "except ImportError:\n    pass\n"})
    rows = _check_json(tmp_path, "m.py")
    assert rows[(2, "json")]["reason"] == "class"
    assert rows[(5, "csv")]["reason"] == "function"
    assert rows[(11, "shlex")]["reason"] == "function"


def test_import_through_a_package_the_hook_never_rewrites(tmp_path):
    """`import encodings.idna`: encodings (the import system's own) has no lazify
    __getattr__ to import idna when it is read, so the runtime imports it at its
    statement (plain-package).  (importlib is no example: the hook rewrites the package
    itself when the rewriter does not use it, and whether it was imported before the hook
    depends on the environment's start-up.)"""
    _tree(tmp_path, {"m.py": "import encodings.idna\nimport xml.dom\n\n\ndef f():\n"
                             "    return encodings.idna, xml.dom\n"})
    rows = _check_json(tmp_path, "m.py", env_extra={"LAZIFY_MECHANISM": "rewrite"})
    assert rows[(1, "encodings")]["reason"] == "plain-package"
    assert rows[(2, "xml")]["verdict"] == "lazy"


def test_machinery_modules_are_reported_eager():
    """The hook never rewrites the import system and the rewriter's own imports."""
    import sysconfig

    path = os.path.join(sysconfig.get_paths()["stdlib"], "encodings", "iso2022_jp_3.py")
    from lazify._check import check_file

    result = check_file(path, frozenset(), True)
    reasons = {n.reason for site in result["sites"] for n in site.names}
    assert reasons == {"machinery"}


@pytest.mark.skipif(sys.version_info < (3, 15), reason="PEP 810's lazy import is 3.15 syntax")
@pytest.mark.parametrize("mechanism, verdict", [("native", "lazy"), ("rewrite", "lazy")])
def test_explicit_lazy_import_with_global_mode_off(tmp_path, mechanism, verdict):
    """With global mode off, the source's own `lazy import` stays lazy on both mechanisms
    (PEP 810: explicit imports are lazy whatever lazify's settings; the native
    mechanism's filter lets them be, the rewrite leaves them to the interpreter)."""
    _tree(tmp_path, {"app/__init__.py": "", "app/one.py": "ONE = 1\n",
                     "app/main.py": "lazy import app.one\n\ndef f():\n    return app.one\n"})
    (tmp_path / "pyproject.toml").write_text("[tool.lazify]\nenabled = false\n")
    rows = _check_json(tmp_path, "app/main.py", env_extra={"LAZIFY_MECHANISM": mechanism})
    assert rows[(1, "app")]["verdict"] == verdict
    outcome, disagreements, observed = differential.compare(
        str(tmp_path / "app" / "main.py"), "app.main", enabled=False, mechanism=mechanism,
        cwd=str(tmp_path))
    assert (outcome, disagreements, observed) == ("ok", [], 1)
