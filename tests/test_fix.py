"""``lazify fix``: fixture pairs in both styles, idempotence, and the output run.

Fixtures live in ``tests/fixtures/fix/<case>/``: ``input.py``, ``expected_keyword.py`` and
``expected_lazy_modules.py``, compared byte for byte.  Each case is fixed as the module
``<case>`` (a file outside any package).  Set ``LAZIFY_UPDATE_FIXTURES=1`` to (re)write the
expected files, then review the diff.
"""

from __future__ import annotations

import ast
import os
import re
import sys

import pytest

from lazify import _sources
from lazify._fix import fix_source
from tests._util import ROOT, lazify_forks, run_python


def write_tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "fix")
CASES = sorted(name for name in os.listdir(FIXTURES)
               if os.path.isfile(os.path.join(FIXTURES, name, "input.py")))
STYLES = {"keyword": "expected_keyword.py", "lazy-modules": "expected_lazy_modules.py"}


def _read(case, name) -> bytes:
    with open(os.path.join(FIXTURES, case, name), "rb") as f:
        return f.read()


def _fix(data: bytes, case: str, style: str) -> bytes:
    return fix_source(data, os.path.join(FIXTURES, case, f"{case}.py"), style)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("case", CASES)
def test_fixture_byte_exact(case, style):
    got = _fix(_read(case, "input.py"), case, style)
    expected_path = os.path.join(FIXTURES, case, STYLES[style])
    if os.environ.get("LAZIFY_UPDATE_FIXTURES"):
        with open(expected_path, "wb") as f:
            f.write(got)
    assert got == _read(case, STYLES[style])


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("case", CASES)
def test_fixture_second_run_changes_nothing(case, style):
    expected = _read(case, STYLES[style])
    assert _fix(expected, case, style) == expected


@pytest.mark.parametrize("case", CASES)
def test_lazy_modules_output_runs_unchanged_without_lazify(case, tmp_path):
    """``--style lazy-modules`` output is plain Python for 3.10-3.14: it compiles, and
    importing it (no lazify) gives the same module as the input does."""
    data = _read(case, STYLES["lazy-modules"])
    if b"lazy import" in _read(case, "input.py") and sys.version_info < (3, 15):
        pytest.skip("the input itself uses PEP 810's keyword")
    compile(data, "expected_lazy_modules.py", "exec", dont_inherit=True)
    for name, source in (("fixed", data), ("plain", _read(case, "input.py"))):
        (tmp_path / f"{name}.py").write_bytes(source)
    code = ("import fixed, plain\n"
            "names = lambda m: sorted(k for k in vars(m) if k not in "
            "('__lazy_modules__', '__file__', '__name__', '__spec__', '__cached__', '__loader__'))\n"
            "assert names(fixed) == names(plain), (names(fixed), names(plain))\n"
            "print(getattr(fixed, '__lazy_modules__', None))\n")
    proc = run_python(["-c", code], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("case", CASES)
def test_keyword_output_parses_as_315_reads_it(case):
    if case == "nothing_safe":
        pytest.skip("nothing to mark")
    """The keyword style's output is PEP 810 source: every ``lazy`` it wrote is an
    explicit import of the tree (3.15's parser, or lazify's before 3.15)."""
    data = _read(case, STYLES["keyword"])
    tree = _sources.parse(data, "expected_keyword.py")
    explicit = [n for n in ast.walk(tree) if getattr(n, "is_lazy", 0)]
    assert len(explicit) == len(re.findall(rb"(?m)(?:^|; )lazy (?:import|from) ", data)) > 0


def test_cli_writes_in_place_and_diff_writes_nothing(tmp_path, lazify_cli):
    """``fix --diff`` prints the change and exits 1 without writing; ``fix`` writes it
    (exit 0); then ``fix --diff`` finds nothing (exit 0)."""
    root = write_tree(tmp_path / "app", {"mod.py": _read("basic", "input.py").decode()})
    before = (root / "mod.py").read_bytes()
    diff = lazify_cli(["fix", "--diff", "mod.py"], cwd=root)
    assert diff.returncode == 1, diff.stderr
    assert "+lazy import json" in diff.stdout and diff.stdout.startswith("--- a/mod.py")
    assert (root / "mod.py").read_bytes() == before
    done = lazify_cli(["fix", "."], cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "mod.py").read_bytes() == _read("basic", STYLES["keyword"])
    assert "fixed mod.py" in done.stderr
    again = lazify_cli(["fix", "--diff", "mod.py"], cwd=root)
    assert (again.returncode, again.stdout) == (0, "")


#: a module whose source fits under a file-size limit and whose fixed or rewritten
#: text does not
CUT_SOURCE = "".join(f"import module_{i}\n" for i in range(200)) + "def f():\n    return [%s]\n" % (
    ", ".join(f"module_{i}.x" for i in range(200)))
CUT_ARGV = {"rewrite": ["rewrite", "mod.py", "-o", "out"], "fix": ["fix", "mod.py"]}


@pytest.fixture(scope="module")
def cut_off_runs(tmp_path_factory):
    """``rewrite -o out`` then ``fix`` on mod.py under a file-size limit, each in a fork
    of one child (tests/_util.lazify_forks): (the tree, {command: (exit status, stdout,
    stderr, {"mod.py": its text after the command})})."""
    import resource

    root = write_tree(tmp_path_factory.mktemp("cut") / "app", {"mod.py": CUT_SOURCE})
    limit = len(CUT_SOURCE.encode()) + 256          # the source fits, the fixed one does not
    # no pycs: under the limit the import system writes lazify's own cut off (its
    # write is not checked for a short count) and every later import of it fails
    return root, lazify_forks(
        CUT_ARGV, cwd=root, watch=["mod.py"],
        env={**os.environ, "PYTHONPATH": ROOT, "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="needs RLIMIT_FSIZE")
@pytest.mark.parametrize("command", ["fix", "rewrite"])
def test_a_write_the_disk_cannot_take_leaves_no_file_cut_off(cut_off_runs, command):
    """A disk that takes only part of the output (a full disk, a quota; here a file-size
    limit, EFBIG): ``fix`` leaves the user's source as it was, not cut off mid-line, and
    ``rewrite -o`` leaves no partial module in the tree; one line each, exit status 1."""
    root, runs = cut_off_runs
    status, _stdout, stderr, after = runs[command]
    assert status == 1, stderr
    assert stderr.count("\n") == 1 and "File too large" in stderr, stderr
    assert after == {"mod.py": CUT_SOURCE}
    assert not (root / "out").exists()


def test_cli_bad_input_is_one_line(tmp_path, lazify_cli):
    root = write_tree(tmp_path / "app", {"bad.py": "def (:\n", "good.py": "import json\n"})
    proc = lazify_cli(["fix", "--style", "lazy-modules", "."], cwd=root)
    assert proc.returncode == 1
    assert proc.stderr.startswith("lazify fix: ") and "bad.py:1" in proc.stderr
    assert "Traceback" not in proc.stderr
    missing = lazify_cli(["fix", "nope.py"], cwd=root)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_lazy_modules_names_resolved_relative_imports(tmp_path, lazify_cli):
    """In a package, ``from . import sub`` and ``from .sub import X`` are listed by the
    absolute names PEP 810 compares (``pkg``, ``pkg.sub``); an excluded module is left."""
    root = write_tree(tmp_path, {
        "pkg/__init__.py": "from . import sub\nfrom .sub import X\n\n\ndef f():\n    return sub, X\n",
        "pkg/sub.py": "X = 1\n",
        "pkg/skipped.py": "import json\n\n\ndef f():\n    return json\n",
    })
    proc = lazify_cli(["fix", "--style", "lazy-modules", "--excluding", "pkg.skipped", "pkg"],
                      cwd=root)
    assert proc.returncode == 0, proc.stderr
    init = (root / "pkg/__init__.py").read_text()
    assert init.startswith('__lazy_modules__ = ["pkg", "pkg.sub"]\nfrom . import sub\n')
    assert (root / "pkg/skipped.py").read_text().startswith("import json\n")
    if sys.version_info >= (3, 15):
        out = run_python(["-c", "import pkg; g = vars(pkg); "
                                "print(type(g['sub']).__name__, type(g['X']).__name__)"],
                         cwd=root, check=True).stdout
        assert out.split() == ["lazy_import", "lazy_import"]
