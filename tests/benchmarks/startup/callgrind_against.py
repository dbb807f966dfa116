#!/usr/bin/env python3
"""Instructions of lazify's native mechanism against another lazify tree, and the global mode.

    git archive 6548ffa lazify | tar -x -C /tmp/lazify-before
    python3 tests/benchmarks/startup/callgrind_against.py --python /opt/sid-python/3.15/bin/python3 \
        --against /tmp/lazify-before --tools floor,flask,pytest

For each tool, in the venv ``run.py`` made: the interpreter's global mode (``native``), this
working tree's lazify as installed (``lazify.install(mechanism="native")``, as ``run.py``'s
``lazify_native``) and the lazify package found in ``--against`` (put first on ``sys.path``
by a ``sitecustomize.py`` of its own), each after two uncounted runs so every cache is warm
(their cache misses rewritten at once, ``LAZIFY_DEFER_REWRITE=0``).  Counts as
``callgrind.py`` counts them (whole process, ``PYTHONHASHSEED=0``); prints one
line per tool with the ratios to the global mode and writes ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import callgrind as cg  # noqa: E402
import run as bench  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="/opt/sid-python/3.15/bin/python3")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--tools", default="floor,flask,pytest,black,pip,http,sphinx-build,aws,ipython")
    ap.add_argument("--against", type=Path, required=True,
                    help="a directory holding another lazify package")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    workdir = args.workdir or bench.default_workdir(bench.python_version(args.python))
    venv = workdir / "venv"
    bench.install_lazify(venv)
    site = Path(tempfile.mkdtemp())
    (site / "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(args.against.resolve())!r})\n"
        "import lazify\nlazify.install(mechanism='native')\n")
    counts = {}
    for tool in [t for t in args.tools.split(",") if t]:
        cwd = workdir / "project" if tool in bench.PROJECT_TOOLS else workdir / "cwd"
        counts[tool] = {}
        for name, impl in (("native", "native"), ("this", "lazify_native"), ("against", None)):
            env = bench.bench_env(venv, workdir, impl or "lazify_native")
            env["PYTHONHASHSEED"] = "0"
            if impl is None:
                env["PYTHONPATH"] = str(site)
            # warm-ups rewrite their cache misses in-process: a miss deferred to the
            # detached rewrite at exit may still be missing when the counted run starts,
            # which then counts a plain module and the hand-over at exit
            warm = {**env, "LAZIFY_DEFER_REWRITE": "0"}
            for _ in range(2):
                subprocess.run(cg.argv_for(venv, tool), env=warm, cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            counts[tool][name] = cg.instructions(cg.argv_for(venv, tool), env, cwd)
        c = counts[tool]
        print(f"{tool:13s} native {c['native'] / 1e6:8.1f}M  this {c['this'] / 1e6:8.1f}M "
              f"({c['this'] / c['native']:.3f})  against {c['against'] / 1e6:8.1f}M "
              f"({c['against'] / c['native']:.3f})", flush=True)
    if args.out:
        args.out.write_text(json.dumps(counts, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
