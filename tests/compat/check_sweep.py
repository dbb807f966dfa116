"""Sweep ``lazify check`` over the python3.11 standard library and a fresh venv's packages.

Not part of the default test run (``tests/compat`` is in ``norecursedirs``). Run it with
the Python whose standard library is swept (python3.11 here), from the project root::

    python3 tests/compat/check_sweep.py [--venv /tmp/sweepvenv] [--no-install]

For each corpus it runs ``python -m lazify check --format json`` in a subprocess, on the
corpus's top-level entries (so ``check``'s own directory walk is exercised), and asserts:

- the command did not crash: exit status 0 or 1, JSON on stdout, nothing on stderr, and
  no file reported with a lazify internal error;
- ``check`` analysed every ``.py`` file that a plain walk of the corpus finds: files its
  walk skips on purpose (in ``build``/``dist``/... directories) are listed, then checked
  by name;
- every file reported with an error is a file that ``compile()`` rejects too, and every
  file ``compile()`` rejects is reported with an error;
- the JSON has the documented shape.

Then it prints the counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import sysconfig
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: the packages of the venv corpus: real dependencies with C extensions, vendored code,
#: heavy typing (pydantic) and plugin registries (pygments, pulled in by rich)
PACKAGES = ["requests", "rich", "jinja2", "click", "attrs", "pydantic"]
IMPORT_KEYS = {"line", "col", "statement", "name", "module", "verdict", "reason", "used_at_import", "unused"}


def stdlib_targets() -> tuple[str, list[str]]:
    """The standard library's top-level entries, without ``test/`` and ``site-packages``."""
    stdlib = sysconfig.get_paths()["stdlib"]
    entries = []
    for name in sorted(os.listdir(stdlib)):
        path = os.path.join(stdlib, name)
        if name in ("test", "site-packages", "__pycache__"):
            continue
        if os.path.isdir(path) or name.endswith(".py"):
            entries.append(path)
    return stdlib, entries


def venv_targets(venv: str, install: bool) -> tuple[str, list[str]]:
    """Every top-level entry of a fresh venv's site-packages (installing the packages first)."""
    python = os.path.join(venv, "bin", "python")
    if install and not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", *PACKAGES], check=True)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    entries = [
        os.path.join(site, name)
        for name in sorted(os.listdir(site))
        if name != "__pycache__"
        and (name.endswith(".py") or os.path.isdir(os.path.join(site, name)))
        and not name.endswith((".dist-info", ".egg-info"))
    ]
    return site, entries


def plain_walk(entries: list[str]) -> set[str]:
    """Every ``.py`` file under *entries*, by a walk that skips nothing but ``__pycache__``."""
    found = set()
    for entry in entries:
        if os.path.isfile(entry):
            found.add(os.path.realpath(entry))
            continue
        for dirpath, dirnames, filenames in os.walk(entry):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            found.update(os.path.realpath(os.path.join(dirpath, f)) for f in filenames if f.endswith(".py"))
    return found


def compile_error(path: str) -> str | None:
    """What ``compile()`` says about the file, or None when it compiles."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"{type(e).__name__}: {e}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of lib2to3's test data
            compile(data, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def run_check(label: str, paths: list[str], env: dict, failures: list[str]):
    """``python -m lazify check --format json PATHS``; (process, report or None)."""
    proc = subprocess.run(
        [sys.executable, "-m", "lazify", "check", "--format", "json", *paths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):
        failures.append(f"{label}: check exited {proc.returncode}\n{proc.stderr[-3000:]}")
        return proc, None
    if proc.stderr.strip():
        failures.append(f"{label}: check wrote to stderr:\n{proc.stderr[-3000:]}")
    try:
        return proc, json.loads(proc.stdout)
    except ValueError as e:
        failures.append(f"{label}: check's output is not JSON ({e})")
        return proc, None


def sweep(label: str, base: str, entries: list[str]) -> list[str]:
    """Run ``check`` over one corpus; print its counts; return the failures."""
    failures = []
    env = {k: v for k, v in os.environ.items() if k not in ("LAZIFY_STRICT",)}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, *filter(None, [env.get("PYTHONPATH")])])
    start = time.perf_counter()
    proc, report = run_check(label, entries, env, failures)
    if report is None:
        return failures
    files = report["files"]
    walked = plain_walk(entries)
    skipped = sorted(walked - {os.path.realpath(f["path"]) for f in files})
    if skipped:
        # Files in directories check's walk skips on purpose (build, dist, ...): check
        # them by name too, so that the whole corpus is swept.
        more_proc, more = run_check(label + " (skipped files, by name)", skipped, env, failures)
        if more is None:
            return failures
        files = files + more["files"]
        if more_proc.returncode == 1:
            proc.returncode = 1
    elapsed = time.perf_counter() - start
    errors = {f["path"]: f["error"] for f in files if f["error"] is not None}
    internal = {p: e for p, e in errors.items() if "internal error" in e}
    for path, error in sorted(internal.items()):
        failures.append(f"{label}: internal error on {path}: {error}")
    if (proc.returncode == 1) != bool(errors):
        failures.append(f"{label}: exit status {proc.returncode} with {len(errors)} error file(s)")

    checked = {os.path.realpath(f["path"]) for f in files}
    extra = sorted(checked - walked)
    if extra:
        failures.append(f"{label}: check reported files outside the corpus: {extra[:5]}")

    rejected = {}
    for path in sorted(walked & checked):
        error = compile_error(path)
        if error is not None:
            rejected[path] = error
    error_paths = {os.path.realpath(p) for p in errors}
    for path in sorted(error_paths - set(rejected)):
        failures.append(f"{label}: check reports an error compile() does not: {path}: {errors.get(path)}")
    for path in sorted(set(rejected) - error_paths):
        failures.append(f"{label}: compile() rejects a file check analysed: {path}: {rejected[path]}")

    verdicts = collections.Counter()
    reasons = collections.Counter()
    used_at_import = unused = 0
    for f in files:
        for imp in f["imports"]:
            if set(imp) != IMPORT_KEYS:
                failures.append(f"{label}: {f['path']}: import entry keys {sorted(imp)}")
                break
            verdicts[imp["verdict"]] += 1
            if imp["verdict"] == "eager":
                reasons[imp["reason"]] += 1
            used_at_import += imp["used_at_import"] is not None
            unused += bool(imp["unused"])

    print(f"== {label}: {base}")
    print(f"   check: exit {proc.returncode} in {elapsed:.1f}s")
    print(f"   files: {len(files)} analysed, {len(errors)} with an error "
          f"({len(internal)} internal); {len(skipped)} skipped by check's directory walk, "
          f"then checked by name")
    for path in skipped:
        print(f"     skipped by the walk: {os.path.relpath(path, base)}")
    for path, error in sorted(errors.items()):
        print(f"     error: {os.path.relpath(path, base)}: {error}")
    print(f"   compile() rejects {len(rejected)} file(s); "
          f"{len(error_paths & set(rejected))} of check's errors are among them")
    total = sum(verdicts.values())
    print(f"   imports: {total} names, {verdicts['lazy']} lazy, {verdicts['eager']} eager; "
          f"lazy and used at import: {used_at_import}; lazy and unused: {unused}")
    print("   eager by reason: " + ", ".join(f"{r}={n}" for r, n in reasons.most_common()))
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default="/tmp/sweepvenv", help="the venv corpus (created when missing)")
    parser.add_argument("--no-install", action="store_true", help="do not create the venv")
    parser.add_argument("--skip-venv", action="store_true", help="sweep the standard library only")
    args = parser.parse_args(argv)

    failures = sweep("stdlib", *stdlib_targets())
    if not args.skip_venv:
        failures += sweep("venv", *venv_targets(args.venv, not args.no_install))
    for failure in failures:
        print("FAIL", failure)
    print("sweep:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
