"""Start-up benchmark: lazify in global mode, with its rewrite mechanism."""

# Benchmark bookkeeping (check runs only, before the activation): ../_bookkeeping.py
import os as _os

if _os.environ.get("LZBENCH_BOOKKEEPING"):
    with open(_os.environ["LZBENCH_BOOKKEEPING"]) as _f:
        exec(compile(_f.read(), _f.name, "exec"))

import lazify

lazify.install(mechanism="rewrite")
