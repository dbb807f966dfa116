"""The ``lazify`` command line: ``check``, ``rewrite``, ``diff``, ``fix``, ``run``, ``compile``, ``report``.

``check`` never executes the code it reports on: it reads, parses and plans each file.
``lazify run`` imports this module before the program it runs, so everything that only
``check`` needs (ast, json, the planner) is imported inside the functions that use it:
``run`` must not import, eagerly, modules the program is meant to import lazily.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

#: Tags on lazy rows of the text report, by code, and what each means (the legend after
#: the summary lists those that occur).  The verdict column says ``LAZY`` or
#: ``EAGER:<reason code>``, in capitals, which no other part of the report uses: ``grep -w
#: EAGER`` lists the eager rows, ``grep -w LAZY`` the lazy ones, even where the code
#: imports modules called ``lazy`` or ``eager``.
TAGS = {
    "explicit": (
        "explicit",
        "a PEP 810 import written with its keyword: deferred whatever the settings, on "
        "3.15 by the interpreter, before 3.15 by lazify's import hook",
    ),
    "used-at-import": (
        "used-at-import(N)",
        "the module reads the name on line N while it is being imported (a base class, a "
        "decorator, a module-level call): deferring it gains nothing",
    ),
    "unused": (
        "unused",
        "the module never reads the name: what importing it does (a registry, import "
        "readline) will not happen, and an error in it stays hidden; to keep that, import it "
        "in a `with lazify.eager_imports():` block or list the module in `excluding`",
    ),
    "in-annotations": (
        "in-annotations",
        "imported when the annotations that name it are read (a function's, a class's, "
        "and on 3.14+ the module's)",
    ),
    "resolved-by": (
        "resolved-by(F:N)",
        "function F reads the module's own namespace on line N (globals(), eval, exec, "
        "f_globals): a call imports the module's pending names first, as PEP 690 completes "
        "the dict (globals()[name] and globals().get(name) import that name alone)",
    ),
}

#: ``schema_version`` of ``check --format json``: raised when a field changes meaning or
#: goes away (new fields may come without it)
JSON_SCHEMA_VERSION = 1

#: statements longer than this are cut in the text report (the JSON has them whole)
STATEMENT_WIDTH = 60

#: How many functions a ``resolved-by`` tag names before ``+N``.
RESOLVED_BY_SHOWN = 3


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lazify`` command line and return its exit code.

    Output to a closed pipe (``lazify check src | head``) ends the command quietly with
    exit status 1, as pip and black end: the rest of the output goes to ``os.devnull``
    (so that the interpreter's own flush at exit finds nothing to complain about).
    ``lazify run`` is left alone: the program it runs meets a closed pipe as under
    ``python``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        from lazify._run import main as run

        return run(argv[1:])
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "run":
        return args.func(args)
    try:
        status = args.func(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass
        return 1


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lazify",
        description="PEP 690 lazy imports for stock CPython.",
    )
    parser.add_argument("--version", action="version", version=f"lazify {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, func, summary, description, arguments in _commands():
        p = sub.add_parser(name, help=summary, description=description)
        if arguments and arguments[0] is _SUBCOMMANDS:   # ``lazify cache clean``
            actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
            for action, action_help, action_arguments in arguments[1:]:
                q = actions.add_parser(action, help=action_help, description=action_help)
                for flags, options in action_arguments:
                    q.add_argument(*flags, **options)
            arguments = ()
        for flags, options in arguments:
            p.add_argument(*flags, **options)
        p.set_defaults(func=func)
    return parser


#: first in a command's arguments: the rest are its actions, (name, help, arguments)
_SUBCOMMANDS = object()

#: ``--mechanism`` of check, compile and run: what the hook would do on this Python
_MECHANISM_OPTION = (("--mechanism",), {
    "choices": ("native", "rewrite"), "default": None,
    "help": "native: PEP 810 lazy statements (3.15+); rewrite: lazify's generated code "
            "(default: LAZIFY_MECHANISM, else [tool.lazify] mechanism, else native on 3.15+ "
            "and rewrite before)"})
#: ``--mechanism`` of rewrite and diff, whose output is the same on every Python
_SOURCE_MECHANISM_OPTION = (("--mechanism",), {
    "choices": ("native", "rewrite"), "default": None,
    "help": "native: the source with PEP 810 lazy statements (3.15 syntax); rewrite: "
            "lazify's generated code, runnable on 3.10+ (default: LAZIFY_MECHANISM, else "
            "[tool.lazify] mechanism, else rewrite on every Python)"})


def _commands() -> tuple:
    """``(name, function, help, description, [(flags, add_argument options)])`` per command."""
    paths = (("paths",), {"nargs": "+", "metavar": "PATH", "help": "files or directories"})
    return (
        ("check", _cmd_check,
         "report every import: lazy or eager, and why (never runs the code)",
         "Report, for every name an import statement binds, whether lazify makes it lazy or "
         "keeps it eager, and why. Never executes the files.",
         [(("paths",), {"nargs": "*", "default": ["."], "metavar": "PATH",
                        "help": "files or directories (recursive; default: .)"}),
          (("--format",), {"choices": ("text", "json", "github"), "default": "text",
                           "help": "text (default), json, or github: GitHub Actions "
                                   "annotations for the files that failed and the --fail-on "
                                   "matches"}),
          (("--fail-on",), {"action": "append", "default": [], "metavar": "CODES",
                            "help": "exit 1 when an import has one of these reason or tag "
                                    "codes (comma-separated, repeatable: eager, try, unused, "
                                    "used-at-import, ...)"}),
          (("--excluding",), {"action": "append", "default": [], "metavar": "NAME",
                              "help": "module whose own imports stay eager, as "
                                      "install(excluding=...) (repeatable)"}),
          _MECHANISM_OPTION]),
        ("rewrite", _cmd_rewrite,
         "print the rewritten source (or write a rewritten tree with -o)",
         "Print the source lazify's rewrite produces, comments and formatting kept; with -o, "
         "write the rewritten tree of a directory under OUT.",
         [(("path",), {"metavar": "PATH", "help": "a file or a directory"}),
          (("-o", "--output"), {"metavar": "OUT", "default": None, "help": "write a tree here"}),
          _SOURCE_MECHANISM_OPTION]),
        ("diff", _cmd_diff,
         "unified diff original -> rewritten",
         "Print a unified diff from the original to the rewritten source of every changed "
         "file; with --check DIR, exit 1 when the rewritten output differs from DIR.",
         [paths,
          (("--check",), {"metavar": "DIR", "default": None, "help": "compare with a reviewed tree"}),
          _SOURCE_MECHANISM_OPTION]),
        ("fix", _cmd_fix,
         "mark the safely lazy imports lazy in the source (PEP 810)",
         "Rewrite files in place so that the imports `check` finds safely lazy (lazy, read "
         "somewhere, not while the module is imported) are PEP 810 lazy imports: `lazy` "
         "statements, or one __lazy_modules__ list that earlier Pythons ignore.",
         [paths,
          (("--style",), {"choices": ("keyword", "lazy-modules"), "default": "keyword",
                          "help": "keyword: `lazy import` statements (3.15, or lazify); "
                                  "lazy-modules: a __lazy_modules__ list (runs unchanged on "
                                  "3.10-3.14) (default: keyword)"}),
          (("--diff",), {"action": "store_true",
                         "help": "print the change as a unified diff instead of writing it"}),
          (("--excluding",), {"action": "append", "default": [], "metavar": "NAME",
                              "help": "module whose own imports stay eager (repeatable)"})]),
        ("run", _cmd_run,
         "run a program with global lazy imports (the PEP's -L)",
         "Run a program as python would (-m MODULE, -c CODE, -, SCRIPT, or a console script "
         "on PATH) with lazify's import hook in global mode; `lazify run --help` for its options.",
         [(("run_argv",), {"nargs": argparse.REMAINDER, "metavar": "ARGS",
                           "help": "see `lazify run --help`"})]),
        ("compile", _cmd_compile,
         "write the rewritten bytecode cache ahead of time",
         "Write lazify's bytecode cache for files or trees ahead of time (a Docker build step, "
         "a read-only venv), one process per core; --env: everything this environment "
         "imports, the stdlib included.",
         [(("paths",), {"nargs": "*", "metavar": "PATH", "help": "files or directories"}),
          (("--env",), {"action": "store_true",
                        "help": "compile what this environment imports: the stdlib and "
                                "site-packages (sys.path without the script's directory "
                                "and PYTHONPATH)"}),
          (("-j", "--jobs"), {"type": int, "default": 0, "metavar": "N",
                              "help": "processes (default 0: one per core)"}),
          (("-f", "--force"), {"action": "store_true",
                               "help": "rewrite files whose cache is valid already"}),
          (("--hash",), {"dest": "hash_based", "action": "store_true",
                         "help": "checked-hash pycs (not mtime)"}),
          _MECHANISM_OPTION]),
        ("report", _cmd_report,
         "run a command plainly and with lazify: a page of what was deferred",
         "Run CMD plainly and with lazify (interleaved rounds, medians) and write one "
         "self-contained HTML page (or JSON): start-up time, modules, peak memory, the "
         "import tree of both runs, what was deferred, resolved or never needed, and the "
         "imports that stayed eager, by reason and cost. Exit 1 when a run fails or the "
         "runs print differently.",
         [(("-o", "--output"), {"metavar": "FILE", "default": None,
                                "help": "where to write (default lazify-report.html; "
                                        "stdout for --format json; - for stdout)"}),
          (("--format",), {"choices": ("html", "json"), "default": "html", "help": "output format"}),
          (("--rounds",), {"type": int, "default": 5, "metavar": "N",
                           "help": "timed rounds per mode, and as many traced (default 5)"}),
          (("--timeout",), {"type": float, "default": 120.0, "metavar": "SECONDS",
                            "help": "kill a run after this long (default 120)"}),
          _MECHANISM_OPTION,
          (("cmd",), {"nargs": argparse.REMAINDER, "metavar": "-- CMD ARGS",
                      "help": "the command, as you would run it"})]),
        ("cache", _cmd_cache,
         "lazify's bytecode cache: clean",
         "clean: remove lazify's cache files, and nothing else: beside the sources of this "
         "environment (the stdlib included) and in the per-user cache directory, or only "
         "those of the PATHs given.",
         [_SUBCOMMANDS, ("clean", "remove lazify's cache files, and nothing else", [
             (("paths",), {"nargs": "*", "metavar": "PATH",
                           "help": "trees to clean (default: this environment's, and the "
                                   "per-user cache directory)"}),
             (("-n", "--dry-run"), {"action": "store_true",
                                    "help": "list what would be removed; remove nothing"})])]),
        *_activation_commands(),
    )


def _activation_commands() -> tuple:
    """``enable``, ``disable``, ``status`` (:mod:`lazify._activate`)."""
    python = (("--python",), {"metavar": "PATH", "default": None,
                              "help": "the environment's interpreter (default: this one)"})
    return (
        ("enable", _cmd_activation,
         "turn lazify on for a Python environment (a .pth file in its site-packages)",
         "Turn lazify on for every start of a Python environment's interpreter: write "
         "lazify-enabled.pth into its site-packages, recording the settings of the "
         "pyproject.toml found from here (or --settings FILE), and write lazify's cache "
         "for it. Again: update the settings.",
         [python,
          (("--settings",), {"metavar": "FILE", "default": None,
                             "help": "a TOML file whose [tool.lazify] to record"}),
          (("--no-compile",), {"dest": "compile", "action": "store_false",
                               "help": "do not write the cache ahead of time"})]),
        ("disable", _cmd_activation,
         "turn lazify off for a Python environment (remove what enable wrote)",
         "Remove the lazify-enabled.pth that `lazify enable` wrote, and nothing else.",
         [python]),
        ("status", _cmd_activation,
         "whether lazify is active here, why, its settings and cache",
         "Say whether lazify is active in this interpreter and why, the mechanism, the "
         "settings and where each comes from, where the cache goes and how much of the "
         "environment is compiled. Exit status 0 when active, 1 when not.",
         []),
    )


def _cmd_activation(args: argparse.Namespace) -> int:
    from lazify import _activate

    try:
        return getattr(_activate, f"cmd_{args.command}")(args)
    except BrokenPipeError:
        # `lazify status | head -1`: the reader is gone, as with any filter; no traceback
        # now or when the interpreter flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _version() -> str:
    from lazify import __version__

    return __version__


# --------------------------------------------------------------------------- check


def _cmd_check(args: argparse.Namespace) -> int:
    """``lazify check``: static report; exit 1 when a file could not be analysed."""
    import json

    from lazify._check import parse_fail_on
    from lazify._config import ConfigError
    from lazify._sources import iter_files

    try:
        codes = parse_fail_on(args.fail_on)
    except ValueError as e:
        print(f"lazify check: {e}", file=sys.stderr)
        return 2
    unreadable = []
    try:
        files, seen = [], set()
        for top in args.paths:
            # global mode or not, as the runtime would have it for an application there
            enabled = _enabled_for(top)
            for path, excluding in iter_files([top], args.excluding, unreadable):
                if os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    files.append((path, excluding, enabled))
    except ConfigError as e:
        print(f"lazify check: {e}", file=sys.stderr)
        return 2
    from lazify._diff import _mechanism as mechanism_of

    mechanism = mechanism_of(args, "check")
    if mechanism is None:
        return 2
    from lazify._mode import env_flag

    strict = env_flag("LAZIFY_STRICT")
    results = [_check_file(path, excluding, strict, mechanism, enabled)
               for path, excluding, enabled in files]
    # a directory that cannot be read is a file that failed (os.walk would skip it)
    results += [{"path": path, "module": "", "error": f"cannot read directory: {error}",
                 "sites": ()} for path, error in unreadable]
    if args.format == "json":
        json.dump(_json_report(results), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "github":
        from lazify._check import github_report

        github_report(results, codes, sys.stdout)
    else:
        _print_text_report(results, sys.stdout)
    if any(r["error"] is not None for r in results):
        return 1
    if codes:
        from lazify._check import matched

        found: dict[str, int] = {}
        for r in results:
            for _site, n in _rows(r):
                for code in matched(n, codes):
                    found[code] = found.get(code, 0) + 1
        if found:
            sys.stdout.flush()
            counts = ", ".join(f"{code} {count}" for code, count in sorted(found.items()))
            print(f"lazify check: --fail-on: found {counts}", file=sys.stderr)
            return 1
    return 0


def _enabled_for(path: str) -> bool:
    """Whether the settings for an application at *path* leave global mode on
    (``[tool.lazify] enabled``, ``LAZIFY_DISABLE``)."""
    from lazify._config import load_config

    start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return load_config(start).enabled


def _check_file(path: str, excluding, strict: bool, mechanism: str = "rewrite",
                enabled: bool = True) -> dict:
    """The report of one file: the plan's verdicts as the runtime applies them in
    global mode (*enabled*) or with global mode off (:mod:`lazify._check`)."""
    from lazify import _check, _sources
    from lazify._reasons import Reason
    from lazify._rewrite import plan_source

    module, is_package = _sources.module_name_for(path)
    result = {"path": path, "module": module, "error": None, "sites": ()}
    try:
        data, tree = _sources.read_and_parse(path)
    except _sources.SourceError as e:
        result["error"] = e.short()
        return result
    try:
        opted = _check.lazy_modules(tree, module,
                                    module if is_package else module.rpartition(".")[0])
        excluded = _check.is_excluded(module, excluding)
        # the source's own `lazy` statements stay lazy on either mechanism (PEP 810:
        # explicit imports are lazy whatever lazify's settings; the filter lets them be)
        reason = Reason.EXCLUDED if excluded else Reason.NOT_OPTED_IN
        if opted is not None and (excluded or not enabled):
            # the hook rewrites a module that opts in, excluded or not, and the
            # runtime defers the imports of the modules it names
            plan = plan_source(tree, data, path, module=module, is_package=is_package,
                               excluding=None, mechanism=mechanism, future_flags=True)
            sites = _check.restrict(plan.imports, opted, reason)
        else:
            plan = plan_source(tree, data, path, module=module, is_package=is_package,
                               excluding=excluding, mechanism=mechanism, future_flags=True)
            sites = plan.imports
            if not enabled:
                sites = _check.restrict(sites, None, reason)
        if module and _check.never_rewritten(module):
            sites = _check.restrict(sites, None, Reason.MACHINERY)
        elif mechanism == "rewrite":
            sites = _check.plain_packages(sites, excluding)
    except Exception as e:
        if strict:
            raise
        result["error"] = f"lazify internal error: {type(e).__name__}: {e} (please report it)"
        return result
    result["sites"] = sites
    result["takes_rewrite"] = plan.takes_rewrite
    return result


def _rows(result: dict):
    """Yield ``(site, imported_name)`` for every name bound in a file, in source order."""
    for site in result["sites"]:
        for name in site.names:
            yield site, name


def _json_report(results: list[dict]) -> dict:
    files = []
    for r in results:
        imports = [
            {
                "line": site.span[0],
                "col": site.span[1],
                "statement": site.statement,
                "name": n.name,
                "module": n.module,
                "verdict": "lazy" if n.lazy else "eager",
                "reason": None if n.reason is None else n.reason.value,
                "used_at_import": n.used_at_import,
                "unused": bool(n.unused),
                "in_annotations": n.in_annotations,
                "explicit": n.explicit,
                "resolved_by": [{"function": function, "line": line} for function, line in n.resolved_by],
            }
            for site, n in _rows(r)
        ]
        files.append({"path": r["path"], "module": r["module"], "error": r["error"], "imports": imports,
                      "takes_rewrite": r.get("takes_rewrite", "")})
    return {"schema_version": JSON_SCHEMA_VERSION, "files": files, "summary": _summary(results)}


def _summary(results: list[dict]) -> dict:
    by_reason: dict[str, int] = {}
    imports = lazy = used_at_import = unused = in_annotations = resolved_by = explicit = 0
    for r in results:
        for _site, n in _rows(r):
            imports += 1
            if n.lazy:
                lazy += 1
                used_at_import += n.used_at_import is not None
                unused += bool(n.unused)
                in_annotations += n.in_annotations
                resolved_by += bool(n.resolved_by)
                explicit += n.explicit
            else:
                code = n.reason.value
                by_reason[code] = by_reason.get(code, 0) + 1
    return {
        "files": len(results),
        "files_failed": sum(r["error"] is not None for r in results),
        "imports": imports,
        "lazy": lazy,
        "eager": imports - lazy,
        "eager_by_reason": dict(sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
        "lazy_used_at_import": used_at_import,
        "lazy_unused": unused,
        "lazy_in_annotations": in_annotations,
        "lazy_resolved_by": resolved_by,
        "lazy_explicit": explicit,
    }


def _tags(n) -> list[tuple[str, str]]:
    """``(tag code, tag text)`` for the notes on a lazy name."""
    from lazify._check import tag_codes

    tags = []
    for code in tag_codes(n):
        if code == "used-at-import":
            tags.append((code, f"used-at-import({n.used_at_import})"))
        elif code == "resolved-by":
            readers = n.resolved_by
            shown = ",".join(f"{function}:{line}" for function, line in readers[:RESOLVED_BY_SHOWN])
            more = len(readers) - RESOLVED_BY_SHOWN
            tags.append((code, f"resolved-by({shown}" + (f",+{more}" if more > 0 else "") + ")"))
        else:
            tags.append((code, code))
    return tags


def _verdict_words(n) -> tuple[str, str]:
    """``("LAZY", tags)`` or ``("EAGER:<reason>", "")`` for one imported name."""
    if not n.lazy:
        return f"EAGER:{n.reason}", ""
    return "LAZY", " ".join(text for _key, text in _tags(n))


def _cut(statement: str) -> str:
    if len(statement) <= STATEMENT_WIDTH:
        return statement
    return statement[: STATEMENT_WIDTH - 3] + "..."


def _print_text_report(results: list[dict], out) -> None:
    """One row per import statement (per name where its names differ), then the summary
    and a legend of the reasons and tags that occur.  The verdict column is the only
    place the words LAZY and EAGER appear: the summary says Lazy and Eager."""
    import textwrap

    for r in results:
        if r["error"] is not None:
            out.write(f"{r['path']}: error: {r['error']}\n\n")
            continue
        rows = []
        for site in r["sites"]:
            where = f"{r['path']}:{site.span[0]}"
            statement = _cut(site.statement)
            verdicts = [_verdict_words(n) for n in site.names]
            if len(set(verdicts)) == 1:
                # One line per statement when all its names share the verdict and notes.
                rows.append((where, statement, *verdicts[0]))
                continue
            for n, (verdict, why) in zip(site.names, verdicts):
                rows.append((where, f"{statement}  [{n.name}]", verdict, why))
        if not rows:
            continue
        w0 = max(len(row[0]) for row in rows)
        w1 = max(len(row[1]) for row in rows)
        w2 = max(len(row[2]) for row in rows)
        for where, statement, verdict, why in rows:
            line = f"{where:<{w0}}  {statement:<{w1}}  {verdict:<{w2}}  {why}"
            out.write(line.rstrip() + "\n")
        if r.get("takes_rewrite"):
            # asked for natively: the verdicts above are the rewrite's (how-it-works)
            out.write(f"{r['path']}: the rewrite, not native lazy imports ({r['takes_rewrite']})\n")
        out.write("\n")
    s = _summary(results)
    out.write(f"{s['files']} file{'s' if s['files'] != 1 else ''}, ")
    out.write(f"{s['imports']} import{'s' if s['imports'] != 1 else ''}: ")
    out.write(f"Lazy {s['lazy']}, Eager {s['eager']}\n")
    if s["eager_by_reason"]:
        reasons = ", ".join(f"{code} {count}" for code, count in s["eager_by_reason"].items())
        out.write(f"Eager by reason: {reasons}\n")
    counts = {
        "explicit": s["lazy_explicit"],
        "used-at-import": s["lazy_used_at_import"],
        "unused": s["lazy_unused"],
        "in-annotations": s["lazy_in_annotations"],
        "resolved-by": s["lazy_resolved_by"],
    }
    tagged = [(key, count) for key, count in counts.items() if count]
    if tagged:
        out.write("Lazy with tags: " + ", ".join(f"{key} {count}" for key, count in tagged) + "\n")
    failed = [r["path"] for r in results if r["error"] is not None]
    out.write(f"Files that failed: {len(failed)}\n")
    for path in failed:
        out.write(f"  {path}\n")
    from lazify._reasons import Reason

    legend = [(code, Reason(code).words) for code in s["eager_by_reason"]]
    if legend:
        out.write("\nReasons:\n")
        _legend(out, legend, textwrap)
    if tagged:
        out.write("\nTags:\n")
        _legend(out, [TAGS[key] for key, _count in tagged], textwrap)


def _legend(out, entries, textwrap) -> None:
    """``  term  meaning``, the meanings wrapped to fit 100 columns."""
    width = max(len(term) for term, _meaning in entries)
    for term, meaning in entries:
        lines = textwrap.wrap(meaning, max(40, 100 - width - 4))
        out.write(f"  {term:<{width}}  {lines[0]}\n")
        for line in lines[1:]:
            out.write(f"  {'':<{width}}  {line}\n")


# ------------------------------------------------------------------- rewrite / diff


def _cmd_rewrite(args: argparse.Namespace) -> int:
    """``lazify rewrite``: implemented in lazify._diff (libcst emitter)."""
    from lazify._diff import cmd_rewrite

    return cmd_rewrite(args)


def _cmd_diff(args: argparse.Namespace) -> int:
    """``lazify diff``: implemented in lazify._diff (libcst emitter)."""
    from lazify._diff import cmd_diff

    return cmd_diff(args)


def _cmd_fix(args: argparse.Namespace) -> int:
    """``lazify fix``: implemented in lazify._fix (libcst)."""
    from lazify._fix import cmd_fix

    return cmd_fix(args)


# ------------------------------------------------------------------------ report


def _cmd_report(args: argparse.Namespace) -> int:
    """``lazify report``: implemented in lazify._report."""
    from lazify._report import cmd_report

    return cmd_report(args)


# ----------------------------------------------------------------------- compile


def _cmd_compile(args: argparse.Namespace) -> int:
    """``lazify compile``: write lazify's bytecode cache ahead of time."""
    from lazify._compile import compile_paths

    mechanism = _mechanism(args, "compile")
    if mechanism is _BAD:
        return 2
    if not args.paths and not args.env:
        print("lazify compile: error: give PATHs to compile, or --env", file=sys.stderr)
        return 2
    if args.jobs < 0:
        print("lazify compile: error: -j/--jobs must be 0 (one per core) or more", file=sys.stderr)
        return 2
    return compile_paths(args.paths, hash_based=args.hash_based, mechanism=mechanism,
                         jobs=args.jobs, env=args.env, force=args.force)


def _cmd_cache(args: argparse.Namespace) -> int:
    """``lazify cache clean``: remove lazify's cache files and nothing else."""
    from lazify._cache_clean import clean

    return clean(args.paths, dry_run=args.dry_run)


_BAD = object()


def _mechanism(args, command, runs=True):
    """``--mechanism``, else the configured one (``[tool.lazify]``, ``LAZIFY_MECHANISM``)
    this interpreter has, else None (the default); _BAD after reporting a usage error.

    :param runs: the command compiles code for this interpreter (``compile``, ``run``);
        ``rewrite`` and ``diff`` print native source (``lazy import``) on any version.
    """
    from lazify._config import ConfigError, load_config, resolve, usable_mechanism
    from lazify._mode import check_mechanism

    try:
        if args.mechanism is not None:
            return check_mechanism(args.mechanism) if runs else args.mechanism
        # compile and run: the environment's settings; rewrite/diff: the project's
        configured = (resolve() if runs else load_config()).mechanism
        return usable_mechanism(configured) if runs else configured
    except (ConfigError, ValueError) as exc:
        message = str(exc).removeprefix("lazify: ")
        print(f"lazify {command}: {message}", file=sys.stderr)
        return _BAD


# --------------------------------------------------------------------------- run


def _cmd_run(args: argparse.Namespace) -> int:
    """``lazify run``: parsed by :mod:`lazify._run` itself (no argparse on its path)."""
    from lazify._run import main as run

    return run(args.run_argv)
