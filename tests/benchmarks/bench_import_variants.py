#!/usr/bin/env python3
"""Import time of one package from several source trees, side by side.

    python3 tests/benchmarks/bench_import_variants.py --python PY --module click \\
        plain=/tmp/x/plain/src keyword=/tmp/x/keyword/src lazy-modules=/tmp/x/lazymods/src

Each round starts ``PY -X importtime -c "import MODULE"`` once per tree (``PYTHONPATH=TREE``,
no lazify), the trees in a rotated order, after one untimed warm-up round (which also
writes the bytecode); prints each tree's median wall time of the whole process and
median cumulative import time of MODULE (``-X importtime``), their ratios to the first
tree's, and the number of modules ``import MODULE`` adds to ``sys.modules``.  ``docs/pep810.md`` has
the figures for ``lazify fix``'s output on click and jinja2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def _run(python, tree, code):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPATH"] = tree
    start = time.perf_counter()
    proc = subprocess.run([python, "-X", "importtime", "-c", code], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{tree}: {proc.stderr}")
    return elapsed, proc.stdout, proc.stderr


def _cumulative(stderr, module) -> float:
    """MODULE's cumulative import time in seconds, from ``-X importtime``'s report."""
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            return int(parts[1]) / 1e6
    sys.exit(f"no import time for {module}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--module", required=True)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("trees", nargs="+", metavar="LABEL=PATH")
    args = parser.parse_args(argv)
    trees = [tuple(item.split("=", 1)) for item in args.trees]
    code = f"import {args.module}"
    counted = f"import sys; before = len(sys.modules); import {args.module}; " \
              "print(len(sys.modules) - before)"
    modules = {label: int(_run(args.python, path, counted)[1]) for label, path in trees}
    times = {label: [] for label, _path in trees}
    imports = {label: [] for label, _path in trees}
    for round_ in range(args.rounds + 1):
        shift = round_ % len(trees)
        for label, path in trees[shift:] + trees[:shift]:
            elapsed, _out, err = _run(args.python, path, code)
            if round_:
                times[label].append(elapsed)
                imports[label].append(_cumulative(err, args.module))
    base = statistics.median(times[trees[0][0]])
    base_import = statistics.median(imports[trees[0][0]])
    print(f"{args.module} on {args.python}, {args.rounds} interleaved rounds")
    print(f"  {'tree':<14} {'process':>9} {'ratio':>7} {'import':>9} {'ratio':>7}  modules")
    for label, _path in trees:
        median = statistics.median(times[label])
        imported = statistics.median(imports[label])
        print(f"  {label:<14} {median * 1000:6.1f} ms {median / base:6.3f}x "
              f"{imported * 1000:6.1f} ms {imported / base_import:6.3f}x  {modules[label]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
