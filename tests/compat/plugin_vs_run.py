"""The pytest plugin against ``lazify run``, on the pinned third-party suites.

Run: ``python tests/compat/plugin_vs_run.py --workdir DIR --only click,jinja2,attrs``

For each project (its venv and sdist prepared by ``run.py --setup-only`` in the same
``--workdir``), its suite runs twice from the unpacked sdist: ``python -m lazify run -m
pytest`` and ``python -m pytest --lazify --lazify-report=FILE``, each with a junit xml.
Printed per project: the outcome counts of both, the test cases whose outcome differs
(there should be none), and the plugin's summary section.  Exit 1 on a difference.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as compat  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--only", default="click,jinja2,attrs")
    parser.add_argument("--timeout", type=int, default=1500)
    args = parser.parse_args(argv)
    status = 0
    for name in [x.strip() for x in args.only.split(",") if x.strip()]:
        spec = compat.PROJECTS[name]
        base = os.path.join(args.workdir, "thirdparty", name)
        src = os.path.join(base, f"{name}-{spec['version']}")
        py = compat.venv_python(os.path.join(base, "venv"))
        outcomes = {}
        for mode in ("run", "plugin"):
            xml = os.path.join(base, f"{mode}.xml")
            log = os.path.join(base, f"{mode}.log")
            pytest = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--junit-xml", xml,
                      *spec.get("args", ()), spec["tests"]]
            env = compat.base_env()
            env["LAZIFY_STRICT"] = "1"
            if mode == "run":
                cmd = [py, "-m", "lazify", "run", *pytest]
            else:
                cmd = [py, *pytest, "--lazify",
                       f"--lazify-report={os.path.join(base, 'lazify-report.json')}"]
            rc, seconds = compat.run(cmd, cwd=src, env=env, log=log, timeout=args.timeout)
            outcomes[mode] = compat.parse_junit(xml) if os.path.exists(xml) else {}
            counts = collections.Counter(outcomes[mode].values())
            print(f"{name} {mode:<6} rc={rc} {seconds:6.1f}s {dict(sorted(counts.items()))}")
        differ = {tid: (outcomes["run"].get(tid), outcomes["plugin"].get(tid))
                  for tid in set(outcomes["run"]) | set(outcomes["plugin"])
                  if outcomes["run"].get(tid) != outcomes["plugin"].get(tid)}
        for tid, (a, b) in sorted(differ.items()):
            print(f"  differs: {tid}: lazify run {a}, pytest --lazify {b}")
        if differ:
            status = 1
        with open(os.path.join(base, "plugin.log")) as f:
            text = f.read()
        section = text[text.find("- lazify -") - 40:] if "- lazify -" in text else ""
        print(section.rstrip().split("\n=")[0] if section else "  (no lazify section)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
