"""``lazify check``: for every name an import statement binds, lazy or eager and why.

Never executes the code it reports on: it reads, parses and plans each file
(:func:`lazify._check.check_file`); this module prints the verdicts as text, JSON or
GitHub annotations.
"""

from __future__ import annotations

import os
import sys

from .common import MECHANISM_OPTION, planned_mechanism

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


def run(args) -> int:
    """``lazify check``: static report; exit 1 when a file could not be analysed."""
    import json

    from lazify._check import check_file, enabled_for, parse_fail_on, rows
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
            enabled = enabled_for(top)
            for path, excluding in iter_files([top], args.excluding, unreadable):
                if os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    files.append((path, excluding, enabled))
    except ConfigError as e:
        print(f"lazify check: {e}", file=sys.stderr)
        return 2
    mechanism = planned_mechanism(args, "check")
    if mechanism is None:
        return 2
    from lazify._settings import env_flag

    strict = env_flag("LAZIFY_STRICT")
    results = [check_file(path, excluding, strict, mechanism, enabled)
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
            for _site, n in rows(r):
                for code in matched(n, codes):
                    found[code] = found.get(code, 0) + 1
        if found:
            sys.stdout.flush()
            counts = ", ".join(f"{code} {count}" for code, count in sorted(found.items()))
            print(f"lazify check: --fail-on: found {counts}", file=sys.stderr)
            return 1
    return 0


def _json_report(results: list[dict]) -> dict:
    from lazify._check import rows

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
            for site, n in rows(r)
        ]
        files.append({"path": r["path"], "module": r["module"], "error": r["error"], "imports": imports,
                      "takes_rewrite": r.get("takes_rewrite", "")})
    return {"schema_version": JSON_SCHEMA_VERSION, "files": files, "summary": _summary(results)}


def _summary(results: list[dict]) -> dict:
    from lazify._check import rows

    by_reason: dict[str, int] = {}
    imports = lazy = used_at_import = unused = in_annotations = resolved_by = explicit = 0
    for r in results:
        for _site, n in rows(r):
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
        if r.get("audit_hook"):
            top = (r["module"] or "").partition(".")[0] or "this module"
            out.write(f"{r['path']}: adds an audit hook: when it is imported, the deferred imports "
                      f"of {top}'s loaded modules are done, and {top}'s imports stay eager from "
                      "then on (audit-hook)\n")
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


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("check",
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
      MECHANISM_OPTION]),
)
