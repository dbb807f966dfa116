"""Steady-state cost of lazify on real test suites: plain and lazy, side by side.

Run: ``python tests/benchmarks/bench_suites.py [--only attrs,click] [--rounds N]``

Each project of the compatibility sweep (``tests/compat/run.py``'s ``PROJECTS``: a pinned
sdist in its own venv with its test dependencies and this checkout installed editable)
runs its own test suite, or the part given in :data:`PARTS`, with
``python -m pytest -p no:cacheprovider -q`` ("plain"), with the venv's ``lazify`` console
script, ``lazify run -m pytest`` ("lazy"), and with ``LAZIFY=1 python -m pytest`` ("env":
lazify started at start-up by its ``.pth`` file, as ``lazify enable`` does), alternately
(plain, lazy, env, env, lazy, plain in each round, to cancel drift on a shared machine).
Reported: the CPU time (user + system) of each run and the median over rounds of the ratio
to plain; warm caches (a first run of each, not timed, fills them).  The minor page faults
of each run are reported with the CPU time: where the program's first frame sits decides
where CPython's frame stack crosses its 16 KiB chunks (docs/performance.md: a deep suite
then maps and unmaps chunks more often, kernel time and page faults); ``lazify run`` runs
the program under as many frames as ``python -m`` (two), ``LAZIFY=1`` under the same
ones.  Start-up is part of each run: a suite of a few seconds measures it as much as the
steady state, so :data:`PARTS` keeps the slow, hot tests.

``--profile`` runs each side once more under cProfile and prints the functions whose
own time differs most between the two, to find where an excess goes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "compat"))

import run as compat  # noqa: E402  (tests/compat/run.py)

#: project -> the tests to run (default: the project's whole suite)
PARTS = {
    "attrs": ["tests"],
    "click": ["tests"],
    "jinja2": ["tests"],
}


def pytest_args(name, spec):
    return ["-p", "no:cacheprovider", "-q", *spec.get("args", ()),
            *PARTS.get(name, [spec["tests"]])]


#: minor page faults of the last run of each command (see the module docstring)
FAULTS = {}


def timed(cmd, cwd, env, label=None):
    """The CPU time (user + system) of the run, and its exit code: on a shared machine
    the wall clock measures the neighbours as much as the run."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if label:
        FAULTS.setdefault(label, []).append(usage.ru_minflt)
    return usage.ru_utime + usage.ru_stime, proc.returncode


def bench(name, workdir, rounds, profile):
    spec = compat.PROJECTS[name]
    base = os.path.join(workdir, "thirdparty", name)
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "setup.log"), "a") as log:
        src, venv = compat.prepare_project(name, spec, workdir, ROOT, log)
    py = compat.venv_python(venv)
    env = compat.base_env()
    env["LAZIFY_MECHANISM"] = os.environ.get("LAZIFY_MECHANISM", "")
    if not env["LAZIFY_MECHANISM"]:
        del env["LAZIFY_MECHANISM"]
    args = pytest_args(name, spec)
    plain = [py, "-m", "pytest", *args]
    lazify = os.path.join(os.path.dirname(py), "lazify")
    lazy = [lazify, "run", "-m", "pytest", *args]
    env_env = dict(env, LAZIFY="1")
    commands = {"plain": (plain, env), "lazy": (lazy, env), "env": (plain, env_env)}
    for cmd, cmd_env in commands.values():    # fill the caches; check all pass alike
        _, code = timed(cmd, src, dict(cmd_env, LAZIFY_DEFER_REWRITE="0"))
        if code not in (0, 1):
            print(f"{name}: {' '.join(cmd[1:4])} exited {code}", file=sys.stderr)
    ratios = {"lazy": [], "env": []}
    times = {"plain": [], "lazy": [], "env": []}
    for _ in range(rounds):
        a1, _ = timed(plain, src, env, "plain")
        b1, _ = timed(lazy, src, env, "lazy")
        c1, _ = timed(plain, src, env_env, "env")
        c2, _ = timed(plain, src, env_env, "env")
        b2, _ = timed(lazy, src, env, "lazy")
        a2, _ = timed(plain, src, env, "plain")
        ratios["lazy"].append((b1 + b2) / (a1 + a2))
        ratios["env"].append((c1 + c2) / (a1 + a2))
        times["plain"] += [a1, a2]
        times["lazy"] += [b1, b2]
        times["env"] += [c1, c2]
    faults = {mode: statistics.median(FAULTS.pop(mode)) for mode in commands}
    print(f"{name}: plain {statistics.median(times['plain']):.2f}s "
          f"({faults['plain']:.0f} minor faults)", flush=True)
    for mode in ("lazy", "env"):
        print(f"  {mode}: {statistics.median(times[mode]):.2f}s "
              f"({faults[mode]:.0f} minor faults) "
              f"ratio {statistics.median(ratios[mode]):.3f}x "
              f"(rounds {', '.join(f'{r:.3f}' for r in ratios[mode])})", flush=True)
    if profile:
        compare_profiles(name, py, src, env, args, base)


def compare_profiles(name, py, src, env, args, base):
    import pstats

    stats = {}
    for mode, pre in (("plain", []), ("lazy", ["-m", "lazify", "run"])):
        out = os.path.join(base, f"{mode}.prof")
        if pre:
            cmd = [py, *pre, "-m", "cProfile", "-o", out, "-m", "pytest", *args]
        else:
            cmd = [py, "-m", "cProfile", "-o", out, "-m", "pytest", *args]
        subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        stats[mode] = {f"{os.path.basename(k[0])}:{k[1]}({k[2]})": v[2]
                       for k, v in pstats.Stats(out).stats.items()}
    keys = set(stats["plain"]) | set(stats["lazy"])
    diffs = sorted(((stats["lazy"].get(k, 0.0) - stats["plain"].get(k, 0.0), k) for k in keys),
                   reverse=True)
    total = sum(stats["plain"].values()), sum(stats["lazy"].values())
    print(f"  {name} profiled: own time plain {total[0]:.2f}s lazy {total[1]:.2f}s; "
          "most more under lazify:")
    for delta, key in diffs[:15]:
        print(f"    {delta:+.3f}s {key}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS), help="projects, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/lazify-compat")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the venvs are made with")
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args(argv)
    compat.PYTHON = options.python
    for name in options.only.split(","):
        bench(name, options.workdir, options.rounds, options.profile)


if __name__ == "__main__":
    main()
