"""Deeply nested source for the commands: their walks run on a large stack.

The planner (:mod:`lazify._facts`) and libcst walk a tree recursively, a few frames a
level, and libcst's parser (native code) recurses on the C stack with no check at all.
Generated code nests deeper than the main thread allows them: a sum of 900 terms, which
Python compiles (up to about 3000 terms on 3.10-3.12, 10000 on 3.13, 20000 on 3.14),
is beyond the default recursion limit, and one of 9900 overflowed the main thread's
stack in libcst's parser on 3.13 (SIGSEGV).  So ``rewrite``, ``diff`` and ``fix``
run their work on a file in a thread of its own (:func:`on_large_stack`), with a large
stack and the recursion limit raised to match it (a raised limit in the main thread
would bet on a stack lazify does not choose: 3.10 and 3.11 run every Python frame on
the C stack); a thread costs little beside libcst's parse.  ``check``, the planner
alone, runs a file here first and there after a RecursionError (:func:`call`).

What is deeper still is :class:`TooDeep`, one line: 3.12 and 3.13 count C-level calls
against a fixed limit no thread raises, and libcst's walks make them (3.12 stops them at
about 730 terms, 3.13 at about 4900).
"""

import sys

#: the stack of the thread a file is walked in (address space, used as it is touched)
STACK = 512 * 1024 * 1024

#: the recursion limit in that thread: 5 KiB of its stack a frame, more than a frame of
#: the walks takes on 3.10 and 3.11 (3.12 on keep Python frames off the C stack)
LIMIT = STACK // 5120


class TooDeep(Exception):
    """Nested deeper than lazify's recursive walks can follow on this Python."""

    def __init__(self):
        version = "%d.%d" % sys.version_info[:2]
        super().__init__(f"nested too deeply for lazify's recursive walks of the tree "
                         f"on Python {version}")


def call(work, *args):
    """``work(*args)`` here, and after a RecursionError again :func:`on_large_stack`."""
    try:
        return work(*args)
    except RecursionError:
        pass
    return on_large_stack(work, *args)


def on_large_stack(work, *args):
    """``work(*args)`` in a thread with a :data:`STACK` stack and a :data:`LIMIT`
    recursion limit; its result, or what it raised.  Where no such thread starts (a
    32-bit address space, strict overcommit, a thread limit) it runs here, as before.

    :raises TooDeep: for a RecursionError.
    """
    try:
        done, value = _in_thread(work, args)
    except _NoThread:
        try:
            return work(*args)
        except RecursionError:
            raise TooDeep() from None
    if done:
        return value
    if isinstance(value, RecursionError):
        raise TooDeep() from None
    raise value


class _NoThread(Exception):
    """No thread with that stack could be started."""


def _in_thread(work, args):
    """``(True, result)`` or ``(False, exception)`` of ``work(*args)`` on the large stack."""
    import threading

    outcome = []

    def run():
        try:
            outcome.append((True, work(*args)))
        except BaseException as exc:     # handed to the caller's thread
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    try:
        stack = threading.stack_size(STACK)
    except (ValueError, RuntimeError):   # no settable stack size, or not that large
        raise _NoThread() from None
    try:
        sys.setrecursionlimit(max(limit, LIMIT))
        # a daemon: a Ctrl-C in the join ends the command, and the thread with it
        thread = threading.Thread(target=run, name="lazify-deep", daemon=True)
        thread.start()
        thread.join()
    except RuntimeError:                 # cannot start a thread (memory, a thread limit)
        raise _NoThread() from None
    finally:
        threading.stack_size(stack)
        sys.setrecursionlimit(limit)
    return outcome[0]
