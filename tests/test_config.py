"""``[tool.lazify]`` and the environment: lazify._config."""

from __future__ import annotations

import os
import textwrap

import pytest

from lazify import _config
from lazify._config import Config, ConfigError, find_pyproject, load_config
from tests._scenario import HEAVY, lazy_output, write_tree
from tests._util import run_python


def pyproject(directory, text: str) -> str:
    path = os.path.join(str(directory), "pyproject.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(textwrap.dedent(text))
    return path


FULL = """\
    [project]
    name = "app"
    dependencies = ["lazify-imports"]

    [tool.lazify]
    enabled = false   # hook for opt-ins only
    excluding = [
        "sympy",  # registration order, see DEFAULT_EXCLUDING
        'app.plugins',
    ]

    [tool.other]
    excluding = ["not-ours"]
"""


@pytest.fixture(params=["toml-library", "minimal-parser"])
def parser(request, monkeypatch):
    """Run each test with tomllib/tomli and with the 3.10 fallback parser."""
    if request.param == "minimal-parser":
        monkeypatch.setattr(_config, "_toml_loads", lambda: None)
    elif _config._toml_loads() is None:
        pytest.skip("no TOML library on this Python")
    return request.param


def test_defaults_without_pyproject(tmp_path):
    assert load_config(tmp_path, environ={}) == Config(enabled=True, excluding=(), path=None)


def test_full_table(tmp_path, parser):
    path = pyproject(tmp_path, FULL)
    assert load_config(tmp_path, environ={}) == Config(
        enabled=False, excluding=("sympy", "app.plugins"), path=path
    )


def test_nearest_pyproject_upwards(tmp_path, parser):
    outer = pyproject(tmp_path, '[tool.lazify]\nexcluding = ["outer"]\n')
    inner_dir = tmp_path / "a" / "b"
    inner_dir.mkdir(parents=True)
    assert find_pyproject(inner_dir) == outer
    assert load_config(inner_dir, environ={}).excluding == ("outer",)
    inner = pyproject(tmp_path / "a", "[project]\nname = 'x'\n")
    # The nearest file wins even without a [tool.lazify] table.
    assert load_config(inner_dir, environ={}) == Config(path=inner)


def test_pyproject_without_table(tmp_path, parser):
    path = pyproject(tmp_path, '[project]\nname = "lazify-user"\n')
    assert load_config(tmp_path, environ={}) == Config(path=path)


def test_environment(tmp_path, parser):
    pyproject(tmp_path, '[tool.lazify]\nexcluding = ["a"]\n')
    config = load_config(tmp_path, environ={"LAZIFY_EXCLUDING": " b.c, ,a,d ", "LAZIFY_DISABLE": "1"})
    assert config.excluding == ("a", "b.c", "d")
    assert config.enabled is False
    assert load_config(tmp_path, environ={"LAZIFY_DISABLE": "0"}).enabled is True


@pytest.mark.parametrize(
    "table, message",
    [
        ("enabled = 1", "enabled must be true or false"),
        ('excluding = "sympy"', "excluding must be a list"),
        ('excluding = ["not a name"]', "not a module name"),
        ('exclude = ["sympy"]', "unknown key(s) in [tool.lazify]: exclude"),
    ],
)
def test_errors_name_the_file(tmp_path, parser, table, message):
    path = pyproject(tmp_path, f"[tool.lazify]\n{table}\n")
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path, environ={})
    assert path in str(exc.value)
    assert message in str(exc.value)


def test_minimal_parser_refuses_what_it_cannot_read(tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "_toml_loads", lambda: None)
    pyproject(tmp_path, "[tool.lazify]\nexcluding = {a = 1}\n")
    with pytest.raises(ConfigError, match="install tomli"):
        load_config(tmp_path, environ={})


def test_no_toml_import_without_lazify_table(tmp_path):
    pyproject(tmp_path, '[project]\nname = "app"\n')
    proc = run_python(
        "import sys, lazify._config as c; c.load_config(); "
        "print([m for m in ('tomllib', 'tomli', 'dataclasses') if m in sys.modules])",
        cwd=str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    # dataclasses is imported by the module itself; no TOML parser is.
    assert "tomllib" not in proc.stdout and "tomli" not in proc.stdout


@pytest.mark.parametrize("case, expected", [
    ("none", False),                      # no pyproject.toml anywhere above
    ("other", False),                     # one that does not mention lazify
    ("table", False),                     # the project's settings are not the program's
    ("env", True),                        # LAZIFY_EXCLUDING set
    ("recorded", False),                  # recorded by lazify enable: read as it is
])
def test_install_reads_settings_only_where_there_are_some(tmp_path, case, expected):
    """``install()`` imports lazify._config only for a LAZIFY_ variable (most starts have
    none; the settings recorded by ``lazify enable`` are applied as they are): the
    settings still apply.
    A pyproject.toml in the current directory is not read: a program started inside a
    project does not pick up the project's settings."""
    work = tmp_path / "app"
    work.mkdir()
    if case == "other":
        pyproject(work, '[project]\nname = "app"\n')
    elif case == "table":
        pyproject(work, '[tool.lazify]\nexcluding = ["json"]\n')
    record = ("import lazify._settings as s; s.keep_recorded({'excluding': ['json'], 'from': None}); "
              if case == "recorded" else "")
    proc = run_python(
        record + "import sys, lazify; lazify.install(); from lazify import _settings; "
        "print('lazify._config' in sys.modules, _settings.is_excluded('json'))",
        cwd=str(work),
        env_extra={"LAZIFY_EXCLUDING": "json" if case == "env" else None,
                   "LAZIFY_MECHANISM": None},
        check=True,
    )
    applied = expected or case == "recorded"
    assert proc.stdout == f"{expected} {applied}\n"


# ---------------------------------------------------------------- the resolver


RECORD = {"enabled": False, "excluding": ["rec"], "mechanism": "rewrite", "from": "/p/pyproject.toml"}


@pytest.mark.parametrize("arguments, environ, record, expected", [
    # nothing anywhere: lazify's defaults
    ({}, {}, None, (True, (), None, "default", "default")),
    # recorded by lazify enable
    ({}, {}, RECORD, (False, ("rec",), "rewrite", "recorded", "recorded")),
    # a variable beats the recorded settings; LAZIFY_EXCLUDING adds to them
    ({}, {"LAZIFY_DISABLE": "no", "LAZIFY_MECHANISM": "Native", "LAZIFY_EXCLUDING": "env"}, RECORD,
     (True, ("rec", "env"), "native", "LAZIFY_DISABLE", "LAZIFY_MECHANISM")),
    ({}, {"LAZIFY_DISABLE": "ON"}, None, (False, (), None, "LAZIFY_DISABLE", "default")),
    # an argument beats both; --excluding adds
    ({"enabled": True, "mechanism": "rewrite", "extra_excluding": ["arg"]},
     {"LAZIFY_DISABLE": "1", "LAZIFY_MECHANISM": "native"}, RECORD,
     (True, ("rec", "arg"), "rewrite", "argument", "argument")),
    # a malformed variable is ignored (at run time): the next layer decides
    ({}, {"LAZIFY_DISABLE": "banana", "LAZIFY_MECHANISM": "x"}, RECORD,
     (False, ("rec",), "rewrite", "recorded", "recorded")),
])
def test_precedence(arguments, environ, record, expected):
    """Argument, then environment variable, then the recorded settings, then defaults."""
    config = _config.resolve(**arguments, environ=environ, record=record, strict=False)
    enabled, excluding, mechanism, enabled_from, mechanism_from = expected
    assert (config.enabled, config.excluding, config.mechanism) == (enabled, excluding, mechanism)
    assert config.sources["enabled"].startswith(enabled_from)
    assert config.sources["mechanism"].startswith(mechanism_from)


def test_the_project_file_instead_of_the_record_for_check(tmp_path):
    path = pyproject(tmp_path, '[tool.lazify]\nexcluding = ["proj"]\nenabled = false\n')
    config = _config.resolve(project=str(tmp_path), environ={}, record=RECORD)
    assert (config.enabled, config.excluding, config.path) == (False, ("proj",), path)
    assert config.sources["enabled"] == path


@pytest.mark.parametrize("value, expected", [
    ("1", True), ("TRUE", True), (" yes ", True), ("On", True),
    ("0", False), ("false", False), ("No", False), ("off", False), ("", "default"),
])
def test_boolean_variables(value, expected, capsys):
    from lazify import _settings

    assert _settings.env_flag("LAZIFY_X", "default", {"LAZIFY_X": value}) == expected
    assert capsys.readouterr().err == ""


def test_a_bad_boolean_is_said_once_and_is_the_default(capsys):
    from lazify import _settings

    for _ in range(2):
        assert _settings.env_flag("LAZIFY_Y", False, {"LAZIFY_Y": "banana"}) is False
    assert capsys.readouterr().err == ("lazify: LAZIFY_Y='banana' is not one of 1/0, "
                                       "true/false, yes/no, on/off; taken as unset\n")


def test_an_unreadable_pyproject_is_one_line(tmp_path):
    (tmp_path / "pyproject.toml").mkdir()          # unreadable as a file, even for root
    with pytest.raises(ConfigError) as exc:
        _config.read_pyproject(tmp_path / "pyproject.toml")
    assert str(exc.value) == f"{tmp_path / 'pyproject.toml'}: cannot read it: Is a directory"


@pytest.mark.parametrize("text", [
    'tool.lazify.excluding = ["a", "b"]\ntool.lazify.enabled = false\n',
    '[tool]\nlazify.excluding = ["a", "b"]\nlazify.enabled = false\n',
    '[tool.lazify]\nexcluding = ["a", "b"]\nenabled = false\n[tool.other]\nx = 1\n',
])
def test_dotted_keys(tmp_path, parser, text):
    pyproject(tmp_path, text)
    config = load_config(tmp_path, environ={})
    assert (config.enabled, config.excluding) == (False, ("a", "b"))


def test_the_minimal_parser_says_what_it_cannot_read(tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "_toml_loads", lambda: None)
    pyproject(tmp_path, 'tool = {lazify = {excluding = ["a"]}}\n')
    with pytest.raises(ConfigError, match="install tomli"):
        load_config(tmp_path, environ={})


def test_enable_refuses_a_lazify_that_site_adds_after_the_activation_file():
    """A venv with --system-site-packages and lazify only outside it: the activation
    file would run before lazify is on sys.path, and say so at every start."""
    from lazify._activate import _read_too_late

    info = {"sitedirs": ["/v/lib/site-packages", "/usr/lib/site-packages"],
            "purelib": "/v/lib/site-packages"}
    late = _read_too_late({**info, "lazify": "/usr/lib/site-packages/lazify/__init__.py"})
    assert late == "/usr/lib/site-packages"
    assert _read_too_late({**info, "lazify": "/v/lib/site-packages/lazify/__init__.py"}) is None
    assert _read_too_late({**info, "lazify": "/src/checkout/lazify/__init__.py"}) is None


@pytest.mark.parametrize("record", [
    {}, {"enabled": False}, {"excluding": ["a", "b.c"]}, {"mechanism": "rewrite"},
    {"enabled": True, "excluding": ["a"], "mechanism": "rewrite", "from": "/p/pyproject.toml"},
])
@pytest.mark.parametrize("enabled", [None, True, False])
def test_the_recorded_settings_alone_are_what_the_resolver_gives(record, enabled):
    """install()'s short cut when no variable is set (lazify._config not imported)."""
    from lazify import _settings

    config = _config.resolve(enabled=enabled, environ={}, record=record)
    assert _settings.recorded_settings(record, enabled) == (
        config.enabled, config.excluding, config.mechanism)


@pytest.mark.parametrize("value, strict", [("false", False), ("OFF", False), ("1", True), ("yes", True)])
def test_lazify_strict_is_a_boolean_like_the_others(monkeypatch, value, strict):
    """LAZIFY_STRICT=false used to turn strict mode on (anything but "" and "0" did)."""
    from lazify import _hook

    monkeypatch.setenv("LAZIFY_STRICT", value)
    assert _hook._strict() is strict


# ---------------------------------------------------------------- in a running program


def test_default_excluding_list_keeps_sympy_style_packages_eager(tmp_path):
    import lazify
    assert "sympy" in lazify.DEFAULT_EXCLUDING
    out = lazy_output(tmp_path, {**HEAVY, "sympy/__init__.py": "import heavy\n",
                                 "main.py": "import sympy\nprint('x')\nif True:\n    sympy.__name__\n"})
    assert out.splitlines() == ["x", "heavy executed"]


def test_install_reads_the_recorded_settings_and_the_environment(tmp_path):
    """The settings ``lazify enable`` recorded (handed over by its ``.pth`` file) and the
    environment apply; the ``pyproject.toml`` of the current directory does not."""
    write_tree(tmp_path, {**HEAVY, "pyproject.toml": '[tool.lazify]\nexcluding = ["other"]\n',
                          "keep.py": "import heavy\n", "other.py": "import heavy\n"})
    code = textwrap.dedent("""
        import sys
        import lazify._settings
        lazify._settings.keep_recorded({"enabled": True, "excluding": ["keep"], "from": None})
        import lazify
        lazify.install()
        import other
        print("heavy" in sys.modules, lazify.is_lazy_imports_enabled())
        import keep
        print("heavy" in sys.modules)
    """)
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False True", "heavy executed", "True"]
    proc = run_python(code, cwd=tmp_path, env_extra={"LAZIFY_DISABLE": "1"})
    assert proc.stdout.splitlines()[0] == "heavy executed"   # everything eager


def test_install_ignores_a_malformed_pyproject_and_reports_a_bad_variable_once(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.lazify]\nexcluding = 3\n"})
    code = "import lazify; lazify.install(); lazify.install(); print(lazify.is_lazy_imports_enabled())"
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
    assert proc.stderr == ""
    proc = run_python(code, cwd=tmp_path, env_extra={"LAZIFY_EXCLUDING": "ok,not a name"})
    assert proc.stdout.strip() == "True"
    assert proc.stderr == ("lazify: LAZIFY_EXCLUDING: not a module name in excluding: "
                           "'not a name'; ignored\n")
