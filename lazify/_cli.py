"""The ``lazify`` command line: ``check``, ``rewrite``, ``diff``, ``fix``, ``run``, ``compile``.

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

#: Tags on lazy rows of the text report, and what each means (the legend after the
#: summary lists those that occur).  Neither the tags nor the reasons of eager rows
#: contain the words of the verdict column, so ``grep -w eager`` lists the eager rows
#: and ``grep -w lazy`` the lazy ones.
TAGS = {
    "used at import": (
        "used at import (line N)",
        "the module reads the name while it is being imported (a base class, a decorator, "
        "a module-level call): deferring it gains nothing",
    ),
    "unused": (
        "unused",
        "the module never reads the name: what importing it does (a registry, import "
        "readline) will not happen; to keep that, import it in a "
        "`with lazify.eager_imports():` block or list the module in `excluding`",
    ),
    "in annotations": (
        "in annotations",
        "imported when the annotations that name it are read (a function's, a class's, "
        "and on 3.14+ the module's)",
    ),
    "explicit": (
        "explicit",
        "a PEP 810 import written with its keyword: deferred whatever the settings, on "
        "3.15 by the interpreter, before 3.15 by lazify's import hook",
    ),
    "resolved by": (
        "resolved by F() (line N)",
        "F reads the module's own namespace (globals(), eval, exec, f_globals): a call "
        "imports the module's pending names first, as PEP 690 completes the dict "
        "(globals()[name] and globals().get(name) import that name alone)",
    ),
}

#: How many functions a ``resolved by`` tag names before ``and N more``.
RESOLVED_BY_SHOWN = 3


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lazify`` command line and return its exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return args.func(args)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lazify",
        description="PEP 690 lazy imports for stock CPython.",
    )
    parser.add_argument("--version", action="version", version=f"lazify {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, func, summary, description, arguments in _commands():
        p = sub.add_parser(name, help=summary, description=description)
        for flags, options in arguments:
            p.add_argument(*flags, **options)
        p.set_defaults(func=func)
    return parser


#: ``--mechanism`` of check, rewrite, diff, compile and run
_MECHANISM_OPTION = (("--mechanism",), {
    "choices": ("native", "rewrite"), "default": None,
    "help": "native: PEP 810 lazy statements (3.15+); rewrite: lazify's generated code "
            "(default: [tool.lazify] mechanism, LAZIFY_MECHANISM, else native on 3.15+)"})


def _commands() -> tuple:
    """``(name, function, help, description, [(flags, add_argument options)])`` per command."""
    paths = (("paths",), {"nargs": "+", "metavar": "PATH", "help": "files or directories"})
    return (
        ("check", _cmd_check,
         "report every import: lazy or eager, and why (never runs the code)",
         "Report, for every name an import statement binds, whether lazify makes it lazy or "
         "keeps it eager, and why. Never executes the files.",
         [(("paths",), {"nargs": "+", "metavar": "PATH", "help": "files or directories (recursive)"}),
          (("--format",), {"choices": ("text", "json"), "default": "text", "help": "output format"}),
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
          _MECHANISM_OPTION]),
        ("diff", _cmd_diff,
         "unified diff original -> rewritten",
         "Print a unified diff from the original to the rewritten source of every changed "
         "file; with --check DIR, exit 1 when the rewritten output differs from DIR.",
         [paths,
          (("--check",), {"metavar": "DIR", "default": None, "help": "compare with a reviewed tree"}),
          _MECHANISM_OPTION]),
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
         "run a script or module with global lazy imports (the PEP's -L)",
         "Run a script (like `python SCRIPT ARGS`) or a module (like `python -m MODULE ARGS`) "
         "with lazify's import hook in global mode.",
         [(("-m",), {"dest": "module", "action": "store_true", "help": "TARGET is a module name"}),
          _MECHANISM_OPTION,
          (("target",), {"metavar": "TARGET", "help": "script path, or module name with -m"}),
          (("args",), {"nargs": argparse.REMAINDER, "metavar": "ARGS",
                       "help": "passed on as sys.argv[1:]"})]),
        ("compile", _cmd_compile,
         "write the rewritten bytecode cache ahead of time",
         "Write lazify's bytecode cache for files or trees ahead of time (a Docker build step, "
         "a read-only venv).",
         [paths,
          (("--hash",), {"dest": "hash_based", "action": "store_true",
                         "help": "checked-hash pycs (not mtime)"}),
          _MECHANISM_OPTION]),
    )


def _version() -> str:
    from lazify import __version__

    return __version__


# --------------------------------------------------------------------------- check


def _cmd_check(args: argparse.Namespace) -> int:
    """``lazify check``: static report; exit 1 when a file could not be analysed."""
    import json

    from lazify._config import ConfigError
    from lazify._sources import iter_files

    try:
        files = list(iter_files(args.paths, args.excluding))
    except ConfigError as e:
        print(f"lazify check: {e}", file=sys.stderr)
        return 2
    from lazify._diff import _mechanism as mechanism_of

    mechanism = mechanism_of(args, "check")
    if mechanism is None:
        return 2
    strict = os.environ.get("LAZIFY_STRICT", "") not in ("", "0")
    results = [_check_file(path, excluding, strict, mechanism) for path, excluding in files]
    if args.format == "json":
        json.dump(_json_report(results), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text_report(results, sys.stdout)
    return 1 if any(r["error"] is not None for r in results) else 0


def _check_file(path: str, excluding, strict: bool, mechanism: str = "rewrite") -> dict:
    from lazify import _sources
    from lazify._rewrite import plan_source

    module, is_package = _sources.module_name_for(path)
    result = {"path": path, "module": module, "error": None, "sites": ()}
    try:
        data, tree = _sources.read_and_parse(path)
    except _sources.SourceError as e:
        result["error"] = e.short()
        return result
    try:
        plan = plan_source(tree, data, path, module=module, is_package=is_package,
                           excluding=excluding, mechanism=mechanism, future_flags=True)
    except Exception as e:
        if strict:
            raise
        result["error"] = f"lazify internal error: {type(e).__name__}: {e} (please report it)"
        return result
    result["sites"] = plan.imports
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
        files.append({"path": r["path"], "module": r["module"], "error": r["error"], "imports": imports})
    return {"files": files, "summary": _summary(results)}


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
    """``(tag key, tag text)`` for the notes on a lazy name."""
    tags = []
    if n.explicit:
        tags.append(("explicit", "explicit"))
    if n.used_at_import is not None:
        tags.append(("used at import", f"used at import (line {n.used_at_import})"))
    if n.unused:
        tags.append(("unused", "unused"))
    if n.in_annotations:
        tags.append(("in annotations", "in annotations"))
    readers = n.resolved_by
    if readers:
        shown = ", ".join(f"{function}() (line {line})"
                          for function, line in readers[:RESOLVED_BY_SHOWN])
        more = len(readers) - RESOLVED_BY_SHOWN
        tags.append(("resolved by", f"resolved by {shown}" + (f" and {more} more" if more > 0 else "")))
    return tags


def _verdict_words(n) -> tuple[str, str]:
    """``("lazy", tags)`` or ``("eager", reason in words)`` for one imported name."""
    if not n.lazy:
        return "eager", n.reason.words
    return "lazy", "; ".join(text for _key, text in _tags(n))


def _print_text_report(results: list[dict], out) -> None:
    """One row per import statement (per name where its names differ), then the summary
    and a legend of the tags that occur.  The verdict column is the only place the
    words "lazy" and "eager" appear: the summary names them capitalised."""
    for r in results:
        if r["error"] is not None:
            out.write(f"{r['path']}: error: {r['error']}\n\n")
            continue
        rows = []
        for site in r["sites"]:
            where = f"{r['path']}:{site.span[0]}"
            verdicts = [_verdict_words(n) for n in site.names]
            if len(set(verdicts)) == 1:
                # One line per statement when all its names share the verdict and notes.
                rows.append((where, site.statement, *verdicts[0]))
                continue
            for n, (verdict, why) in zip(site.names, verdicts):
                rows.append((where, f"{site.statement}  [{n.name}]", verdict, why))
        if not rows:
            continue
        w0 = max(len(row[0]) for row in rows)
        w1 = max(len(row[1]) for row in rows)
        for where, statement, verdict, why in rows:
            line = f"{where:<{w0}}  {statement:<{w1}}  {verdict:<5}  {why}"
            out.write(line.rstrip() + "\n")
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
        "used at import": s["lazy_used_at_import"],
        "unused": s["lazy_unused"],
        "in annotations": s["lazy_in_annotations"],
        "resolved by": s["lazy_resolved_by"],
    }
    tagged = [(key, count) for key, count in counts.items() if count]
    if tagged:
        out.write("Lazy with tags: " + ", ".join(f"{key} {count}" for key, count in tagged) + "\n")
    failed = [r["path"] for r in results if r["error"] is not None]
    out.write(f"Files that failed: {len(failed)}\n")
    for path in failed:
        out.write(f"  {path}\n")
    if tagged:
        out.write("\nTags:\n")
        width = max(len(TAGS[key][0]) for key, _count in tagged)
        for key, _count in tagged:
            tag, meaning = TAGS[key]
            out.write(f"  {tag:<{width}}  {meaning}\n")


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


# ----------------------------------------------------------------------- compile


def _cmd_compile(args: argparse.Namespace) -> int:
    """``lazify compile``: write lazify's bytecode cache ahead of time."""
    from lazify._compile import compile_paths

    mechanism = _mechanism(args, "compile")
    if mechanism is _BAD:
        return 2
    return compile_paths(args.paths, hash_based=args.hash_based, mechanism=mechanism)


_BAD = object()


def _mechanism(args, command, runs=True):
    """``--mechanism``, else the configured one (``[tool.lazify]``, ``LAZIFY_MECHANISM``)
    this interpreter has, else None (the default); _BAD after reporting a usage error.

    :param runs: the command compiles code for this interpreter (``compile``, ``run``);
        ``rewrite`` and ``diff`` print native source (``lazy import``) on any version.
    """
    from lazify._config import ConfigError, load_config, usable_mechanism
    from lazify._mode import check_mechanism

    try:
        if args.mechanism is not None:
            return check_mechanism(args.mechanism) if runs else args.mechanism
        configured = load_config().mechanism
        return usable_mechanism(configured) if runs else configured
    except (ConfigError, ValueError) as exc:
        message = str(exc).removeprefix("lazify: ")
        print(f"lazify {command}: {message}", file=sys.stderr)
        return _BAD


# --------------------------------------------------------------------------- run


def _cmd_run(args: argparse.Namespace) -> int:
    """``lazify run``: run a script or module like ``python``, with global lazy imports."""
    from lazify._config import ConfigError, load_config

    start = os.getcwd() if args.module else os.path.dirname(os.path.abspath(args.target))
    try:
        config = load_config(start)
    except ConfigError as e:
        print(f"lazify run: {e}", file=sys.stderr)
        return 2
    if config.enabled:
        from lazify import _hook
        from lazify._config import usable_mechanism

        if args.mechanism is not None:
            from lazify._mode import check_mechanism

            try:
                mechanism = check_mechanism(args.mechanism)
            except ValueError as exc:
                print(f"lazify run: {str(exc).removeprefix('lazify: ')}", file=sys.stderr)
                return 2
        else:
            mechanism = usable_mechanism(config.mechanism)
        if config.excluding:
            from lazify._mode import DEFAULT_EXCLUDING

            # excluding=None means lazify's default list; a given one replaces it.
            _hook.install(enabled=True, excluding=frozenset({*DEFAULT_EXCLUDING, *config.excluding}),
                          mechanism=mechanism)
        else:
            _hook.install(enabled=True, mechanism=mechanism)
    if args.module:
        return _run_module(args.target, args.args)
    return _run_script(args.target, args.args, rewrite=config.enabled)


def _set_path0(directory: str) -> None:
    # What python itself does for `python script.py` / `python -m mod`, unless -I or -P
    # (safe_path, 3.11+) told it not to put that directory on sys.path.
    if sys.flags.isolated or getattr(sys.flags, "safe_path", False):
        return
    if sys.path:
        sys.path[0] = directory
    else:
        sys.path.insert(0, directory)


def _run_module(name: str, argv: list[str]) -> int:
    import importlib.util
    import runpy

    _set_path0(os.getcwd())
    sys.argv = [name, *argv]  # runpy replaces argv[0] with the module's file
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:
        print(f"lazify run: {e}", file=sys.stderr)
        return 1
    except BaseException as e:  # a parent package failed while being imported
        return _report(e)
    if spec is None:
        print(f"lazify run: No module named {name}", file=sys.stderr)
        return 1
    return _through_runpy(runpy.run_module, name, run_name="__main__", alter_sys=True)


def _through_runpy(run, *args, **kwargs) -> int:
    """Run with runpy; report as python would (exit code, traceback)."""
    try:
        run(*args, **kwargs)
    except ImportError as e:
        if _raised_in_runpy(e):
            # runpy's own "cannot be directly executed" and the like: python prints
            # just the message.
            print(f"lazify run: {e}", file=sys.stderr)
            return 1
        return _report(e)
    except BaseException as e:
        return _report(e)
    return 0


def _raised_in_runpy(exc: BaseException) -> bool:
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return _is_own_frame(tb.tb_frame.f_code.co_filename, own=_runpy_files())


def _runpy_files() -> frozenset[str]:
    import runpy

    # 3.11+ freezes runpy: its frames say "<frozen runpy>".
    return frozenset({"<frozen runpy>", os.path.normcase(os.path.abspath(runpy.__file__))})


def _is_own_frame(filename: str, own: frozenset[str]) -> bool:
    if filename.startswith("<"):
        return filename in own
    return os.path.normcase(os.path.abspath(filename)) in own


def _run_script(path: str, argv: list[str], *, rewrite: bool = False) -> int:
    import runpy

    if not os.path.exists(path):
        print(
            f"lazify run: can't open file {os.path.abspath(path)!r}: "
            "[Errno 2] No such file or directory",
            file=sys.stderr,
        )
        return 2
    sys.argv = [path, *argv]
    if os.path.isdir(path) or not os.path.isfile(path) or _is_zip(path):
        # A directory or zip with __main__.py: runpy imports it through the import
        # system, so the hook rewrites it, and inserts *path* at sys.path[0] itself; drop
        # the entry python made for lazify (its bin directory or the cwd) first.
        if sys.path and not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
            del sys.path[0]
        return _through_runpy(runpy.run_path, path, run_name="__main__")
    _set_path0(os.path.dirname(os.path.realpath(path)))
    try:
        code = _script_code(os.path.abspath(path), rewrite)
    except BaseException as e:
        return _report(e)
    import types

    import builtins
    import importlib.machinery

    main = types.ModuleType("__main__")
    # As `python script.py` (3.9+): an absolute __file__, no __spec__, argv[0] as given.
    main.__file__ = os.path.abspath(path)
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", main.__file__)
    main.__builtins__ = builtins
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    except BaseException as e:
        return _report(e)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved
    return 0


def _is_zip(path: str) -> bool:
    import zipfile

    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _script_code(path: str, rewrite: bool = False):
    """Compile the main script with lazify's rewrite.

    ``python script.py`` compiles the main script outside the import system, so no hook
    sees it; ``run`` gets its code from lazify's loader instead (module ``__main__``),
    which uses and fills lazify's bytecode cache like any imported module, and falls
    back to the plain code with a warning if rewriting fails.
    """
    if rewrite:
        from lazify._hook import LazifyLoader

        return LazifyLoader("__main__", path).get_code("__main__")
    with open(path, "rb") as f:
        source = f.read()
    return compile(source, path, "exec", dont_inherit=True)


def _report(exc: BaseException) -> int:
    """Handle an exception from the target the way the interpreter would; return the code."""
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    tb = exc.__traceback__
    # Drop lazify's and runpy's own frames, so that the traceback starts at the user's code
    # as it does under plain `python`.
    own = _runpy_files() | {os.path.normcase(os.path.abspath(__file__))}
    while tb is not None and _is_own_frame(tb.tb_frame.f_code.co_filename, own):
        tb = tb.tb_next
    # Set it on the exception too: the default hook prints exc.__traceback__ on 3.12+.
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)
    if isinstance(exc, KeyboardInterrupt):
        return 130
    return 1
