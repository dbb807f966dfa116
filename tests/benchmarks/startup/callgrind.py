#!/usr/bin/env python3
"""Start-up cost in instructions: each tool under callgrind, per implementation.

    python3 tests/benchmarks/startup/callgrind.py --python /opt/sid-python/3.15/bin/python3 \
        --impls plain,native,lazify_native,lazify_rewrite --tools flask,pytest,black

Runs in the venv ``run.py`` made (same ``--workdir`` default, same environment per
implementation, same project directory rules), after one uncounted run of each pair so
every cache is warm.  Each count is ``valgrind --tool=callgrind``'s total of instructions
executed (Ir) for the whole process: deterministic to within a fraction of a percent
(hash randomization is fixed with ``PYTHONHASHSEED=0``), so one run per pair is a
measurement where wall time on a shared machine is not.  Prints a Markdown table of the
counts and their ratios to plain, and writes ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

_COLLECTED = re.compile(rb"Collected : (\d+)")


def argv_for(venv: Path, tool: str) -> list[str]:
    """The tool's command with the interpreter first (valgrind runs an ELF, not a
    script's shebang)."""
    argv = bench.tool_argv(venv, tool)
    python = str(bench.venv_python(venv))
    if argv[0] == str(venv / "bin" / "python"):
        return [python, *argv[1:]]
    return [python, *argv]


def instructions(argv, env, cwd) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
               "--trace-children=no", *argv]
        proc = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    match = _COLLECTED.search(proc.stderr)
    if proc.returncode or match is None:
        raise RuntimeError(f"{argv}: exit {proc.returncode}: {proc.stderr[-500:]!r}")
    return int(match.group(1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3.11")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--tools", default="floor,flask,pytest,black,pip,http,sphinx-build")
    ap.add_argument("--impls", default="plain,native,lazify_native,lazify_rewrite")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    version = bench.python_version(args.python)
    workdir = args.workdir or bench.default_workdir(version)
    venv = workdir / "venv"
    if not bench.venv_python(venv).exists():
        ap.error(f"no benchmark venv in {workdir}: run run.py --python {args.python} first")
    bench.install_lazify(venv)           # this working tree's lazify, as installed
    project = workdir / "project"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text(bench.PROJECT_PYPROJECT)
    empty = workdir / "cwd"
    empty.mkdir(exist_ok=True)
    tools = [t for t in args.tools.split(",") if t]
    impls = [i for i in args.impls.split(",") if i]
    counts = {}
    for tool in tools:
        cwd = project if tool in bench.PROJECT_TOOLS else empty
        counts[tool] = {}
        for impl in impls:
            env = bench.bench_env(venv, workdir, impl)
            env["PYTHONHASHSEED"] = "0"
            subprocess.run(argv_for(venv, tool), env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            counts[tool][impl] = instructions(argv_for(venv, tool), env, cwd)
            bench.log(f"  {tool:13s} {impl:15s} {counts[tool][impl]:>14,d} Ir")
    head = ["tool", *impls]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for tool in tools:
        plain = counts[tool].get("plain")
        cells = [tool]
        for impl in impls:
            n = counts[tool][impl]
            ratio = f" ({n / plain:.3f}x)" if plain and impl != "plain" else ""
            cells.append(f"{n / 1e6:,.0f} M{ratio}")
        lines.append("| " + " | ".join(cells) + " |")
    print("\n".join(lines))
    out = args.out or bench.default_results(version, "callgrind")
    out.write_text(json.dumps({
        "python": subprocess.run([str(bench.venv_python(venv)), "-c",
                                  "import sys; print(sys.version)"],
                                 capture_output=True, text=True).stdout.strip(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "lazify_commit": subprocess.run(["git", "-C", str(bench.ROOT), "rev-parse", "--short",
                                         "HEAD"], capture_output=True, text=True).stdout.strip(),
        "counts": counts}, indent=1) + "\n")
    bench.log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
