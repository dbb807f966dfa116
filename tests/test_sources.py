"""lazify._sources: the files a command works on, their module names, reading and parsing."""

from __future__ import annotations

import os

import pytest

from lazify import _sources
from lazify._sources import module_name_for
from tests.test_cli import write


def test_module_name_for(tmp_path):
    write(tmp_path, "a/__init__.py")
    write(tmp_path, "a/b/__init__.py")
    assert module_name_for(write(tmp_path, "a/b/c.py")) == ("a.b.c", False)
    assert module_name_for(str(tmp_path / "a" / "b" / "__init__.py")) == ("a.b", True)
    assert module_name_for(write(tmp_path, "a/b/__main__.py")) == ("a.b.__main__", False)
    assert module_name_for(write(tmp_path, "loose.py")) == ("loose", False)
    # A directory without __init__.py ends the package: namespace packages are not guessed.
    assert module_name_for(write(tmp_path, "ns/x.py")) == ("x", False)
    assert module_name_for(write(tmp_path, "my-script.py")) == ("", False)
    # The package stops at a directory whose name is not an identifier.
    write(tmp_path, "not-a-name/__init__.py")
    assert module_name_for(write(tmp_path, "not-a-name/m.py")) == ("m", False)


def test_skip_dirs_constant_covers_the_documented_names():
    assert {".git", "__pycache__", ".venv", "venv", "build", "dist", "node_modules"} <= _sources.SKIP_DIRS


def test_python_files_skips_hidden_build_and_virtual_environments(tmp_path):
    for rel in ("a.py", "pkg/__init__.py", "pkg/build/__init__.py", "pkg/build/x.py", "build/gen.py",
                ".tox/t.py", "env/pyvenv.cfg", "env/lib.py", "notes.txt"):
        write(tmp_path, rel)
    found = [os.path.relpath(f, tmp_path).replace(os.sep, "/") for f in _sources.python_files(str(tmp_path))]
    assert found == ["a.py", "pkg/__init__.py", "pkg/build/__init__.py", "pkg/build/x.py"]


def test_iter_files_gives_each_file_once_with_its_excluding(tmp_path, monkeypatch):
    monkeypatch.delenv("LAZIFY_EXCLUDING", raising=False)
    write(tmp_path, "pyproject.toml", '[tool.lazify]\nexcluding = ["app.x"]\n')
    a = write(tmp_path, "app/a.py")
    files = list(_sources.iter_files([str(tmp_path / "app"), a], ["extra"]))
    assert [f for f, _ in files] == [a]
    assert {"app.x", "extra", "sympy"} <= files[0][1]
    assert list(_sources.iter_files([a])) == [(a, None)]


@pytest.mark.parametrize(
    "data, short, located",
    [
        (b"def (:\n", "SyntaxError: invalid syntax (line 1)", "m.py:1:5: SyntaxError: invalid syntax"),
        (b"x = '\xff'\n", "SyntaxError: ", "m.py:1:"),
        (b"x = 1\0\n", "Error: source code", "m.py"),
    ],
    ids=["syntax", "undecodable", "null-byte"],
)
def test_source_errors_are_compiles(tmp_path, data, short, located):
    path = write(tmp_path, "m.py", raw=data)
    with pytest.raises(_sources.SourceError) as info:
        _sources.read_and_parse(path)
    with pytest.raises((SyntaxError, ValueError)):
        compile(data, path, "exec", dont_inherit=True)
    assert short in info.value.short()
    assert info.value.located().startswith(os.path.join(str(tmp_path), located))


def test_unreadable_file_is_a_source_error(tmp_path):
    with pytest.raises(_sources.SourceError) as info:
        _sources.read(str(tmp_path / "missing.py"))
    assert info.value.short() == "FileNotFoundError: No such file or directory"
    assert info.value.located() == f"{tmp_path / 'missing.py'}: No such file or directory"
