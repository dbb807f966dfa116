"""Smoke corpus: short real programs on popular libraries, plain and under lazify.

One command (outside the default pytest run)::

    python tests/compat/smoke/run.py                          # python3, this checkout
    python tests/compat/smoke/run.py --only pandas,pillow --rounds 3
    python tests/compat/smoke/run.py --python /opt/sid-python/3.15/bin/python3
    python tests/compat/smoke/run.py --lazify OTHER_CHECKOUT
    python tests/compat/smoke/run.py --report                 # the table of the saved results

For each Python a throwaway venv is built under --workdir with the pinned set
(``requirements.txt``, wheels only) and ``pip install -e`` of the lazify
checkout.  Every program under ``programs/`` is copied as ``main.py`` into a
fresh empty directory and run as ``python main.py``:

- **plain**: a ``sitecustomize.py`` on ``PYTHONPATH`` that only counts
  ``sys.modules`` at exit;
- **lazify cold**: the same plus ``lazify.install()`` with default settings,
  after deleting every cache file lazify wrote under this checkout's cache tag
  (in the venv, in the standard library, in lazify's per-user fallback);
- **lazify warm**: the same again, with the caches the cold run wrote;
- **rewrite cold**, **rewrite warm** (Python 3.15+): lazify cold and warm with
  ``LAZIFY_MECHANISM=rewrite`` (3.15's default is the native mechanism; before
  3.15 cold and warm are the rewrite already);
- **native** (Python 3.15+): plain with ``-X lazy_imports=all``.

Exit code, stdout and stderr are compared with the plain run's, after
replacing the run's directory with ``<cwd>``.  Then ``--rounds`` interleaved
rounds time plain, lazify (warm) and native start to finish; the ratio
reported is the median of the per-round ratios.  ``PYTHONDONTWRITEBYTECODE``
and ``PYTHONPYCACHEPREFIX`` are dropped for every child, so plain pycs and
lazify's caches behave as they do for a user.

Results are merged into --results (one entry per Python; default
``results.json`` in --workdir) and printed as a Markdown table.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PROGRAMS = os.path.join(HERE, "programs")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")

#: the sitecustomize of every run: count sys.modules (and the modules holding
#: lazify's __lazy__) when the interpreter exits; the lazified runs install
#: lazify first.  An activation failure ends the process with code 86 (site
#: would only print a line and go on eagerly).
COUNTER = '''
import os as _os
_out = _os.environ.get("LAZIFY_SMOKE_COUNT")
if _out:
    import atexit as _atexit
    import sys as _sys

    def _count(path=_out):
        mods = list(_sys.modules.values())
        rewritten = sum("__lazy__" in getattr(m, "__dict__", {}) for m in mods)
        with open(path, "w") as f:
            f.write(f"{len(mods)} {rewritten}")

    _atexit.register(_count)
'''

ACTIVATE = '''
try:
    import lazify

    lazify.install()
except BaseException as exc:
    import os
    import sys
    import traceback

    traceback.print_exc()
    sys.stderr.write(f"smoke: lazify could not be activated: {exc!r}\\n")
    sys.stderr.flush()
    os._exit(86)
'''


# ---------------------------------------------------------------- helpers


def base_env():
    env = dict(os.environ)
    for key in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH", "PYTHONSTARTUP",
                "PYTHONWARNINGS", "PYTHON_LAZY_IMPORTS", "LAZIFY_DEBUG", "LAZIFY_EXCLUDING",
                "LAZIFY_DISABLE", "LAZIFY_STRICT"):
        env.pop(key, None)
    return env


def probe_python(python):
    code = "import sys; print(sys.version_info[0], sys.version_info[1], sys.version.split()[0])"
    major, minor, full = subprocess.run([python, "-c", code], capture_output=True, text=True,
                                        check=True).stdout.split()
    return f"{major}.{minor}", full


def requirements_digest():
    with open(REQUIREMENTS, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def build_venv(python, label, workdir, lazify_root, log):
    """The venv for one Python: pinned set + editable lazify, reused while unchanged."""
    venv = os.path.join(workdir, f"venv-{label}")
    marker = os.path.join(venv, ".lazify-smoke-ready")
    env = base_env()
    want = requirements_digest()
    state = {}
    if os.path.exists(marker):
        with open(marker) as f:
            state = json.load(f)
    py = os.path.join(venv, "bin", "python")
    if state.get("requirements") != want:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", venv], check=True, stdout=log,
                       stderr=subprocess.STDOUT)
        subprocess.run([py, "-m", "pip", "install", "--only-binary", ":all:", "-r", REQUIREMENTS],
                       check=True, stdout=log, stderr=subprocess.STDOUT, env=env)
        state = {"requirements": want}
    if state.get("lazify") != lazify_root:
        subprocess.run([py, "-m", "pip", "install", "--no-deps", "-e", lazify_root], check=True,
                       stdout=log, stderr=subprocess.STDOUT, env=env)
        state["lazify"] = lazify_root
    with open(marker, "w") as f:
        json.dump(state, f)
    return venv, py


def installed_versions(py):
    out = subprocess.run([py, "-m", "pip", "list", "--format", "json"], capture_output=True,
                         text=True, env=base_env(), check=True).stdout
    return {d["name"].lower().replace("_", "-"): d["version"] for d in json.loads(out)}


def lazify_cache_tag(py, mechanism=None):
    code = f"from lazify import _cache; print(_cache.cache_tag(None, {mechanism!r}))"
    return subprocess.run([py, "-c", code], capture_output=True, text=True, env=base_env(),
                          check=True).stdout.strip()


#: the modes run with lazify, and the LAZIFY_MECHANISM they set (None: the default)
LAZIFY_MODES = {"cold": None, "warm": None, "rcold": "rewrite", "rwarm": "rewrite"}


def cache_roots(py, venv):
    """Where lazify's cache files for this venv's runs can be: venv, stdlib, fallback."""
    code = ("import sysconfig, json; from lazify import _cache;"
            "print(json.dumps([sysconfig.get_paths()['stdlib'],"
            " sysconfig.get_paths()['platstdlib'], _cache.fallback_root()]))")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, env=base_env(),
                         check=True).stdout
    return [venv] + [p for p in json.loads(out) if p]


def delete_caches(roots, tag):
    """Delete lazify's cache files written under this checkout's tag; return how many."""
    suffix = f".opt-{tag}.pyc"
    n = 0
    for root in dict.fromkeys(roots):
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames:
                if name.endswith(suffix):
                    try:
                        os.unlink(os.path.join(dirpath, name))
                        n += 1
                    except OSError:
                        pass
    return n


def make_activation(workdir):
    dirs = {}
    for mode, body in (("plain", COUNTER), ("lazify", ACTIVATE + COUNTER)):
        d = os.path.join(workdir, f"activate-{mode}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "sitecustomize.py"), "w") as f:
            f.write(f'"""Written by tests/compat/smoke/run.py: {mode} runs."""\n{body}')
        dirs[mode] = d
    return dirs


class Runner:
    def __init__(self, py, workdir, activation, timeout):
        self.py = py
        self.workdir = workdir
        self.activation = activation
        self.timeout = timeout
        self.serial = 0

    def fresh_cwd(self, program, mode):
        """An empty directory holding only main.py (the program may write files)."""
        self.serial += 1
        cwd = os.path.join(self.workdir, "runs", program, f"{mode}-{self.serial}")
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        shutil.copy(os.path.join(PROGRAMS, f"{program}.py"), os.path.join(cwd, "main.py"))
        return cwd

    def command(self, mode):
        env = base_env()
        env["PYTHONPATH"] = self.activation["lazify" if mode in LAZIFY_MODES else "plain"]
        if LAZIFY_MODES.get(mode):
            env["LAZIFY_MECHANISM"] = LAZIFY_MODES[mode]
        cmd = [self.py]
        if mode == "native":
            cmd += ["-X", "lazy_imports=all"]
        return cmd + ["main.py"], env

    def run(self, program, mode):
        """One checked run: exit code, normalised output, module counts."""
        cwd = self.fresh_cwd(program, mode)
        cmd, env = self.command(mode)
        count_file = os.path.join(cwd, "..", f"{os.path.basename(cwd)}.count")
        env["LAZIFY_SMOKE_COUNT"] = count_file
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=self.timeout)
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            rc, out, err = "timeout", exc.stdout or b"", exc.stderr or b""
        seconds = time.perf_counter() - start
        modules = rewritten = None
        try:
            with open(count_file) as f:
                modules, rewritten = map(int, f.read().split())
            os.unlink(count_file)
        except (OSError, ValueError):
            pass

        def norm(b):
            return b.decode("utf-8", "replace").replace(os.path.realpath(cwd), "<cwd>").replace(
                cwd, "<cwd>")

        shutil.rmtree(cwd, ignore_errors=True)
        return dict(rc=rc, stdout=norm(out), stderr=norm(err), modules=modules,
                    rewritten=rewritten, seconds=round(seconds, 3))

    def timed(self, program, mode):
        cwd = self.fresh_cwd(program, mode)
        cmd, env = self.command(mode)
        # No timeout here: with one, Popen.wait polls with sleeps of up to 50 ms
        # and every time comes out a multiple of that.  The checked run has
        # shown that the program ends.
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        shutil.rmtree(cwd, ignore_errors=True)
        return seconds


def verdict(plain, other):
    """'same', or what differs from the plain run."""
    if other["rc"] != plain["rc"]:
        return f"exit {other['rc']}"
    parts = [k for k in ("stdout", "stderr") if other[k] != plain[k]]
    return "same" if not parts else "differs: " + "+".join(parts)


def diff_text(plain, other, limit=4000):
    out = []
    for key in ("stdout", "stderr"):
        if plain[key] != other[key]:
            d = difflib.unified_diff(plain[key].splitlines(), other[key].splitlines(),
                                     f"plain {key}", f"other {key}", lineterm="", n=1)
            out.extend(d)
    text = "\n".join(out)
    return text if len(text) <= limit else text[:limit // 2] + "\n...\n" + text[-limit // 2:]


def lazify_revision(root):
    """The commit under test, read before the run; "+changes" if lazify/ is modified."""
    def git(*cmd):
        return subprocess.run(["git", "-C", root, *cmd], capture_output=True,
                              text=True).stdout.strip()
    rev = git("rev-parse", "--short", "HEAD")
    if not rev:
        return "not a git checkout"
    return rev + ("+changes" if git("status", "--porcelain", "--", "lazify") else "")


# ---------------------------------------------------------------- one Python


def run_python(python, args, lazify_root, programs):
    label, full = probe_python(python)
    native = tuple(map(int, label.split("."))) >= (3, 15)
    os.makedirs(args.workdir, exist_ok=True)
    print(f"== Python {full} ({python})", flush=True)
    with open(os.path.join(args.workdir, f"setup-{label}.log"), "a") as log:
        venv, py = build_venv(python, label, args.workdir, lazify_root, log)
    versions = installed_versions(py)
    tag = lazify_cache_tag(py)
    rewrite_tag = lazify_cache_tag(py, "rewrite") if native else None
    roots = cache_roots(py, venv)
    runner = Runner(py, args.workdir, make_activation(args.workdir), args.timeout)
    modes = ["plain", "cold", "warm"] + (["rcold", "rwarm", "native"] if native else [])
    if args.modes:
        modes = [m for m in modes if m in args.modes.split(",") or m == "plain"]
    results = {}
    for program in programs:
        row = dict(version=versions.get(program, "?"))   # programs are named after distributions
        runs = {}
        for mode in modes:
            if mode == "cold":
                row["cold_cache_files_deleted"] = delete_caches(roots, tag)
            if mode == "rcold":
                row["rcold_cache_files_deleted"] = delete_caches(roots, rewrite_tag)
            runs[mode] = runner.run(program, mode)
        plain = runs["plain"]
        row["plain"] = "ok" if plain["rc"] == 0 else f"exit {plain['rc']}"
        for mode in modes[1:]:
            row[mode] = verdict(plain, runs[mode])
            if row[mode] != "same":
                row[f"{mode}_diff"] = diff_text(plain, runs[mode])
        row["modules"] = {mode: runs[mode]["modules"] for mode in modes}
        row["rewritten"] = {mode: runs[mode]["rewritten"] for mode in modes}
        row["seconds"] = {mode: runs[mode]["seconds"] for mode in modes}
        row["output"] = {mode: dict(rc=runs[mode]["rc"], stdout=runs[mode]["stdout"][-2000:],
                                    stderr=runs[mode]["stderr"][-3000:]) for mode in modes}
        timed = [m for m in ("warm", "rwarm", "native") if m in modes]
        if args.rounds and timed:
            order = ["plain", *timed]
            samples = {m: [] for m in order}
            for i in range(args.rounds):   # interleaved, the order rotating per round
                k = i % len(order)
                for mode in order[k:] + order[:k]:
                    samples[mode].append(runner.timed(program, mode))
            row["timing"] = {m: [round(s, 4) for s in v] for m, v in samples.items()}
            row["ratio"] = {m: round(statistics.median(a / b for a, b in
                                                       zip(samples[m], samples["plain"])), 3)
                            for m in timed}
            row["plain_median_s"] = round(statistics.median(samples["plain"]), 3)
        results[program] = row
        print(f"{program:20} {row['version']:12} plain {row['plain']:8} "
              + " ".join(f"{m} {row[m]}" for m in modes[1:])
              + (f"  ratio {row.get('ratio')}" if "ratio" in row else "")
              + f"  modules {row['modules']}", flush=True)
    return label, dict(python=full, executable=python, lazify=lazify_root,
                       lazify_revision=args.revision, cache_tag=tag,
                       rounds=args.rounds, modes=modes,
                       date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       programs=results)


# ---------------------------------------------------------------- report


def cell(value):
    return "ok" if value == "same" else f"**{value}**"


def table(saved):
    labels = sorted(saved, key=lambda s: tuple(map(int, s.split("."))))
    programs = sorted({p for lab in labels for p in saved[lab]["programs"]})
    head = ["library", "version"]
    for lab in labels:
        modes = saved[lab]["modes"]
        head.append(f"{lab} plain")
        if "cold" in modes:
            head += [f"{lab} lazify cold", f"{lab} lazify warm", f"{lab} time lazify/plain",
                     f"{lab} modules plain/lazify"]
        if "rcold" in modes:
            head += [f"{lab} rewrite cold", f"{lab} rewrite warm", f"{lab} time rewrite/plain",
                     f"{lab} modules rewrite"]
        if "native" in modes:
            head += [f"{lab} native", f"{lab} time native/plain", f"{lab} modules native"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for program in programs:
        rows = {lab: saved[lab]["programs"].get(program) for lab in labels}
        versions = list(dict.fromkeys(r["version"] for r in rows.values() if r))
        cells = [program, " / ".join(versions)]
        for lab in labels:
            row, modes = rows[lab], saved[lab]["modes"]
            if row is None:
                cells += ["-"] * (1 + 4 * ("cold" in modes) + 4 * ("rcold" in modes)
                                  + 3 * ("native" in modes))
                continue
            cells.append(row["plain"])
            mods = row["modules"]
            ratio = row.get("ratio", {})
            # a run that exited differently stopped early: its time and
            # module count say nothing about laziness
            if "cold" in modes:
                ran = not row["warm"].startswith("exit")
                cells += [cell(row["cold"]), cell(row["warm"]),
                          f"{ratio['warm']:.2f}" if "warm" in ratio and ran else "-",
                          f"{mods['plain']} / {mods['warm'] if ran else '-'}"]
            if "rcold" in modes:
                ran = not row["rwarm"].startswith("exit")
                cells += [cell(row["rcold"]), cell(row["rwarm"]),
                          f"{ratio['rwarm']:.2f}" if "rwarm" in ratio and ran else "-",
                          f"{mods['rwarm'] if ran else '-'}"]
            if "native" in modes:
                ran = not row["native"].startswith("exit")
                cells += [cell(row["native"]),
                          f"{ratio['native']:.2f}" if "native" in ratio and ran else "-",
                          f"{mods['native']}" if ran else "-"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    # summary lines
    for lab in labels:
        progs = saved[lab]["programs"].values()
        modes = saved[lab]["modes"]
        parts = [f"{sum(r['plain'] == 'ok' for r in progs)}/{len(progs)} run plain"]
        for mode in modes[1:]:
            parts.append(f"{sum(r[mode] != 'same' for r in progs)} differ under {mode}")
        for mode in ("warm", "rwarm", "native"):
            ratios = [r["ratio"][mode] for r in progs if mode in r.get("ratio", {})
                      and r[mode] == "same"]
            if ratios:
                gm = statistics.geometric_mean(ratios)
                parts.append(f"time {mode}/plain geometric mean {gm:.2f} over the {len(ratios)}"
                             f" identical programs")
        info = saved[lab]
        lines.append("")
        lines.append(f"- {lab} (CPython {info['python']}, lazify {info['lazify_revision']}, "
                     f"{info['date']}, {info['rounds']} rounds): " + "; ".join(parts))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append",
                        help="interpreter to test (repeatable; default: python3 on PATH)")
    parser.add_argument("--lazify", default=ROOT, help="the lazify checkout to test")
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--rounds", type=int, default=5,
                        help="timing rounds per program (0: no timing)")
    parser.add_argument("--modes", default="",
                        help="subset of cold,warm,rcold,rwarm,native (default all)")
    parser.add_argument("--workdir", default=os.environ.get("LAZIFY_SMOKE_DIR",
                                                            "/tmp/lazify-smoke"),
                        help="venvs, run directories, logs")
    parser.add_argument("--results", default=None,
                        help="results JSON to merge into (default WORKDIR/results.json)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run")
    parser.add_argument("--report", action="store_true",
                        help="print the table of the saved results, run nothing")
    args = parser.parse_args(argv)
    results_path = args.results or os.path.join(args.workdir, "results.json")
    saved = {}
    if os.path.exists(results_path):
        with open(results_path) as f:
            saved = json.load(f)
    if not args.report:
        lazify_root = os.path.abspath(args.lazify)
        args.revision = lazify_revision(lazify_root)
        only = [x.strip() for x in args.only.split(",") if x.strip()]
        available = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
        unknown = sorted(set(only) - set(available))
        if unknown:
            parser.error(f"no such program: {', '.join(unknown)}")
        programs = only or available
        for python in args.python or [shutil.which("python3")]:
            label, result = run_python(python, args, lazify_root, programs)
            if label in saved and only:   # a partial run updates the saved one
                merged = saved[label]
                merged["programs"].update(result["programs"])
                result["programs"] = dict(sorted(merged["programs"].items()))
            saved[label] = result
        os.makedirs(os.path.dirname(os.path.abspath(results_path)), exist_ok=True)
        with open(results_path, "w") as f:
            json.dump(saved, f, indent=1, sort_keys=True)
    if not saved:
        parser.error(f"no results in {results_path}")
    print()
    print(table(saved))
    print()
    failed = False
    for lab, info in sorted(saved.items()):
        for program, row in info["programs"].items():
            for mode in info["modes"][1:]:
                if row[mode] != "same":
                    failed = failed or mode in LAZIFY_MODES
                    last = (row["output"][mode]["stderr"].strip().splitlines() or ["?"])[-1]
                    print(f"[{lab} {mode}] {program}: {row[mode]}: {last[:200]}")
    print(f"\nresults: {results_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
