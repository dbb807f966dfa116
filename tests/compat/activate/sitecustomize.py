"""Activation for the compat sweep: global lazy mode for the whole process.

Put this directory (and the lazify checkout) on PYTHONPATH; every child
process that inherits the environment (regrtest workers, subprocess tests)
is activated the same way.
"""
import lazify

lazify.install()
