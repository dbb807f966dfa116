#!/usr/bin/env python3
"""Which imports a tool still runs under lazify, and why.

    python3 tests/benchmarks/startup/analyse.py pip [--impl lazify] [--top 25]

Runs the tool's benchmark command once in the benchmark venv (made by
run.py) with ``-X importtime`` and the implementation's sitecustomize, runs
``lazify check --format json`` on every source module that was imported, and
walks the import tree from the top: every module imported is attributed to
the import statement in its parent (the module that was executing) that
names it, with that statement's verdict:

- ``eager:<reason>``: lazify kept the statement eager (the reason code
  ``lazify check`` reports): the subtree is what that rule costs;
- ``used-at-import``: lazy, but the importing module used the name while it
  was itself being imported (a base class, a decorator, a module-level call);
  needed, so the walk descends into it;
- ``needed``: lazy and resolved later, by code that ran (the command needs it),
  or an import inside a function; the walk descends into it;
- ``not-rewritten:<loader>``: the parent ran unrewritten (imported before the
  hook was installed, e.g. by site.py, or by another tool's loader);
- ``unattributed``: no import statement in the parent names it (importlib,
  ``__import__``, entry points, a C module's imports, site/.pth files).

The report lists the largest subtrees that are not ``needed``, so what is
listed does not overlap, and sums cumulative import time by category.
Times come from -X importtime (one run, noisy): read them as proportions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

WRAPPER = r'''
import os, sys, atexit
def _dump(path=os.environ["LZBENCH_ANALYSE_OUT"], sys=sys):
    import json
    mods = {}
    for name, m in list(sys.modules.items()):
        f = getattr(m, "__file__", None)
        spec = getattr(m, "__spec__", None)
        mods[name] = [f if isinstance(f, str) else None,
                      bool(getattr(m, "__path__", None)),
                      # lazify keeps CPython's SourceFileLoader, its get_code lazify's
                      type(getattr(getattr(getattr(spec, "loader", None), "get_code", None),
                                   "__self__", getattr(spec, "loader", None))).__qualname__]
    with open(path, "w") as fh:
        json.dump(mods, fh)
atexit.register(_dump)
_impl = os.path.join(os.environ["LZBENCH_IMPL_DIR"], "sitecustomize.py")
with open(_impl) as _f:
    exec(compile(_f.read(), _impl, "exec"), {"__name__": "sitecustomize", "__file__": _impl})
'''


def parse_importtime(text):
    """-X importtime lines -> list of (name, self_us, cumulative_us, depth, parent)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line.split("|")
        self_us = int(parts[0].split(":")[1])
        cum = int(parts[1])
        name = parts[2]
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append([name.strip(), self_us, cum, depth, None])
    # importtime prints a module after its children; the parent of a row is
    # the next row (below it) with a smaller depth.
    stack = []   # indices waiting for a parent, by depth
    for i, row in enumerate(rows):
        depth = row[3]
        while stack and rows[stack[-1]][3] > depth:
            rows[stack.pop()][4] = i
        stack.append(i)
    return rows


def absolute(module, level, current, is_package):
    if not level:
        return module
    base = current if is_package else current.rpartition(".")[0]
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{module}" if module else base


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tool", choices=[t for t in bench.TOOLS if not t.startswith("floor")])
    ap.add_argument("--impl", default="lazify")
    ap.add_argument("--impl-dir", type=Path, help="sitecustomize directory (default: sitecustomize/IMPL)")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "lazify-startup-bench")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json", type=Path, help="write the attribution as JSON here")
    args = ap.parse_args(argv)
    workdir = args.workdir.resolve()
    venv = workdir / "venv"
    if not venv.exists():
        ap.error(f"no benchmark venv in {workdir}: run run.py first")
    tmp = Path(tempfile.mkdtemp(prefix="lzbench-analyse-"))
    (tmp / "sitecustomize.py").write_text(WRAPPER)
    env = bench.bench_env(venv, workdir, args.impl if args.impl in bench.IMPL_DIRS else "plain")
    env["PYTHONPATH"] = str(tmp)
    env["LZBENCH_IMPL_DIR"] = str(args.impl_dir or bench.SITECUSTOMIZE / args.impl)
    env["LZBENCH_ANALYSE_OUT"] = str(tmp / "modules.json")
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    cwd = workdir / "cwd"
    cwd.mkdir(exist_ok=True)
    subprocess.run(bench.tool_argv(venv, args.tool), env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.run(bench.tool_argv(venv, args.tool), env=env, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = parse_importtime(proc.stderr)
    modules = json.loads((tmp / "modules.json").read_text())

    lazify_mode = any(m[2] == "LazifyLoader" for m in modules.values())
    files = sorted({m[0] for m in modules.values() if m[0] and m[0].endswith(".py")})
    check = subprocess.run([str(venv / "bin" / "lazify"), "check", "--format", "json", *files],
                           env=bench.clean_env(), capture_output=True, text=True)
    report = json.loads(check.stdout)
    by_module = {}
    for f in report["files"]:
        by_module[f["module"]] = f
    # name under which each file was imported (check derives names from __init__ files)
    file_to_name = {m[0]: n for n, m in modules.items() if m[0]}

    def edge(parent, child):
        """Category of the import of ``child`` while ``parent`` executed."""
        if parent.startswith(child + "."):
            return "needed", None   # a package imported for its submodule
        pinfo = modules.get(parent)
        if not pinfo or not pinfo[0]:
            return "unattributed", None
        if pinfo[2] != "LazifyLoader" and lazify_mode:
            # imported before the hook was installed, excluded, or another
            # tool's loader: its imports ran as written
            return f"not-rewritten:{pinfo[2]}", None
        f = by_module.get(bench_name(pinfo[0]))
        if f is None:
            return "unattributed", None
        best = None
        for imp in f["imports"]:
            target = absolute(imp["module"], imp.get("level", 0) or 0, parent, pinfo[1]) \
                if not imp["module"].startswith(".") else \
                absolute(imp["module"].lstrip("."), len(imp["module"]) - len(imp["module"].lstrip(".")), parent, pinfo[1])
            names = {target, f"{target}.{imp['name']}"}
            if child in names or any(n.startswith(child + ".") for n in names):
                if imp["verdict"] == "eager" and imp["reason"] != "function":
                    cat = f"eager:{imp['reason']}"
                elif imp["used_at_import"]:
                    cat = "used-at-import"
                else:
                    cat = "needed"
                cand = (cat, f"{f['path']}:{imp['line']} {imp['statement']}")
                if best is None or (best[0] == "needed" and cat != "needed"):
                    best = cand
        if best is None:
            # a name re-exported lazily by a package: `from pkg import X`
            # resolved pkg's pending `from pkg.sub import X`
            for imp in f["imports"]:
                target = imp["module"]
                if target and child.startswith(target + "."):
                    if imp["verdict"] == "eager" and imp["reason"] != "function":
                        cat = f"eager:{imp['reason']}"
                    elif imp["used_at_import"]:
                        cat = "used-at-import"
                    else:
                        cat = "needed"
                    best = (cat, f"{f['path']}:{imp['line']} {imp['statement']} (via {target})")
                    break
        return best or ("unattributed", None)

    def bench_name(path):
        return file_to_name.get(path)

    children = defaultdict(list)
    roots = []
    for i, row in enumerate(rows):
        if row[4] is None:
            roots.append(i)
        else:
            children[row[4]].append(i)
    findings = []
    used_at_import = []
    totals = defaultdict(int)

    def walk(i):
        name, _s, cum, _d, parent = rows[i]
        if parent is not None:
            cat, where = edge(rows[parent][0], name)
        else:
            cat, where = "needed", None
        if cat in ("needed", "used-at-import") or parent is None:
            if cat == "used-at-import":
                used_at_import.append((cum, name, where))
            for c in children[i]:
                walk(c)
            return
        totals[cat] += cum
        findings.append((cum, name, cat, where, rows[parent][0]))

    for r in roots:
        walk(r)
    total = sum(rows[r][2] for r in roots)
    findings.sort(reverse=True)
    print(f"{args.tool} under {args.impl}: {len(rows)} modules imported, {total / 1000:.0f} ms cumulative import time")
    print()
    print("by category (cumulative ms of the subtrees, not overlapping):")
    for cat, us in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {cat:28s} {us / 1000:7.1f} ms  ({100 * us / max(total, 1):.0f}%)")
    print()
    print(f"largest lazy imports used at import time (needed; top {min(args.top, 10)}):")
    for cum, name, where in sorted(used_at_import, reverse=True)[: min(args.top, 10)]:
        print(f"  {cum / 1000:7.1f} ms  {name:40s} {where or ''}")
    print()
    print(f"largest subtrees that are not needed (top {args.top}):")
    for cum, name, cat, where, parent in findings[: args.top]:
        print(f"  {cum / 1000:7.1f} ms  {name:40s} {cat:26s} from {parent}: {where or ''}")
    if args.json:
        args.json.write_text(json.dumps({"tool": args.tool, "impl": args.impl, "total_us": total,
                                         "totals_us": totals,
                                         "findings": [dict(zip(("cum_us", "module", "category", "where", "parent"), f))
                                                      for f in findings]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
