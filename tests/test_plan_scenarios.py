"""Planner decisions seen in a running program: what ``lazify run`` defers is what the
planner (and ``lazify check``) said."""

from __future__ import annotations

from tests._scenario import HEAVY, lazy_output, run_lazy, write_tree
from tests._util import run_python


def test_eligibility_matches_check(tmp_path):
    files = {
        "m_if.py": "print('m_if')\n", "m_else.py": "print('m_else')\n",
        "m_try.py": "print('m_try')\n", "m_with.py": "print('m_with')\n",
        "m_func.py": "print('m_func')\n", "m_class.py": "print('m_class')\n",
        "m_star.py": "print('m_star')\n",
        "main.py": """
            import contextlib
            if True:
                import m_if
            else:
                import m_else
            try:
                import m_try
            except ImportError:
                pass
            with contextlib.nullcontext():
                import m_with
            def f():
                import m_func
            f()
            class C:
                import m_class
            from m_star import *
            print("end")
        """,
    }
    out = lazy_output(tmp_path, files)
    assert out.splitlines() == ["m_try", "m_with", "m_func", "m_class", "m_star", "end"]
    check = run_python(["-m", "lazify", "check", "--format", "json", "main.py"], cwd=tmp_path)
    import json
    verdicts = {imp["name"]: imp["verdict"] for imp in json.loads(check.stdout)["files"][0]["imports"]}
    assert verdicts["m_if"] == "lazy" and verdicts["m_try"] == "eager"
    assert verdicts["m_with"] == "eager" and verdicts["m_func"] == "eager"
    assert verdicts["m_class"] == "eager" and verdicts["*"] == "eager"


def test_bindings_in_other_branches_of_an_if_are_no_rebinding(tmp_path):
    """``if X: from heavy import double else: def double`` (and an import in each
    branch): the import is lazy, and whichever branch ran is what the name is."""
    files = {**HEAVY, "light.py": "print('light executed')\ndef double(x):\n    return x + x\n",
             "app.py": """
        import os
        if os.environ.get("BRANCH") == "import":
            from heavy import double
        else:
            def double(x):
                return "def"
        if os.environ.get("BRANCH") == "import":
            import heavy as impl
        elif os.environ.get("BRANCH") == "light":
            import light as impl
        else:
            impl = None
        def run():
            return double(3), impl and impl.double(1)
    """, "main.py": """
        import sys, app
        print("loaded:", "heavy" in sys.modules, "light" in sys.modules)
        print(app.run())
    """}
    write_tree(tmp_path, files)
    for branch, expected in [
        ("import", ["loaded: False False", "heavy executed", "(6, 2)"]),
        ("light", ["loaded: False False", "light executed", "('def', 2)"]),
        ("none", ["loaded: False False", "('def', None)"]),
    ]:
        plain = run_python(["main.py"], cwd=tmp_path, env_extra={"BRANCH": branch})
        lazy = run_lazy(tmp_path, files, env_extra={"BRANCH": branch})
        assert lazy.returncode == 0, lazy.stderr
        assert lazy.stdout.splitlines() == expected
        # plain imports at the statement; the values are the same
        assert plain.stdout.splitlines()[-1] == expected[-1]
