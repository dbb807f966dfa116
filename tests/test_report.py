"""``lazify report``: the runs, the data, the page; the page in a real browser."""

from __future__ import annotations

import html.parser
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from lazify import _report, _report_html
from tests import _browser
from tests._sample import full_only
from tests._util import ROOT, child_env, run_python, tool_beside_python

EXAMPLES = os.path.join(ROOT, "examples")


def write(root, relpath: str, text: str) -> str:
    path = os.path.join(str(root), relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(textwrap.dedent(text))
    return path


def report(args, cwd, input=None, env_extra=None):
    """Run ``lazify report --format json --rounds 0 ARGS`` in a child (a warm-up and a
    traced run per mode, nothing timed; a later ``--rounds`` in ARGS wins); (process, data)."""
    proc = run_python(["-m", "lazify", "report", "--format", "json", "--rounds", "0", *args],
                      cwd=cwd, input=input, env_extra=env_extra, timeout=300)
    data = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc, data


def names(tree):
    return {node["name"]: node for node, _parent in _report.tree_nodes(tree)}


# ------------------------------------------------------------------- importtime


IMPORTTIME = """\
import time: self [us] | cumulative | imported package
import time:        50 |         50 |   _io
import time:        10 |         60 | _frozen_importlib_external
a line the program wrote
import time:         5 |          5 |     c
import time:         7 |         12 |   b
import time:         3 |         15 | a
import time:         4 |          4 |   half
"""


def test_importtime_tree_and_other_lines():
    roots, other = _report.parse_importtime(IMPORTTIME)
    assert [r["name"] for r in roots] == ["_frozen_importlib_external", "a", "half"]
    assert roots[0]["children"][0] == {"name": "_io", "self_us": 50, "cum_us": 50, "children": []}
    (b,) = roots[1]["children"]
    assert (b["name"], b["self_us"], b["cum_us"]) == ("b", 7, 12)
    assert [c["name"] for c in b["children"]] == ["c"]
    # "half" never finished its parent (a process killed mid-import): a root
    assert other == ["a line the program wrote"]


def test_importtime_of_a_real_interpreter():
    proc = run_python(["-X", "importtime", "-c", "import json"])
    roots, _other = _report.parse_importtime(proc.stderr)
    found = names(roots)
    assert "json" in found and "json.decoder" in found
    for node in found.values():
        assert node["cum_us"] >= node["self_us"] >= 0
        assert node["cum_us"] >= sum(c["cum_us"] for c in node["children"])


def test_count_leaves_out_imports_that_failed():
    """``-X importtime`` lists an import that raised (``nt`` on POSIX, tried by
    ``ntpath``); a module not in ``sys.modules`` at exit is marked failed, not counted."""
    roots, _other = _report.parse_importtime(
        "import time:        50 |         50 |   nt\n"
        "import time:        10 |         60 | ntpath\n")
    assert _report._count(roots, {"modules": ["ntpath"]}) == 1
    tree = names(roots)
    assert tree["nt"]["failed"] is True and "failed" not in tree["ntpath"]
    # no state from the process: every name counts
    assert _report._count(_report.parse_importtime(IMPORTTIME)[0], None) == 6


def node(name, *children, cum=None):
    return {"name": name, "self_us": 10, "children": list(children),
            "cum_us": cum if cum is not None else 10 + sum(c["cum_us"] for c in children)}


def test_targets_of_a_statement():
    targets = _report._targets
    assert targets("import a.b.c", "m", "/m.py", {}) == ["a", "a.b.c"]
    assert targets("import json as j", "m", "/m.py", {}) == ["json"]
    assert targets("from .types import Choice as Choice", "click", "/c/click/__init__.py",
                   {}) == ["click.types", "click.types.Choice"]
    assert targets("from .. import x, y", "p.q.r", "/p/q/r.py", {}) == ["p", "p.x", "p.y"]
    assert targets("from .cli import main", "__main__", "/app/heavy/__main__.py",
                   {"heavy": "/app/heavy/__init__.py"}) == ["heavy.cli", "heavy.cli.main"]
    assert targets("from ... import x", "a.b", "/a/b.py", {}) == []


def test_what_a_resolution_imported():
    """A resolved deferred import explains the module it names, never a package above
    its own module (imported before it: black's console script imports black, whose
    `from black.const import X` resolves later)."""
    plain = [node("site"), node("pkg", node("pkg.const"), node("pkg.big"))]
    lazy = [node("site"), node("pkg", node("pkg.const"))]
    state = {"modules": {"pkg": "/nowhere/pkg/__init__.py", "pkg.const": "/nowhere/pkg/const.py"},
             "deferred": [
                 {"module": "pkg", "file": "/nowhere/pkg/__init__.py", "line": 1, "name": "X",
                  "statement": "from pkg.const import X", "resolved": True,
                  "first_use": {"file": "/nowhere/pkg/__init__.py", "line": 9}},
                 {"module": "pkg", "file": "/nowhere/pkg/__init__.py", "line": 2, "name": "big",
                  "statement": "import pkg.big", "resolved": False, "first_use": None},
                 {"module": "pkg.const", "file": "/nowhere/pkg/const.py", "line": 1,
                  "name": "pkg", "statement": "import pkg", "resolved": True,
                  "first_use": {"file": "/nowhere/pkg/const.py", "line": 5}}]}
    _eager, deferred = _report._classify(plain, lazy, state, None, "rewrite")
    p, z = names(plain), names(lazy)
    assert z["site"]["status"] == "startup"
    assert z["pkg"]["status"] == "eager" and z["pkg"]["reason"] == "top-level"
    assert z["pkg.const"]["status"] == "resolved"
    assert z["pkg.const"]["first_use"] == {"file": "/nowhere/pkg/__init__.py", "line": 9}
    assert p["pkg.big"]["status"] == "not-imported" and p["pkg.const"]["status"] == "resolved"
    assert [d["resolved"] for d in deferred] == [True, False, True]
    # python -S: no site, nothing is start-up
    bare = [node("pkg")]
    _report._classify([], bare, {"modules": {}, "deferred": []}, None, "rewrite")
    assert bare[0]["status"] == "eager"


# ---------------------------------------------------------------- the command


def test_heavyapp(heavyapp_report):
    data, _page = heavyapp_report
    s = data["summary"]
    assert s["ok"] and s["same_output"] and s["exit_plain"] == 0 == s["exit_lazy"]
    assert data["runs"]["plain"]["stdout_tail"] == data["runs"]["lazy"]["stdout_tail"]
    assert data["runs"]["lazy"]["stdout_tail"] == "   2  a\n   1  b\n"
    assert s["modules_lazy"] < s["modules_plain"]
    # failed imports are in -X importtime's list, not in the count (test_count_...)
    tree = names(data["runs"]["plain"]["tree"])
    assert s["modules_plain"] == len([n for n in tree.values() if not n.get("failed")])
    for key in ("time_plain_ms", "time_lazy_ms", "peak_rss_plain_mib", "peak_rss_lazy_mib",
                "import_time_plain_ms", "import_time_lazy_ms"):
        assert s[key] > 0, key
    plain, lazy = names(data["runs"]["plain"]["tree"]), names(data["runs"]["lazy"]["tree"])
    # the other commands' dependencies: imported plainly, never with lazify
    for module in ("asyncio", "http.client", "xml.dom.minidom", "email.message"):
        assert plain[module]["status"] == "not-imported"
        assert module not in lazy
    # what `db` uses is imported in both; lazify's own modules only in the lazy run
    assert "sqlite3" in plain and "sqlite3" in lazy
    assert lazy["lazify"]["status"] == "lazify" and "lazify" not in plain
    # dbstats uses sqlite3 at import time, on purpose: an eager cost, with its statement
    rows = {row["module"]: (group["reason"], row) for group in data["eager"]
            for row in group["imports"]}
    # python -m heavyapp: runpy imports the package before __main__ runs
    assert rows["heavyapp"][0] == "top-level" and rows["heavyapp"][1]["importer"] == "runpy"
    reason, row = rows["sqlite3"]
    assert reason == "read-at-import"     # the planner keeps it eager: read right after
    assert row["site"]["statement"] == "import sqlite3"
    assert row["site"]["file"].endswith(os.path.join("commands", "dbstats.py"))
    assert row["cost_us"] == lazy["sqlite3"]["cum_us"] > 0
    costs = [g["cost_us"] for g in data["eager"]]
    assert costs == sorted(costs, reverse=True)
    # the runtime's record: what was deferred, what first used it, what nothing needed
    deferred = {d["statement"]: d for d in data["deferred"] if d["module"] == "heavyapp.cli"}
    cli = os.path.join(EXAMPLES, "heavyapp", "cli.py")
    assert deferred["import argparse"]["file"] == cli and deferred["import argparse"]["line"] == 3
    assert deferred["import argparse"]["targets"] == ["argparse"]
    assert deferred["import argparse"]["resolved"] is True
    assert s["deferred"] == len(data["deferred"])
    assert s["resolved"] + s["never_needed"] == s["deferred"] and s["never_needed"] >= 1
    assert lazy["argparse"]["status"] == plain["argparse"]["status"] == "resolved"
    if data["mechanism"] == "rewrite":
        # one entry per name: the command that ran was needed, the other five never
        assert deferred["from .commands import dbstats"]["resolved"] is True
        assert "heavyapp.commands.dbstats" in deferred["from .commands import dbstats"]["targets"]
        for unused in ("headers", "mail", "serve", "total", "xmlfmt"):
            assert deferred[f"from .commands import {unused}"]["resolved"] is False
        # the first use: the line of build_parser() that reads argparse
        use = deferred["import argparse"]["first_use"]
        assert use["file"] == cli
        with open(cli, encoding="utf-8") as f:
            assert "argparse." in f.read().splitlines()[use["line"] - 1]
        assert lazy["argparse"]["first_use"] == use
    else:   # native: the interpreter says nothing when it resolves a lazy import
        assert deferred["import argparse"]["first_use"] is None


def test_eager_reason_from_check(tmp_path):
    write(tmp_path, "app/__init__.py", "")
    write(tmp_path, "app/__main__.py", """\
        from app import mod
        print(mod.VALUE)
    """)
    write(tmp_path, "app/mod.py", """\
        try:
            import json
        except ImportError:
            json = None
        import decimal
        VALUE = 1
    """)
    proc, data = report(["--", sys.executable, "-m", "app"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    groups = {g["reason"]: g for g in data["eager"]}
    (row,) = [r for r in groups["try"]["imports"] if r["module"] == "json"]
    assert row["importer"] == "app.mod" and row["site"]["line"] == 2
    assert groups["try"]["words"] == "inside try/except/else/finally"
    # decimal is lazy and never used: not imported at all with lazify
    assert names(data["runs"]["plain"]["tree"])["decimal"]["status"] == "not-imported"
    assert "decimal" not in names(data["runs"]["lazy"]["tree"])


def test_a_failing_command_is_reported(tmp_path):
    write(tmp_path, "fails.py", """\
        import sys
        print("about to fail", file=sys.stderr)
        sys.exit(3)
    """)
    out = tmp_path / "r.html"
    proc = run_python(["-m", "lazify", "report", "--rounds", "0", "-o", str(out), "--",
                       sys.executable, "fails.py"], cwd=tmp_path)
    assert proc.returncode == 1
    assert "problem: the plain run exited with status 3" in proc.stderr
    page = out.read_text(encoding="utf-8")
    assert 'class="status bad"' in page and "the lazy run exited with status 3" in page
    assert "<pre>about to fail</pre>" in page


def test_a_command_printing_differently_is_reported(tmp_path):
    write(tmp_path, "differs.py", """\
        import sys
        import lazify_report_probe
        print("probe" if "lazify_report_probe" in sys.modules else "no probe")
    """)
    write(tmp_path, "lazify_report_probe.py", "")
    write(tmp_path, "main.py", """\
        import runpy
        runpy.run_module("differs_mod", run_name="__main__")
    """)
    # a module (rewritten by lazify) whose output depends on an import being deferred
    write(tmp_path, "differs_mod.py", """\
        import sys
        import lazify_report_probe
        print("probe" if "lazify_report_probe" in sys.modules else "no probe")
    """)
    proc, data = report(["--", sys.executable, "main.py"], cwd=tmp_path)
    assert proc.returncode == 1
    assert data["summary"]["same_output"] is False and data["summary"]["ok"] is False
    (diff,) = data["output"]["differences"]
    assert diff == {"what": "stdout", "plain": "probe\n", "lazy": "no probe\n"}
    assert "printed differently" in " ".join(data["problems"])


@pytest.fixture(scope="module")
def environment_report(tmp_path_factory):
    """One report of a program that prints what it sees of its environment, run with
    LAZIFY=1, PYTHONDONTWRITEBYTECODE=1 (lazify's cache stays cold) and a PYTHONPATH
    holding a sitecustomize of the user's: (process, data, PYTHONPATH). show.py imports
    mod, which imports json and never uses it."""
    root = tmp_path_factory.mktemp("environment")
    custom = root / "custom"
    write(custom, "sitecustomize.py", "import sys; sys.stderr.write('user sitecustomize\\n')\n")
    write(root, "show.py", """\
        import os, sys
        import mod
        print(os.environ.get("PYTHONPATH"))
        print(sorted(k for k in os.environ if k.startswith("LAZIFY_REPORT") or k == "PYTHONPROFILEIMPORTTIME"))
        print([p for p in sys.path if "lazify-report-" in p])
        print("sitecustomize" in sys.modules)
        print(os.environ.get("LAZIFY"))
    """)
    write(root, "mod.py", "import json\n")
    pythonpath = os.pathsep.join([ROOT, str(custom)])
    proc, data = report(["--", sys.executable, "show.py"], cwd=root,
                        env_extra={"PYTHONPATH": pythonpath, "LAZIFY": "1",
                                   "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    return proc, data, pythonpath


def test_the_program_sees_its_own_environment(environment_report):
    """PYTHONPATH, sys.path, the report's variables: as without the report; a
    sitecustomize of the user's still runs, in both runs."""
    _proc, data, pythonpath = environment_report
    assert data["runs"]["lazy"]["stdout_tail"] == f"{pythonpath}\n[]\n[]\nTrue\n1\n"
    assert data["runs"]["plain"]["stderr_tail"] == "user sitecustomize"
    assert data["runs"]["lazy"]["stderr_tail"] == "user sitecustomize"


def test_usage_errors(tmp_path):
    proc = run_python(["-m", "lazify", "report"], cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == \
        "lazify report: no command given (lazify report -- CMD ARGS...)"
    proc = run_python(["-m", "lazify", "report", "--", "no-such-command-x"], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("lazify report: command not found: no-such-command-x "
                                   f"(not on PATH nor in {os.path.dirname(sys.executable)})")
    # an output that cannot be written is said before the command runs at all, not
    # after its runs (the command leaves a file each time it runs)
    ran = tmp_path / "ran"
    for output, why in ((tmp_path / "missing" / "r.html", "No such file or directory"),
                        (tmp_path, "Is a directory")):
        proc = run_python(["-m", "lazify", "report", "-o", str(output), "--rounds", "0", "--",
                           sys.executable, "-c", f"open({str(ran)!r}, 'a').close()"],
                          cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr == f"lazify report: cannot write {output}: {why}\n"
        assert not ran.exists()


def test_a_command_beside_the_interpreter(tmp_path):
    """``venv/bin/lazify report -- mytool`` from a shell that never activated the venv:
    found where pip installed it, beside lazify, as ``lazify run`` finds it."""
    python = tool_beside_python(tmp_path / "bin", "mytool", "import json\nprint('ok')\n")
    proc = subprocess.run([python, "-m", "lazify", "report", "--format", "json", "--rounds",
                           "0", "--", "mytool"], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env({"PATH": "/usr/bin:/bin", "PYTHONPATH": ROOT}),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"]["lazy"]["stdout_tail"] == "ok\n"


def test_json_to_a_closed_pipe(tmp_path):
    """``lazify report --format json | head -1``: no traceback."""
    import subprocess

    from tests._util import child_env

    proc = subprocess.run(
        f"{sys.executable} -m lazify report --format json --rounds 0 -- {sys.executable} -c pass | head -c 10",
        shell=True, cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)
    assert proc.stdout == '{\n "lazify'
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


# ------------------------------------------------------------------------ page


class _Headline(html.parser.HTMLParser):
    """``data-key`` -> text of the page's headline figures; external resources."""

    def __init__(self):
        super().__init__()
        self.figures, self.external, self._key = {}, [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "data-key" in attrs:
            self._key = attrs["data-key"]
            self.figures[self._key] = ""
        for name in ("src", "href"):
            if attrs.get(name) and "//" in attrs[name]:
                self.external.append(attrs[name])
        if tag == "link":
            self.external.append(str(attrs))

    def handle_data(self, data):
        if self._key is not None:
            self.figures[self._key] += data

    def handle_endtag(self, tag):
        self._key = None


def headline_matches(page: str, summary: dict):
    parser = _Headline()
    parser.feed(page)
    assert not parser.external
    assert parser.figures, "no headline figures on the page"
    for key, text in parser.figures.items():
        value = summary[key]
        assert text == ("n/a" if value is None else str(value)), key
    assert {"time_plain_ms", "time_lazy_ms", "modules_plain", "modules_lazy",
            "peak_rss_plain_mib", "peak_rss_lazy_mib"} <= set(parser.figures)


@pytest.fixture(scope="module")
def heavyapp_report(tmp_path_factory):
    """One real report (JSON) of ``heavyapp db a b a`` and its page written from it."""
    root = tmp_path_factory.mktemp("report")
    proc = run_python(["-m", "lazify", "report", "--format", "json", "--rounds", "2",
                       "-o", str(root / "report.json"), "--", sys.executable, "-m", "heavyapp",
                       "db", "a", "b", "a"],
                      cwd=EXAMPLES, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((root / "report.json").read_text(encoding="utf-8"))
    page = root / "report.html"
    page.write_text(_report_html.render(data), encoding="utf-8")
    return data, page


def test_page_is_self_contained_and_shows_the_json(heavyapp_report):
    data, page = heavyapp_report
    text = page.read_text(encoding="utf-8")
    headline_matches(text, data["summary"])
    assert "<script src" not in text and "@import" not in text and "url(" not in text
    # what the JSON has is in the page: the eager groups, the command
    for group in data["eager"]:
        assert f'data-reason="{group["reason"]}"' in text
    assert "heavyapp" in text


def synthetic_report(tree_plain, tree_lazy, **summary):
    """A report dict as analyse() makes it, around two given trees."""
    data = {"summary": {k: None for k in ("time_plain_ms", "time_lazy_ms", "speedup",
                                          "modules_plain", "modules_lazy",
                                          "peak_rss_plain_mib", "peak_rss_lazy_mib",
                                          "import_time_plain_ms", "import_time_lazy_ms")},
            "spread": {k: {"plain": {}, "lazy": {}} for k in ("time_ms", "peak_rss_mib",
                                                               "import_time_ms")},
            "command": ["python", "</script><b>x"], "cwd": "/", "python": "3", "mechanism": "rewrite",
            "created": "now", "problems": ["<i>bad</i>"], "output": {"differences": [], "compared": "output"},
            "runs": {"plain": {"tree": tree_plain}, "lazy": {"tree": tree_lazy}},
            "eager": [], "deferred": [], "notes": []}
    data["summary"].update(ok=False, rounds=1, deferred=0, resolved=0, never_needed=0)
    data["summary"].update(summary)
    return data


def test_page_escapes_what_it_shows():
    data = synthetic_report([], [{"name": "</script>", "self_us": 1, "cum_us": 1,
                                  "children": [], "status": "eager"}])
    page = _report_html.render(data)
    assert "</script><b>" not in page and "<i>bad</i>" not in page
    assert page.count("</script>") == 2


# ------------------------------------------------------------- in a browser


def dump_dom(page) -> tuple[str, list[str]]:
    browser = _browser.chromium()
    proc = _browser.run_browser(browser, page.as_uri(), "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, _browser.console_errors(proc.stderr)


@pytest.fixture(scope="module")
def heavyapp_in_a_browser(heavyapp_report, tmp_path_factory):
    """One browser run on the heavyapp page opened on a module (``#module=``): its
    process (the DOM on stdout, the console on stderr) and its screenshot's PNG bytes."""
    _data, page = heavyapp_report
    png = tmp_path_factory.mktemp("browser") / "shot.png"
    proc = _browser.run_browser(_browser.chromium(), page.as_uri() + "#module=argparse",
                                "--dump-dom", f"--screenshot={png}", "--window-size=1100,900")
    assert proc.returncode == 0 and png.exists(), proc.stderr[-2000:]
    return proc, png.read_bytes()


def test_page_in_a_browser(heavyapp_report, heavyapp_in_a_browser):
    data, _page = heavyapp_report
    proc, _png = heavyapp_in_a_browser
    assert _browser.console_errors(proc.stderr) == []
    dom = proc.stdout
    assert 'data-rendered="ok"' in dom.split(">", 2)[1]
    assert '<div id="errors"></div>' in dom
    headline_matches(dom, data["summary"])


def test_page_opens_on_a_module(heavyapp_report, heavyapp_in_a_browser):
    """``#module=NAME`` selects an import as a click does: its details below the charts."""
    data, _page = heavyapp_report
    proc, _png = heavyapp_in_a_browser
    assert _browser.console_errors(proc.stderr) == []
    details = proc.stdout.split('<div id="details">', 1)[1].split("</div>", 1)[0]
    node = [n for n, _p in _report.tree_nodes(data["runs"]["lazy"]["tree"]) if n["name"] == "argparse"][0]
    assert details.startswith("lazy run: argparse\n")
    assert f"cumulative {node['cum_us'] / 1000:.2f} ms" in details or \
        f"cumulative {node['cum_us'] / 1000:.1f} ms" in details
    if data["mechanism"] == "rewrite":
        assert node["status"] == "resolved"
        use = node["first_use"]
        assert f"first used at {use['file']}:{use['line']}" in details


@full_only
def test_page_of_2000_modules(tmp_path):
    """2,000 imports per run, nested 12 deep: drawn, with no console error."""
    def tree(count, depth, status):
        nodes, made = [], 0
        while made < count:
            chain, parent = None, None
            for level in range(depth):
                node = {"name": f"pkg{made // depth}.m{level}", "self_us": 50 + made % 97,
                        "cum_us": 0, "children": [], "status": status if level % 3 else "eager"}
                made += 1
                if parent is None:
                    chain = node
                else:
                    parent["children"].append(node)
                parent = node
            nodes.append(chain)
        for node, _parent in reversed(list(_report.tree_nodes(nodes))):
            node["cum_us"] = node["self_us"] + sum(c["cum_us"] for c in node["children"])
        return nodes

    data = synthetic_report(tree(2004, 12, "not-imported"), tree(1008, 12, "resolved"),
                            ok=True, modules_plain=2004, modules_lazy=1008)
    data["output"]["compared"] = "output"
    data["summary"]["exit_plain"] = data["summary"]["exit_lazy"] = 0
    page = tmp_path / "big.html"
    page.write_text(_report_html.render(data), encoding="utf-8")
    dom, errors = dump_dom(page)
    assert errors == [] and 'data-rendered="ok"' in dom.split(">", 2)[1]
    counts = _browser.colour_counts(screenshot(page, tmp_path))
    for status in ("eager", "not-imported", "resolved"):
        assert _browser.near(counts, _report_html.STATUSES[status][1]) > 1000, status


@full_only
def test_console_errors_are_seen(tmp_path):
    """The checks above fail for a page whose script fails."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>null.x;</script></body></html>",
                    encoding="utf-8")
    _dom, errors = dump_dom(page)
    assert errors and "Uncaught" in errors[0]


def screenshot(page, tmp_path, size="1100,900") -> bytes:
    browser = _browser.chromium()
    png = tmp_path / "shot.png"
    proc = _browser.run_browser(browser, page.as_uri(), f"--screenshot={png}",
                                f"--window-size={size}")
    assert proc.returncode == 0 and png.exists(), proc.stderr[-2000:]
    return png.read_bytes()


def test_screenshot_is_not_blank(heavyapp_report, heavyapp_in_a_browser):
    _data, _page = heavyapp_report
    counts = _browser.colour_counts(heavyapp_in_a_browser[1])
    assert len(counts) > 50
    total = sum(counts.values())
    background = max(counts.values())
    assert total - background > total // 10
    # the icicles are drawn: boxes of eager, not-imported and start-up imports
    for status in ("eager", "not-imported", "startup") + \
            (("resolved",) if _data["mechanism"] == "rewrite" else ()):
        colour = _report_html.STATUSES[status][1]
        assert _browser.near(counts, colour) > 500, status


@full_only
def test_a_blank_screenshot_is_seen(tmp_path):
    """The check above fails on an empty picture."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    counts = _browser.colour_counts(screenshot(page, tmp_path, size="300,200"))
    assert len(counts) == 1
    assert _browser.near(counts, _report_html.STATUSES["eager"][1]) == 0


def test_importtime_lists_a_deferred_submodule_import(tmp_path):
    """``from pkg import sub`` resolved by lazify shows ``pkg.sub`` in ``-X importtime``,
    as the eager statement does (it did not: lazify imported it with ``_gcd_import``)."""
    write(tmp_path, "app/__init__.py", "")
    write(tmp_path, "app/mod.py", "VALUE = 1\n")
    write(tmp_path, "main.py", """\
        import lazify
        lazify.install()
        import app
        import use
    """)
    write(tmp_path, "use.py", """\
        from app import mod
        print(mod.VALUE)
    """)
    for args in (["main.py"], ["use.py"]):
        proc = run_python(["-X", "importtime", *args], cwd=tmp_path, check=True)
        assert proc.stdout == "1\n"
        assert "app.mod" in names(_report.parse_importtime(proc.stderr)[0]), args


SID_315 = "/opt/sid-python/3.15/bin/python3.15"


@pytest.mark.skipif(not os.path.exists(SID_315) or sys.version_info[:2] == (3, 15),
                    reason="needs a Python 3.15 beside the one running the tests")
def test_a_command_on_another_python_is_planned_by_that_python(tmp_path):
    """The command's interpreter plans its modules: 3.15 syntax (``lazy import``) is
    no SyntaxError for a report run by an older Python."""
    write(tmp_path, "app/__init__.py", "")
    write(tmp_path, "app/__main__.py", """\
        from app import mod
        print(mod.VALUE)
    """)
    write(tmp_path, "app/mod.py", """\
        lazy import decimal
        try:
            import json
        except ImportError:
            json = None
        VALUE = 1
    """)
    proc, data = report(["--", SID_315, "-m", "app"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert data["python"].startswith("3.15")
    groups = {g["reason"]: g for g in data["eager"]}
    (row,) = [r for r in groups["try"]["imports"] if r["module"] == "json"]
    assert row["site"]["statement"] == "import json" and row["site"]["line"] == 3


def test_a_killed_command_is_reported(tmp_path):
    write(tmp_path, "killed.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    proc, data = report(["--", sys.executable, "killed.py"], cwd=tmp_path)
    assert proc.returncode == 1
    assert "the plain run was killed by signal 9" in data["problems"]


def test_peak_memory_is_the_programs(tmp_path):
    write(tmp_path, "big.py", "block = bytearray(96 << 20)\n")
    write(tmp_path, "small.py", "pass\n")
    _proc, big = report(["--rounds", "1", "--", sys.executable, "big.py"], cwd=tmp_path)
    # the report's own size is not the program's (fork then exec: the kernel's
    # ru_maxrss of the child counts the parent's pages it had before exec)
    proc = run_python(["-c", "ballast = b'x' * (128 << 20)\n"
                             "from lazify._cli import main\n"
                             "raise SystemExit(main(['report', '--format', 'json', '--rounds', '1',"
                             f" '--', {sys.executable!r}, 'small.py']))"], cwd=tmp_path, timeout=300)
    small = json.loads(proc.stdout)
    for mode in ("plain", "lazy"):
        assert big["summary"][f"peak_rss_{mode}_mib"] > 96
        assert small["summary"][f"peak_rss_{mode}_mib"] < 60


def test_record_first_use_through_a_modules_own_getattr(tmp_path):
    """A name read from outside a package whose own ``def __getattr__`` answers it
    (lazify's prologue): the record's first use is the reader's line, not
    ``__getattr__`` (click's names were all "first used" in click/__init__.py)."""
    write(tmp_path, "pkg/__init__.py", """\
        from .sub import VALUE
        def __getattr__(name):
            raise AttributeError(name)
    """)
    write(tmp_path, "pkg/sub.py", "VALUE = 42\n")
    write(tmp_path, "user.py", """\
        import pkg

        def show():
            return pkg.VALUE
    """)
    proc = run_python(textwrap.dedent("""\
        import lazify
        lazify.install(mechanism="rewrite")
        from lazify import _import_record
        _import_record.start()
        import user
        print(user.show())
        for entry in _import_record.snapshot()["deferred"]:
            print(entry["module"], entry["line"], entry["statement"], entry["first_use"])
    """), cwd=tmp_path, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "42"
    user = os.path.join(str(tmp_path), "user.py")
    assert f"pkg 1 from .sub import VALUE {{'file': {user!r}, 'line': 4}}" in lines


def test_a_cold_lazify_cache_is_noted(heavyapp_report, environment_report):
    warm, _page = heavyapp_report      # the warm-up runs filled the cache
    assert not [n for n in warm["notes"] if "lazify._rewrite" in n]
    _proc, cold, _pythonpath = environment_report     # mod is rewritten at every run
    assert any("PYTHONDONTWRITEBYTECODE is set" in n for n in cold["notes"])
    assert any("lazify._rewrite" in n for n in cold["notes"])


def test_modules_served_plain_in_the_lazy_run_are_noted(tmp_path):
    """A container's PYTHONDONTWRITEBYTECODE over modules with plain pycs (as pip installs
    them) and no lazify cache: the lazy run imports them eagerly, and the report says how
    many and why, on the page and after the summary line, not only that it was slower."""
    write(tmp_path, "app.py", "import dep\nprint(dep.f())\n")
    dep = write(tmp_path, "dep.py", "import json\n\ndef f():\n    return 1\n")
    old = time.time() - 3600         # as pip leaves it: a source written just now is not cached
    os.utime(dep, (old, old))
    run_python(["-c", "import dep"], cwd=tmp_path, check=True)        # dep's plain pyc
    # LAZIFY_DEFER_REWRITE unset: a user's default (the scenarios rewrite misses at once)
    proc, data = report(["--", sys.executable, "app.py"], cwd=tmp_path,
                        env_extra={"PYTHONDONTWRITEBYTECODE": "1", "LAZIFY_DEFER_REWRITE": None})
    assert proc.returncode == 0, proc.stderr
    noted = [n for n in data["notes"] if "missing from lazify's bytecode cache" in n]
    assert len(noted) == 1 and noted[0].startswith("1 module of the lazy run"), data["notes"]
    assert f"lazify report: note: {noted[0]}" in proc.stderr.splitlines()
    # and none where the warm-up run filled the cache
    proc, data = report(["--", sys.executable, "app.py"], cwd=tmp_path,
                        env_extra={"LAZIFY_DEFER_REWRITE": None})
    assert not [n for n in data["notes"] if "missing from" in n], data["notes"]


@pytest.mark.parametrize("user", [None, "1"])
def test_the_lazy_warm_up_rewrites_its_cache_misses_at_once(tmp_path, user):
    """The lazy warm-up run fills lazify's cache before the measured runs, not through a
    rewriter still running after it exits; the measured runs keep the user's default,
    and a LAZIFY_DEFER_REWRITE the user set is kept everywhere."""
    site = _report._site_dir()
    try:
        probe = "from lazify import _hook; print(_hook._deferring())"
        base = child_env({"LAZIFY_DEFER_REWRITE": user})
        seen = []
        for warm_up in (True, False):
            env = _report._environment(base, site, "lazy", False, None, None, warm_up=warm_up)
            proc = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, proc.stderr
            seen.append(proc.stdout.strip())
    finally:
        shutil.rmtree(site, ignore_errors=True)
    assert seen == (["where-uncached", "True"] if user is None else ["True", "True"])


@pytest.mark.skipif(sys.version_info >= (3, 15), reason="the native mechanism is there")
def test_lazify_that_cannot_be_activated_is_reported(tmp_path):
    """lazify failing to install in the command's Python gives one problem line and
    exit status 1, after one run of each mode."""
    write(tmp_path, "app.py", "print(1)\n")
    proc, data = report(["--mechanism", "native", "--", sys.executable, "app.py"], cwd=tmp_path)
    assert proc.returncode == 1
    (problem,) = data["problems"]
    assert problem.startswith("lazify was not active in the lazy run: ValueError: ")
    assert "native" in problem and "Traceback" not in proc.stderr
    assert len(data["runs"]["lazy"]["rounds"]) == 1


def test_a_command_that_hangs_is_killed_after_the_timeout(tmp_path):
    write(tmp_path, "hangs.py", "import time\ntime.sleep(60)\n")
    proc, data = report(["--timeout", "0.3", "--", sys.executable, "hangs.py"], cwd=tmp_path)
    assert proc.returncode == 1
    assert data["problems"][0] == "the plain run was killed after the timeout"
    assert "Traceback" not in proc.stderr


def test_the_plain_run_is_plain_under_LAZIFY_1(environment_report):
    """LAZIFY=1 (or an enabled environment) would make the plain run lazy too: the
    report turns lazify off there, and the program still sees LAZIFY as it was."""
    _proc, data, _pythonpath = environment_report
    plain, lazy = names(data["runs"]["plain"]["tree"]), names(data["runs"]["lazy"]["tree"])
    assert not [n for n in plain if n.startswith("lazify")]
    assert "json" in plain and "json" not in lazy
    assert data["runs"]["plain"]["stdout_tail"] == data["runs"]["lazy"]["stdout_tail"]
    assert data["runs"]["lazy"]["stdout_tail"].endswith("\n1\n")


def test_the_plain_run_is_plain_in_an_enabled_environment(tmp_path):
    """An environment that starts lazify from a ``.pth`` file unless ``LAZIFY=0`` (what
    ``lazify enable`` writes): the plain runs are made again with LAZIFY=0, and the page
    says so."""
    import subprocess

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "zz-enabled.pth"), "w", encoding="utf-8") as f:
        f.write("import os; os.environ.get('LAZIFY') != '0' and __import__('lazify').install()\n")
    write(tmp_path, "app.py", "import mod\n")
    write(tmp_path, "mod.py", "import json\n")
    proc, data = report(["--", python, "app.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "json" in names(data["runs"]["plain"]["tree"])
    assert "json" not in names(data["runs"]["lazy"]["tree"])
    assert any("set LAZIFY=0" in note for note in data["notes"])

def test_rounds_0_traces_once_and_times_nothing(tmp_path):
    """``--rounds 0``: a warm-up and a traced run per mode, the trees, the record and the
    output compared, no times and no memory (none was measured)."""
    write(tmp_path, "mod.py", "import json\n")
    write(tmp_path, "count.py", """\
        import mod
        with open("runs.txt", "a") as f:
            f.write("x")
        print("counted")
    """)
    proc, data = report(["--", sys.executable, "count.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "runs.txt").read_text() == "xxxx"
    s = data["summary"]
    assert s["rounds"] == 0 and s["ok"] and s["same_output"]
    for key in ("time_plain_ms", "time_lazy_ms", "speedup", "peak_rss_plain_mib",
                "peak_rss_lazy_mib"):
        assert s[key] is None, key
    assert data["runs"]["plain"]["rounds"] == data["runs"]["lazy"]["rounds"] == []
    assert data["runs"]["lazy"]["stdout_tail"] == "counted\n"
    assert "json" in names(data["runs"]["plain"]["tree"])
    assert "json" not in names(data["runs"]["lazy"]["tree"])
    assert f"lazify report: modules {s['modules_plain']} -> {s['modules_lazy']} " \
           "(no timed rounds)" in proc.stderr
    page = _report_html.render(data)
    headline_matches(page, s)
    assert "no timed rounds, 1 traced" in page and "compared over 1 round each" in page


def test_output_that_varies_by_itself_is_compared_on_the_exit_status(tmp_path):
    write(tmp_path, "clock.py", "import time\nprint(time.perf_counter_ns())\n")
    proc, data = report(["--rounds", "2", "--", sys.executable, "clock.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert data["output"]["compared"] == "exit status" and data["summary"]["same_output"]


@pytest.mark.parametrize("speedup, said", [(2.09, "(2.09x faster)"), (0.93, "(0.93x, slower)")])
def test_summary_line_says_faster_or_slower_as_the_page_does(speedup, said):
    import io

    from lazify._cli.report import _print_summary

    data = synthetic_report([], [], time_plain_ms=500.0, time_lazy_ms=239.2, speedup=speedup,
                            modules_plain=294, modules_lazy=155, peak_rss_plain_mib=35.5,
                            peak_rss_lazy_mib=19.4)
    out = io.StringIO()
    _print_summary(data, "r.html", out)
    first = out.getvalue().splitlines()[0]
    assert first == (f"lazify report: start-up 500.0 ms plain, 239.2 ms lazy {said}; "
                     "modules 294 -> 155; peak RSS 35.5 -> 19.4 MiB")


def test_the_reports_own_sitecustomize_is_no_cache_miss_of_the_program(tmp_path):
    """Where lazify starts before the report's sitecustomize (LAZIFY=1, as in an
    environment ``lazify enable`` turned on) under PYTHONDONTWRITEBYTECODE, the hook
    serves that temporary file plain: it is the report's, so the lazy run notes no module
    missing from lazify's cache and warns about none (a program that imports nothing)."""
    proc, data = report(["--", sys.executable, "-c", "pass"], cwd=tmp_path, env_extra={
        "PYTHONDONTWRITEBYTECODE": "1", "LAZIFY": "1", "LAZIFY_DEFER_REWRITE": None,
        "TMPDIR": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 0, proc.stderr
    assert not [n for n in data["notes"] if "missing from" in n], data["notes"]
    assert "cannot be written" not in proc.stderr, proc.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8")
def test_a_command_under_a_path_no_encoding_decodes(tmp_path):
    """A script in a directory whose name is not UTF-8 (Latin-1 b'caf\\xe9'): the page
    is written, the name escaped, where writing it ended in a UnicodeEncodeError
    traceback and no page."""
    odd = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(odd)
    with open(os.path.join(odd, b"s.py"), "w") as f:
        f.write("import json\nprint(json.dumps(1))\n")
    script = os.fsdecode(os.path.join(odd, b"s.py"))
    proc = run_python(["-m", "lazify", "report", "--rounds", "0", "-o", "page.html", "--",
                       sys.executable, script], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "caf\\udce9" in page
