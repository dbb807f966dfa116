"""Benchmark: ``lazify check`` against reading and ``compile()``-ing the same files.

Not a timed test; run it by hand with the Python whose standard library it measures
(python3.11 here), from the project root::

    python3 tests/benchmarks/bench_check.py [--rounds 5] [--profile]

In one process, over every ``.py`` file of the standard library except ``test/`` and
``site-packages``, interleaved ROUNDS times after one untimed warm-up round:

(a) read each file and ``compile()`` it (the baseline: what importing the sources costs);
(b) ``lazify._cli.main(["check", "--format", "json", *files])`` with stdout going to a
    sink that drops everything (the whole command: read, parse, plan, JSON).

Prints the median of the per-round ratios (b)/(a); the target is at most 3x.
``--profile`` then runs (b) once under cProfile and prints the top functions.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import sysconfig
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from lazify import _cli  # noqa: E402

TARGET = 3.0


class NullSink:
    """A text stream that drops what is written (cheaper than StringIO or /dev/null)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def stdlib_files() -> list[str]:
    stdlib = sysconfig.get_paths()["stdlib"]
    files = []
    for dirpath, dirnames, filenames in os.walk(stdlib):
        rel = os.path.relpath(dirpath, stdlib)
        if rel.split(os.sep)[0] in ("test", "site-packages") or "__pycache__" in rel:
            dirnames[:] = []
            continue
        dirnames.sort()
        files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return files


def read_and_compile(files: list[str]) -> None:
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        try:
            compile(data, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            pass  # lib2to3's Python 2 test data; check reports those files too


def check(files: list[str]) -> None:
    with contextlib.redirect_stdout(NullSink()):
        _cli.main(["check", "--format", "json", *files])


def timed(func, files) -> float:
    start = time.perf_counter()
    func(files)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile one check run afterwards")
    args = parser.parse_args(argv)

    files = stdlib_files()
    size = sum(os.path.getsize(p) for p in files)
    print(f"{sys.version.split()[0]}: {len(files)} files, {size / 1e6:.1f} MB, "
          f"{args.rounds} interleaved rounds after one warm-up")
    warnings.simplefilter("ignore")  # SyntaxWarnings of lib2to3's test data, in (a) and (b)
    read_and_compile(files)
    check(files)
    compile_times, check_times, ratios = [], [], []
    for i in range(args.rounds):
        a = timed(read_and_compile, files)
        b = timed(check, files)
        compile_times.append(a)
        check_times.append(b)
        ratios.append(b / a)
        print(f"  round {i + 1}: read+compile {a:.2f}s  check {b:.2f}s  ratio {b / a:.2f}")
    ratio = statistics.median(ratios)
    print(f"median: read+compile {statistics.median(compile_times):.2f}s, "
          f"check {statistics.median(check_times):.2f}s, "
          f"ratio check/compile {ratio:.2f} (target <= {TARGET:.0f}x: "
          f"{'ok' if ratio <= TARGET else 'OVER'})")

    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        check(files)
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
