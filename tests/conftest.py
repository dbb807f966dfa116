"""Shared pytest configuration; subprocess helpers live in tests/_util.py."""

from __future__ import annotations

import os
import sys

import pytest

from lazify import _hook, _settings
from tests._util import ROOT, run_python

# The scenarios are written for the rewrite mechanism (the default before 3.15), in this
# process as in the children (tests/_util.py): tests/test_native.py runs the native one,
# and LAZIFY_MECHANISM=native runs everything with it.
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


# pytest caches the test modules it rewrites (assertions) as pycs, unless
# sys.dont_write_bytecode: with PYTHONDONTWRITEBYTECODE set (this machine sets it, as
# many CI images do) each xdist worker rewrote every test module again at every run
# (about 0.9 s of CPU a worker on the 2-core machine, 2026-12-06). They are written for
# the collection only; the tests run with the interpreter's setting as it was.
_dont_write_bytecode = sys.dont_write_bytecode


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Session):
        sys.dont_write_bytecode = False


def pytest_collection_finish(session):
    sys.dont_write_bytecode = _dont_write_bytecode
