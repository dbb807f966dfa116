"""Activation for the compat sweep: global lazy mode for the whole process.

Put this directory (and the lazify checkout) on PYTHONPATH; every child
process that inherits the environment (regrtest workers, subprocess tests)
is activated the same way.  A failure to activate ends the process with
exit code 86: ``site`` would only print a line and go on eagerly, and the
sweep would then compare plain with plain.
"""
try:
    import lazify

    lazify.install()
except BaseException as exc:
    import os
    import sys
    import traceback

    traceback.print_exc()
    sys.stderr.write(f"tests/compat/activate: lazify could not be activated: {exc!r}\n")
    sys.stderr.flush()
    os._exit(86)
