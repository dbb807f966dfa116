"""The pytest plugin's cost when off: a suite's collection time with the plugin loaded but
off (the default once lazify is installed) against the plugin blocked (``-p no:lazify``).

Run: ``python tests/benchmarks/bench_plugin_collect.py VENV_PYTHON SUITE_DIR TESTS ROUNDS``
(for example a venv of ``tests/compat/run.py --setup-only``).  Rounds alternate the order;
printed: each side's median and the median of the per-round ratios.
"""

import os
import statistics
import subprocess
import sys
import time


def main(argv=None) -> int:
    py, src, tests, rounds = (argv or sys.argv[1:])[:4]
    rounds = int(rounds)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    base = [py, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", tests]
    cmds = {"plugin off": base, "plugin blocked": base + ["-p", "no:lazify"]}
    for cmd in cmds.values():
        subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.DEVNULL, check=True)
    times = {name: [] for name in cmds}
    for index in range(rounds):
        for name in (list(cmds) if index % 2 == 0 else list(cmds)[::-1]):
            start = time.perf_counter()
            subprocess.run(cmds[name], cwd=src, env=env, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    ratios = [a / b for a, b in zip(times["plugin off"], times["plugin blocked"])]
    for name, values in times.items():
        print(f"{name:<15} median {statistics.median(values) * 1e3:8.1f} ms")
    print(f"off/blocked median ratio {statistics.median(ratios):.4f}  (rounds {rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
