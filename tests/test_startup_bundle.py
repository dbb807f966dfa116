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
lazify.install()
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
    assert spec.submodule_search_locations is None and spec.has_location, spec
    assert not getattr(spec, "_initializing", False)
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
    # no LAZIFY_MECHANISM (which the tests set before 3.15): install() would load the
    # settings' modules for it
    proc = run_python(PROBE, cwd=package.parent, check=True,
                      env_extra={"PYTHONPATH": str(package.parent), "LAZIFY_MECHANISM": None,
                                 **env})
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


def test_a_copy_keeping_whole_seconds_keeps_the_bundle_current(package):
    """GNU tar's default format and zip keep an mtime's seconds only, as a pyc records
    it: the bundle stays current after such a copy, as CPython's pycs do (with the
    nanoseconds recorded, every start after it imported the modules one by one)."""
    start(package)
    for path in package.glob("*.py"):
        seconds = int(path.stat().st_mtime)
        os.utime(path, ns=(seconds * 10**9, seconds * 10**9))
    assert start(package)[:2] == [MODULES, "bundle"]


def test_a_source_dated_in_the_future_is_not_bundled_and_the_writer_not_imported(package):
    """Too fresh to be told from its next edit until the clock passes it: no bundle,
    and no start imports the writer meanwhile (1.9 M instructions each on 3.15)."""
    future = time.time() + 86400
    os.utime(package / "_os.py", (future, future))
    assert start(package) == [MODULES, "searched", "installed True None"]
    assert start(package)[:2] == [MODULES, "searched"]
    assert not os.path.exists(bundle_of(package))


def test_without_a_bundle_lazify_imports_its_modules_as_it_did_before(package):
    """Missing or stale, the modules are imported as the package's imports and
    install() ask for them: importing the six while lazify initializes took lazify's
    module lock twice each (about 0.45 M instructions on 3.15)."""
    code = ("import sys, lazify; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('lazify'))))")
    proc = run_python(code, cwd=package.parent, check=True,
                      env_extra={"PYTHONPATH": str(package.parent), "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.stdout.split() == ["lazify", "lazify._settings"]


def test_lazify_run_writes_the_bundle(package):
    """``lazify run`` installs the hook without ``lazify.install()``: the hook's install
    writes the bundle, whichever way lazify was switched on."""
    (package.parent / "prog.py").write_text("import json\nprint(json.dumps([1]))\n")
    proc = run_python(["-m", "lazify", "run", "prog.py"], cwd=package.parent, check=True,
                      env_extra={"PYTHONPATH": str(package.parent), "LAZIFY_MECHANISM": None})
    assert (proc.stdout, proc.stderr) == ("[1]\n", "")
    assert os.path.exists(bundle_of(package))


def test_compile_env_right_after_an_install_writes_the_bundle(package):
    """``pip install lazify && lazify compile --env`` under PYTHONDONTWRITEBYTECODE, as
    an image is built: the sources are seconds old, and no start will write the bundle;
    compile waits out their second (it wrote nothing before)."""
    now = time.time()
    for path in package.glob("*.py"):
        os.utime(path, (now, now))
    code = ("import lazify._compile as c; c.environment_paths = lambda: ([], ()); "
            "raise SystemExit(c.compile_paths([], env=True, progress=False))")
    run_python(code, cwd=package.parent, check=True,
               env_extra={"PYTHONPATH": str(package.parent), "PYTHONDONTWRITEBYTECODE": "1"})
    assert start(package, PYTHONDONTWRITEBYTECODE="1")[:2] == [MODULES, "bundle"]


def test_a_moved_package_names_its_files_where_they_are_now(package, tmp_path):
    """A bundle copied with its sources (a venv or image copied whole, mtimes kept)
    stays current; its code names the files at their new place, as a pyc's code does
    (the import system's loader fixes co_filename): tracebacks showed the old path."""
    start(package)
    moved = tmp_path / "moved" / "lazify"
    shutil.copytree(package, moved)
    shutil.rmtree(package.parent)
    proc = run_python("import lazify, sys\nlazify.install()\n"
                      "print('bundle' if lazify.__path__[0] not in sys.path_importer_cache "
                      "else 'searched')\n"
                      "print(lazify._hook.install.__code__.co_filename)\n",
                      cwd=moved.parent, check=True,
                      env_extra={"PYTHONPATH": str(moved.parent), "LAZIFY_MECHANISM": None})
    assert proc.stdout.splitlines() == ["bundle", str(moved / "_hook.py")]
