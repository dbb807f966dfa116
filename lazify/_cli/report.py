"""``lazify report``: run a command plainly and with lazify, and write the page (the
runs and their analysis are :mod:`lazify._report`'s)."""

from __future__ import annotations

import argparse
import sys

from .common import MECHANISM_OPTION, stdout_closed

#: Exit status of ``lazify report``: 0 when both runs succeed and print the same, 1 when
#: either run fails or they print differently, 2 for a usage error.
EXIT_OK, EXIT_DIFFERS, EXIT_USAGE = 0, 1, 2


def run(args) -> int:
    """``lazify report [-o FILE] [--format html|json] [--rounds N] -- CMD ARGS...``"""
    import json
    import shutil

    from lazify._report import UsageError, analyse, collect, configured_excluding
    from lazify._run import scripts_directory

    argv = list(args.cmd)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("lazify report: no command given (lazify report -- CMD ARGS...)", file=sys.stderr)
        return EXIT_USAGE
    if args.rounds < 0:
        print("lazify report: --rounds must be 0 or more", file=sys.stderr)
        return EXIT_USAGE
    # PATH's, else one installed beside lazify (venv/bin/lazify from a shell that never
    # activated the venv), as lazify run finds it
    if shutil.which(argv[0]) is None:
        beside = shutil.which(argv[0], path=scripts_directory())
        if beside is None:
            print(f"lazify report: command not found: {argv[0]} (not on PATH nor in "
                  f"{scripts_directory()})", file=sys.stderr)
            return EXIT_USAGE
        argv[0] = beside
    stdin = _stdin_bytes()
    output = args.output
    if output is None:
        output = "-" if args.format == "json" else "lazify-report.html"
    problem = None if output == "-" else _unwritable(output)
    if problem is not None:
        # said before the runs, not after them (a minute of rounds for nothing)
        print(f"lazify report: cannot write {output}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    excluding = configured_excluding()
    progress = _progress if sys.stderr is not None and sys.stderr.isatty() else None
    try:
        collected = collect(argv, rounds=args.rounds, stdin=stdin, timeout=args.timeout,
                            mechanism=args.mechanism, progress=progress)
    except UsageError as exc:
        if progress:
            sys.stderr.write("\n")
        print(f"lazify report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # (Ctrl-C: the one line and exit status 130 of every command, lazify._cli.main)
    if progress:
        sys.stderr.write("\r\x1b[K")
    report = analyse(argv, collected, rounds=args.rounds, excluding=excluding)
    if args.format == "json":
        text = json.dumps(report, indent=1) + "\n"
    else:
        from lazify._report_html import render

        text = render(report)
    try:
        if output == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            # a path with bytes no encoding decodes (surrogates in str) is escaped, as
            # stderr escapes it: the page's text, not a UnicodeEncodeError traceback
            with open(output, "w", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
    except BrokenPipeError:
        stdout_closed()
    except OSError as exc:
        print(f"lazify report: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    _print_summary(report, output, sys.stderr)
    return EXIT_OK if report["summary"]["ok"] else EXIT_DIFFERS


def _unwritable(output: str):
    """Why the page cannot be written to ``output`` (a missing directory, a directory,
    no permission), else None; the write after the runs still reports what this cannot
    foresee (a full disk)."""
    import os

    directory = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output):
        return "Is a directory"
    if not os.path.isdir(directory):
        return "No such file or directory"
    exists = os.path.exists(output)
    if not os.access(output if exists else directory, os.W_OK if exists else os.W_OK | os.X_OK):
        return "Permission denied"
    return None


def _stdin_bytes() -> bytes | None:
    """What every run gets on its standard input: ours, read once, unless it is a
    terminal (then none: a report runs unattended)."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        return sys.stdin.buffer.read() or None
    except (OSError, ValueError, AttributeError):
        return None


def _progress(n, total, kind, mode):
    sys.stderr.write(f"\r\x1b[Klazify report: run {n}/{total} ({kind}, {mode})")
    sys.stderr.flush()


def _verdict(speedup) -> str:
    """The median ratio plain / lazy in words, as the page says it."""
    if speedup is None:
        return "no ratio"
    return f"{speedup}x faster" if speedup >= 1 else f"{speedup}x, slower"


def _print_summary(report, output, out):
    s = report["summary"]
    lines = []
    if s["time_plain_ms"] is not None and s["time_lazy_ms"] is not None:
        lines.append(f"start-up {s['time_plain_ms']} ms plain, {s['time_lazy_ms']} ms lazy "
                     f"({_verdict(s['speedup'])}); modules {s['modules_plain']} -> {s['modules_lazy']}; "
                     f"peak RSS {s['peak_rss_plain_mib']} -> {s['peak_rss_lazy_mib']} MiB")
    elif s["rounds"] == 0 and s["modules_plain"] is not None:
        lines.append(f"modules {s['modules_plain']} -> {s['modules_lazy']} (no timed rounds)")
    for problem in report["problems"]:
        lines.append(f"problem: {problem}")
    for note in report.get("notes", ()):
        lines.append(f"note: {note}")
    if output != "-":
        lines.append(f"report written to {output}")
    for line in lines:
        out.write(f"lazify report: {line}\n")


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("report",
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
                       "help": "timed rounds per mode, and as many traced (default 5); "
                               "0: one traced round, no times"}),
      (("--timeout",), {"type": float, "default": 120.0, "metavar": "SECONDS",
                        "help": "kill a run after this long (default 120)"}),
      MECHANISM_OPTION,
      (("cmd",), {"nargs": argparse.REMAINDER, "metavar": "-- CMD ARGS",
                  "help": "the command, as you would run it"})]),
)
