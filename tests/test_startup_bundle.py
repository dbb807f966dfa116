"""The start-up bundle (lazify._startup_bundle): lazify's start-up modules read from one
file while it holds their sources as they are, imported one by one otherwise.

Each scenario runs a copy of the package, its sources dated an hour back (a source
modified within the last second is not bundled), in a child interpreter."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import time

import pytest

from tests._util import ROOT, run_python

#: what the child prints: lazify's modules, whether the path finder searched lazify's
#: directory (it does for a module imported one by one), and the start-up modules' specs
PROBE = """
import sys
import lazify
here = lazify.__path__[0]
print(" ".join(sorted(m for m in sys.modules if m.startswith("lazify"))))
print("searched" if here in sys.path_importer_cache else "bundle")
for name in lazify.STARTUP_MODULES:
    module = sys.modules["lazify." + name]
    spec = module.__spec__
    assert getattr(lazify, name) is module
    assert spec.name == module.__name__ == "lazify." + name, spec
    assert spec.origin == module.__file__ == f"{here}/{name}.py", spec
    assert type(spec.loader).__name__ == "SourceFileLoader" and spec.loader.name == spec.name
    assert module.__loader__ is spec.loader and module.__package__ == "lazify"
    assert spec.cached == importlib.util.cache_from_source(spec.origin), spec
    assert not getattr(spec, "_initializing", False)
lazify.install()
print("installed", lazify._hook.is_installed(), getattr(lazify._os, "EDITED", None))
""".replace("import sys\n", "import importlib.util\nimport sys\n", 1)

MODULES = ("lazify lazify._cache lazify._guarded lazify._hook lazify._native lazify._os "
           "lazify._settings")


@pytest.fixture
def package(tmp_path):
    """A copy of lazify without bytecode, its sources an hour old."""
    target = tmp_path / "site" / "lazify"
    shutil.copytree(os.path.join(ROOT, "lazify"), target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    old = time.time() - 3600
    for path in target.iterdir():
        os.utime(path, (old, old))
    return target


def bundle_of(package) -> str:
    return importlib.util.cache_from_source(str(package / "__startup__.py"))


def start(package, **env):
    proc = run_python(PROBE, cwd=package.parent, check=True,
                      env_extra={"PYTHONPATH": str(package.parent), **env})
    return proc.stdout.splitlines()


def test_the_second_start_reads_the_bundle(package):
    first = start(package)
    assert first[1] == "searched"             # no bundle yet: one by one, then written
    assert os.path.exists(bundle_of(package))
    second = start(package)
    assert second == [MODULES, "bundle", "installed True None"]
    assert first[2] == second[2]


def test_an_edited_source_is_read_and_bundled_once_it_is_old_enough(package):
    start(package)
    source = package / "_os.py"
    source.write_text(source.read_text() + "\nEDITED = 1\n")
    assert start(package)[1:] == ["searched", "installed True 1"]
    assert start(package)[1:] == ["searched", "installed True 1"]   # too fresh to bundle
    old = time.time() - 60
    os.utime(source, (old, old))
    assert start(package)[1:] == ["searched", "installed True 1"]   # bundled now
    assert start(package)[1:] == ["bundle", "installed True 1"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other names"])
def test_a_corrupt_bundle_is_written_again(package, damage):
    start(package)
    path = bundle_of(package)
    data = open(path, "rb").read()
    if damage == "garbage":
        data = data[:4] + b"\x00garbage"
    elif damage == "truncated":
        data = data[: len(data) // 2]
    else:
        data = data.replace(b"_settings", b"_sittings")
    with open(path, "wb") as f:
        f.write(data)
    assert start(package)[1] == "searched"             # and written again
    assert start(package)[:2] == [MODULES, "bundle"]


def test_none_is_written_under_dont_write_bytecode(package):
    assert start(package, PYTHONDONTWRITEBYTECODE="1")[:2] == [MODULES, "searched"]
    assert not os.path.exists(bundle_of(package))


def test_a_cache_directory_that_cannot_be_made_costs_nothing_more(package):
    (package / "__pycache__").write_text("a file where the directory would be")
    assert start(package) == [MODULES, "searched", "installed True None"]
    assert start(package)[:2] == [MODULES, "searched"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes anywhere")
def test_where_this_user_cannot_write_the_writer_is_not_imported(package):
    package.chmod(0o555)
    try:
        assert start(package)[:2] == [MODULES, "searched"]
    finally:
        package.chmod(0o755)
    assert not os.path.exists(bundle_of(package))


def test_reload_keeps_the_modules(package):
    code = ("import importlib, sys, lazify; hook = sys.modules['lazify._hook']; "
            "importlib.reload(lazify); print(sys.modules['lazify._hook'] is hook)")
    start(package)
    proc = run_python(code, cwd=package.parent, check=True,
                      env_extra={"PYTHONPATH": str(package.parent)})
    assert proc.stdout.split() == ["True"]


def test_the_bundle_is_the_interpreters_own():
    """Named by the interpreter's cache tag and optimization level: another Python, or
    ``-O``, reads a file of its own."""
    name = os.path.basename(importlib.util.cache_from_source("/x/__startup__.py"))
    assert sys.implementation.cache_tag in name
