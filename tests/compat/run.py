"""Compatibility sweep: real test suites, plain and under lazify's global mode.

One command (outside the default pytest run)::

    python tests/compat/run.py                  # both parts
    python tests/compat/run.py --stdlib         # CPython's regression tests only
    python tests/compat/run.py --thirdparty     # the pinned projects only
    python tests/compat/run.py --stdlib --only test_json,test_enum
    python tests/compat/run.py --thirdparty --only click
    python tests/compat/run.py --stdlib --python /opt/sid-python/3.14-tests/bin/python3

Standard library: ``python -m test --junit-xml X test_mod`` (through
``regrtest.py``, which imports ``warnings`` first: see there) for every module
in :data:`STDLIB_TESTS`, once plain and once with lazify activated by
``tests/compat/activate/sitecustomize.py`` (``lazify.install()``): the
directory is on ``PYTHONPATH``, so every child process the tests spawn with
the inherited environment is activated too, and the standard library
itself (everything imported after ``site``) is rewritten.  Both runs get the
same ``PYTHONPATH`` apart from the activation directory, and neither has
``PYTHONDONTWRITEBYTECODE``/``PYTHONPYCACHEPREFIX``, so caches are used.

Third party: each project of :data:`PROJECTS` is downloaded as an sdist at a
pinned version, installed with its test dependencies and ``pip install -e``
of this checkout into a venv of its own, and its own suite is run from the
unpacked sdist with ``python -m pytest`` and ``python -m lazify run -m
pytest`` (project and dependencies rewritten; test files and conftests are
pytest's assertion-rewriter's, which lazify leaves alone by design).

Results are compared per test case (junit xml).  A test that passes plain
and does not pass lazified is a difference; it must be listed in
``known_differences.py`` with its reason, or the sweep exits 1.  The
sweep prints a Markdown table and writes ``summary.json`` under --workdir.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from known_differences import KNOWN  # noqa: E402

#: CPython regression-test modules (3.11 and later) that exercise imports, packages and
#: introspection (plus a few big general ones)
STDLIB_TESTS = [
    "test_importlib", "test_import", "test_pkgutil", "test_runpy", "test_zipimport",
    "test_modulefinder", "test_inspect", "test_typing", "test_dataclasses",
    "test_logging", "test_argparse", "test_json", "test_email", "test_unittest",
    "test_doctest", "test_pickle", "test_threading", "test_pathlib", "test_enum",
    "test_functools", "test_collections", "test_abc", "test_warnings",
    "test_traceback", "test_pydoc", "test_contextlib", "test_asyncio", "test_zipfile",
    "test_tomllib", "test_copy", "test_weakref", "test_types",
]

#: project -> pinned sdist version, test dependencies (their own test
#: dependency group / requirements file), the import name to probe, and the
#: test directory inside the sdist
PROJECTS = {
    "attrs": dict(version="26.1.0", deps=["hypothesis", "pympler", "pytest", "cloudpickle"],
                  probe="attr._make", tests="tests"),
    "click": dict(version="8.5.1", deps=["pytest"], probe="click.core", tests="tests"),
    "jinja2": dict(version="3.1.6", deps=["pytest", "trio"], probe="jinja2.environment",
                   tests="tests"),
    # flask 3.1.3's tests/test_cli.py imports _pytest.monkeypatch.notset, gone in pytest 9
    "flask": dict(version="3.1.3", deps=["asgiref", "greenlet", "pytest<9", "python-dotenv"],
                  probe="flask.app", tests="tests"),
    "werkzeug": dict(version="3.1.9", deps=["cffi", "cryptography", "ephemeral-port-reserve",
                                            "pytest", "pytest-timeout", "watchdog"],
                     probe="werkzeug.serving", tests="tests",
                     # a dev-server test can hang (watchdog reloader): pytest-timeout per test
                     args=["-o", "timeout=120"]),
    "packaging": dict(version="26.3", deps=["hypothesis", "pretend", "pytest", "tomli_w", "pip"],
                      probe="packaging.specifiers", tests="tests"),
    "itsdangerous": dict(version="2.2.0", deps=["pytest", "freezegun"],
                         probe="itsdangerous.serializer", tests="tests"),
    "pygments": dict(version="2.21.0", deps=["pytest~=8.2", "wcag-contrast-ratio"],
                     probe="pygments.lexers", tests="tests"),
    "docutils": dict(version="0.23", deps=["pytest", "pygments"], probe="docutils.core",
                     tests="test"),
    # an async web framework whose suite runs blockbuster, a blocking-call detector that
    # patches os.stat, os.listdir, open... (issue 30)
    "starlette": dict(version="1.10.0", deps=["pytest", "anyio", "trio", "blockbuster",
                                              "httpx<0.29", "httpx2", "itsdangerous",
                                              "jinja2", "python-multipart", "pyyaml",
                                              "opentelemetry-api", "opentelemetry-sdk"],
                      probe="starlette.applications", tests="tests"),
    # a date/time library
    "python-dateutil": dict(version="4.0.0", deps=["pytest", "pytest-cov", "freezegun",
                                                   "hypothesis", "attrs"],
                            probe="dateutil.parser", tests="tests"),
    # a data-structuring library with a hypothesis-heavy suite (issue 30's 1.07x)
    "cattrs": dict(version="26.2.1", deps=["pytest", "hypothesis", "immutables",
                                           "pytest-benchmark", "msgpack", "pyyaml", "tomlkit",
                                           "cbor2", "pymongo", "msgspec", "orjson", "ujson",
                                           "tomli-w", "typing-extensions"],
                   probe="cattrs.converters", tests="tests"),
}

#: the interpreter under test (--python; default: the one running this script)
PYTHON = sys.executable


# ---------------------------------------------------------------- helpers


def base_env():
    env = dict(os.environ)
    for key in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH",
                "PYTHONSTARTUP", "LAZIFY_DEBUG", "LAZIFY_EXCLUDING"):
        env.pop(key, None)
    return env


def parse_junit(path):
    """{test id: outcome} from a junit xml; outcome passed/failed/error/skipped."""
    results = {}
    counts = collections.Counter()
    tree = ET.parse(path)
    for case in tree.iter("testcase"):
        classname = case.get("classname")
        name = case.get("name", "?")
        tid = f"{classname}::{name}" if classname else name
        counts[tid] += 1
        if counts[tid] > 1:
            tid = f"{tid}#{counts[tid]}"
        outcome = "passed"
        for child in case:
            if child.tag == "failure":
                outcome = "failed"
            elif child.tag == "error":
                outcome = "error"
            elif child.tag == "skipped":
                outcome = "skipped"
        results[tid] = outcome
    return results


def junit_messages(path, ids):
    """The failure/error text of the given test ids (for the report)."""
    out = {}
    counts = collections.Counter()
    for case in ET.parse(path).iter("testcase"):
        classname = case.get("classname")
        name = case.get("name", "?")
        tid = f"{classname}::{name}" if classname else name
        counts[tid] += 1
        if counts[tid] > 1:
            tid = f"{tid}#{counts[tid]}"
        if tid in ids:
            for child in case:
                if child.tag in ("failure", "error"):
                    out[tid] = (child.text or child.get("message") or "")[-3000:]
    return out


def run(cmd, *, cwd, env, log, timeout):
    start = time.monotonic()
    with open(log, "w") as f:
        f.write(f"$ {' '.join(cmd)}\n(cwd {cwd})\n")
        f.flush()
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.monotonic() - start


def tail(path, n=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def compare(suite, plain, lazy):
    """Differences: passed plain, not passed lazified (and the reverse, for info)."""
    worse = {tid: (plain[tid], lazy.get(tid, "missing"))
             for tid in plain if plain[tid] == "passed" and lazy.get(tid) != "passed"}
    better = {tid: (plain.get(tid, "missing"), lazy[tid])
              for tid in lazy if lazy[tid] == "passed" and plain.get(tid) != "passed"}
    return worse, better


def known_reason(suite, tid):
    for (ksuite, pattern), reason in KNOWN.items():
        if ksuite == suite and (tid == pattern or (pattern.endswith("*")
                                                   and tid.startswith(pattern[:-1]))):
            return reason
    return None


# ---------------------------------------------------------------- stdlib


def stdlib_one(mod, mode, workdir, lazify_root, timeout):
    outdir = os.path.join(workdir, "stdlib", mod)
    os.makedirs(outdir, exist_ok=True)
    xml = os.path.join(outdir, f"{mode}.xml")
    log = os.path.join(outdir, f"{mode}.log")
    if os.path.exists(xml):
        os.unlink(xml)
    env = base_env()
    paths = [lazify_root]
    if mode == "lazy":
        paths.insert(0, os.path.join(HERE, "activate"))
        env["LAZIFY_STRICT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(paths)
    cwd = os.path.join(outdir, f"cwd-{mode}")
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)
    cmd = [PYTHON, os.path.join(HERE, "regrtest.py"), "--junit-xml", xml, "--timeout",
           str(timeout), mod]
    rc, seconds = run(cmd, cwd=cwd, env=env, log=log, timeout=timeout + 120)
    results = parse_junit(xml) if os.path.exists(xml) else {}
    return dict(mode=mode, rc=rc, seconds=round(seconds, 1), results=results, log=log, xml=xml)


def stdlib_probe(lazify_root):
    """Check that the activation really rewrites the standard library."""
    env = base_env()
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "activate"), lazify_root])
    code = ("import email.message, json, argparse, inspect, typing, sys;"
            "print(sorted(m for m in ('email.message','json','argparse','inspect','typing')"
            " if '__lazy__' in vars(sys.modules[m])))")
    proc = subprocess.run([PYTHON, "-c", code], env=env, capture_output=True, text=True)
    return (proc.stdout.strip() or proc.stderr.strip()[-500:])


# ---------------------------------------------------------------- third party


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def prepare_project(name, spec, workdir, lazify_root, log):
    version = spec["version"]
    base = os.path.join(workdir, "thirdparty", name)
    os.makedirs(base, exist_ok=True)
    sdists = os.path.join(workdir, "sdists")
    os.makedirs(sdists, exist_ok=True)
    src = os.path.join(base, f"{name}-{version}")
    if not os.path.isdir(src):
        stem = f"{name}-{version}".lower()
        archive = [f for f in os.listdir(sdists)
                   if f.lower().replace("_", "-").startswith(stem) and f.endswith(".tar.gz")]
        if not archive:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                            "-d", sdists, f"{name}=={version}"], check=True,
                           stdout=log, stderr=subprocess.STDOUT)
            archive = [f for f in os.listdir(sdists)
                       if f.lower().replace("_", "-").startswith(stem)
                       and f.endswith(".tar.gz")]
        with tarfile.open(os.path.join(sdists, archive[0])) as tar:
            top = tar.getnames()[0].split("/")[0]
            tar.extractall(base)
        if os.path.join(base, top) != src:
            os.rename(os.path.join(base, top), src)
    venv = os.path.join(base, "venv")
    marker = os.path.join(venv, ".lazify-compat-ready")
    env = base_env()
    if not os.path.exists(marker):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([PYTHON, "-m", "venv", venv], check=True, stdout=log,
                       stderr=subprocess.STDOUT)
        subprocess.run([venv_python(venv), "-m", "pip", "install", src, *spec["deps"],
                        "-e", lazify_root], check=True, stdout=log, stderr=subprocess.STDOUT,
                       env=env)
        with open(marker, "w") as f:
            f.write(lazify_root)
        with open(os.path.join(base, "freeze.txt"), "w") as f:
            subprocess.run([venv_python(venv), "-m", "pip", "freeze"], stdout=f, env=env)
    with open(marker) as f:
        installed = f.read().strip()
    if installed != lazify_root:   # another checkout under test: re-point the editable install
        subprocess.run([venv_python(venv), "-m", "pip", "install", "--no-deps", "-e", lazify_root],
                       check=True, stdout=log, stderr=subprocess.STDOUT, env=env)
        with open(marker, "w") as f:
            f.write(lazify_root)
    return src, venv


def project_one(name, spec, workdir, lazify_root, timeout, setup_only=False):
    base = os.path.join(workdir, "thirdparty", name)
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "setup.log"), "a") as log:
        src, venv = prepare_project(name, spec, workdir, lazify_root, log)
    if setup_only:
        return None
    py = venv_python(venv)
    out = {}
    version = subprocess.run([py, "-m", "pip", "show", name], capture_output=True,
                             text=True).stdout
    version = next((line.split(":", 1)[1].strip() for line in version.splitlines()
                    if line.startswith("Version:")), "?")
    for mode in ("plain", "lazy"):
        xml = os.path.join(base, f"{mode}.xml")
        log = os.path.join(base, f"{mode}.log")
        if os.path.exists(xml):
            os.unlink(xml)
        pytest = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--junit-xml", xml,
                  *spec.get("args", ()), spec["tests"]]
        env = base_env()
        if mode == "lazy":
            env["LAZIFY_STRICT"] = "1"
            # every cache miss rewritten when imported: with the default (served plain,
            # rewritten after the program) a fresh venv's first lazy run would be plain
            env["LAZIFY_DEFER_REWRITE"] = "0"
            cmd = [py, "-m", "lazify", "run", *pytest]
        else:
            cmd = [py, *pytest]
        rc, seconds = run(cmd, cwd=src, env=env, log=log, timeout=timeout)
        results = parse_junit(xml) if os.path.exists(xml) else {}
        out[mode] = dict(mode=mode, rc=rc, seconds=round(seconds, 1), results=results, log=log,
                         xml=xml)
    # Is the project really rewritten under `lazify run`?
    script = os.path.join(base, "probe.py")
    with open(script, "w") as f:
        # the rewrite leaves __lazy__ in the module; both mechanisms (3.15's native one
        # has nothing of lazify's in the module) load it from lazify's pyc
        f.write(f"import {spec['probe']} as m\n"
                f"print('{spec['probe']} rewritten:', '__lazy__' in vars(m),"
                f" 'lazify pyc:', '.opt-' in (m.__spec__.cached or '') and"
                f" 'lazify' in m.__spec__.cached)\n")
    probe = subprocess.run([py, "-m", "lazify", "run", script], cwd=base,
                           env=dict(base_env(), LAZIFY_DEFER_REWRITE="0"),
                           capture_output=True, text=True)
    out["probe"] = (probe.stdout.strip() or probe.stderr.strip()[-300:])
    out["version"] = version
    return out


# ---------------------------------------------------------------- report


def summarise(suite, version, plain, lazy, extra=""):
    worse, better = compare(suite, plain["results"], lazy["results"])
    unexplained = {tid: v for tid, v in worse.items() if known_reason(suite, tid) is None}
    messages = {}
    if worse and os.path.exists(lazy["xml"]):
        messages = junit_messages(lazy["xml"], set(worse))
    row = dict(
        suite=suite, version=version,
        run_plain=len(plain["results"]), run_lazy=len(lazy["results"]),
        passed_plain=sum(v == "passed" for v in plain["results"].values()),
        passed_lazy=sum(v == "passed" for v in lazy["results"].values()),
        rc_plain=plain["rc"], rc_lazy=lazy["rc"],
        seconds_plain=plain["seconds"], seconds_lazy=lazy["seconds"],
        worse={tid: dict(plain=v[0], lazy=v[1], known=known_reason(suite, tid),
                         message=messages.get(tid, "")) for tid, v in worse.items()},
        better={tid: dict(plain=v[0], lazy=v[1]) for tid, v in better.items()},
        unexplained=sorted(unexplained),
        note=extra,
    )
    if not lazy["results"] and plain["results"]:
        row["crash"] = tail(lazy["log"])
    return row


def table(rows):
    lines = ["| suite | version | tests run (plain / lazified) | passed plain | passed lazified "
             "| differences | time plain / lazified (s) |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["worse"]:
            listed = len(row["worse"]) - len(row["unexplained"])
            diff = f"{len(row['worse'])} ({listed} listed, {len(row['unexplained'])} unexplained)"
        else:
            diff = "0"
        lines.append(f"| {row['suite']} | {row['version']} | {row['run_plain']} / {row['run_lazy']} "
                     f"| {row['passed_plain']} | {row['passed_lazy']} | {diff} "
                     f"| {row['seconds_plain']} / {row['seconds_lazy']} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stdlib", action="store_true", help="CPython's regression tests")
    parser.add_argument("--thirdparty", action="store_true", help="the pinned projects")
    parser.add_argument("--only", default="", help="comma-separated test modules / projects")
    parser.add_argument("--jobs", type=int, default=2, help="suites run at once (default 2)")
    parser.add_argument("--python", default=None,
                        help="the interpreter under test (default: the one running run.py)")
    parser.add_argument("--workdir", default=os.environ.get("LAZIFY_COMPAT_DIR"),
                        help="venvs, sdists, logs, junit files, summary.json (default "
                             "/tmp/lazify-compat, /tmp/lazify-compat-X.Y with --python)")
    parser.add_argument("--lazify", default=ROOT, help="the lazify checkout to test")
    parser.add_argument("--timeout", type=int, default=1500, help="seconds per suite run")
    parser.add_argument("--setup-only", action="store_true",
                        help="download and install the third-party venvs, run nothing")
    args = parser.parse_args(argv)
    global PYTHON
    if args.python:
        PYTHON = os.path.abspath(args.python) if os.sep in args.python \
            else shutil.which(args.python) or args.python
    version = subprocess.run([PYTHON, "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    if args.workdir is None:
        args.workdir = "/tmp/lazify-compat"
        if args.python:
            args.workdir += "-" + ".".join(version.split()[0].split(".")[:2])
    if not args.stdlib and not args.thirdparty:
        args.stdlib = args.thirdparty = True
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    os.makedirs(args.workdir, exist_ok=True)
    lazify_root = os.path.abspath(args.lazify)
    start = time.monotonic()
    rows = []
    notes = []
    if args.stdlib:
        tests = [t for t in STDLIB_TESTS if not only or t in only]
        notes.append(f"stdlib activation probe (modules holding __lazy__): "
                     f"{stdlib_probe(lazify_root)}")
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {(mod, mode): pool.submit(stdlib_one, mod, mode, args.workdir, lazify_root,
                                                args.timeout)
                       for mod in tests for mode in ("plain", "lazy")}
            for mod in tests:
                plain = futures[mod, "plain"].result()
                lazy = futures[mod, "lazy"].result()
                row = summarise(f"stdlib {mod}", f"CPython {version.split()[0]}", plain, lazy)
                rows.append(row)
                print(f"{mod}: plain {row['passed_plain']}/{row['run_plain']} "
                      f"lazy {row['passed_lazy']}/{row['run_lazy']} "
                      f"worse {len(row['worse'])} ({row['seconds_plain']}s/{row['seconds_lazy']}s)",
                      flush=True)
    if args.thirdparty:
        names = [n for n in PROJECTS if not only or n in only]
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs // 2) if args.stdlib
                                                   else args.jobs) as pool:
            futures = {n: pool.submit(project_one, n, PROJECTS[n], args.workdir, lazify_root,
                                      args.timeout, args.setup_only) for n in names}
            for n in names:
                try:
                    out = futures[n].result()
                except Exception as exc:  # setup failure: report, carry on
                    print(f"{n}: setup failed: {exc}", flush=True)
                    notes.append(f"{n}: setup failed: {exc}")
                    continue
                if out is None:
                    print(f"{n}: set up", flush=True)
                    continue
                row = summarise(n, out["version"], out["plain"], out["lazy"],
                                extra=f"probe: {out['probe']}")
                rows.append(row)
                print(f"{n} {out['version']}: plain {row['passed_plain']}/{row['run_plain']} "
                      f"lazy {row['passed_lazy']}/{row['run_lazy']} worse {len(row['worse'])} "
                      f"[{out['probe']}]", flush=True)
    elapsed = time.monotonic() - start
    rev = subprocess.run(["git", "-C", lazify_root, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip()
    summary = dict(rows=rows, notes=notes, seconds=round(elapsed, 1), lazify=lazify_root,
                   lazify_revision=rev or "not a git checkout", python=version)
    with open(os.path.join(args.workdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print()
    print(table(rows))
    print()
    for note in notes:
        print(note)
    failed = False
    for row in rows:
        for tid, info in row["worse"].items():
            mark = f"listed: {info['known']}" if info["known"] else "UNEXPLAINED"
            print(f"[{row['suite']}] {tid}: plain {info['plain']}, lazified {info['lazy']} "
                  f"-- {mark}")
        if row["unexplained"]:
            failed = True
        if row.get("crash"):
            print(f"[{row['suite']}] lazified run produced no results; log tail:\n{row['crash']}")
            failed = True
    print(f"\nlazify under test: {lazify_root} ({summary['lazify_revision']})")
    print(f"sweep took {elapsed:.0f} s; details in {args.workdir}/summary.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
