"""Shared pytest configuration; subprocess helpers live in tests/_util.py."""

from __future__ import annotations

import os

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
