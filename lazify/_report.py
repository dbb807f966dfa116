"""``lazify report``: run a command plainly and with lazify, and say what lazy imports
changed in its start-up.

Every figure comes from the runs themselves:

- times: the wall-clock time of each run (timed rounds, nothing else switched on), and
  ``-X importtime`` (``PYTHONPROFILEIMPORTTIME``) for the tree of imports (trace rounds);
- memory: the peak resident set size of the Python process, from the kernel
  (``VmHWM`` in ``/proc/self/status``, read at exit; ``wait4``'s ``ru_maxrss`` where
  there is no ``/proc``);
- what was deferred and what first used it: the runtime's record
  (:mod:`lazify._import_record`), switched on in the lazy trace runs only;
- why an import stayed eager: the planner, as ``lazify check`` reports it, for the
  source of the module that ran it.

Both runs get the same environment and the same ``sitecustomize``
(:mod:`lazify._report_site`), which installs lazify in the lazy run only.  Rounds are
interleaved (plain, lazy, plain, lazy, ...) after one warm-up run of each, which fills
the bytecode caches (the lazy one rewrites its cache misses at once); the headline
figures are medians with the lowest and highest round.  The page is written by :mod:`lazify._report_html`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

#: the version of the JSON layout
FORMAT_VERSION = 1

#: categories of the modules imported in a run, beside check's reason codes
STARTUP = "startup"        # imported before lazify was installed (interpreter, site)
LAZIFY = "lazify"          # lazify's own modules
RESOLVED = "resolved"      # imported by a deferred import, at its first use
EAGER = "eager"            # imported by a statement that ran eagerly
ABSENT = "not-imported"    # (plain run) the lazy run never imported it


class UsageError(Exception):
    """A mistake on the command line: one line, exit status 2."""


# ----------------------------------------------------------------- -X importtime


def parse_importtime(text: str) -> tuple[list[dict], list[str]]:
    """Split a run's stderr into the ``-X importtime`` tree and the program's own lines.

    The interpreter writes one line per import when that import finishes (children
    before their parent), indented two spaces per level: ``import time: SELF | CUMULATIVE
    | NAME``.  Returns ``(roots, other_lines)``; a node is ``{"name", "self_us",
    "cum_us", "children"}``, in the order the imports ran.  Imports left unfinished by
    a process that died mid-import become roots.
    """
    pending: dict[int, list[dict]] = {}
    other = []
    for line in text.splitlines():
        if not line.startswith("import time:"):
            other.append(line)
            continue
        fields = line[len("import time:"):].split("|", 2)
        if len(fields) != 3:
            continue
        try:
            self_us, cum_us = int(fields[0]), int(fields[1])
        except ValueError:
            continue           # the header line
        name_field = fields[2][1:] if fields[2].startswith(" ") else fields[2]
        name = name_field.strip()
        level = (len(name_field) - len(name_field.lstrip(" "))) // 2
        node = {"name": name, "self_us": self_us, "cum_us": cum_us,
                "children": pending.pop(level + 1, [])}
        pending.setdefault(level, []).append(node)
    roots = []
    for level in sorted(pending):
        roots.extend(pending[level])
    return roots, other


def tree_nodes(nodes, parent=None):
    """Yield ``(node, parent)`` for every node, parents first, in import order."""
    for node in nodes:
        yield node, parent
        yield from tree_nodes(node["children"], node)


# ------------------------------------------------------------------------ runs


class Run:
    """One finished run of the command."""

    __slots__ = ("mode", "trace", "wall_s", "maxrss_kib", "returncode", "stdout", "stderr",
                 "timed_out", "state")

    def __init__(self, mode, trace, wall_s, maxrss_kib, returncode, stdout, stderr,
                 timed_out, state):
        self.mode, self.trace = mode, trace
        self.wall_s, self.maxrss_kib = wall_s, maxrss_kib
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.timed_out = timed_out
        self.state = state   # what the process wrote at exit (_read_state), or None


def _site_dir() -> str:
    """A temporary directory holding the report's ``sitecustomize.py``."""
    directory = tempfile.mkdtemp(prefix="lazify-report-")
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_report_site.py"),
                    os.path.join(directory, "sitecustomize.py"))
    return directory


def _environment(base: dict, site: str, mode: str, trace: bool, out: str | None,
                 mechanism: str | None, plain_off: bool = False,
                 warm_up: bool = False) -> dict:
    env = dict(base)
    # LAZIFY_SUMMARY would have the lazy run print the record's summary at exit: a
    # difference in output that is lazify's, not the program's
    env.pop("LAZIFY_SUMMARY", None)
    changed = {"PYTHONPATH": os.pathsep.join([site] + ([base["PYTHONPATH"]]
                                                        if base.get("PYTHONPATH") else []))}
    if trace:
        changed["PYTHONPROFILEIMPORTTIME"] = "1"
    if mode == "plain":
        # LAZIFY=1 would start lazify from the distribution's .pth before any
        # sitecustomize runs; in an environment ``lazify enable`` turned on, only
        # LAZIFY=0 keeps it off (plain_off: a plain run found lazify active)
        changed["LAZIFY"] = "0" if plain_off else None
    for name, value in changed.items():
        env[f"LAZIFY_REPORT_WAS_{name}"] = "=" + base[name] if name in base else "-"
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    env["LAZIFY_REPORT_MODE"] = mode
    env["LAZIFY_REPORT_HOME"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if mechanism:
        env["LAZIFY_REPORT_MECHANISM"] = mechanism
    if warm_up and mode == "lazy":
        # the warm-up fills lazify's cache before the measured runs, where it can be
        # written: its misses rewritten at once, not by a rewriter still running when
        # the next run starts (LAZIFY_DEFER_REWRITE, when set, is the user's choice)
        env["LAZIFY_REPORT_WARM_UP"] = "1"
    if out:
        env["LAZIFY_REPORT_OUT"] = out
        if not trace:
            env["LAZIFY_REPORT_LIGHT"] = "1"
        elif mode == "lazy":
            env["LAZIFY_REPORT_RECORD"] = "1"
    return env


def run_once(argv, env, stdin: bytes | None, cwd, timeout: float | None,
             mode: str, trace: bool, out: str | None) -> Run:
    """Run *argv* once; its wall time, its peak RSS (``VmHWM`` the process read from
    ``/proc`` at exit; else the kernel's ``ru_maxrss`` from ``wait4``), its output."""
    if out and os.path.exists(out):
        os.unlink(out)
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, env=env, cwd=cwd,
                                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        raise UsageError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from exc
    chunks: dict[str, bytes] = {}

    def read(name, stream):
        chunks[name] = stream.read()
        stream.close()

    threads = [threading.Thread(target=read, args=(name, stream), daemon=True)
               for name, stream in (("out", proc.stdout), ("err", proc.stderr))]
    if stdin:
        def write():
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except OSError:   # the command did not read it all (a closed pipe)
                pass
        threads.append(threading.Thread(target=write, daemon=True))
    for t in threads:
        t.start()
    timed_out = []

    def kill():
        timed_out.append(True)
        try:
            proc.kill()
        except OSError:
            pass

    timer = threading.Timer(timeout, kill) if timeout else None
    if timer is not None:
        timer.start()
    usage = None
    try:
        if hasattr(os, "wait4"):
            _pid, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        else:   # Windows
            proc.wait()
    finally:
        if timer is not None:
            timer.cancel()
    wall = time.perf_counter() - started
    for t in threads:
        # after a kill, a process the command started may still hold the pipes
        t.join(5 if timed_out else None)
    state = _read_state(out) if out else None
    maxrss = (state or {}).get("peak_rss_kib")
    if maxrss is None and usage is not None:
        # no /proc: the kernel's figure, which counts what the child shared with this
        # process before it ran the command (ru_maxrss: KiB on Linux, bytes on macOS)
        maxrss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return Run(mode, trace, wall, maxrss, proc.returncode,
               chunks.get("out", b"").decode("utf-8", "replace"),
               chunks.get("err", b"").decode("utf-8", "replace"), bool(timed_out), state)


def _read_state(path: str) -> dict | None:
    """What :mod:`lazify._report_site` wrote at exit; None when it wrote nothing
    (the process ended with ``os._exit`` or a signal)."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    state = {"modules": {}, "deferred": []}
    for line in lines:
        key, _, text = line.partition("\t")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            continue
        if key == "module":
            state["modules"][value[0]] = value[1]
        elif key == "deferred":
            state["deferred"].append(value)
        else:
            state[key] = value
    return state


def collect(argv, *, rounds: int, stdin: bytes | None, cwd=None, timeout=None,
            mechanism=None, progress=None) -> dict:
    """Run the command: one warm-up run per mode, then *rounds* interleaved timed
    rounds and *rounds* interleaved trace rounds (``-X importtime``, the record); with
    *rounds* 0 no timed round and one trace round."""
    site = _site_dir()
    base = dict(os.environ)
    try:
        out = os.path.join(site, "state.txt")
        runs: dict[str, list[Run]] = {"plain": [], "lazy": []}
        traces: dict[str, list[Run]] = {"plain": [], "lazy": []}
        steps = [("warm-up", mode, False) for mode in ("plain", "lazy")]
        for i in range(rounds):
            order = ("plain", "lazy") if i % 2 == 0 else ("lazy", "plain")
            steps += [("timed", mode, False) for mode in order]
        for i in range(max(rounds, 1)):
            order = ("plain", "lazy") if i % 2 == 0 else ("lazy", "plain")
            steps += [("trace", mode, True) for mode in order]
        plain_off = False
        for n, (kind, mode, trace) in enumerate(steps, 1):
            if progress is not None:
                progress(n, len(steps), kind, mode)
            env = _environment(base, site, mode, trace, out, mechanism, plain_off,
                               warm_up=kind == "warm-up")
            run = run_once(argv, env, stdin, cwd, timeout, mode, trace, out)
            if kind == "warm-up" and mode == "plain" and (run.state or {}).get("lazify_active"):
                # an enabled environment: LAZIFY=0 from now on, and this run again
                plain_off = True
                env = _environment(base, site, mode, trace, out, mechanism, plain_off)
                run = run_once(argv, env, stdin, cwd, timeout, mode, trace, out)
            if kind == "timed":
                runs[mode].append(run)
            elif kind == "trace":
                traces[mode].append(run)
            elif run.timed_out or (mode == "lazy" and run.state is not None
                                   and run.state.get("error")):
                # killed after the timeout, or lazify could not be activated: every
                # other run would say the same
                runs[mode].append(run)
                traces[mode].append(run)
                break
    finally:
        shutil.rmtree(site, ignore_errors=True)
    return {"timed": runs, "trace": traces, "plain_off": plain_off}


# ------------------------------------------------------------------- analysis


def _median(values):
    values = sorted(values)
    if not values:
        return None
    middle = len(values) // 2
    if len(values) % 2:
        return values[middle]
    return (values[middle - 1] + values[middle]) / 2


def _figure(values, digits=1):
    """``{"median", "min", "max", "rounds"}`` of a list of numbers."""
    if not values:
        return {"median": None, "min": None, "max": None, "rounds": 0}
    return {"median": round(_median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits), "rounds": len(values)}


def _median_trace(traces: list[Run]) -> Run | None:
    """The trace run whose total import time is the median one (a real run's tree,
    not a blend of several)."""
    usable = [(sum(n["cum_us"] for n in parse_importtime(r.stderr)[0]), i, r)
              for i, r in enumerate(traces)]
    if not usable:
        return None
    usable.sort(key=lambda item: (item[0], item[1]))
    return usable[(len(usable) - 1) // 2][2]


def _strip(stderr: str) -> str:
    return "\n".join(parse_importtime(stderr)[1])


def compare_outputs(plain: list[Run], lazy: list[Run]) -> dict:
    """Whether the lazy runs printed what the plain ones did (exit status, stdout,
    stderr).  A program whose plain runs differ among themselves (a time, a random
    name) is compared on its exit status alone, and the report says so."""
    def key(run):
        return (run.returncode, run.stdout, _strip(run.stderr))

    result = {"same": True, "compared": "output", "differences": []}
    if not plain or not lazy:
        return result
    first = key(plain[0])
    if any(key(r) != first for r in plain[1:]):
        result["compared"] = "exit status"
        for run in lazy:
            if run.returncode != plain[0].returncode:
                result["same"] = False
                result["differences"].append({"what": "exit status",
                                              "plain": plain[0].returncode,
                                              "lazy": run.returncode})
                break
        return result
    for run in lazy:
        got = key(run)
        if got == first:
            continue
        result["same"] = False
        for what, a, b in zip(("exit status", "stdout", "stderr"), first, got):
            if a != b:
                result["differences"].append({"what": what, "plain": a, "lazy": b})
        break
    return result


def _classify(plain_roots, lazy_roots, lazy_state, excluding, mechanism):
    """Give every node of both trees its ``status`` (and, for eager imports, the
    ``reason`` and the statement; for resolved ones the first use); return the
    eager-imports table and the deferred-imports list."""
    files = dict((lazy_state or {}).get("modules", {}))
    deferred = [_deferred_entry(e, files) for e in (lazy_state or {}).get("deferred", ())]
    deferred = [e for e in deferred if e is not None]
    first_use: dict[str, dict] = {}
    for entry in deferred:
        if entry["resolved"]:
            importer = entry["module"] if isinstance(entry["module"], str) else ""
            for target in entry["targets"]:
                # a module's own packages were imported before it: not by its imports
                if importer != target and not importer.startswith(target + "."):
                    first_use.setdefault(target, entry)

    _mark_startup(lazy_roots)
    # python -m pkg[.mod]: runpy imports the packages first, before the program runs; a
    # package of __main__'s is in sys.modules from then on, so it is a root nowhere else
    # (whatever roots come before it: runpy's own deferred imports when the hook
    # rewrote runpy, resolved meanwhile)
    by_runpy = {root["name"] for root in lazy_roots
                if "status" not in root and _main_package(root["name"], files)}
    plans = _Plans(files, excluding, mechanism, lazy_state)
    plans.prepare({"__main__"} | {parent["name"] for node, parent in tree_nodes(lazy_roots)
                                  if parent is not None and "status" not in node})
    eager_rows = []
    for node, parent in tree_nodes(lazy_roots):
        if "status" in node:
            continue
        importer = parent["name"] if parent is not None else "__main__"
        if parent is None and node["name"] in by_runpy:
            node["status"] = EAGER
            node["reason"] = "top-level"
            eager_rows.append({"module": node["name"], "importer": "runpy",
                               "cost_us": node["cum_us"], "self_us": node["self_us"],
                               "reason": "top-level", "site": None})
            continue
        site = plans.site_for(importer, node["name"]) if parent is None or \
            parent.get("status") not in (STARTUP, LAZIFY) else None
        use = first_use.get(node["name"])
        if site is not None and site["verdict"] == "eager":
            node["status"] = EAGER
            node["reason"] = site["reason"]
            node["site"] = site
        elif use is not None:
            node["status"] = RESOLVED
            node["first_use"] = use["first_use"]
            node["site"] = {"file": use["file"], "line": use["line"],
                            "statement": use["statement"], "module": use["module"]}
            if site is not None and site.get("used_at_import") is not None:
                node["reason"] = "used-at-import"
        else:
            node["status"] = EAGER
            if site is not None:
                # a lazy statement whose import ran at once: used while its module
                # was imported, or resolved by a namespace read
                node["site"] = site
                node["reason"] = "used-at-import" if site.get("used_at_import") \
                    else "resolved-at-import"
            else:
                node["reason"] = plans.why_unknown(importer, parent)
        if node["status"] == EAGER or node.get("reason") == "used-at-import":
            eager_rows.append({
                "module": node["name"], "importer": importer, "cost_us": node["cum_us"],
                "self_us": node["self_us"], "reason": node.get("reason") or "unknown",
                "site": node.get("site"),
            })
    # plain run: each module as the lazy run imported it, or not at all
    lazy_status = {node["name"]: node["status"] for node, _parent in tree_nodes(lazy_roots)}
    _mark_startup(plain_roots)
    for node, _parent in tree_nodes(plain_roots):
        if "status" not in node:
            node["status"] = lazy_status.get(node["name"], ABSENT)
    return _group_eager(eager_rows), deferred


def _main_package(name, files) -> bool:
    """Whether *name* is the package ``python -m`` imported before running its
    ``__main__`` (``pkg`` for ``-m pkg`` or ``-m pkg.mod``): runpy's import, not one of
    the program's statements."""
    main, package = files.get("__main__"), files.get(name)
    if not (isinstance(main, str) and isinstance(package, str)):
        return False
    if os.path.basename(package) != "__init__.py":
        return False
    return os.path.dirname(main).startswith(os.path.dirname(package))


def _mark_startup(roots):
    """Mark what was imported before lazify's hook could be in place: the subtree of
    ``site`` (which imports the report's ``sitecustomize``, which installs lazify in the
    lazy run) and everything before it; and lazify's own modules."""
    # without ``site`` (python -S) nothing ran before the program
    after_site = not any(root["name"] == "site" for root in roots)
    for root in roots:
        startup = not after_site
        if root["name"] == "site":
            after_site = True
        for node, _parent in tree_nodes([root]):
            if node["name"] == "lazify" or node["name"].startswith("lazify."):
                node["status"] = LAZIFY
            elif startup:
                node["status"] = STARTUP


def _deferred_entry(raw, files) -> dict | None:
    """One entry of the runtime's record (:func:`lazify._import_record.snapshot`), with
    ``targets``: the modules its import brings in, which name the nodes of the tree."""
    if not isinstance(raw, dict) or not isinstance(raw.get("statement"), str):
        return None
    entry = {k: raw.get(k) for k in ("module", "file", "line", "statement", "name",
                                       "first_use")}
    entry["resolved"] = bool(raw.get("resolved"))
    entry["targets"] = _targets(raw["statement"], raw.get("module"), raw.get("file"), files)
    return entry


def _targets(statement: str, module, file, files) -> list[str]:
    """The absolute modules an import statement names: ``import a.b`` names ``a`` and
    ``a.b``; ``from .m import n`` names the package's ``m`` and ``m.n`` (a submodule,
    if ``n`` is one).  Not the packages above them: those are imported for many other
    reasons."""
    words = statement.replace(",", " ").split()
    if not words:
        return []
    if words[0] == "import":
        # resolving ``import a.b`` binds (and imports) ``a``; eagerly it imports ``a.b``
        name = words[1]
        top = name.partition(".")[0]
        return [name] if top == name else [top, name]
    if words[0] != "from" or "import" not in words:
        return []
    source = words[1]
    level = len(source) - len(source.lstrip("."))
    base = source[level:]
    if level:
        package = _package_of(module, file, files)
        if package is None:
            return []
        from ._names import absolute_name

        try:
            base = absolute_name(base, level, package)
        except ImportError:              # Python raises at the statement: nothing named
            return []
    names = []
    rest = words[words.index("import") + 1:]
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word == "as":
            skip = True
        elif word not in ("(", ")"):
            names.append(word.strip("()"))
    return [base] + [f"{base}.{n}" for n in names if n and n != "*"]


def _package_of(module, file, files):
    """The package relative imports of *module* are resolved against."""
    if not isinstance(module, str) or not isinstance(file, str):
        return None
    if os.path.basename(file) == "__init__.py":
        return module
    if module != "__main__":
        return module.rpartition(".")[0] or None
    # python -m pkg: __main__ is pkg/__main__.py, in the package whose __init__ is beside it
    here = os.path.dirname(file)
    for name, path in files.items():
        if isinstance(path, str) and os.path.basename(path) == "__init__.py" \
                and os.path.dirname(path) == here and name != "__main__":
            return name
    return None


#: what an eager import not explained by a statement of the planner's is put under
WHY_UNKNOWN = {
    "top-level": "imported outside any module's own import and not by a deferred import: by "
                 "the interpreter starting the program (python -m imports the package first), "
                 "or by a function called after start-up (an import inside a function)",
    "no-source": "imported by a module with no Python source lazify rewrote (an extension "
                 "module, a frozen or built-in one, or one the hook leaves alone)",
    "no-statement": "its importer has no top-level statement importing it: a function called "
                    "while the importer ran (importlib.import_module, an import inside a "
                    "function), or an import the importer's own import caused",
}

#: the words for each group of the eager-imports table (check's reasons come from _reasons)
EXTRA_REASONS = {
    "used-at-import": "lazy, but the module read the name while it was being imported "
                      "(check: used at import): deferring it gained nothing",
    "resolved-at-import": "lazy, and resolved while its module was imported (a read of the "
                          "module's namespace, or by the module that imported it)",
    **WHY_UNKNOWN,
    "unknown": "no statement found for it",
}


class _Plans:
    """The planner's verdicts for the modules of a run, as ``lazify check`` gives them.

    Planned by the command's own interpreter when it is another Python version than
    this one (its standard library may use syntax this one cannot parse: 3.15's ``lazy
    import``), in one child process for all the modules; here otherwise.
    """

    def __init__(self, files, excluding, mechanism, state):
        self.files = files
        self.excluding = sorted(excluding or ())
        self.mechanism = mechanism or "rewrite"
        self.state = state or {}
        self.rows: dict[str, list | None] = {}

    def prepare(self, modules):
        wanted = {m: self.files[m] for m in modules
                  if m not in self.rows and isinstance(self.files.get(m), str)
                  and self.files[m].endswith(".py")}
        version = self.state.get("python") or ""
        executable = self.state.get("executable")
        ours = "%d.%d." % sys.version_info[:2]
        if wanted and executable and not (version + ".").startswith(ours):
            self.rows.update(_plan_elsewhere(executable, wanted, self.excluding, self.mechanism))
        else:
            self.rows.update(plan_rows(wanted, self.excluding, self.mechanism))

    def site_for(self, importer, target):
        """The statement of *importer* that imports *target*: its first eager one if it
        has any (that is the one that ran), else its first lazy one."""
        rows = self.rows.get(importer)
        if not rows:
            return None
        found = [row for row in rows
                 if target == row["module"] or row["module"].startswith(target + ".")
                 or (row["kind"] == "from" and target == f"{row['module']}.{row['imported']}")]
        if not found:
            return None
        found.sort(key=lambda row: row["lazy"])
        row = found[0]
        return {"file": self.files.get(importer), "line": row["line"],
                "statement": row["statement"], "module": importer,
                "verdict": "lazy" if row["lazy"] else "eager", "reason": row["reason"],
                "used_at_import": row["used_at_import"]}

    def why_unknown(self, importer, parent):
        if parent is None:
            return "top-level"
        if self.rows.get(importer) is not None:
            return "no-statement"
        return "no-source"


def plan_rows(files: dict, excluding, mechanism) -> dict:
    """``{module: [row, ...] or None}``: every name each file's import statements bind,
    with check's verdict (None for a file that could not be planned)."""
    from lazify import _check

    out = {}
    for module, path in files.items():
        rows = None
        if os.path.isfile(path):
            result = _check.check_file(path, excluding, False, mechanism)
            if result["error"] is None:
                rows = [{"kind": site.kind, "line": site.span[0], "statement": site.statement,
                         "module": n.module, "imported": n.imported, "lazy": n.lazy,
                         "reason": None if n.reason is None else n.reason.value,
                         "used_at_import": n.used_at_import}
                        for site, n in _check.rows(result)]
        out[module] = rows
    return out


def _plan_elsewhere(executable, files, excluding, mechanism) -> dict:
    """:func:`plan_rows` run by *executable* (with this lazify)."""
    import json

    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([home] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    code = ("import json, sys; from lazify._report import plan_rows; "
            "a = json.load(sys.stdin); json.dump(plan_rows(a[0], a[1], a[2]), sys.stdout)")
    try:
        proc = subprocess.run([executable, "-c", code], input=json.dumps([files, excluding, mechanism]),
                              capture_output=True, text=True, env=env, timeout=600)
        return json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return {module: None for module in files}


def _group_eager(rows):
    from lazify._reasons import WORDS

    words = {str(k): v for k, v in WORDS.items()}
    words.update(EXTRA_REASONS)
    groups: dict[str, dict] = {}
    for row in rows:
        group = groups.setdefault(row["reason"], {
            "reason": row["reason"], "words": words.get(row["reason"], row["reason"]),
            "cost_us": 0, "imports": []})
        group["cost_us"] += row["cost_us"]
        group["imports"].append(row)
    for group in groups.values():
        group["imports"].sort(key=lambda r: (-r["cost_us"], r["module"]))
    return sorted(groups.values(), key=lambda g: (-g["cost_us"], g["reason"]))


def _count(roots, state) -> int:
    """Modules a run imported: the names in its tree (failed imports such as ``nt`` on
    POSIX are listed by ``-X importtime`` too) that were in ``sys.modules`` at exit, when
    the process said (else every name)."""
    modules = (state or {}).get("modules")
    seen = set()
    for node, _parent in tree_nodes(roots):
        if modules and node["name"] not in modules:
            node["failed"] = True
            continue
        seen.add(node["name"])
    return len(seen)


def _status_counts(roots):
    counts: dict[str, int] = {}
    for node, _parent in tree_nodes(roots):
        counts[node["status"]] = counts.get(node["status"], 0) + 1
    return counts


def analyse(argv, collected: dict, *, rounds: int, excluding=None) -> dict:
    """The report as plain data (the JSON of ``--format json``)."""
    timed, traces = collected["timed"], collected["trace"]
    trace = {mode: _median_trace(traces[mode]) for mode in ("plain", "lazy")}
    roots = {mode: parse_importtime(trace[mode].stderr)[0] if trace[mode] else []
             for mode in ("plain", "lazy")}
    lazy_state = trace["lazy"].state if trace["lazy"] else None
    if lazy_state is None and timed["lazy"]:
        lazy_state = timed["lazy"][0].state
    mechanism = (lazy_state or {}).get("mechanism")
    eager, deferred = _classify(roots["plain"], roots["lazy"], lazy_state, excluding, mechanism)
    # exit status and output: of the timed runs, of the traced ones when none was timed
    # (--rounds 0); a trace run's stderr is the program's once -X importtime's lines are out
    shown = timed if timed["plain"] or timed["lazy"] else traces
    comparison = compare_outputs(shown["plain"], shown["lazy"])
    problems = []
    for mode in ("plain", "lazy"):
        failed = [r for r in timed[mode] + traces[mode] if r.returncode != 0]
        if failed:
            r = failed[0]
            if r.timed_out:
                problems.append(f"the {mode} run was killed after the timeout")
            elif r.returncode < 0:
                problems.append(f"the {mode} run was killed by signal {-r.returncode}")
            else:
                problems.append(f"the {mode} run exited with status {r.returncode}")
    if any((r.state or {}).get("lazify_active") for r in timed["plain"] + traces["plain"]):
        problems.append("lazify was active in the plain run, even with LAZIFY=0 (a "
                        "sitecustomize or .pth of the environment's calls lazify.install()?)")
    error = (lazy_state or {}).get("error")
    for mode in ("plain",) if error else ("plain", "lazy"):
        if traces[mode] and not roots[mode]:
            problems.append(f"the {mode} run printed no -X importtime lines: is the command "
                            "a Python program, run by a Python that honours "
                            "PYTHONPROFILEIMPORTTIME?")
    if error:
        problems.append(f"lazify was not active in the lazy run: {error}")
    if not comparison["same"]:
        what = ", ".join(d["what"] for d in comparison["differences"])
        problems.append(f"the lazy run printed differently from the plain run ({what})")
    resolved = [e for e in deferred if e["resolved"]]

    def runs_of(mode):
        return [{"wall_ms": round(r.wall_s * 1000, 2), "peak_rss_kib": r.maxrss_kib,
                 "exit": r.returncode} for r in timed[mode]]

    wall = {m: _figure([r.wall_s * 1000 for r in timed[m]]) for m in ("plain", "lazy")}
    rss = {m: _figure([r.maxrss_kib / 1024 for r in timed[m] if r.maxrss_kib is not None])
           for m in ("plain", "lazy")}
    imports = {m: _figure([sum(n["cum_us"] for n in parse_importtime(r.stderr)[0]) / 1000
                           for r in traces[m]]) for m in ("plain", "lazy")}
    # the median of the rounds' own ratios (each round runs both, one after the other):
    # steadier than a ratio of medians on a machine whose load drifts
    ratios = _figure([p.wall_s / z.wall_s for p, z in zip(timed["plain"], timed["lazy"])
                      if z.wall_s > 0], digits=3)
    ratio = ratios["median"]
    summary = {
        "ok": not problems,
        "exit_plain": shown["plain"][0].returncode if shown["plain"] else None,
        "exit_lazy": shown["lazy"][0].returncode if shown["lazy"] else None,
        "same_output": comparison["same"],
        "rounds": rounds,
        "time_plain_ms": wall["plain"]["median"],
        "time_lazy_ms": wall["lazy"]["median"],
        "speedup": ratio,
        "import_time_plain_ms": imports["plain"]["median"],
        "import_time_lazy_ms": imports["lazy"]["median"],
        "modules_plain": _count(roots["plain"], trace["plain"].state if trace["plain"] else None),
        "modules_lazy": _count(roots["lazy"], lazy_state),
        "peak_rss_plain_mib": rss["plain"]["median"],
        "peak_rss_lazy_mib": rss["lazy"]["median"],
        "deferred": len(deferred),
        "resolved": len(resolved),
        "never_needed": len(deferred) - len(resolved),
        "eager_imports": sum(len(g["imports"]) for g in eager),
        "eager_cost_ms": round(sum(g["cost_us"] for g in eager) / 1000, 1),
    }
    python = (lazy_state or {}).get("python") or \
        ((trace["plain"].state or {}).get("python") if trace["plain"] else None)
    return {
        "lazify_report": FORMAT_VERSION,
        "command": list(argv),
        "cwd": os.getcwd(),
        "python": python,
        "mechanism": mechanism,
        "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "summary": summary,
        "spread": {"time_ms": wall, "speedup": ratios, "import_time_ms": imports,
                   "peak_rss_mib": rss},
        "problems": problems,
        "output": comparison,
        "runs": {m: {"rounds": runs_of(m), "tree": roots[m], "statuses": _status_counts(roots[m]),
                     "stdout_tail": shown[m][0].stdout[-2000:] if shown[m] else "",
                     "stderr_tail": _strip(shown[m][0].stderr)[-2000:] if shown[m] else ""}
                 for m in ("plain", "lazy")},
        "eager": eager,
        "deferred": deferred,
        "notes": _notes(roots["lazy"], collected.get("plain_off"),
                        (lazy_state or {}).get("served_plain") or 0),
    }


def _notes(lazy_roots, plain_off=False, served_plain=0):
    """What makes the figures other than a user's runs would be: said on the page and,
    after the summary line, on the terminal."""
    notes = []
    if plain_off:
        notes.append("lazify is enabled in this environment (lazify enable): the plain runs "
                     "set LAZIFY=0, so they still import lazify's start-up check")
    if served_plain:
        many = served_plain != 1
        notes.append(f"{served_plain} module{'s' if many else ''} of the lazy run "
                     f"{'were' if many else 'was'} missing from lazify's bytecode cache (not "
                     "writable here: PYTHONDONTWRITEBYTECODE, a read-only site-packages; or "
                     "not written yet), imported eagerly from the plain pyc, as without "
                     "lazify: the lazy run defers less than lazify does once its cache is "
                     "written. `lazify compile --env` writes it ahead of time")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        notes.append("PYTHONDONTWRITEBYTECODE is set: neither Python nor lazify write "
                     "bytecode, so a module without a pyc (or without lazify's cache) is "
                     "compiled at every run")
    if any(node["name"] == "lazify._rewrite" for node, _parent in tree_nodes(lazy_roots)):
        notes.append("lazify rewrote modules in the lazy run after the warm-up run (it "
                     "imported its rewriter, lazify._rewrite): its bytecode cache was not "
                     "used, so the lazy times include rewriting. `lazify compile` writes the "
                     "cache ahead of time (a read-only site-packages)")
    return notes


def configured_excluding():
    """``[tool.lazify] excluding`` of the project here, or None (also when unreadable)."""
    from lazify._config import load_config

    try:
        config = load_config()
    except Exception:
        return None
    return config.excluding or None
