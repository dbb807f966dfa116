"""Shared pytest configuration; subprocess helpers live in tests/_util.py."""

from __future__ import annotations

import os
import sys

import pytest

from lazify import _hook, _native, _settings
from tests._util import ROOT, run_python

# The suite runs lazify's default mechanism, in this process as in the children
# (tests/_util.py): the rewrite before 3.15, the native one on 3.15 (LAZIFY_MECHANISM
# unset), and LAZIFY_MECHANISM=rewrite runs everything with the rewrite there. A test of
# the rewrite itself says so: @pytest.mark.rewrite_only(why); a scenario the native
# mechanism still fails: @pytest.mark.native_gap(cause) (the rewrite, and natively a
# strict xfail, so that a fix turns it green).
if not _native.NATIVE_AVAILABLE:
    os.environ.setdefault("LAZIFY_MECHANISM", "rewrite")
_settings.settings.mechanism = None      # from LAZIFY_MECHANISM on first use
# The tests in this process test the rewrite itself, as the children do (tests/_util.py):
# a cache miss is rewritten at once, not served from the plain pyc and rewritten at exit.
os.environ["LAZIFY_DEFER_REWRITE"] = "0"
_hook.set_defer_rewrite(False)


@pytest.fixture
def project_root() -> str:
    """The project root directory."""
    return ROOT


@pytest.fixture(name="run_python")
def run_python_fixture():
    """:func:`tests._util.run_python`, as a fixture."""
    return run_python


@pytest.fixture
def lazify_cli(capsys, monkeypatch):
    """``lazify ARGS`` in this process (the command line's ``main``), in *cwd*, with
    *env_extra* (None removes a variable): a CompletedProcess of its exit status, stdout
    and stderr. For the commands that emit with libcst (``fix``, ``rewrite``, ``diff``),
    whose import costs a child about 0.3 s of CPU; ``python -m lazify`` itself is
    tests/test_cli.py's."""
    import subprocess

    from lazify._cli import main

    def run(args, *, cwd, env_extra=None):
        capsys.readouterr()
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            for key, value in (env_extra or {}).items():
                if value is None:
                    patch.delenv(key, raising=False)
                else:
                    patch.setenv(key, value)
            _settings.settings.mechanism = None       # from LAZIFY_MECHANISM, as a child's
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code
            finally:
                _settings.settings.mechanism = None
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["lazify", *args], code, out, err)

    return run


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "rewrite_only(why): the test checks the rewrite mechanism itself; it "
        "runs with LAZIFY_MECHANISM=rewrite, here and in its children")
    config.addinivalue_line(
        "markers", "native_gap(cause): a scenario the native mechanism fails; it runs "
        "with the rewrite, and on 3.15+ natively too as a strict xfail naming the cause")
    # With -n, each test module runs on one worker (xdist's --dist loadfile, not -n's
    # default load): a module's shared fixture (a report, a pytest session, a batch of
    # children) is made once, not once on every worker that runs one of its tests.
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "loadfile"


def pytest_generate_tests(metafunc):
    gap = metafunc.definition.get_closest_marker("native_gap")
    if gap is not None and _native.NATIVE_AVAILABLE:
        cause = gap.args[0] if gap.args else "a known difference of the native mechanism"
        metafunc.parametrize("_mechanism", [
            "rewrite",
            pytest.param("native", marks=pytest.mark.xfail(strict=True, reason=cause)),
        ], indirect=True)


@pytest.fixture(autouse=True)
def _mechanism(request):
    """Pin the mechanism of a ``rewrite_only`` or ``native_gap`` test (see the top)."""
    mechanism = getattr(request, "param", None)
    if mechanism is None and (request.node.get_closest_marker("rewrite_only") is None
                              and request.node.get_closest_marker("native_gap") is None):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAZIFY_MECHANISM", mechanism or "rewrite")
        _settings.settings.mechanism = None
        try:
            yield mechanism or "rewrite"
        finally:
            _settings.settings.mechanism = None


# pytest caches the test modules it rewrites (assertions) as pycs, unless
# sys.dont_write_bytecode: with PYTHONDONTWRITEBYTECODE set (this machine sets it, as
# many CI images do) each xdist worker would rewrite every test module again at every run
# (about 1 s of CPU a worker on the 2-core machine). They are written for the collection
# only; the tests run with the interpreter's setting as it was. This conftest is imported
# before the test modules; a conftest's pytest_collectstart is not called for the Session
# (its hooks apply to the nodes under its directory), pytest_collection_finish is.
_dont_write_bytecode = sys.dont_write_bytecode
sys.dont_write_bytecode = False


def pytest_collection_finish(session):
    sys.dont_write_bytecode = _dont_write_bytecode
