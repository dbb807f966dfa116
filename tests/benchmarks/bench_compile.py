#!/usr/bin/env python3
"""``lazify compile`` next to ``python -m compileall -j N`` on the same tree, side by side.

    python tests/benchmarks/bench_compile.py TREE [--python PY] [--jobs N] [--rounds R]

Each round runs both commands (order alternated) from an empty cache: each gets a fresh
``PYTHONPYCACHEPREFIX``, so neither reads what the other (or an earlier round) wrote and
the tree itself is not touched.  Reports the median wall time of each, the median of the
per-round ratios (lazify / compileall), and the CPU time of the children.  The interpreter
is the one whose environment has lazify installed (``--python``, default this one).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


#: runs argv as the subreaper of its descendants (Linux) and waits for every one: a
#: process pool's workers forked by a forkserver (compileall's from 3.14 on) are the
#: forkserver's children, and the forkserver is left to init when the command exits, so
#: their CPU time never reached this process's RUSAGE_CHILDREN (3.15's compileall
#: showed 1.3 s of CPU for 29 s of wall time on two cores)
REAPER = """\
import ctypes, os, subprocess, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass
code = subprocess.call(sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(code)
"""


def run(argv, prefix):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPYCACHEPREFIX"] = prefix
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-S", "-c", REAPER, *argv], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def count_pycs(prefix):
    return sum(name.endswith(".pyc") for _, _, names in os.walk(prefix) for name in names)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args(argv)
    commands = {
        "compileall": [args.python, "-m", "compileall", "-q", "-j", str(args.jobs), args.tree],
        "lazify": [args.python, "-m", "lazify", "compile", "-j", str(args.jobs), args.tree],
    }
    results = {name: {"wall": [], "cpu": [], "pycs": [], "rc": []} for name in commands}
    work = tempfile.mkdtemp(prefix="bench-compile-")
    try:
        for r in range(args.rounds):
            order = list(commands) if r % 2 == 0 else list(reversed(commands))
            for name in order:
                prefix = os.path.join(work, f"{name}-{r}")
                wall, cpu, proc = run(commands[name], prefix)
                results[name]["wall"].append(wall)
                results[name]["cpu"].append(cpu)
                results[name]["pycs"].append(count_pycs(prefix))
                results[name]["rc"].append(proc.returncode)
                if name == "lazify":
                    results[name]["summary"] = proc.stdout.strip().splitlines()[-1:]
                shutil.rmtree(prefix, ignore_errors=True)
                print(f"round {r + 1} {name}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                      f"{results[name]['pycs'][-1]} pycs, rc {proc.returncode}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratios = [a / b for a, b in zip(results["lazify"]["wall"], results["compileall"]["wall"])]
    cpu_ratios = [a / b for a, b in zip(results["lazify"]["cpu"], results["compileall"]["cpu"])]
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "tree": args.tree, "jobs": args.jobs, "rounds": args.rounds,
        "commands": {k: " ".join(v) for k, v in commands.items()},
        "median_wall_s": {k: round(statistics.median(v["wall"]), 2) for k, v in results.items()},
        "median_ratio": round(statistics.median(ratios), 3),
        "median_cpu_ratio": round(statistics.median(cpu_ratios), 3),
        "raw": results,
    }
    print(json.dumps({k: v for k, v in report.items() if k != "raw"}, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
