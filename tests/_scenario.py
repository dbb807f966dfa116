"""Helpers of the subprocess scenarios: a small tree in ``tmp_path`` run under
``python -m lazify run main.py`` (the PEP's ``-L``)."""

from __future__ import annotations

import textwrap

from tests._util import run_python


def write_tree(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def run_lazy(tmp_path, files, *, args=(), env_extra=None):
    write_tree(tmp_path, files)
    return run_python(["-m", "lazify", "run", "main.py", *args], cwd=tmp_path,
                      env_extra=env_extra)


def lazy_output(tmp_path, files, **kwargs):
    proc = run_lazy(tmp_path, files, **kwargs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


HEAVY = {
    "heavy.py": """
        print("heavy executed")
        VALUE = 42
        def double(x):
            return 2 * x
        class Base:
            pass
        class Error(Exception):
            pass
    """,
}
