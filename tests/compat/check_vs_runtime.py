"""`lazify check` against the runtime: for every import statement a module runs at import
time, the verdict `check` gives each name must be what the import hook then does.

    python tests/compat/check_vs_runtime.py [--sample N] [--mode global|opt-in] [--mechanism M]

The report is made in this process (``lazify._check.check_file``, what ``lazify check
--format json`` prints); the module is imported through the hook in a child process
(``lazify.install()``), which traces its top-level frame: at the line where each import
statement starts it notes whether the statement's modules are loaded already, and at the
first line after the statement whether each name it binds is

- ``lazy``: pending (``lazify.is_lazy_import``: the rewrite's pending name, or PEP 810's
  proxy on the native mechanism),
- ``eager``: bound, and the statement imported a module that was not loaded before it,
- ``free``: bound, its modules loaded before (an import of a loaded module is bound at
  once, lazy or not: no difference a program can see),
- ``absent``: neither (an eager import that failed under ``try``).

A name `check` calls lazy must be ``lazy`` or ``free``; one it calls eager must not be
``lazy``. Statements in functions and class bodies, and those never run (``if
TYPE_CHECKING:``), are not observed. ``tests/test_check_runtime.py`` runs a sample of the
standard library and of the test environment's site-packages on each Python;
``LAZIFY_CHECK_RUNTIME_SAMPLE`` (set by ``.ci/run``) makes the sample larger.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: Modules never imported by the sample: they act when imported (open windows, print,
#: start things), are test data, or are the machinery the child itself runs on.
SKIP_TOP = frozenset({
    "antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test", "tests",
    "lib2to3", "ensurepip", "venv", "__phello__", "__hello__", "_pyrepl", "pydoc_data",
    "lazify", "pytest", "_pytest", "py", "pip", "setuptools", "_distutils_hack",
    "pkg_resources", "distutils", "sitecustomize", "usercustomize", "site",
})

#: lazify's own bugs this comparison found that are not check's, each with its cause: the
#: module imports with an error under the hook (tests/test_check_runtime.py skips them)
KNOWN_RUNTIME_ERRORS = {
    # `import ctypes._endian` before ctypes: ctypes/__init__'s deferred `from
    # ctypes._endian import BigEndianStructure` is resolved by _endian's own `from ctypes
    # import *` while _endian is initializing (eagerly ctypes imported it whole first)
    "ctypes._endian": "star import resolves a pending name of the module being imported",
}

#: The child: install the hook, trace the module's top-level frame while importing it.
CHILD = r"""
import sys, marshal
with open(sys.argv[1], "rb") as f:
    job = marshal.load(f)
import lazify
lazify.install(enabled=job["enabled"], mechanism=job["mechanism"], excluding=job["excluding"])
if job["module"] in sys.modules:
    print(repr(("skip", "imported before the hook")))
    raise SystemExit(0)
import os
target = os.path.realpath(job["file"])
starts = {start: (end, names) for start, end, names in job["sites"]}
open_sites = []     # (end line, names, loaded before)
seen = set()
observed = {}

def loaded(module, imported):
    if imported is None and "." in module:
        # `import a.b`: a package on the way imported already by another loader (no
        # lazify state to catch up with a.b) makes the runtime import a.b at once
        parts = module.split(".")
        for i in range(1, len(parts)):
            found = sys.modules.get(".".join(parts[:i]))
            if found is not None and "__lazy__" not in getattr(found, "__dict__", {}):
                return True
    if module not in sys.modules:
        return False
    if imported is None:
        return True
    # `from m import n` with m loaded (if only partly): new only if n is a submodule
    # not loaded yet
    found = sys.modules[module]
    if f"{module}.{imported}" in sys.modules or imported in getattr(found, "__dict__", {}):
        return True
    if not hasattr(found, "__path__"):
        return True
    import importlib.util
    try:
        return importlib.util.find_spec(f"{module}.{imported}") is None
    except Exception:
        return True

def settle(namespace, line):
    keep = []
    for end, names, before in open_sites:
        if line is not None and line <= end:
            keep.append((end, names, before))
            continue
        for (name, module, imported), was_loaded in zip(names, before):
            if lazify.is_lazy_import(namespace, name):
                state = "lazy"
            elif name in namespace:
                state = "free" if was_loaded else "eager"
            else:
                state = "absent"
            observed.setdefault(name, set()).add(state)
    open_sites[:] = keep

def local(frame, event, arg):
    if event == "line" or event == "return":
        line = frame.f_lineno if event == "line" else None
        settle(frame.f_globals, line)
        if line in starts and line not in seen:
            seen.add(line)
            end, names = starts[line]
            open_sites.append((end, names, [loaded(m, i) for _n, m, i in names]))
    return local

def tracer(frame, event, arg):
    code = frame.f_code
    if code.co_name == "<module>" and os.path.realpath(code.co_filename) == target:
        return local
    return None

import importlib
sys.settrace(tracer)
try:
    importlib.import_module(job["module"])
except BaseException as e:
    sys.settrace(None)
    print(repr(("error", f"{type(e).__name__}: {e}")))
    raise SystemExit(0)
sys.settrace(None)
print(repr(("ok", {k: sorted(v) for k, v in observed.items()})))
"""


def report(path: str, module: str, enabled: bool, mechanism: str) -> dict | None:
    """``check``'s verdicts for the file: ``{"error": ...}`` or ``{"sites": [...]}``."""
    from lazify._check import check_file
    from lazify._sources import excluding_for

    result = check_file(path, excluding_for(path), False, mechanism, enabled=enabled)
    if result["error"] is not None:
        return None
    return result


def expected(result) -> tuple[list, dict]:
    """The sites for the child, and ``{name: set of verdicts}`` at module level."""
    sites = []
    verdicts: dict[str, set] = {}
    for site in result["sites"]:
        names = [n for n in site.names
                 if n.lazy or n.reason.value not in ("function", "class")]
        if not names or any(n.imported == "*" for n in names):
            continue
        if any(not n.lazy for n in site.names):
            # the eager part of a split statement runs first and loads the module: its
            # lazy names are bound for free, whatever check says of them
            names = [n for n in names if not n.lazy]
            if not names:
                continue
        line, _col, end, _end_col = site.span
        sites.append((line, end, [
            (n.name, n.module, None if site.kind == "import" else n.imported) for n in names]))
        for n in names:
            verdicts.setdefault(n.name, set()).add("lazy" if n.lazy else "eager")
    return sites, verdicts


def compare(path: str, module: str, enabled: bool = True, mechanism: str = "rewrite",
            python: str = sys.executable, cwd: str | None = None) -> tuple[str, list]:
    """``(outcome, disagreements, observed)``: outcome "ok", "skip: ..." or "error: ...";
    observed: how many names the child saw bound or pending."""
    import marshal
    import tempfile

    from tests._util import child_env

    result = report(path, module, enabled, mechanism)
    if result is None:
        return "skip: check could not read it", [], 0
    sites, verdicts = expected(result)
    if not sites:
        return "skip: no module-level import", [], 0
    # the settings check applied (the project's [tool.lazify]): what `lazify enable`
    # records for the environment; install() itself never reads the working directory
    from lazify._sources import excluding_for

    job = {"module": module, "file": path, "enabled": enabled, "mechanism": mechanism,
           "sites": sites, "excluding": list(excluding_for(path))}
    with tempfile.NamedTemporaryFile("wb", suffix=".marshal", delete=False) as f:
        marshal.dump(job, f)
    try:
        env = child_env({"LAZIFY_MECHANISM": mechanism, "LAZIFY_DISABLE": None,
                         "LAZIFY_EXCLUDING": None})
        proc = subprocess.run([python, "-c", CHILD, f.name], capture_output=True, text=True,
                              env=env, timeout=120, cwd=cwd or ROOT)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0 or not proc.stdout.strip():
        return f"error: child exited {proc.returncode}: {proc.stderr.strip()[-500:]}", [], 0
    kind, value = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    if kind == "error":
        plain = subprocess.run([python, "-c", f"import {module}"], capture_output=True,
                               env=child_env(), timeout=120, cwd=cwd or ROOT)
        if plain.returncode != 0:
            return "skip: fails without lazify too", [], 0
        return f"error: with lazify only: {value}", [], 0
    if kind != "ok":
        return f"{kind}: {value}", [], 0
    disagreements = []
    for name, states in value.items():
        said = verdicts.get(name, set())
        if len(said) != 1:
            continue        # bound lazily in one place and eagerly in another
        verdict = next(iter(said))
        bad = {"eager", "absent"} if verdict == "lazy" else {"lazy"}
        if set(states) & bad:
            disagreements.append((name, verdict, sorted(states)))
    return "ok", disagreements, len(value)


def _importable(rel: str) -> str | None:
    """The module name of a file relative to a sys.path root, or None."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(p.isidentifier() for p in parts) or parts[0] in SKIP_TOP:
        return None
    if parts[-1] == "__main__":
        return None
    if any(p.startswith("_test") or p == "tests" or p == "test" for p in parts):
        return None
    return ".".join(parts)


def candidates() -> list[tuple[str, str]]:
    """``(path, module)`` for the .py files of the standard library and site-packages,
    in a fixed order: the standard library's first."""
    out = []
    stdlib = sysconfig.get_paths()["stdlib"]
    purelib = sysconfig.get_paths()["purelib"]
    for top in (stdlib, purelib):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__")
                                 and "-" not in d and not d.startswith("."))
            if dirpath != top and not os.path.isfile(os.path.join(dirpath, "__init__.py")):
                dirnames[:] = []
                continue
            for name in sorted(filenames):
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    module = _importable(os.path.relpath(path, top))
                    if module is not None:
                        out.append((path, module))
    return out


def sample(size: int) -> list[tuple[str, str]]:
    """About ``size`` files spread evenly over :func:`candidates` (every k-th), the
    same on every run of one Python."""
    every = candidates()
    if size >= len(every):
        return every
    step = len(every) / size
    return [every[int(i * step)] for i in range(size)]


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--mode", choices=("global", "opt-in"), default="global")
    parser.add_argument("--mechanism", choices=("rewrite", "native"), default="rewrite")
    args = parser.parse_args(argv)
    bad = 0
    for path, module in sample(args.sample):
        outcome, disagreements, _observed = compare(path, module, args.mode == "global",
                                                     args.mechanism)
        if disagreements or outcome.startswith("error"):
            print(f"{module}: {outcome} {disagreements}")
            bad += bool(disagreements)
    print(f"{bad} module(s) disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
