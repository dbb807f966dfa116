"""Run the minimised repros of the sweep's differences, plain and lazified.

    python tests/compat/repro.py [--lazify CHECKOUT] [--dir REPROS] [NAME ...]

Each directory under ``tests/compat/repros/`` holds a few files and a
``main.py``.  The directory is copied to a fresh temporary directory and
``main.py`` runs three times: plain, lazified with a cold cache, and
lazified again with the cache the second run wrote (activation as in the
sweep: ``tests/compat/activate`` on ``PYTHONPATH``).  A repro whose
lazified output differs from the plain one prints DIFFERS.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPROS = os.path.join(HERE, "repros")


def env_for(lazify_root, lazy):
    env = dict(os.environ)
    for key in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH", "LAZIFY_DEBUG"):
        env.pop(key, None)
    paths = [lazify_root]
    if lazy:
        paths.insert(0, os.path.join(HERE, "activate"))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def run_one(name, lazify_root, repros=REPROS):
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, name)
        shutil.copytree(os.path.join(repros, name), work)
        outputs = []
        for label, lazy in (("plain", False), ("lazified cold", True), ("lazified warm", True)):
            if label == "plain":
                # the plain run must not leave a pyc the lazified runs could see
                env = env_for(lazify_root, False)
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            else:
                env = env_for(lazify_root, lazy)
            proc = subprocess.run([sys.executable, "main.py"], cwd=work, env=env,
                                  capture_output=True, text=True)
            text = proc.stdout.strip()
            if proc.returncode:
                last = proc.stderr.strip().splitlines()[-1:] or ["?"]
                text = f"{text}\n[exit {proc.returncode}] {last[0]}".strip()
            outputs.append((label, text))
    plain = outputs[0][1]
    differs = any(text != plain for _, text in outputs[1:])
    print(f"== {name}: {'DIFFERS' if differs else 'same'}")
    for label, text in outputs:
        print(f"  {label:14} | " + text.replace("\n", "\n  " + " " * 14 + " | "))
    return differs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lazify", default=ROOT, help="the lazify checkout to test")
    parser.add_argument("--dir", default=REPROS,
                        help="the directory of repros (default tests/compat/repros; the smoke "
                             "corpus has its own: tests/compat/smoke/repros)")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    names = args.names or sorted(os.listdir(args.dir))
    differing = [n for n in names if run_one(n, os.path.abspath(args.lazify), args.dir)]
    print(f"\n{len(differing)} of {len(names)} repros differ: {' '.join(differing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
