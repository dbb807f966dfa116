"""Compare the two emitters on real files: ``ast.dump`` of the libcst output must equal
``ast.dump`` of the AST emitter's output (positions ignored).

    python tests/compat/sweep_emitters.py [PATH ...] [--only stdlib|site-packages] [--jobs N] [--show N]

Without PATH: the standard library of the running Python (except ``test/``) and its
site-packages. Files that ``compile()`` rejects are skipped and counted. Exit status 1
when any file mismatches or fails. ``tests/test_emit_cst.py`` runs the same comparison on a
fixed list of standard-library files in the default suite.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import sysconfig
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: Outcomes of one comparison ("unparsed": libcst cannot parse source this Python accepts).
SAME, UNCHANGED, SKIPPED, MISMATCH, ERROR = "same", "unchanged", "skipped", "mismatch", "error"
UNPARSED = "unparsed"


def default_roots() -> list[tuple[str, tuple[str, ...]]]:
    """``(directory, excluded top-level names)`` for the stdlib and site-packages."""
    stdlib = sysconfig.get_paths()["stdlib"]
    purelib = sysconfig.get_paths()["purelib"]
    return [(stdlib, ("test", "site-packages")), (purelib, ())]


def iter_files(top: str, exclude: tuple[str, ...] = ()) -> list[str]:
    """Every ``.py`` file under *top*, sorted, skipping *exclude* at the top level."""
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath == top:
            dirnames[:] = [d for d in dirnames if d not in exclude]
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        out.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return out


def module_name(path: str, top: str) -> tuple[str, bool]:
    """The module name of *path* relative to the import root *top*."""
    rel = os.path.relpath(path, top)[:-3].split(os.sep)
    is_package = rel[-1] == "__init__"
    if is_package:
        rel = rel[:-1]
    if not all(part.isidentifier() for part in rel):
        return "", is_package
    return ".".join(rel), is_package


def compare_source(data: bytes, path: str, module: str = "", is_package: bool = False,
                   portable: bool = True):
    """Return ``(outcome, detail)`` for one file's bytes.

    :param portable: compare on the plan `lazify rewrite` prints (the same on every
        Python); False: on the plan the import hook applies on this Python.
    """
    import warnings

    with warnings.catch_warnings():
        # Invalid escape sequences and the like in third-party code: not ours to report.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _compare_source(data, path, module, is_package, portable)


def _compare_source(data: bytes, path: str, module: str, is_package: bool, portable: bool):
    from lazify._emit_ast import emit
    from lazify._emit_cst import CannotParse, emit_cst
    from lazify._plan import plan_module

    try:
        tree = compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return SKIPPED, f"{type(e).__name__}: {e}"
    try:
        plan = plan_module(tree, module=module, is_package=is_package, portable=portable)
        if not plan.changes_module:
            out = emit_cst(data, plan)
            return (UNCHANGED, "") if out is data else (MISMATCH, "changed a module with changes_module=False")
        expected = ast.dump(emit(tree, plan))
        out = emit_cst(data, plan)
        got = ast.dump(compile(out, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True))
    except CannotParse as e:
        return UNPARSED, str(e)
    except Exception as e:  # a bug in one of the emitters
        return ERROR, f"{type(e).__name__}: {e}"
    if got != expected:
        return MISMATCH, _first_difference(expected, got)
    return SAME, ""


def _first_difference(a: str, b: str) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"ast emitter: ...{a[max(0, i - 80):i + 80]}...\n  libcst emitter: ...{b[max(0, i - 80):i + 80]}..."


def compare_file(item: tuple[str, str]):
    path, top = item
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return path, SKIPPED, str(e), 0.0
    module, is_package = module_name(path, top)
    start = time.perf_counter()
    outcome, detail = compare_source(data, path, module, is_package)
    return path, outcome, detail, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument(
        "--only", choices=("stdlib", "site-packages"), default=None, help="one of the default roots"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--show", type=int, default=20, help="details of the first N failures")
    args = parser.parse_args(argv)
    if args.paths:
        items = [(f, p) for p in args.paths for f in (iter_files(p) if os.path.isdir(p) else [p])]
    else:
        roots = default_roots()
        if args.only:
            roots = roots[:1] if args.only == "stdlib" else roots[1:]
        items = [(f, top) for top, exclude in roots for f in iter_files(top, exclude)]
    counts = dict.fromkeys((SAME, UNCHANGED, SKIPPED, UNPARSED, MISMATCH, ERROR), 0)
    failures = []
    start = time.perf_counter()
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.imap_unordered(compare_file, items, chunksize=8)
            results = list(results)
    else:
        results = [compare_file(item) for item in items]
    for path, outcome, detail, _seconds in sorted(results):
        counts[outcome] += 1
        if outcome in (MISMATCH, ERROR):
            failures.append((path, outcome, detail))
    for path, outcome, detail in failures[: args.show]:
        print(f"{outcome}: {path}\n  {detail}\n")
    compared = counts[SAME] + counts[UNCHANGED] + counts[MISMATCH]
    print(
        f"python {sys.version.split()[0]}: {len(items)} files, {compared} compared "
        f"({counts[SAME]} rewritten and equal, {counts[UNCHANGED]} with nothing to rewrite), "
        f"{counts[SKIPPED]} skipped (compile() rejects them), {counts[UNPARSED]} libcst cannot "
        f"parse, {counts[MISMATCH]} mismatched, "
        f"{counts[ERROR]} errors, {time.perf_counter() - start:.1f} s"
    )
    return 1 if counts[MISMATCH] or counts[ERROR] else 0


if __name__ == "__main__":
    raise SystemExit(main())
