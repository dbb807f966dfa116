"""Sampled sweeps: the default run checks a fixed sample of a long list of cases,
``LAZIFY_FULL_TESTS=1`` (``.ci/run`` sets it) checks every one.

The sample is chosen by a stable hash of each case's id (CRC-32, the same on every run,
Python and machine), with at least one case of each kind the caller names, so the
default run always checks the same cases and a failure in it always reproduces. The cases
left out are skipped, with a reason naming the variable, not deselected: the summary line
says how many the default run did not check.
"""

from __future__ import annotations

import os
import zlib
from typing import Callable, Iterable

import pytest

#: The environment variable that runs every case of the sampled sweeps.
FULL_VARIABLE = "LAZIFY_FULL_TESTS"


def full() -> bool:
    """Whether this run checks every case (``LAZIFY_FULL_TESTS`` set, not ``0``)."""
    return os.environ.get(FULL_VARIABLE, "") not in ("", "0")


def chosen(ids: Iterable[str], size: int, kind: Callable[[str], str] = lambda _id: "") \
        -> set[str]:
    """The ids of the default run's sample: the first of each kind in hash order, then
    the next ones in hash order up to SIZE (more when there are more kinds than SIZE)."""
    order = sorted(ids, key=lambda i: (zlib.crc32(i.encode("utf-8")), i))
    picked: list[str] = []
    kinds = set()
    for case_id in order:
        if kind(case_id) not in kinds:
            kinds.add(kind(case_id))
            picked.append(case_id)
    for case_id in order:
        if len(picked) >= size:
            break
        if case_id not in picked:
            picked.append(case_id)
    return set(picked)


def sample(cases: Iterable, size: int, *, kind: Callable[[str], str] = lambda _id: "",
           ids: Callable[[object], str] = str, unpack: bool = False) -> list:
    """``pytest.param`` of each case: all run under ``LAZIFY_FULL_TESTS=1``; otherwise
    those outside the sample of SIZE (see :func:`chosen`) are skipped.  ``unpack``:
    each case is a tuple of the test's several arguments."""
    cases = list(cases)
    keep = None if full() else chosen([ids(c) for c in cases], size, kind)
    skip = pytest.mark.skip(reason=f"not in the default run's sample: {FULL_VARIABLE}=1 "
                                   "runs every case")
    return [pytest.param(*(c if unpack else (c,)), id=ids(c),
                         marks=() if keep is None or ids(c) in keep else skip)
            for c in cases]


#: Marks a test that only ``LAZIFY_FULL_TESTS=1`` runs: one that checks the test
#: harness itself, or a larger input to a behaviour another default test already checks.
full_only = pytest.mark.skipif(not full(), reason=f"slow and covered by a default test: "
                                                  f"{FULL_VARIABLE}=1 runs it")
