#!/usr/bin/env python3
"""Start-up benchmark: real command-line tools, lazify next to the alternatives.

One command::

    python3 tests/benchmarks/startup/run.py            # full run (install + check + time + cold)
    python3 tests/benchmarks/startup/run.py --quick    # 3 rounds, no cold run: a smoke test
    python3 tests/benchmarks/startup/run.py --python /opt/sid-python/3.15/bin/python3   # with native lazy imports

What it does:

1. creates a throwaway venv (``--python``, default python3.11) under
   ``--workdir`` with the tools pinned in ``requirements.txt``, the two peers,
   and lazify from this working tree, installed as users get it (a regular
   install, not an editable one; reinstalled when its sources change); reused
   while ``requirements.txt`` and the interpreter are unchanged (``--reinstall``);
2. per implementation a directory holding a ``sitecustomize.py``
   (``sitecustomize/<impl>/``), put on ``PYTHONPATH`` so the tools run unmodified;
   on Python 3.15+ also PEP 810's native lazy imports, ``native`` (switched on
   from sitecustomize, like the others) and ``native_x`` (the interpreter-wide
   switch, ``PYTHON_LAZY_IMPORTS=all``); ``lazify`` is ``lazify.install()`` with the
   interpreter's default mechanism (native on 3.15+), ``lazify_native`` and
   ``lazify_rewrite`` name the mechanism; a requirement pip cannot install, a
   tool whose command is then missing and an implementation that cannot be
   activated on this Python are listed as such in the table and the JSON;
3. checks every tool under every implementation: exit code and stdout must
   equal plain's, else the pair is reported broken with the first error line
   and not timed (each pair runs once uncounted first, so the modules counted
   here come from warm caches);
4. warm-up runs, then implementations interleaved round by round (order
   rotated every round), ``--rounds`` counted runs each: median wall time,
   median of the per-round ratios to plain, peak RSS (``wait4`` rusage of the
   child), modules in ``sys.modules`` at exit;
5. cold caches, reported separately: the first start with no bytecode cache
   at all, the first start after ``pip install`` (normal ``.pyc`` present,
   lazify's and defer-imports' caches empty), and after ``lazify compile``
   ahead of time;
6. prints a markdown table and writes
   ``benchmarks/results/startup-DATE-pyX.Y-COMMIT.json`` (``--out``; for a Python
   other than 3.11 the workdir gets ``-X.Y``).

``moddiff.py`` (3.15+) then attributes every module lazify loads and native
lazy imports do not to its cause.

The machine this runs on is shared and noisy: read the paired ratios, not the
absolute times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
REQUIREMENTS = HERE / "requirements.txt"
SITECUSTOMIZE = HERE / "sitecustomize"

#: name -> argv (first element looked up in the venv's bin/).  Each is a
#: command a user runs often that touches only part of what the tool imports.
TOOLS = {
    "floor": ["python", "-c", "pass"],
    "floor-project": ["python", "-c", "pass"],
    "aws": ["aws", "--version"],
    "cfn-lint": ["cfn-lint", "--version"],
    "flask": ["flask", "--help"],
    "pip": ["pip", "--version"],
    "sphinx-build": ["sphinx-build", "--version"],
    "pytest": ["pytest", "--version"],
    "http": ["http", "--version"],
    "black": ["black", "--version"],
    "ipython": ["ipython", "--version"],
}

#: tools run from a project directory (a pyproject.toml, as where pytest,
#: black or flask usually run) instead of an empty one
PROJECT_TOOLS = {"floor-project"}
PROJECT_PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "someapp"
version = "1.0"
dependencies = ["flask"]

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.black]
line-length = 100
"""

IMPLS = ["plain", "native", "native_x", "lazify", "lazify_native", "lazify_rewrite",
         "lazify_mpmath", "demandimport", "defer_imports", "lazyloader"]

#: implementation -> directory holding its sitecustomize.py (--extra-impl adds to it)
IMPL_DIRS = {i: SITECUSTOMIZE / i for i in IMPLS}

#: implementation -> environment it adds.  native_x is PEP 810's interpreter-wide
#: switch, ``-X lazy_imports=all``, given as its environment variable because a
#: console script's shebang line cannot pass ``-X``; unlike ``native`` (the
#: switch thrown from sitecustomize) it also makes site.py's imports lazy.
IMPL_ENV = {"native_x": {"PYTHON_LAZY_IMPORTS": "all"}}

#: implementation -> code that fails in the venv's interpreter when the
#: implementation cannot run there (not installed, or not this Python's);
#: such an implementation is reported as unavailable, never silently dropped
IMPL_NEEDS = {
    "native": "import sys; sys.set_lazy_imports",
    "native_x": "import sys; sys.set_lazy_imports",
    "lazify": "import lazify",
    "lazify_native": "import sys, lazify; sys.set_lazy_imports",
    "lazify_rewrite": "import lazify",
    "lazify_mpmath": "import lazify",
    "demandimport": "import demandimport",
    "defer_imports": "import defer_imports",
}

#: Environment variables that would change what is measured.
SCRUB = (
    "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH", "PYTHONHOME",
    "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONNOUSERSITE", "PYTHONPROFILEIMPORTTIME",
    "PYTHONVERBOSE", "PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONSAFEPATH",
    "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV", "LZBENCH_MODULES_OUT", "LZBENCH_BOOKKEEPING",
    "PYTHON_LAZY_IMPORTS",
)


def lazify_fingerprint() -> str:
    """Size and mtime of lazify's sources: an edit mid-run turns warm runs cold."""
    parts = []
    for f in sorted((ROOT / "lazify").glob("*.py")):
        st = f.stat()
        parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def python_version(python: str) -> str:
    """"X.Y" of an interpreter."""
    return subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          check=True, capture_output=True, text=True).stdout.strip()


def default_workdir(version: str) -> Path:
    suffix = "" if version == "3.11" else f"-{version}"
    return Path(tempfile.gettempdir()) / f"lazify-startup-bench{suffix}"


#: Where the benchmark scripts write their results (the repository's top level, not tests/).
RESULTS = ROOT / "benchmarks" / "results"


def commit() -> str:
    """The short hash of the checkout's HEAD (the lazify measured), or "unknown"."""
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "unknown"


def default_results(version: str, kind: str = "startup") -> Path:
    """``benchmarks/results/KIND-DATE-pyX.Y-COMMIT.json``: named by date (UTC), Python
    and commit, as the results kept there are."""
    day = time.strftime("%Y-%m-%d", time.gmtime())
    return RESULTS / f"{kind}-{day}-py{version}-{commit()}.json"


# ------------------------------------------------------------------ the venv


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path, python: str, reinstall: bool) -> dict:
    """Create (or reuse) the benchmark venv; return install facts."""
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # (not the checkout's path: lazify itself is installed by install_lazify, with a
    # stamp of its own, so a venv serves every checkout)
    stamp_text = REQUIREMENTS.read_text() + "\n" + version + "\nlayout=2"
    stamp = hashlib.sha256(stamp_text.encode()).hexdigest()
    stamp_file = venv / ".lzbench-stamp"
    facts = {"reused": False, "install_seconds": None, "not_installed": {}}
    failed_file = venv / ".lzbench-not-installed.json"
    if not reinstall and stamp_file.exists() and stamp_file.read_text() == stamp:
        facts["reused"] = True
        if failed_file.exists():
            facts["not_installed"] = json.loads(failed_file.read_text())
        install_lazify(venv)
        return facts
    if venv.exists():
        shutil.rmtree(venv)
    t0 = time.perf_counter()
    log(f"creating venv {venv} with {python} ...")
    env = clean_env()
    subprocess.run([python, "-m", "venv", str(venv)], check=True, env=env)
    pip = [str(venv_python(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if subprocess.run(pip + ["-r", str(REQUIREMENTS)], env=env).returncode:
        # One requirement that does not install on this Python (no wheel, a
        # build that fails) must not cost the rest: install them one at a
        # time, with the file's options, and record what failed.
        log("  pip install -r failed; installing the requirements one at a time ...")
        options, reqs = requirement_lines()
        for req in reqs:
            r = subprocess.run(pip + [*options, req], env=env, capture_output=True, text=True)
            if r.returncode:
                lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
                errors = [ln.strip() for ln in lines if ln.startswith("ERROR:")]
                why = errors[-1] if errors else lines[-1] if lines else f"exit {r.returncode}"
                facts["not_installed"][req] = why[:300]
                log(f"  NOT INSTALLED: {req}: {why[:200]}")
    install_lazify(venv)
    facts["install_seconds"] = round(time.perf_counter() - t0, 1)
    failed_file.write_text(json.dumps(facts["not_installed"], indent=1) + "\n")
    stamp_file.write_text(stamp)
    return facts


def lazify_digest() -> str:
    """A hash of what an install of this working tree's lazify contains."""
    digest = hashlib.sha256()
    for path in sorted([ROOT / "pyproject.toml", *(ROOT / "lazify").glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def install_lazify(venv: Path) -> None:
    """Install lazify from this working tree as users get it, a regular install
    (redone when its sources change): not an editable one, which puts the
    checkout on every start-up's sys.path and whose lazify, a source checkout,
    stats its own sources at every start to invalidate its cache while it is
    developed (:func:`lazify._cache._sources_fingerprint`)."""
    stamp_file = venv / ".lzbench-lazify"
    digest = lazify_digest()
    if stamp_file.exists() and stamp_file.read_text() == digest:
        return
    log(f"installing lazify from {ROOT} into {venv} ...")
    with tempfile.TemporaryDirectory(prefix="lzbench-lazify-") as build:
        # A release's cache tag changes with its version, and an installed lazify
        # does not fingerprint its sources: the copy installed carries the sources'
        # digest in its version, as a new release would, so that no bytecode
        # rewritten by an earlier working tree is read.
        build = Path(build)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, build / name)
        shutil.copytree(ROOT / "lazify", build / "lazify",
                        ignore=shutil.ignore_patterns("__pycache__"))
        version = build / "lazify" / "__init__.py"
        text, marked = re.subn(r'^__version__ = "([^"]*)"',
                               rf'__version__ = "\1.post{int(digest[:8], 16)}"',
                               version.read_text(), count=1, flags=re.M)
        if not marked:
            raise SystemExit("lazify/__init__.py has no __version__ line to mark")
        version.write_text(text)
        subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", "--no-deps", "--force-reinstall",
                        str(build)], check=True, env=clean_env())
    stamp_file.write_text(digest)


def requirement_lines() -> tuple[list[str], list[str]]:
    """(pip options, requirements) of requirements.txt, comments dropped."""
    options, reqs = [], []
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            (options if line.startswith("-") else reqs).append(line)
    return [w for o in options for w in o.split()], reqs


def freeze(venv: Path) -> list[str]:
    out = subprocess.run([str(venv_python(venv)), "-m", "pip", "freeze", "--all"],
                         capture_output=True, text=True, env=clean_env())
    return out.stdout.split("\n")[:-1]


# --------------------------------------------------------------- environment


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUB and not k.startswith("LAZIFY_")}
    return env


def bench_env(venv: Path, workdir: Path, impl: str, pycache_prefix: Path | None = None) -> dict:
    env = clean_env()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONPATH"] = str(IMPL_DIRS[impl])
    env.update(IMPL_ENV.get(impl, {}))
    home = workdir / "home"
    env["HOME"] = str(home)
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["IPYTHONDIR"] = str(home / ".ipython")
    env["COLUMNS"] = "100"
    env["LC_ALL"] = "C.UTF-8"
    env["NO_COLOR"] = "1"
    env["PIP_NO_INPUT"] = "1"
    if pycache_prefix is None and impl == "defer_imports":
        # defer-imports writes its instrumented bytecode (own header) into the
        # normal .pyc path; sharing that path with the other implementations
        # would make each of them invalidate the other's cache every round.
        pycache_prefix = workdir / "pycache-defer_imports"
    if pycache_prefix is not None:
        env["PYTHONPYCACHEPREFIX"] = str(pycache_prefix)
    return env


def unavailable_impls(venv: Path, impls) -> dict:
    """implementation -> why it cannot run in this venv (first error line)."""
    out = {}
    for impl in impls:
        code = IMPL_NEEDS.get(impl)
        if code is None:
            continue
        r = subprocess.run([str(venv_python(venv)), "-c", code], env=clean_env(),
                           capture_output=True, text=True)
        if r.returncode:
            lines = r.stderr.strip().splitlines()
            out[impl] = lines[-1] if lines else f"exit {r.returncode}"
    return out


def tool_argv(venv: Path, tool: str) -> list[str]:
    argv = list(TOOLS[tool])
    argv[0] = str(venv / "bin" / argv[0])
    return argv


# ------------------------------------------------------------------- running


def run_once(argv, env, cwd, capture=False, timeout=300, cpu_out=None):
    """Run a child; return (rc, wall seconds, peak RSS KiB, stdout, stderr).

    ``cpu_out``, a list, gets the child's CPU seconds (user + system) appended
    (not with ``capture``): on a shared machine the CPU time a start-up takes
    varies less than its wall time, which includes waiting for a core."""
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=out, stderr=out)
    if capture:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += b"\n[lzbench] timed out"
        # communicate() reaped the child; wall time is still right, RSS is not
        # available through wait4 here.
        wall = time.perf_counter() - t0
        return proc.returncode, wall, None, stdout, stderr
    _, status, rusage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if cpu_out is not None:
        cpu_out.append(rusage.ru_utime + rusage.ru_stime)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, rusage.ru_maxrss, b"", b""


def first_error_line(stderr: bytes, stdout: bytes, plain_stdout: bytes) -> str:
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    for ln in reversed(lines):
        head = ln.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Warning")) or "Error" in head.rsplit(".", 1)[-1]:
            return ln[:300]
    if lines:
        return lines[-1][:300]
    a = stdout.decode("utf-8", "replace").splitlines()
    b = plain_stdout.decode("utf-8", "replace").splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"stdout line {i + 1} differs: {x[:150]!r} (plain: {y[:150]!r})"
    return f"stdout has {len(a)} lines, plain {len(b)}"


def check(venv, workdir, cwd, tools, impls):
    """Run every (tool, impl) with capture; compare with plain.

    Each pair runs once first, uncounted: the module count is read on warm
    caches, as in the timed rounds (a cold first run of lazify also imports its
    rewriter)."""
    results = {}
    counts_dir = workdir / "counts"
    counts_dir.mkdir(exist_ok=True)
    for tool in tools:
        results[tool] = {}
        plain = None
        for impl in impls:
            env = bench_env(venv, workdir, impl)
            count_file = counts_dir / f"{tool}.{impl}"
            if count_file.exists():
                count_file.unlink()
            run_once(tool_argv(venv, tool), env, cwd(tool), capture=True)
            wait_for_background(venv)       # lazify's rewrite of that start's cache misses
            env["LZBENCH_MODULES_OUT"] = str(count_file)
            env["LZBENCH_BOOKKEEPING"] = str(SITECUSTOMIZE / "_bookkeeping.py")
            rc, wall, _, out, err = run_once(tool_argv(venv, tool), env, cwd(tool), capture=True)
            modules = lazy = None
            files = []
            if count_file.exists():
                first, *files = count_file.read_text().splitlines()
                modules, lazy = (int(x) for x in first.split())
            entry = {"rc": rc, "modules": modules, "lazy_modules": lazy, "files": files,
                     "stdout_head": out.decode("utf-8", "replace")[:200],
                     "stderr_tail": err.decode("utf-8", "replace")[-2000:]}
            if impl == "plain":
                plain = (rc, out)
                entry["ok"] = True
            else:
                entry["ok"] = (rc, out) == plain
                if not entry["ok"]:
                    entry["error"] = (f"exit {rc} (plain {plain[0]}): " if rc != plain[0] else "") + \
                        first_error_line(err, out, plain[1])
            results[tool][impl] = entry
            status = "ok" if entry["ok"] else "BROKEN: " + entry["error"]
            log(f"  check {tool:13s} {impl:14s} rc={rc} modules={modules} {status}")
    return results


def timed_rounds(venv, workdir, cwd, tools, impls, working, rounds, warmup, expected_rc, seed=0):
    """Interleaved timing; returns {tool: {impl: {"wall": [...], "rss": [...]}}}.

    Round r runs, for each tool, every working implementation once, in an
    order rotated by r and shuffled by a seeded RNG, so drift on the machine
    hits all implementations alike.  The ratio to plain is paired by round.
    """
    rng = random.Random(seed)
    data = {t: {i: {"wall": [], "rss": [], "cpu": []} for i in impls if working[t][i]} for t in tools}
    envs = {i: bench_env(venv, workdir, i) for i in impls}
    total = warmup + rounds
    for r in range(total):
        counted = r >= warmup
        t_round = time.perf_counter()
        tool_order = list(tools)
        rng.shuffle(tool_order)
        for tool in tool_order:
            order = [i for i in impls if working[tool][i]]
            k = r % len(order)
            order = order[k:] + order[:k]
            for impl in order:
                cpu = []
                rc, wall, rss, _, _ = run_once(tool_argv(venv, tool), envs[impl], cwd(tool), cpu_out=cpu)
                if not counted:
                    wait_for_background(venv)
                if rc != expected_rc[tool]:
                    data[tool][impl]["failed_runs"] = data[tool][impl].get("failed_runs", 0) + 1
                if counted:
                    data[tool][impl]["wall"].append(wall)
                    data[tool][impl]["rss"].append(rss)
                    data[tool][impl]["cpu"].append(cpu[0])
        kind = "round" if counted else "warm-up"
        log(f"  {kind} {r + 1 - (warmup if counted else 0)}/{rounds if counted else warmup}"
            f" ({time.perf_counter() - t_round:.1f}s)")
    return data


def summarise(data, impls, tools):
    summary = {}
    for tool in tools:
        summary[tool] = {}
        plain = data[tool]["plain"]["wall"]
        # Python 3.15+: PEP 810's lazy imports are the target, so every
        # implementation is also paired with native's run of the same round
        native = data[tool].get("native", {}).get("wall")
        plain_cpu = data[tool]["plain"].get("cpu")
        native_cpu = data[tool].get("native", {}).get("cpu")
        for impl, d in data[tool].items():
            walls = d["wall"]
            ratios = [w / p for w, p in zip(walls, plain)]
            summary[tool][impl] = {
                "median_s": statistics.median(walls),
                "ratio": statistics.median(ratios),
                "ratio_min": min(ratios),
                "ratio_max": max(ratios),
                "rss_mib": statistics.median(d["rss"]) / 1024,
                "runs": len(walls),
                "failed_runs": d.get("failed_runs", 0),
            }
            if d.get("cpu") and plain_cpu:
                summary[tool][impl]["cpu_ratio"] = statistics.median(
                    [c / p for c, p in zip(d["cpu"], plain_cpu)])
            if native:
                summary[tool][impl]["ratio_to_native"] = statistics.median(
                    [w / n for w, n in zip(walls, native)])
                if d.get("cpu") and native_cpu:
                    summary[tool][impl]["cpu_ratio_to_native"] = statistics.median(
                        [c / n for c, n in zip(d["cpu"], native_cpu)])
    return summary


# ----------------------------------------------------------------- cold runs


def cold_runs(venv, workdir, cwd, tools, impls, working, rounds, checks):  # noqa: C901
    """Cold caches, isolated from the warm caches by a fresh PYTHONPYCACHEPREFIX.

    Scenarios (each run gets a fresh prefix directory):

    - ``nocache``: no bytecode cache at all, every module is compiled (for
      lazify: rewritten and compiled);
    - ``after_install``: the prefix holds the normal .pyc of every module the
      tools import under any implementation (what ``pip install`` and the
      Python installer leave), nothing of lazify's or defer-imports' own;
    - ``after_compile``: as ``after_install`` plus ``lazify compile`` of the
      modules lazify imports (lazify variants and plain only);
    - ``no_writable_cache``: as ``after_install`` with ``PYTHONDONTWRITEBYTECODE=1``
      (a container image's setting; a read-only tree and HOME are the same to
      lazify): nothing of lazify's can be written, on any start.

    lazify rewrites the modules a first start missed in a detached child after the
    program exits: the next run starts when that child is done (so that it does
    not share the CPU with the next measurement; its time is reported apart).

    Only the imported modules are compiled ahead of time: all of the stdlib
    and site-packages is ~400 MB of pycs, too much to copy for every run.
    """
    py = str(venv_python(venv))
    env0 = clean_env()
    all_files = sorted({f for t in tools for i in impls for f in checks[t][i].get("files", [])})
    lazify_files = sorted({f for t in tools for i in impls if i.startswith("lazify")
                           for f in checks[t][i].get("files", [])})
    base = workdir / "cold-base"
    if base.exists():
        shutil.rmtree(base)
    base.mkdir()
    log(f"  cold: compileall of the {len(all_files)} imported modules into a prefix ...")
    t0 = time.perf_counter()
    subprocess.run([py, "-m", "compileall", "-q", "-i", "-"], input="\n".join(all_files), text=True,
                   env={**env0, "PYTHONPYCACHEPREFIX": str(base)},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    compileall_s = time.perf_counter() - t0
    compiled = workdir / "cold-compiled"
    if compiled.exists():
        shutil.rmtree(compiled)
    shutil.copytree(base, compiled, symlinks=True)
    log(f"  cold: lazify compile of the {len(lazify_files)} modules lazify imports ...")
    t0 = time.perf_counter()
    lc = subprocess.run([str(venv / "bin" / "lazify"), "compile", *lazify_files],
                        env={**env0, "PYTHONPYCACHEPREFIX": str(compiled)},
                        capture_output=True, text=True)
    lazify_compile = {
        "seconds": round(time.perf_counter() - t0, 2),
        "files": len(lazify_files),
        "rc": lc.returncode,
        "stderr_lines": len(lc.stderr.splitlines()),
        "stderr_head": lc.stderr.splitlines()[:10],
    }
    log(f"  cold: lazify compile rc={lc.returncode} in {lazify_compile['seconds']}s, "
        f"{lazify_compile['stderr_lines']} stderr lines")

    scenarios = {"nocache": None, "after_install": base}
    if lc.returncode in (0, 1):   # 1: some files failed; the rest were written
        scenarios["after_compile"] = compiled
    scenarios["no_writable_cache"] = base
    background = []
    data = {s: {t: {} for t in tools} for s in scenarios}
    scratch = workdir / "cold-run"
    failures = []
    for r in range(rounds):
        for tool in tools:
            order = [i for i in impls if working[tool][i]]
            k = r % len(order)
            order = order[k:] + order[:k]
            for scenario, seed_dir in scenarios.items():
                for impl in order:
                    if scenario == "after_compile" and not impl.startswith(("plain", "lazify")):
                        continue
                    if scratch.exists():
                        shutil.rmtree(scratch)
                    if seed_dir is None:
                        scratch.mkdir()
                    else:
                        shutil.copytree(seed_dir, scratch, symlinks=True)
                    env = bench_env(venv, workdir, impl, pycache_prefix=scratch)
                    env["XDG_CACHE_HOME"] = str(scratch / ".xdg")   # lazify's fallback cache
                    if scenario == "no_writable_cache":
                        env["PYTHONDONTWRITEBYTECODE"] = "1"
                    rc, wall, rss, _, _ = run_once(tool_argv(venv, tool), env, cwd(tool))
                    waited = wait_for_background(venv)
                    if waited is not None:
                        background.append(waited)
                    data[scenario][tool].setdefault(impl, []).append(wall)
                    if rc != checks[tool]["plain"]["rc"]:
                        failures.append(f"{scenario} {tool} {impl}: exit {rc}")
        log(f"  cold round {r + 1}/{rounds}")
    if scratch.exists():
        shutil.rmtree(scratch)
    summary = {}
    for scenario, per_tool in data.items():
        summary[scenario] = {}
        for tool, per_impl in per_tool.items():
            plain = per_impl.get("plain")
            summary[scenario][tool] = {
                impl: {"median_s": statistics.median(w),
                       "ratio": statistics.median([a / b for a, b in zip(w, plain)]) if plain else None,
                       "runs": len(w)}
                for impl, w in per_impl.items()
            }
    return {"compileall_seconds": round(compileall_s, 2), "compileall_files": len(all_files),
            "lazify_compile": lazify_compile, "scenarios": summary, "raw": data, "failures": failures,
            "background_s": {"runs": len(background),
                             "median": round(statistics.median(background), 3) if background else None,
                             "max": round(max(background), 3) if background else None}}


def wait_for_background(venv: Path, timeout: float = 120.0) -> float | None:
    """Wait for lazify's detached rewrite of a start's cache misses (a child whose
    command line names ``lazify._deferred`` and this venv's interpreter); the
    seconds waited, or None when there was none."""
    t0 = time.perf_counter()
    found = False
    while time.perf_counter() - t0 < timeout:
        alive = False
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if b"lazify._deferred" in cmdline and str(venv).encode() in cmdline:
                alive = True
                break
        if not alive:
            break
        found = True
        time.sleep(0.02)
    return time.perf_counter() - t0 if found else None


# ------------------------------------------------------------------ reporting


def geomean(xs):
    xs = [x for x in xs if x]
    if not xs:
        return None
    return statistics.geometric_mean(xs)


def markdown(meta, checks, summary, tools, impls, cold=None, unavailable=None):
    out = []
    out.append(f"Start-up benchmark, {meta['date']}, Python {meta['python']}, {meta['machine']}; "
               f"{meta['rounds']} counted rounds after {meta['warmup']} warm-up rounds, warm caches.")
    out.append("")
    out.append("Cell: median ratio to plain, paired by round (lower is better) · median wall ms · "
               "modules in sys.modules at exit. plain: median wall ms · peak RSS MiB · modules. "
               "(CPU …×): the same for the CPU time (user + system) of the child, where recorded.")
    out.append("")
    out.append("| tool (command) | plain | " + " | ".join(i for i in impls if i != "plain") + " |")
    out.append("|---|---|" + "---|" * (len(impls) - 1))
    for tool in tools:
        p = summary[tool]["plain"]
        row = [{"floor": "floor `python -c pass`",
                "floor-project": "floor in a project dir (pyproject.toml)"}.get(tool, f"`{' '.join(TOOLS[tool])}`"),
               f"{p['median_s'] * 1000:.0f} ms · {p['rss_mib']:.0f} MiB · {checks[tool]['plain']['modules']}"]
        for impl in impls:
            if impl == "plain":
                continue
            c = checks[tool][impl]
            if not c["ok"]:
                row.append("**broken**")
                continue
            s = summary[tool][impl]
            mods = c["modules"]
            if c.get("lazy_modules"):
                mods = f"{mods} ({c['lazy_modules']} unexec.)"
            flaky = f" ({s['failed_runs']} runs failed!)" if s.get("failed_runs") else ""
            cpu = f" (CPU {s['cpu_ratio']:.2f}×)" if s.get("cpu_ratio") else ""
            row.append(f"**{s['ratio']:.2f}×**{cpu} · {s['median_s'] * 1000:.0f} ms · {s['rss_mib']:.0f} MiB · "
                       f"{mods}{flaky}")
        out.append("| " + " | ".join(row) + " |")
    corpus = [t for t in tools if not t.startswith("floor")]
    row = ["geometric mean of ratios (tools it runs)", "1.00"]
    for impl in impls:
        if impl == "plain":
            continue
        ok = [t for t in corpus if checks[t][impl]["ok"]]
        g = geomean([summary[t][impl]["ratio"] for t in ok])
        row.append(f"{g:.2f}× ({len(ok)}/{len(corpus)} work)" if g else "—")
    out.append("| " + " | ".join(row) + " |")
    rows = [("geometric mean of CPU-time ratios", "cpu_ratio", None)]
    if "native" in impls:
        rows += [("geometric mean of ratios to native (paired by round)", "ratio_to_native", "native"),
                 ("geometric mean of CPU-time ratios to native", "cpu_ratio_to_native", "native")]
    for label, key, base in rows:
        row = [label, "1.00" if base is None else "—"]
        for impl in impls:
            if impl == "plain":
                continue
            ok = [t for t in corpus if checks[t][impl]["ok"] and (base is None or checks[t][base]["ok"])]
            g = geomean([summary[t][impl].get(key) for t in ok])
            row.append(f"{g:.2f}×" if g else "—")
        if any(c != "—" for c in row[2:]):
            out.append("| " + " | ".join(row) + " |")
    if unavailable and any(unavailable.values()):
        out.append("")
        out.append("Not measured on this Python (what could not be installed or activated):")
        out.append("")
        for kind, what in unavailable.items():
            for name, why in what.items():
                out.append(f"- {kind[:-1]} {name}: `{why}`")
    broken = [(t, i, checks[t][i]["error"]) for t in tools for i in impls if not checks[t][i]["ok"]]
    if broken:
        out.append("")
        out.append("Broken (exit code or stdout differ from plain; first error line):")
        out.append("")
        for t, i, e in broken:
            out.append(f"- {i} × `{' '.join(TOOLS[t])}`: `{e}`")
    if cold:
        out.append("")
        lc = cold["lazify_compile"]
        out.append(f"Cold caches (median of {meta['cold_rounds']} first starts; ratio to plain in the same "
                   f"scenario; `lazify compile` of the {lc['files']} modules lazify imports took {lc['seconds']} s, "
                   f"rc {lc['rc']}; `compileall` of the {cold['compileall_files']} modules any implementation "
                   f"imports {cold['compileall_seconds']} s" +
                   (f"; lazify's rewrite of a first start's misses after the program, waited for before "
                    f"the next run: median {cold['background_s']['median']} s, max {cold['background_s']['max']} s"
                    if cold.get("background_s", {}).get("runs") else "") + "):")
        out.append("")
        scen = cold["scenarios"]
        heads = []
        for s in scen:
            for impl in impls:
                if any(impl in scen[s][t] for t in tools):
                    heads.append((s, impl))
        out.append("| tool | " + " | ".join(f"{s}: {i}" for s, i in heads) + " |")
        out.append("|---|" + "---|" * len(heads))
        for tool in tools:
            row = [tool]
            for s, impl in heads:
                c = scen[s][tool].get(impl)
                if c is None:
                    row.append("—")
                elif impl == "plain":
                    row.append(f"{c['median_s'] * 1000:.0f} ms")
                else:
                    row.append(f"{c['ratio']:.2f}× · {c['median_s'] * 1000:.0f} ms")
            out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def machine_description() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu}){mem}, shared/noisy"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default="python3.11",
                    help="interpreter for the venv (default: python3.11; 3.15+ adds native lazy imports)")
    ap.add_argument("--workdir", type=Path, default=None,
                    help="venv, HOME and caches live here (default: $TMPDIR/lazify-startup-bench, "
                         "-X.Y appended for a Python other than 3.11)")
    ap.add_argument("--reinstall", action="store_true", help="recreate the venv even if it is current")
    ap.add_argument("--rounds", type=int, default=15, help="counted rounds (default 15, at least 10 for a result)")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up rounds (default 2)")
    ap.add_argument("--cold-rounds", type=int, default=3, help="cold-cache rounds (default 3; 0 skips)")
    ap.add_argument("--cold-impls", default=",".join(IMPLS),
                    help="implementations in the cold-cache run (default: the built-in ones, not --extra-impl)")
    ap.add_argument("--tools", default=None, help="comma-separated subset of: " + ",".join(TOOLS))
    ap.add_argument("--impls", default=None,
                    help="comma-separated subset of: " + ",".join(IMPLS) + " (default: those available)")
    ap.add_argument("--extra-impl", action="append", default=[], metavar="NAME=DIR",
                    help="also measure the sitecustomize.py in DIR under NAME (e.g. a patched lazify)")
    ap.add_argument("--report", type=Path, metavar="RESULTS_JSON",
                    help="only print the markdown of an earlier run (--impls/--tools filter it)")
    ap.add_argument("--quick", action="store_true", help="3 rounds, 1 warm-up, no cold run")
    ap.add_argument("--check-only", action="store_true", help="only compare outputs with plain; no timing")
    ap.add_argument("--out", type=Path, default=None,
                    help="results JSON (default: "
                         "benchmarks/results/startup-DATE-pyX.Y-COMMIT.json)")
    args = ap.parse_args(argv)
    if args.report:
        res = json.loads(args.report.read_text())
        TOOLS.update(res["tools"])
        want_i = set(args.impls.split(",")) if args.impls else set(res["implementations"])
        want_t = set(args.tools.split(",")) if args.tools else set(res["tools"])
        r_impls = [i for i in res["implementations"] if i in want_i or i == "plain"]
        r_tools = [t for t in res["tools"] if t in want_t or t == "floor"]
        cold = res.get("cold")
        if cold:
            for scen in cold["scenarios"].values():
                for t in scen:
                    scen[t] = {i: v for i, v in scen[t].items() if i in r_impls}
        print(markdown(res["meta"], res["checks"], res["summary"], r_tools, r_impls, cold,
                       res.get("unavailable")))
        return 0
    if args.quick:
        args.rounds, args.warmup, args.cold_rounds = 3, 1, 0
    tools = [t for t in (args.tools or ",".join(TOOLS)).split(",") if t]
    impls = [i for i in (args.impls or ",".join(IMPLS)).split(",") if i]
    explicit_impls = args.impls is not None
    for spec in args.extra_impl:
        name, sep, directory = spec.partition("=")
        if not sep or not (Path(directory) / "sitecustomize.py").is_file():
            ap.error(f"--extra-impl {spec!r}: want NAME=DIR with DIR/sitecustomize.py")
        IMPL_DIRS[name] = Path(directory).resolve()
        impls.append(name)
    for t in tools:
        if t not in TOOLS:
            ap.error(f"unknown tool {t!r}")
    for i in impls:
        if i not in IMPL_DIRS:
            ap.error(f"unknown implementation {i!r}")
    if "plain" not in impls:
        impls.insert(0, "plain")
    if "floor" not in tools:
        tools.insert(0, "floor")

    python = shutil.which(args.python) or args.python
    version = python_version(python)
    workdir = (args.workdir or default_workdir(version)).resolve()
    if args.out is None:
        args.out = default_results(version)
    workdir.mkdir(parents=True, exist_ok=True)
    venv = workdir / "venv"
    install = ensure_venv(venv, python, args.reinstall)
    empty = workdir / "cwd"         # an empty directory: no project config around
    project = workdir / "project"   # a project directory: a pyproject.toml without [tool.lazify]
    for d in (empty, project):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir()
    (project / "pyproject.toml").write_text(PROJECT_PYPROJECT)

    def cwd(tool):
        return project if tool in PROJECT_TOOLS else empty
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    pyver = subprocess.run([str(venv_python(venv)), "-c", "import platform; print(platform.python_version())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": pyver,
        "machine": machine_description(),
        "rounds": args.rounds,
        "warmup": args.warmup,
        "cold_rounds": args.cold_rounds,
        "lazify_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip(),
        "lazify_dirty": bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "lazify"],
                                            capture_output=True, text=True).stdout.strip()),
        "install": install,
    }
    log(f"Python {pyver}; venv {venv} ({'reused' if install['reused'] else 'created'})")
    # What cannot run here is reported, never silently left out: requirements
    # pip could not install, tools whose command is then missing, and
    # implementations whose activation fails on this Python.
    unavailable = {"requirements": install["not_installed"], "tools": {}, "implementations": {}}
    for t in list(tools):
        if not (venv / "bin" / TOOLS[t][0]).exists():
            unavailable["tools"][t] = f"no {TOOLS[t][0]} in the venv"
            tools.remove(t)
    for i, why in unavailable_impls(venv, impls).items():
        unavailable["implementations"][i] = why
        impls.remove(i)
    for kind, what in unavailable.items():
        for name, why in what.items():
            log(f"  unavailable {kind[:-1]} {name}: {why}" + (" (asked for)" if kind == "implementations"
                                                              and explicit_impls else ""))
    meta["unavailable"] = unavailable

    log("checking outputs against plain (also the first warm-up) ...")
    checks = check(venv, workdir, cwd, tools, impls)
    working = {t: {i: checks[t][i]["ok"] for i in impls} for t in tools}
    if args.check_only:
        broken = [(t, i) for t in tools for i in impls if not working[t][i]]
        print(json.dumps({f"{i} x {t}": checks[t][i]["error"] for t, i in broken}, indent=1))
        return 1 if any(i == "lazify" for _, i in broken) else 0
    log("timing ...")
    fingerprint = lazify_fingerprint()
    expected_rc = {t: checks[t]["plain"]["rc"] for t in tools}
    data = timed_rounds(venv, workdir, cwd, tools, impls, working, args.rounds, args.warmup, expected_rc)
    summary = summarise(data, impls, tools)
    meta["lazify_sources_changed_during_timing"] = lazify_fingerprint() != fingerprint
    if meta["lazify_sources_changed_during_timing"]:
        log("WARNING: lazify's sources changed while timing (its caches were invalidated "
            "mid-run): the lazify numbers include cache misses; run again")
    cold = None
    if args.cold_rounds > 0:
        log("cold caches ...")
        args.out.write_text(json.dumps({"meta": meta, "checks": checks, "summary": summary,
                                        "partial": "cold run still to come"}, indent=1) + "\n")
        cold_impls = [i for i in impls if i in args.cold_impls.split(",") or i == "plain"]
        cold = cold_runs(venv, workdir, cwd, tools, cold_impls, working, args.cold_rounds, checks)
    for per_impl in checks.values():
        for entry in per_impl.values():
            entry["source_files"] = len(entry.pop("files", []))
    table = markdown(meta, checks, summary, tools, impls, cold, unavailable)
    print(table)
    result = {"meta": meta, "tools": {t: TOOLS[t] for t in tools}, "implementations": impls,
              "unavailable": unavailable,
              "checks": checks, "summary": summary, "raw": data, "cold": cold,
              "freeze": freeze(venv), "table_markdown": table}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
