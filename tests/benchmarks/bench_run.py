"""``lazify run``'s own cost over ``python script.py``.

Run: ``python tests/benchmarks/bench_run.py [--python PY] [--rounds N] [--lazify-root DIR]``

A script with no import (so laziness has nothing to save) is run as
``python script.py``, ``python -m lazify run script.py`` and through the ``lazify``
console script (when it is beside ``--python``), round by round in alternating
order, warm (every cache written by a first run).  Printed: the median of each
command's wall time and its median difference from plain, in milliseconds.  With
``--lazify-root``, lazify is imported from that tree (``PYTHONPATH``) instead, to
compare two versions side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env, cwd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--lazify-root", action="append", default=[],
                        help="a lazify tree to compare (repeatable)")
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.py")
        with open(script, "w") as f:
            f.write("print('hello')\n")
        # dated in the past: a file written just now is too fresh for lazify to cache, and
        # every round would rewrite it
        os.utime(script, (1_600_000_000, 1_600_000_000))
        commands = {"python script.py": ([args.python, script], env)}
        roots = args.lazify_root or [None]
        for root in roots:
            side_env = dict(env)
            label = "" if root is None else f" [{root}]"
            if root is not None:
                side_env["PYTHONPATH"] = root
            commands[f"python -m lazify run{label}"] = (
                [args.python, "-m", "lazify", "run", script], side_env)
            console = os.path.join(os.path.dirname(args.python), "lazify")
            if root is None and os.path.exists(console):
                commands["lazify run"] = ([console, "run", script], side_env)
        for cmd, cmd_env in commands.values():          # warm every cache
            timed(cmd, cmd_env, tmp)
        times = {name: [] for name in commands}
        names = list(commands)
        for index in range(args.rounds):
            order = names if index % 2 == 0 else names[::-1]
            for name in order:
                cmd, cmd_env = commands[name]
                times[name].append(timed(cmd, cmd_env, tmp))
        plain = times["python script.py"]
        for name in names:
            diffs = [t - p for t, p in zip(times[name], plain)]
            print(f"{name:<50} median {statistics.median(times[name]) * 1e3:7.2f} ms"
                  f"   over plain {statistics.median(diffs) * 1e3:+6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
