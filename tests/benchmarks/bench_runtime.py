"""Runtime benchmarks of lazify's mechanism, as ratios measured side by side.

Run: ``python tests/benchmarks/bench_runtime.py [--python PY ...] [--rounds N]``

For each interpreter:

1. hot loop calling a function of a lazily imported module, lazify / plain,
   both modules in one process, runs interleaved;
   and ``mod.attr`` loads from another module on a rewritten module with
   nothing pending, lazify / plain;
2. steady state: docutils rendering a document plus jinja2 rendering
   templates, every module of them rewritten, in-process time of the
   workload only (after warm-up), lazify process / plain process, paired by
   round;
3. start-up of a program whose imports are all used, warm cache;
4. cold cache (nothing cached, for either side) importing a large real
   package (docutils' whole HTML pipeline plus jinja2).

The machines are shared and noisy: every figure is a median of per-round
ratios, never an absolute time.  docutils and jinja2 are installed into a
throwaway venv per interpreter (under ``--work``), with lazify from this tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOT = r'''
import statistics, sys, time
import lazify
lazify.install(excluding={"hot_plain", "attr_plain", "tiny"})
import hot_plain, hot_lazy, attr_plain, attr_lazy, attr_user
hot_lazy.loop(10)          # first use resolves the lazy import
attr_lazy.tiny             # nothing pending any more
assert "__getattr__" not in vars(attr_lazy)
N = 100_000
def ratios(a, b, rounds):
    """Median over rounds of b/a, each round timed A B B A to cancel drift."""
    out = []
    clock = time.perf_counter
    for _ in range(rounds):
        t0 = clock(); a(); t1 = clock(); b(); t2 = clock(); b(); t3 = clock(); a(); t4 = clock()
        out.append(((t2 - t1) + (t3 - t2)) / ((t1 - t0) + (t4 - t3)))
    return statistics.median(out)
rounds = int(sys.argv[1])
hot = ratios(lambda: hot_plain.loop(N), lambda: hot_lazy.loop(N), rounds)
attr = ratios(lambda: attr_user.loop(attr_plain, N), lambda: attr_user.loop(attr_lazy, N), rounds)
print(f"{hot:.3f} {attr:.3f}")
'''

HOT_FILES = {
    "tiny.py": "def f(x):\n    return x\n",
    "hot_plain.py": "import tiny\ndef loop(n):\n    for i in range(n):\n        tiny.f(i)\n",
    "hot_lazy.py": "import tiny\ndef loop(n):\n    for i in range(n):\n        tiny.f(i)\n",
    "attr_plain.py": "import tiny\nX = 1\n",
    "attr_lazy.py": "import tiny\nX = 1\n",
    "attr_user.py": "def loop(m, n):\n    for i in range(n):\n        m.X; m.X; m.X; m.X\n",
}

STEADY = r'''
import sys, time
from workload import render
render()                     # warm-up: imports and first-use resolution
best = []
for _ in range(3):
    t0 = time.perf_counter()
    render()
    best.append(time.perf_counter() - t0)
print(min(best))
'''

WORKLOAD = r'''
import docutils.core
import jinja2

DOC = """
Title
=====

Some *emphasis*, **strong**, ``literal`` and a `link <https://example.org>`_.

.. note:: A note with a list:

   - one
   - two

=====  =====
a      b
=====  =====
1      2
=====  =====
""" * 8

ENV = jinja2.Environment(autoescape=True)
TEMPLATE = ENV.from_string(
    "{% for row in rows %}<tr>{% for c in row %}<td>{{ c|upper }}</td>{% endfor %}</tr>"
    "{% endfor %}{{ title|title }}")

def render():
    for _ in range(3):
        docutils.core.publish_string(DOC, writer_name="html5",
                                     settings_overrides={"report_level": 5})
    for _ in range(200):
        TEMPLATE.render(rows=[["a", "b", "c"]] * 20, title="hello world")
'''

STARTUP_APP = r'''
import docutils.core
import docutils.parsers.rst
import jinja2
import json
import email.message
import decimal

def main():
    json.dumps({"a": 1})
    email.message.EmailMessage()
    decimal.Decimal("1.5")
    jinja2.Environment()
    docutils.parsers.rst.Parser()
    docutils.core.publish_string("x", writer_name="null")
'''


def venv_python(work, python):
    tag = subprocess.run([python, "-c", "import sys; print('%d%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    venv = os.path.join(work, f"venv{tag}")
    bin_python = os.path.join(venv, "bin", "python")
    if not os.path.exists(bin_python):
        subprocess.run([python, "-m", "venv", venv], check=True)
        subprocess.run([bin_python, "-m", "pip", "install", "-q", "docutils==0.21.2",
                        "jinja2==3.1.6", "-e", ROOT], check=True)
    return bin_python, venv


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "LAZIFY_DEBUG")}
    env.update(extra or {})
    return env


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(textwrap.dedent(text))


def sitecustomize_dir(work):
    path = os.path.join(work, "site_lazify")
    write(path, {"sitecustomize.py": "import lazify\nlazify.install()\n"})
    return path


def timed(cmd, env, cwd):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"failed: {cmd}\n{proc.stderr}")
    return elapsed, proc.stdout


def bench_python(python, work, rounds):
    bin_python, venv = venv_python(work, python)
    site = sitecustomize_dir(work)
    results = {}
    # a cold run's rewrite at exit (detached) may still write into the tree at the end
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        # 1. hot loop and attribute loads, one process
        hot_dir = os.path.join(tmp, "hot")
        write(hot_dir, {**HOT_FILES, "hot_main.py": HOT})
        _, out = timed([bin_python, "hot_main.py", str(rounds)], clean_env(), hot_dir)
        hot, attr = map(float, out.split())
        results["hot_loop"] = hot
        results["module_attr"] = attr

        # 2. steady state, paired by round
        app = os.path.join(tmp, "app")
        write(app, {"workload.py": WORKLOAD, "steady.py": STEADY,
                    "startup_app.py": STARTUP_APP,
                    "startup.py": "import startup_app\nstartup_app.main()\n"})
        lazy_env = clean_env({"PYTHONPATH": site})
        plain_env = clean_env()
        for env in (plain_env, lazy_env):  # warm the caches
            timed([bin_python, "steady.py"], env, app)
            timed([bin_python, "startup.py"], env, app)
        steady = []
        for index in range(rounds):
            # alternate which side goes first, so drift cancels out
            order = (plain_env, lazy_env) if index % 2 == 0 else (lazy_env, plain_env)
            measured = {id(env): float(timed([bin_python, "steady.py"], env, app)[1])
                        for env in order}
            steady.append(measured[id(lazy_env)] / measured[id(plain_env)])
        results["steady_state"] = statistics.median(steady)

        # 3. start-up, every import used, warm cache
        startup = []
        for index in range(rounds):
            order = (plain_env, lazy_env) if index % 2 == 0 else (lazy_env, plain_env)
            measured = {id(env): timed([bin_python, "startup.py"], env, app)[0]
                        for env in order}
            startup.append(measured[id(lazy_env)] / measured[id(plain_env)])
        results["startup_all_used_warm"] = statistics.median(startup)

        # 4. cold cache: a fresh pycache prefix for both sides every run
        cold = []
        for index in range(max(3, rounds // 2)):
            prefix_plain = os.path.join(tmp, f"cold_plain{index}")
            prefix_lazy = os.path.join(tmp, f"cold_lazy{index}")
            plain = timed([bin_python, "startup.py"],
                          {**plain_env, "PYTHONPYCACHEPREFIX": prefix_plain}, app)[0]
            lazy = timed([bin_python, "startup.py"],
                         {**lazy_env, "PYTHONPYCACHEPREFIX": prefix_lazy}, app)[0]
            cold.append(lazy / plain)
            shutil.rmtree(prefix_plain, ignore_errors=True)
            shutil.rmtree(prefix_lazy, ignore_errors=True)
        results["startup_cold_cache"] = statistics.median(cold)
    version = subprocess.run([bin_python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    return version, results


def default_pythons():
    """CPython 3.11, 3.12 and 3.13 as pyenv provides them (else what is on PATH)."""
    found = []
    for version in ("3.11", "3.12", "3.13"):
        try:
            names = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True,
                                   text=True).stdout.split()
        except OSError:
            names = []
        match = sorted((n for n in names if n.startswith(version + ".")), reverse=True)
        if match:
            prefix = subprocess.run(["pyenv", "prefix", match[0]], capture_output=True,
                                    text=True).stdout.strip()
            found.append(os.path.join(prefix, "bin", "python"))
        elif shutil.which(f"python{version}"):
            found.append(shutil.which(f"python{version}"))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append",
                        help="interpreters to measure (default: 3.11, 3.12, 3.13 from pyenv)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "lazify-bench"))
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    pythons = args.python or default_pythons()
    table = {}
    for python in pythons:
        version, results = bench_python(python, args.work, args.rounds)
        table[version] = results
        print(version, json.dumps({k: round(v, 3) for k, v in results.items()}), flush=True)
    print()
    print("| Python | hot loop | mod.attr, nothing pending | steady state (docutils+jinja2) "
          "| start-up, all imports used, warm | start-up, cold cache |")
    print("|---|---|---|---|---|---|")
    for version, r in table.items():
        print(f"| {version} | {r['hot_loop']:.2f}x | {r['module_attr']:.2f}x | "
              f"{r['steady_state']:.2f}x | {r['startup_all_used_warm']:.2f}x | "
              f"{r['startup_cold_cache']:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
