"""Differences the sweep accepts, each with its reason.

Key: (suite, test id) where suite is "stdlib test_x" or a project name, and a
test id ending in "*" matches every id with that prefix.  Value: the reason,
which must be a limitation documented in the README and reported by
``lazify check``.  A lazify bug is never listed here: it is fixed.
"""

KNOWN: dict[tuple[str, str], str] = {}
