#!/usr/bin/env python3
"""The modules lazify loads that Python's native lazy imports do not, and why.

    python3 tests/benchmarks/startup/moddiff.py --python /opt/sid-python/3.15/bin/python3
    python3 tests/benchmarks/startup/moddiff.py --report benchmarks/results/module-differences-2026-12-04-py3.15-4eb81db.json
    python3 tests/benchmarks/startup/moddiff.py --python python3 \
        --base-python /opt/sid-python/3.15/bin/python3 --impls plain,lazify

With ``--base-python`` the native run comes from that Python's benchmark venv
(3.15+) and lazify's from ``--python``'s (the rewrite, on 3.10-3.14): what
lazify on an older Python loads beyond the interpreter's own global mode.
Standard-library modules that exist on only one of the two Pythons are set
apart (``stdlib-version``) and not counted.

Needs the benchmark venv of that Python (``run.py --python ... --check-only``
makes it).  For every tool of the corpus it runs the tool's benchmark command
under plain, native (PEP 810's "all" mode, switched on from sitecustomize),
native_x (the same switch for the whole interpreter, ``PYTHON_LAZY_IMPORTS``)
and lazify, once uncounted (warm caches) and once traced, compares each
output with plain's, and attributes every module lazify loaded that native
did not (same tool, same command, same point of activation) to a cause.

Method.  A wrapper ``sitecustomize.py`` (first on ``PYTHONPATH``) records the
names already in ``sys.modules`` (loaded before sitecustomize), adds an audit
hook, then runs the implementation's own ``sitecustomize.py``.  CPython
raises the ``import`` audit event in ``importlib._bootstrap._find_and_load``
exactly when a module is about to be loaded (not for one already in
``sys.modules``), for import statements, ``importlib.import_module``,
lazify's resolution of a pending name and a native lazy object's
reification alike, and once more from an extension module's loader.  The
hook keeps, for the first event of each name, the Python stack: file, line,
function, the ``__name__`` of the frame's globals, and for importlib's
``_load_unlocked`` frames the spec being loaded.  At exit the wrapper writes
the stacks, ``sys.modules`` (file and loader of each module) and, under
lazify, what the hook never rewrites (``lazify._hook._PLAIN``, measured at
``install()``) and which loaded modules are excluded.  Nothing in the hook
imports or touches a module's namespace, so it changes nothing it measures.

Attribution of a module M lazify loaded and native did not, from M's stack
in the lazify run: frames of importlib and of lazify's runtime
(``lazify/_importlib_bootstrap.py``) are skipped; the first other frame is the
*site*, and the module whose globals it runs in is the *importer*.

- no site before importlib's ``_load_unlocked``: the loader of the module
  being loaded imported M (an extension module's C code): ``loader``;
- site in lazify's own code: ``lazify-own`` (the hook, the rewriter);
- the module being executed when M was imported (the innermost module-level
  frame: ``-X importtime``'s parent) only loaded under lazify: M is part of
  that module's subtree and counted with its cause (the *root*), so the
  causes do not overlap and each count is a number of modules;
- importer not rewritten: ``not-rewritten:main`` (the console script, which
  Python compiles outside the import system), ``…:before-sitecustomize``,
  ``…:plain-modules`` (lazify's machinery and the rewriter's dependencies),
  ``…:excluded`` (lazify's ``excluding``), ``…:loader`` (another loader);
- the stack passes through lazify's runtime: a lazy name was resolved at the
  site (a package's own ``__getattr__``, which lazify's prologue answers
  from, passes the site on to its caller).  When the site is an import
  statement that ``lazify check`` keeps eager, an eager ``from pkg import
  name`` read a name ``pkg`` imports lazily: ``eager:<reason>`` of that
  statement.  When M is a package's own submodule, registered lazily in the
  package, and the name it binds is not on the site's line, lazify ran that
  deferred import because a later own-submodule name of the package was
  read (it runs them in the package's order): ``package-order``.  When the
  name was registered by ``import a.b`` (a dotted
  import), reading ``a`` made lazify import ``a.b`` where native imports the
  package alone and leaves its submodules pending on it until read (lazify
  does too since 731eca3, except where a package on the way has no lazify
  ``__getattr__``): ``dotted-import-siblings``.  Otherwise
  ``used-at-import`` when the site is module-level code (a base class, a
  decorator, a module-level call), ``used-at-import:annotation`` when the
  name is read by an annotation on the site's line (evaluated where it is
  written before 3.14, deferred by PEP 649 after: what a comparison with
  3.15 shows), ``used-in-call`` in a function; the
  registering statement is looked up with ``lazify check --format json`` on
  the importer's file (its ``used_at_import`` field);
- an import statement ran at the site: ``eager:<reason>`` when ``lazify
  check`` keeps the statement at that line eager (try, with, class, star,
  excluded, rebound, dynamic-namespace, deferred-annotation, doctest,
  class-shadow, submodule-name, shadowed-submodule, side-effects,
  reserved-name, future, extension-module: whatever code check gives),
  ``function`` for an import in a function (it runs only
  when called: the call is in the site's callers), ``lazy-but-imported``
  when check calls the statement lazy yet it imported.

Causes that PEP 690/810 share (``eager:try``, ``eager:class``, ``eager:star``,
``function``, ``loader``, and ``not-rewritten:before-sitecustomize``, which
the native run has too) are told apart from lazify's own (everything else)
in the report: the own ones are what lazify could still remove.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import linecache
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402
from analyse import absolute  # noqa: E402

IMPLS = ["plain", "native", "native_x", "lazify"]

#: causes that PEP 690 (and PEP 810's "all" mode) have as well: not lazify's to remove
SHARED = {"eager:try", "eager:class", "eager:star", "function", "loader",
          "not-rewritten:before-sitecustomize"}

WRAPPER = r'''
import os, sys, atexit

_lzbench_pre = list(sys.modules)
_lzbench_events = {}


def _lzbench_audit(event, args, sys=sys, events=_lzbench_events):
    if event != "import" or args[0] in events:
        return
    frames = []
    f = sys._getframe(1)
    loading_seen = False
    while f is not None and len(frames) < 40:
        code = f.f_code
        loading = None
        if not loading_seen and code.co_name == "_load_unlocked" and code.co_filename.startswith("<frozen"):
            loading_seen = True
            loading = getattr(f.f_locals.get("spec"), "name", None)
        frames.append((code.co_filename, f.f_lineno, code.co_name, f.f_globals.get("__name__"),
                       code.co_flags & 1, loading))
        f = f.f_back
    events[args[0]] = (len(events), frames)


def _lzbench_dump(path=os.environ["LZBENCH_TRACE_OUT"], sys=sys):
    events = dict(_lzbench_events)
    modules = {}
    for name, m in list(sys.modules.items()):
        try:
            ns = vars(m)
        except TypeError:
            modules[name] = [None, type(m).__name__]
            continue
        f = ns.get("__file__")
        spec = ns.get("__spec__")
        modules[name] = [f if isinstance(f, str) else None,
                         type(getattr(spec, "loader", None)).__qualname__]
    lazify = None
    hook = sys.modules.get("lazify._hook")
    if hook is not None:
        rt = sys.modules.get("lazify._settings") or sys.modules.get("lazify._importlib_bootstrap")
        lazify = {"plain": sorted(hook._PLAIN or hook.MACHINERY),
                  "excluded": sorted(n for n in modules if rt is not None and rt.is_excluded(n)),
                  "stats": dict(hook.stats)}
    import json
    with open(path, "w") as fh:
        json.dump({"pre": _lzbench_pre, "modules": modules, "events": events, "lazify": lazify,
                   "lazy_modules": len(getattr(sys, "lazy_modules", ()))}, fh)


atexit.register(_lzbench_dump)
sys.addaudithook(_lzbench_audit)
_impl = os.path.join(os.environ["LZBENCH_IMPL_DIR"], "sitecustomize.py")
with open(_impl) as _f:
    exec(compile(_f.read(), _impl, "exec"), {"__name__": "sitecustomize", "__file__": _impl})
'''


STDLIB_NAMES = r'''
import os, sys, sysconfig, json
names = set(sys.builtin_module_names) | set(getattr(sys, "stdlib_module_names", ()))
paths = sysconfig.get_paths()
for root in {paths["stdlib"], paths["platstdlib"]}:
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        parts = [] if rel == "." else rel.split(os.sep)
        if parts[:1] == ["lib-dynload"]:
            parts = parts[1:]
        elif parts and (parts[0] in ("site-packages", "dist-packages", "test", "idlelib")
                        or "-" in parts[0] or "__pycache__" in parts):
            dirnames[:] = []
            continue
        for f in filenames:
            if f.endswith((".py", ".so")):
                stem = f.split(".")[0]
                names.add(".".join(parts + ([] if stem == "__init__" else [stem])))
print(json.dumps({"names": sorted(n for n in names if n),
                  "stdlib": [paths["stdlib"], paths["platstdlib"]]}))
'''


def stdlib_names(python):
    """(module names of a Python's standard library, its stdlib directories)."""
    out = subprocess.run([str(python), "-I", "-S", "-c", STDLIB_NAMES], capture_output=True,
                         text=True, check=True).stdout
    data = json.loads(out)
    return set(data["names"]), tuple(d.rstrip("/") + "/" for d in data["stdlib"])


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ tracing


def trace(venv, workdir, tool, impl, wrapper_dir, cwd):
    """Run the tool once uncounted and once traced; return (rc, stdout, trace)."""
    env = bench.bench_env(venv, workdir, impl)
    argv = bench.tool_argv(venv, tool)
    bench.run_once(argv, env, cwd, capture=True)
    out = wrapper_dir / f"{tool}.{impl}.json"
    if out.exists():
        out.unlink()
    env["PYTHONPATH"] = str(wrapper_dir)
    env["LZBENCH_IMPL_DIR"] = str(bench.IMPL_DIRS[impl])
    env["LZBENCH_TRACE_OUT"] = str(out)
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    rc, _, _, stdout, stderr = bench.run_once(argv, env, cwd, capture=True)
    data = json.loads(out.read_text()) if out.exists() else None
    if data is not None:
        data["self_us"] = importtime_self(stderr.decode("utf-8", "replace"))
    return rc, stdout, stderr, data


def importtime_self(text):
    """-X importtime's self time (us) of each module, by name."""
    self_us = {}
    for line in text.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            parts = line.split("|")
            self_us.setdefault(parts[2].strip(), int(parts[0].split(":")[1]))
    return self_us


# ---------------------------------------------------------------- the sites


def is_machinery(frame) -> bool:
    filename, _line, _func, modname = frame[:4]
    return (filename.startswith("<frozen importlib") or modname == "importlib"
            or modname == "lazify._importlib_bootstrap")


def site_of(frames):
    """(kind, site frame index or loading name, via lazify's runtime, through a from-list)."""
    via_runtime = fromlist = False
    for i, fr in enumerate(frames):
        filename, _line, func, modname, _opt, loading = fr
        if filename.startswith("<frozen importlib"):
            if func in ("_handle_fromlist", "_find_and_load_lazy_submodule"):
                fromlist = True
            if loading is not None:
                return "loader", loading, via_runtime, fromlist
            continue
        if modname == "lazify._importlib_bootstrap":
            via_runtime = True
            continue
        if modname == "importlib":
            continue
        return "site", i, via_runtime, fromlist
    return "unknown", None, via_runtime, fromlist


def callers(frames, i, n=4):
    """The site and its first callers outside the import machinery, as file:line func."""
    out = []
    for fr in frames[i:]:
        if is_machinery(fr):
            continue
        out.append(f"{fr[0]}:{fr[1]} {fr[2]}")
        if len(out) >= n or fr[2] == "<module>":
            break
    return out


def targets(imp, importer, is_package):
    """The module names an entry of ``lazify check`` can import."""
    module = imp["module"] or ""
    level = imp.get("level") or len(module) - len(module.lstrip("."))
    base = absolute(module.lstrip("."), level, importer, is_package)
    return {base, f"{base}.{imp['name']}"}


def covers(imp, importer, is_package, mod):
    return any(t == mod or t.startswith(mod + ".") or mod.startswith(t + ".")
               for t in targets(imp, importer, is_package))


# ------------------------------------------------------------ attribution


def statements_at(imports, line):
    """``lazify check`` entries of the statement at ``line`` (or spanning it: the nearest above)."""
    at = [i for i in imports if i["line"] == line]
    if not at:
        above = [i for i in imports if i["line"] <= line and line - i["line"] < 20]
        if above:
            top_line = max(i["line"] for i in above)
            at = [i for i in above if i["line"] == top_line]
    return at


@functools.cache
def annotation_names(filename):
    """line -> the names read by the annotations (of parameters, returns, annotated
    assignments) that span that line, in the source file ``filename``."""
    try:
        tree = ast.parse(Path(filename).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    lines = defaultdict(set)

    def add(node):
        if node is None:
            return
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for ln in range(node.lineno, node.end_lineno + 1):
            lines[ln].update(names)

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is not None:
                    add(arg.annotation)
            add(node.returns)
        elif isinstance(node, ast.AnnAssign):
            add(node.annotation)
    return dict(lines)


def attribute(tool, traces, checks_by_file, base="native", skip=frozenset()):
    """Attribute every module of lazify's run missing from ``base``'s run (but those in ``skip``)."""
    lz = traces["lazify"]
    nat = traces[base]
    lz_mods, nat_mods = lz["modules"], nat["modules"]
    diff = [m for m in lz_mods if m not in nat_mods and m not in skip]
    pre = set(lz["pre"])
    plain = set(lz["lazify"]["plain"]) if lz["lazify"] else set()
    excluded = set(lz["lazify"]["excluded"]) if lz["lazify"] else set()
    events = lz["events"]
    diffset = set(diff)
    own = {}

    def own_registration(m):
        """(package, lazy check entry) of the package above M that registers M as its own submodule."""
        parts = m.split(".")
        for n in range(len(parts) - 1, 0, -1):
            pkg = ".".join(parts[:n])
            pinfo = lz_mods.get(pkg)
            if not pinfo or not pinfo[0] or not pinfo[0].endswith("__init__.py") or pinfo[1] != "LazifyLoader":
                continue
            chk = checks_by_file.get(pinfo[0])
            for i in chk["imports"] if chk else ():
                if i["verdict"] == "lazy" and any(t.startswith(pkg + ".") for t in targets(i, pkg, True)) \
                        and covers(i, pkg, True, m):
                    return pkg, i
        return None

    def info(m):
        """cause, where, statement, rule detail, use site, callers of M's own import."""
        ev = events.get(m)
        if m == "lazify" or m.startswith("lazify."):
            # lazify's own modules, wherever they are first imported (the runtime:
            # by the header of the first rewritten module)
            return {"cause": "lazify-own", "importer": None, "parent": None,
                    "where": f"{m} (lazify's own)"}
        if ev is None:
            # put in sys.modules by another module (importlib._bootstrap by
            # importlib): part of its package's subtree
            pkg = m.rpartition(".")[0]
            return {"cause": "no-event", "importer": pkg, "parent": pkg if pkg in lz_mods else None}
        frames = ev[1]
        # the module being executed when M was imported (-X importtime's parent)
        parent = next((fr[3] for fr in frames if fr[2] == "<module>" and not is_machinery(fr)), None)
        kind, k, via_runtime, fromlist = site_of(frames)
        if kind == "loader":
            loader = lz_mods.get(k, [None, None])[1]
            return {"cause": "loader", "importer": k, "parent": k, "where": f"{k} ({loader})"}
        if kind == "unknown":
            return {"cause": "unknown", "importer": None, "parent": parent}
        note = None
        if via_runtime and frames[k][2] == "__getattr__":
            # a package's own __getattr__ answering lazify's names (the
            # prologue lazify puts first): the site is the reader of the
            # attribute, e.g. an eager `from pkg import name`
            up = next((j for j in range(k + 1, len(frames)) if not is_machinery(frames[j])), None)
            if up is not None:
                note = f"through {frames[k][3]}.__getattr__"
                k = up
        fr = frames[k]
        filename, line, func, importer, optimized, _ = fr
        where = f"{filename}:{line}"
        entry = {"importer": importer, "parent": parent, "where": where, "function": func,
                 "callers": callers(frames, k), "via_runtime": via_runtime, "fromlist": fromlist}
        if note:
            entry["note"] = note
        if importer and (importer == "lazify" or importer.startswith("lazify.")):
            entry["cause"] = "lazify-own"
            return entry
        if importer == "sitecustomize" and filename == str(bench.IMPL_DIRS["lazify"] / "sitecustomize.py"):
            entry["cause"] = "lazify-own"   # the activation: import lazify
            return entry
        if importer == "__main__":
            entry["cause"] = "not-rewritten:main"
            return entry
        if importer in pre:
            entry["cause"] = "not-rewritten:before-sitecustomize"
            return entry
        top = (importer or "").partition(".")[0]
        if top in plain and lz_mods.get(importer, [None, None])[1] != "LazifyLoader":
            entry["cause"] = "not-rewritten:plain-modules"
            return entry
        if importer in excluded:
            entry["cause"] = "not-rewritten:excluded"
            return entry
        loader = lz_mods.get(importer, [None, None])[1]
        if loader != "LazifyLoader":
            entry["cause"] = f"not-rewritten:loader:{loader}"
            return entry
        pfile = lz_mods[importer][0]
        check = checks_by_file.get(pfile)
        is_pkg = bool(pfile and pfile.endswith("__init__.py"))
        imports = check["imports"] if check else []
        if via_runtime:
            # an eager from-import at the site read a name the package
            # imported lazily: the eager statement is the cause
            eager_here = [] if optimized else [i for i in statements_at(imports, line) if i["verdict"] == "eager"]
            if eager_here:
                imp = eager_here[0]
                entry["statement"] = f"{pfile}:{imp['line']} {imp['statement']}"
                entry["cause"] = f"eager:{imp['reason']}"
                entry["note"] = "; ".join(filter(None, [
                    note, "the eager from-import read a name its package imports lazily"]))
                if imp["reason"] == "deferred-annotation":
                    entry["future_annotations"] = any(
                        i["module"] == "__future__" and i["name"] == "annotations" for i in imports)
                return entry
            # a package's deferred import of its own submodule that ran because a
            # later one of the package's own-submodule names was read (lazify
            # runs them in the package's order), not because its name was
            own = own_registration(m)
            if own and own[1]["name"] not in linecache.getline(filename, line):
                entry["statement"] = f"{lz_mods[own[0]][0]}:{own[1]['line']} {own[1]['statement']}"
                entry["cause"] = "package-order"
                return entry
            regs = [i for i in imports if i["verdict"] == "lazy" and covers(i, importer, is_pkg, m)]
            # `import a.b` then `import a.c`: reading `a` imported a registered
            # submodule under lazify, the package alone under native (the
            # submodules stay pending on it)
            dotted = [i for i in regs if i["statement"].startswith("import ") and "." in i["module"]
                      and (i["module"] == m or i["module"].startswith(m + "."))]
            reg = (dotted or regs or [None])[0]
            if reg:
                entry["statement"] = f"{pfile}:{reg['line']} {reg['statement']}"
                entry["used_at_import"] = reg["used_at_import"]
            if dotted:
                entry["cause"] = "dotted-import-siblings"
            elif optimized:
                entry["cause"] = "used-in-call"
            elif reg and reg["name"] in annotation_names(filename).get(line, ()):
                # an annotation evaluated where it is written (before 3.14,
                # without the __future__ import); PEP 649 defers it on 3.14+
                entry["cause"] = "used-at-import:annotation"
            else:
                entry["cause"] = "used-at-import"
            return entry
        if optimized:
            entry["cause"] = "function"
            return entry
        at = statements_at(imports, line)
        hit = [i for i in at if covers(i, importer, is_pkg, m)] or at
        if hit:
            imp = next((i for i in hit if i["verdict"] == "eager"), hit[0])
            entry["statement"] = f"{pfile}:{imp['line']} {imp['statement']}"
            if imp["verdict"] == "eager":
                entry["cause"] = f"eager:{imp['reason']}"
                if imp["reason"] == "deferred-annotation":
                    # string annotations (evaluated against the module dict)
                    # or PEP 649's (3.14+: evaluated by __annotate__)
                    entry["future_annotations"] = any(
                        i["module"] == "__future__" and i["name"] == "annotations" for i in imports)
            else:
                entry["cause"] = "lazy-but-imported"
            return entry
        entry["cause"] = "no-statement" if check else "no-check"
        return entry

    for m in sorted(diff, key=lambda n: events.get(n, [1 << 30])[0]):
        own[m] = info(m)

    def root(m, depth=0):
        parent = own[m].get("parent")
        if parent in diffset and parent != m and depth < 100:
            return root(parent, depth + 1)
        return m

    roots = defaultdict(list)
    for m in own:
        roots[root(m)].append(m)
    return diff, own, roots


def group(own, roots):
    """Rows of roots: (modules in the subtree, cause, key, entry), largest first."""
    by_key = defaultdict(lambda: {"modules": [], "roots": []})
    for r, members in roots.items():
        e = own[r]
        key = (e["cause"], e.get("statement") or e.get("where") or r)
        g = by_key[key]
        g["modules"].extend(members)
        g["roots"].append(r)
        g["entry"] = e
    rows = [(len(g["modules"]), k[0], k[1], g) for k, g in by_key.items()]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    return rows


# ---------------------------------------------------------------- reporting


def markdown(res, top=25):
    out = []
    meta = res["meta"]
    versus = f" (native: Python {meta['base_python']})" if meta.get("base_python") else ""
    out.append(f"Module differences, Python {meta['python']}{versus}, lazify at {meta['lazify_commit']}"
               f"{' (dirty)' if meta['lazify_dirty'] else ''}, {meta['date']}: modules in sys.modules at exit "
               f"of one traced run (warm caches). lazify−native: loaded by lazify, not by native "
               f"(sitecustomize `sys.set_lazy_imports(\"all\")`); native−lazify the converse.")
    out.append("")
    impls = meta["impls"]
    out.append("| tool | " + " | ".join(impls) + " | lazify−native | their share of lazify's import time "
               "| native−lazify | lazify−native from lazify's own causes |")
    out.append("|---|" + "---|" * (len(impls) + 4))
    for tool, t in res["tools"].items():
        cells = []
        for i in impls:
            c = t["counts"].get(i)
            ok = t["ok"].get(i, True)
            cells.append("—" if c is None else f"{c}" + ("" if ok else " (output differs!)"))
        own_n = sum(n for cause, n in t["by_cause"].items() if cause not in SHARED)
        out.append(f"| {tool} | " + " | ".join(cells) +
                   f" | {t['lazify_minus_native']} | {t['import_time_share']:.0%} | {t['native_minus_lazify']}"
                   f" | {own_n} |")
    out.append("")
    causes = sorted({c for t in res["tools"].values() for c in t["by_cause"]},
                    key=lambda c: -sum(t["by_cause"].get(c, 0) for t in res["tools"].values()))
    tools = list(res["tools"])
    out.append("Modules lazify loads beyond native, by cause (a module counts once, under the cause of "
               "the root of its subtree); * = a cause PEP 690/810 share, not lazify's own:")
    out.append("")
    out.append("| cause | total | " + " | ".join(tools) + " |")
    out.append("|---|---|" + "---|" * len(tools))
    for c in causes:
        counts = [res["tools"][t]["by_cause"].get(c, 0) for t in tools]
        out.append(f"| {c}{' *' if c in SHARED else ''} | {sum(counts)} | " +
                   " | ".join(str(n) if n else "" for n in counts) + " |")
    fut = sum(r["modules"] for t in res["tools"].values() for r in t["roots"]
              if r["cause"] == "eager:deferred-annotation" and r.get("future_annotations"))
    pep649 = sum(r["modules"] for t in res["tools"].values() for r in t["roots"]
                 if r["cause"] == "eager:deferred-annotation" and not r.get("future_annotations"))
    if fut or pep649:
        out.append("")
        out.append(f"eager:deferred-annotation: {fut} modules from statements in modules with "
                   f"`from __future__ import annotations` (string annotations), {pep649} from modules "
                   f"without it (PEP 649 annotations).")
    out.append("")
    # the same statement across tools counts once per tool
    stmts = defaultdict(lambda: {"modules": 0, "tools": [], "cause": None, "example": None})
    for tool, t in res["tools"].items():
        for row in t["roots"]:
            s = stmts[(row["cause"], row["key"])]
            s["modules"] += row["modules"]
            s["tools"].append(f"{tool} {row['modules']} ({row['import_time_share']:.0%})")
            s["cause"] = row["cause"]
            s["use"] = row.get("use")
            s["example"] = ", ".join(row["roots"][:3])
    rows = sorted(stmts.items(), key=lambda kv: -kv[1]["modules"])
    out.append(f"Top {top} statements or sites (modules summed over tools; per tool: modules "
               f"(their share of the tool's import time under lazify, -X importtime self times of one run)):")
    out.append("")
    out.append("| modules | cause | statement or site | roots (first 3) | tools |")
    out.append("|---|---|---|---|---|")
    for (cause, key), s in rows[:top]:
        key = short(key)
        if s.get("use"):
            key += f" (used at {short(s['use'])})"
        out.append(f"| {s['modules']} | {cause}{' *' if cause in SHARED else ''} | `{key}` | "
                   f"{s['example']} | {'; '.join(s['tools'])} |")
    return "\n".join(out)


def short(path):
    """A site-packages or stdlib path from its package on."""
    for marker in ("/site-packages/", "/lib/python3."):
        if marker in path:
            rest = path.split(marker, 1)[1]
            return rest.split("/", 1)[1] if marker == "/lib/python3." else rest
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default="python3.15")
    ap.add_argument("--workdir", type=Path, default=None, help="run.py's workdir for that Python")
    ap.add_argument("--tools", default=None)
    ap.add_argument("--base", default="native", help="the native run compared with (native or native_x)")
    ap.add_argument("--base-python", default=None,
                    help="take the native run from this Python's benchmark venv (3.15+), "
                         "lazify's from --python's")
    ap.add_argument("--base-workdir", type=Path, default=None, help="run.py's workdir for --base-python")
    ap.add_argument("--impls", default=None,
                    help=f"comma-separated subset of {','.join(IMPLS)} to trace with --python "
                         "(default: those available; with --base-python: plain,lazify)")
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON (default: benchmarks/results/module-differences-DATE-pyX.Y-COMMIT.json)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--report", type=Path, metavar="JSON", help="only print the markdown of an earlier run")
    args = ap.parse_args(argv)
    if args.report:
        print(markdown(json.loads(args.report.read_text()), args.top))
        return 0
    python = bench.shutil.which(args.python) or args.python
    version = bench.python_version(python)
    workdir = (args.workdir or bench.default_workdir(version)).resolve()
    venv = workdir / "venv"
    if not venv.exists():
        ap.error(f"no benchmark venv in {workdir}: run run.py --python {args.python} --check-only first")
    bench.install_lazify(venv)           # this working tree's lazify, as installed
    out_path = args.out or bench.default_results(version, "module-differences")
    wanted = args.impls.split(",") if args.impls else (
        ["plain", "lazify"] if args.base_python else IMPLS)
    impls = [i for i in wanted if i not in bench.unavailable_impls(venv, wanted)]
    base_venv = base_workdir = None
    if args.base_python:
        base_python = bench.shutil.which(args.base_python) or args.base_python
        base_workdir = (args.base_workdir or bench.default_workdir(bench.python_version(base_python))).resolve()
        base_venv = base_workdir / "venv"
        if not base_venv.exists():
            ap.error(f"no benchmark venv in {base_workdir}: run run.py --python {args.base_python} "
                     "--check-only first")
        if bench.unavailable_impls(base_venv, [args.base]):
            ap.error(f"{args.base} is not available with {args.base_python}")
        if "lazify" not in impls:
            ap.error(f"needs lazify in the venv of {args.python}; available: {impls}")
    elif "lazify" not in impls or args.base not in impls:
        ap.error(f"needs lazify and {args.base} in the venv; available: {impls}")
    tools = [t for t in (args.tools.split(",") if args.tools else bench.TOOLS)
             if (venv / "bin" / bench.TOOLS[t][0]).exists()
             and (base_venv is None or (base_venv / "bin" / bench.TOOLS[t][0]).exists())]
    missing = [t for t in bench.TOOLS if t not in tools and not args.tools]
    for w in filter(None, (workdir, base_workdir)):
        for d in (w / "cwd", w / "project"):
            d.mkdir(exist_ok=True)
        (w / "project" / "pyproject.toml").write_text(bench.PROJECT_PYPROJECT)
        (w / "home").mkdir(exist_ok=True)
    wrapper_dir = Path(tempfile.mkdtemp(prefix="lzbench-moddiff-"))
    (wrapper_dir / "sitecustomize.py").write_text(WRAPPER)
    pyver = bench.subprocess.run([str(bench.venv_python(venv)), "-c",
                                  "import platform; print(platform.python_version())"],
                                 capture_output=True, text=True, check=True).stdout.strip()

    # (venv, workdir, implementations, the run's key) per Python: with
    # --base-python, plain and the base there (their outputs compared with
    # that Python's plain), the rest with --python
    runs = [(venv, workdir, impls, {})]
    if base_venv is not None:
        runs.append((base_venv, base_workdir, ["plain", args.base], {"plain": "base_plain"}))
    traces = {}
    ok = {}
    for tool in tools:
        traces[tool], ok[tool] = {}, {}
        for run_venv, run_workdir, run_impls, keys in runs:
            cwd = run_workdir / ("project" if tool in bench.PROJECT_TOOLS else "cwd")
            plain_out = None
            for impl in run_impls:
                key = keys.get(impl, impl)
                rc, stdout, stderr, data = trace(run_venv, run_workdir, tool, impl, wrapper_dir, cwd)
                if impl == "plain":
                    plain_out = (rc, stdout)
                ok[tool][key] = (rc, stdout) == plain_out
                if data is None:
                    log(f"  {tool} {key}: no trace written (rc {rc}): {stderr.decode()[-300:]}")
                    continue
                traces[tool][key] = data
                log(f"  traced {tool:13s} {key:10s} rc={rc} modules={len(data['modules'])}"
                    f"{'' if ok[tool][key] else ' OUTPUT DIFFERS FROM PLAIN'}")
    # standard-library modules only one of the two Pythons has
    version_only = set()
    if base_venv is not None:
        names, stdlib_dirs = stdlib_names(bench.venv_python(venv))
        base_names, _ = stdlib_names(bench.venv_python(base_venv))
        version_only = {n for n in names - base_names}
        version_only.add("sitecustomize")

    # lazify check on the file of every module lazify ran that imported something
    files = set()
    for tool in tools:
        lz = traces[tool].get("lazify")
        if lz:
            files.update(f for f, loader in lz["modules"].values()
                         if f and f.endswith(".py") and loader == "LazifyLoader")
    log(f"lazify check on {len(files)} files ...")
    check = subprocess.run([str(venv / "bin" / "lazify"), "check", "--format", "json", *sorted(files)],
                           env=bench.clean_env(), capture_output=True, text=True)
    checks_by_file = {f["path"]: f for f in json.loads(check.stdout)["files"]}

    res = {"meta": {"date": bench.time.strftime("%Y-%m-%d %H:%M UTC", bench.time.gmtime()),
                    "python": pyver, "impls": impls + (["base_plain", args.base] if base_venv else []),
                    "base": args.base,
                    "base_python": bench.subprocess.run(
                        [str(bench.venv_python(base_venv)), "-c", "import platform; "
                         "print(platform.python_version())"], capture_output=True, text=True,
                        check=True).stdout.strip() if base_venv else None,
                    "lazify_commit": bench.subprocess.run(["git", "-C", str(bench.ROOT), "rev-parse", "--short",
                                                           "HEAD"], capture_output=True, text=True).stdout.strip(),
                    "lazify_dirty": bool(bench.subprocess.run(
                        ["git", "-C", str(bench.ROOT), "status", "--porcelain", "lazify"],
                        capture_output=True, text=True).stdout.strip()),
                    "tools_not_installed": missing, "shared_causes": sorted(SHARED)},
           "tools": {}}
    for tool in tools:
        tr = traces[tool]
        if "lazify" not in tr or args.base not in tr:
            continue
        skipped = sorted(m for m in tr["lazify"]["modules"]
                         if m not in tr[args.base]["modules"] and m in version_only)
        diff, own, roots = attribute(tool, tr, checks_by_file, args.base, set(skipped))
        rows = group(own, roots)
        by_cause = Counter()
        for n, cause, _key, _g in rows:
            by_cause[cause] += n
        # -X importtime's self times of the traced lazify run: what share of
        # its import time the extra modules take (one run: a proportion, not a timing)
        st = tr["lazify"].get("self_us", {})
        total_us = sum(st.values()) or 1
        res["tools"][tool] = {
            "counts": {i: len(tr[i]["modules"]) for i in tr},
            "stdlib_version_only": skipped,
            "ok": ok[tool],
            "native_lazy_pending": {i: tr[i]["lazy_modules"] for i in tr},
            "lazify_minus_native": len(diff),
            "native_minus_lazify": sorted(m for m in tr[args.base]["modules"] if m not in tr["lazify"]["modules"]),
            "by_cause": dict(by_cause.most_common()),
            "import_time_share": round(sum(st.get(m, 0) for m in diff) / total_us, 3),
            "roots": [{"modules": n, "cause": cause, "key": key, "roots": g["roots"],
                       "import_time_share": round(sum(st.get(m, 0) for m in g["modules"]) / total_us, 3),
                       "members": sorted(g["modules"]), "use": g["entry"].get("where")
                       if g["entry"].get("via_runtime") and not cause.startswith("eager:") else None,
                       "note": g["entry"].get("note"),
                       "future_annotations": g["entry"].get("future_annotations"),
                       "callers": g["entry"].get("callers"), "used_at_import": g["entry"].get("used_at_import")}
                      for n, cause, key, g in rows],
            "modules": own,
        }
        res["tools"][tool]["native_minus_lazify"] = len(res["tools"][tool]["native_minus_lazify"])
        res["tools"][tool]["native_minus_lazify_names"] = sorted(
            m for m in tr[args.base]["modules"] if m not in tr["lazify"]["modules"])
    out_path.write_text(json.dumps(res, indent=1) + "\n")
    log(f"wrote {out_path}")
    print(markdown(res, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
