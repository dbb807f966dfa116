"""``lazify compile``'s shortcuts change no byte of what it writes.

The pipeline skips work whose result it knows (a module without an import statement
is compiled from its source; a doctest example that names no imported name is not
parsed).  On real packages (the stdlib's ``email``, ``json`` and ``asyncio``) and on
the edge cases of each shortcut, the cache files written with the shortcuts are the
files written with them turned off, byte for byte.  The default run compiles ``email``
and ``json`` (about 40 files with the edge cases); ``LAZIFY_FULL_TESTS=1``
(tests/_sample.py) adds ``asyncio``.
"""

from __future__ import annotations

import marshal
import os
import shutil
import sys
import sysconfig

import pytest

from lazify import _facts, _rewrite
from tests import _sample
from tests._util import run_python
from tests.test_hook import write_tree

#: the pipeline with every shortcut turned off, then ``lazify compile -j 1`` of argv
FULL_PIPELINE = """\
import sys
from lazify import _compile, _facts, _rewrite
_rewrite._IMPORT = ("", b"")                       # "" is in every source: no shortcut
_facts._mentions_none = lambda text, names: False  # every doctest example is parsed
sys.exit(_compile.compile_paths(sys.argv[1:], jobs=1))
"""

EDGE_CASES = {
    # no import statement: compiled from the source (big constants, a docstring)
    "table.py": '"""Names."""\nTABLE = {"Alpha": 913, "Ø": 216, "x": (1.5, -7, 2**40)}\n'
                "def get(k):\n    return TABLE[k]\n",
    "words.py": "# import in a comment only\nX = 'import'\n",
    "pkg/__init__.py": "X = 1\n",            # a package: rewritten all the same
    "pkg/mod.py": "Y = 2\n",
    # doctests: one reads an imported name, one only a local, one in other characters
    "doc.py": '''\
        """Examples.

        >>> import textwrap as tw
        >>> tw.dedent("  a")
        'a'
        >>> x = 1
        >>> json.dumps(x)
        '1'
        """
        import json
        import os
        import textwrap


        def f():
            """
            >>> ｏｓ.sep
            '/'
            """
            return textwrap.dedent("")
        ''',
    "nodoc.py": '"""\n>>> y = 2\n>>> y + 1\n3\n"""\nimport json\n\n\ndef g():\n    return json\n',
}


def _pycs(root):
    """{path relative to the prefix: bytes} of every lazify pyc under a prefix."""
    found = {}
    for directory, _dirs, files in os.walk(root):
        for name in files:
            if ".opt-" in name and "lazify" in name:
                path = os.path.join(directory, name)
                with open(path, "rb") as f:
                    found[os.path.relpath(path, root)] = f.read()
    return found


def _mechanisms():
    return ["rewrite", "native"] if sys.version_info >= (3, 15) else ["rewrite"]


@pytest.mark.parametrize("mechanism", _mechanisms())
def test_compile_writes_the_bytes_of_the_full_pipeline(tmp_path, mechanism):
    tree = tmp_path / "tree"
    stdlib = sysconfig.get_paths()["stdlib"]
    for package in ("email", "json", "asyncio") if _sample.full() else ("email", "json"):
        shutil.copytree(os.path.join(stdlib, package), tree / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    import textwrap

    write_tree(tree / "edge", {rel: textwrap.dedent(text) for rel, text in EDGE_CASES.items()})
    env = {"LAZIFY_MECHANISM": mechanism}
    full = run_python(["-c", FULL_PIPELINE, str(tree)], cwd=tmp_path,
                      env_extra={**env, "PYTHONPYCACHEPREFIX": str(tmp_path / "full")})
    assert full.returncode == 0, full.stderr
    fast = run_python(["-m", "lazify", "compile", "-j", "1", str(tree)], cwd=tmp_path,
                      env_extra={**env, "PYTHONPYCACHEPREFIX": str(tmp_path / "fast")})
    assert fast.returncode == 0, fast.stderr
    expected, written = _pycs(tmp_path / "full"), _pycs(tmp_path / "fast")
    assert len(written) > (60 if _sample.full() else 35)
    assert sorted(written) == sorted(expected)
    # 3.10's marshal output depends on what the writing process interned earlier (even
    # CPython's own pycs of lazify differ between the two children there): the same
    # header and code objects; byte for byte from 3.11 on
    assert [path for path in written if written[path][:16] != expected[path][:16]
            or marshal.loads(written[path][16:]) != marshal.loads(expected[path][16:])] == []
    if sys.version_info >= (3, 11):
        assert [path for path in written if written[path] != expected[path]] == []


def test_a_module_without_imports_is_not_parsed(monkeypatch):
    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(_rewrite, "parse", no_parse)
    code = _rewrite.rewrite_code(b"X = {'key': 1}\n", "m.py", module="m")
    assert code.co_names == ("X",)
    # an import, a package: the whole pipeline
    for source, is_package in ((b"import os\n", False), (b"X = 1\n", True)):
        with pytest.raises(AssertionError, match="parsed"):
            _rewrite.rewrite_code(source, "m.py", module="m", is_package=is_package)


def test_a_module_without_imports_raises_what_compile_raises():
    for source in (b"def (:\n", b"return 1\n", b"x = '\\xff'\x00\n"):
        with pytest.raises((SyntaxError, ValueError)) as expected:
            compile(source, "m.py", "exec", dont_inherit=True)
        with pytest.raises(type(expected.value)) as raised:
            _rewrite.rewrite_code(source, "m.py", module="m")
        assert str(raised.value) == str(expected.value)


def test_doctest_names_are_exact_for_the_candidates():
    sources = ['>>> import os as o\n>>> o.sep\n>>> json.dumps(1)\n>>> x = 1\n',
               '>>> ｊｓｏｎ.loads("1")\n', '>>> y = yaml\n>>> def sys(): pass\n>>> sys()\n']
    everything = _facts._doctest_names(sources)
    for candidates in ({"json"}, {"o", "yaml"}, {"sys", "x"}, {"os"}, set()):
        assert _facts._doctest_names(sources, candidates) & candidates \
            == everything & candidates
    assert "json" in _facts._doctest_names(sources[1:2], {"json"})  # NFKC: ｊｓｏｎ is json
