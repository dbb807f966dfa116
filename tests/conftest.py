"""Shared pytest configuration; subprocess helpers live in tests/_util.py."""

from __future__ import annotations

import pytest

from tests._util import ROOT, run_python


@pytest.fixture
def project_root() -> str:
    """The project root directory."""
    return ROOT


@pytest.fixture(name="run_python")
def run_python_fixture():
    """:func:`tests._util.run_python`, as a fixture."""
    return run_python
