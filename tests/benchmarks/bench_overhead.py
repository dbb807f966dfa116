"""lazify's own cost per module, where laziness can save nothing.

Run: ``python tests/benchmarks/bench_overhead.py [--python PY ...] [--rounds N] [--modules N]
[--uses module|function]``

A generated package of ``--modules`` modules (400 by default, in layers of
100): each imports five siblings of the next layer and four standard-library
modules and uses all of them while the program starts, so lazify has nothing to
save.  ``--uses module`` (the default): the module body reads them, which the
planner sees (``read-at-import``: the imports stay eager, lazify's cost is its
hook's); ``--uses function``: a function the body calls reads them, which the
planner cannot see, so every import is deferred and resolved during start-up
(the runtime's cost per pending name).  Measured as whole processes, plain against lazify
(``install()`` from ``sitecustomize.py``), paired round by round, order
alternating:

1. warm: both sides' bytecode caches written by earlier runs;
2. cold: no bytecode cache at all on either side (a fresh ``PYTHONPYCACHEPREFIX``
   each run), so every module is compiled, and under lazify rewritten.

``--profile`` prints the top of a cProfile of one warm lazified run instead;
``--instructions`` adds, for the warm start, the instructions each side executes
(``valgrind --tool=callgrind``, one run each after the timed rounds,
``PYTHONHASHSEED=0``): the deterministic figure beside the noisy wall time.
The machines are shared and noisy: each figure is the median of per-round
ratios, never an absolute time.  Beside each wall-time ratio, the ratio of the two
processes' own CPU time (user+sys): a process that waited for a core shows in the
first, not in the second (a cold run's rewrite after the program, a detached
process, is in neither).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STDLIB = ("json", "fractions", "textwrap", "string")


#: modules per layer; a module imports five of the next layer, so imports nest
#: only as deep as there are layers
LAYER = 100


def siblings(index: int, count: int) -> list:
    """The five modules of the next layer that module ``index`` imports."""
    start = (index // LAYER + 1) * LAYER
    if start >= count:
        return []
    width = min(LAYER, count - start)
    return sorted({start + (index * 7 + step) % width for step in range(5)})


def module_source(index: int, count: int, where: str = "module") -> str:
    names = [f"m{other:03d}" for other in siblings(index, count)]
    lines = [f'"""Module {index}."""']
    lines += [f"import {name}" for name in STDLIB]
    lines += [f"from bigpkg import {name}" for name in names]
    lines.append("")
    lines.append("def f():")
    lines.append(f"    return {index}")
    lines.append("")
    uses = [f"{name}.f()" for name in names]
    uses += ["len(json.dumps([1]))", "fractions.Fraction(1, 2).denominator",
             "len(textwrap.dedent(' x'))", "len(string.digits)"]
    if where == "function":
        # read inside a function the module body calls: the planner cannot see that it
        # runs at import, so every import is deferred and resolved during start-up
        lines += ["def _uses():", f"    return {' + '.join(uses)}", "", "VALUE = _uses()"]
    else:
        # read by the module body itself: the planner keeps the imports eager
        # (read-at-import)
        lines.append(f"VALUE = {' + '.join(uses)}")
    return "\n".join(lines) + "\n"


def write_tree(root: str, count: int, uses: str = "module") -> None:
    package = os.path.join(root, "bigpkg")
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(package, "__init__.py"), "w") as f:
        f.write('"""A package where every import is used at start-up."""\n')
    for index in range(count):
        with open(os.path.join(package, f"m{index:03d}.py"), "w") as f:
            f.write(module_source(index, count, uses))
    old = time.time() - 3600           # not "just modified": caches are written
    for name in os.listdir(package):
        os.utime(os.path.join(package, name), (old, old))
    with open(os.path.join(root, "main.py"), "w") as f:
        layer = ", ".join(f"m{index:03d}" for index in range(min(LAYER, count)))
        f.write(f"from bigpkg import {layer}\n"
                f"print(sum(m.VALUE for m in ({layer},)) > 0)\n")
    site = os.path.join(root, "site_lazify")
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, "sitecustomize.py"), "w") as f:
        f.write("import lazify\nlazify.install()\n")


def clean_env(extra=None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "LAZIFY_DEBUG",
                        "PYTHONPATH")}
    env["PYTHONPATH"] = ROOT
    env.update(extra or {})
    return env


def timed(python: str, env: dict, cwd: str) -> tuple:
    """One run of main.py: (wall seconds, user+sys CPU seconds of the process).

    On a shared machine the wall time also holds the time the process waited for a
    core; its CPU time (the children's usage before and after it) does not."""
    before = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run([python, "main.py"], env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - before
    if proc.returncode or proc.stdout.strip() != "True":
        raise SystemExit(f"failed under {env.get('PYTHONPATH')}:\n{proc.stdout}{proc.stderr}")
    return elapsed, cpu


def _children_cpu() -> float:
    """user+sys CPU seconds of this process's waited-for children (0.0 without
    ``resource``: Windows)."""
    try:
        import resource
    except ImportError:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def paired(python, plain_env, lazy_env, cwd, rounds, fresh=None) -> tuple:
    """Median lazy/plain ratios over rounds of one run per side, order alternating:
    (wall, CPU)."""
    walls, cpus = [], []
    for index in range(rounds):
        sides = [("plain", plain_env), ("lazy", lazy_env)]
        if index % 2:
            sides.reverse()
        measured = {}
        for side, env in sides:
            if fresh is not None:
                env = {**env, "PYTHONPYCACHEPREFIX": fresh(side, index)}
            measured[side] = timed(python, env, cwd)
        walls.append(measured["lazy"][0] / measured["plain"][0])
        if measured["plain"][1]:
            cpus.append(measured["lazy"][1] / measured["plain"][1])
    return statistics.median(walls), statistics.median(cpus) if cpus else float("nan")


def instructions(python: str, env: dict, cwd: str) -> int:
    """Instructions executed by one whole run of main.py (callgrind's total)."""
    out = os.path.join(cwd, "callgrind.out")
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           python, "main.py"], env={**env, "PYTHONHASHSEED": "0"}, cwd=cwd,
                          capture_output=True, text=True)
    os.unlink(out)
    for line in proc.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"callgrind failed:\n{proc.stderr[-1000:]}")


def bench(python: str, rounds: int, count: int, counting: bool = False,
          uses: str = "module") -> dict:
    # a cold run's rewrite at exit (detached) may still write into the tree at the end
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        write_tree(tmp, count, uses)
        plain_env = clean_env()
        lazy_env = clean_env({"PYTHONPATH": os.path.join(tmp, "site_lazify") + os.pathsep + ROOT})
        # write both sides' caches, lazify's at once (not handed to a rewriter that
        # may still run when the measured rounds start)
        for env in (plain_env, lazy_env, plain_env, lazy_env):
            timed(python, {**env, "LAZIFY_DEFER_REWRITE": "0"}, tmp)
        warm = paired(python, plain_env, lazy_env, tmp, rounds)
        counts = {side: instructions(python, env, tmp)
                  for side, env in (("plain", plain_env), ("lazy", lazy_env))} if counting else {}

        def fresh(side, index):
            path = os.path.join(tmp, f"cold-{side}-{index}")
            shutil.rmtree(path, ignore_errors=True)
            return path
        cold = paired(python, plain_env, lazy_env, tmp, max(3, rounds // 2), fresh)
    return {"warm": warm, "cold": cold, "instructions": counts}


def profile(python: str, count: int, uses: str = "module") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(tmp, count, uses)
        env = clean_env({"PYTHONPATH": os.path.join(tmp, "site_lazify") + os.pathsep + ROOT})
        timed(python, {**env, "LAZIFY_DEFER_REWRITE": "0"}, tmp)   # lazify's cache, written
        subprocess.run([python, "-m", "cProfile", "-s", "tottime", "main.py"], env=env, cwd=tmp,
                       check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", help="interpreters (default: this one)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--modules", type=int, default=400)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the warm start's instructions (callgrind)")
    parser.add_argument("--uses", choices=("module", "function"), default="module",
                        help="where each module reads its imports: its body (the planner "
                             "keeps them eager) or a function its body calls (deferred, "
                             "resolved at start-up)")
    args = parser.parse_args(argv)
    for python in args.python or [sys.executable]:
        if args.profile:
            profile(python, args.modules, args.uses)
            continue
        version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True).stdout.strip()
        result = bench(python, args.rounds, args.modules, args.instructions, args.uses)
        counts = result["instructions"]
        extra = (f", warm instructions {counts['lazy'] / counts['plain']:.3f}x "
                 f"({counts['lazy'] / 1e6:.1f}M / {counts['plain'] / 1e6:.1f}M)" if counts else "")
        (warm, warm_cpu), (cold, cold_cpu) = result["warm"], result["cold"]
        print(f"{version}: every import used (read in the {args.uses}), lazify/plain: "
              f"warm {warm:.2f}x (CPU {warm_cpu:.2f}x), cold {cold:.2f}x (CPU {cold_cpu:.2f}x)"
              f"{extra}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
