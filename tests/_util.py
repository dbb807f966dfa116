"""Helpers shared by the test modules: ``from tests._util import run_python``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Mapping, Sequence

#: The project root (the directory holding ``lazify/`` and ``tests/``).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Set on this machine, and they change where (and whether) pycs are written; a child
#: that inherits them does not test lazify's cache (pytest #14972 had the same problem).
DROPPED_ENV = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def child_env(env_extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """Return the environment for a child interpreter.

    Drops :data:`DROPPED_ENV`, sets ``LAZIFY_STRICT=1``, ``LAZIFY_DEFER_REWRITE=0`` (the
    scenarios test the rewrite itself: a cache miss is rewritten at once, not served from
    the plain pyc) (and ``LAZIFY_MECHANISM=rewrite`` unless set, before 3.15) and puts the
    project root first on ``PYTHONPATH``. A value of None in *env_extra* removes that variable.
    """
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["LAZIFY_STRICT"] = "1"
    env["LAZIFY_DEFER_REWRITE"] = "0"
    # lazify's default mechanism (tests/conftest.py): the rewrite before 3.15 (also where a
    # 3.15 lacks PEP 810), the native one on 3.15 unless LAZIFY_MECHANISM says otherwise
    if not hasattr(sys, "set_lazy_imports_filter"):
        env.setdefault("LAZIFY_MECHANISM", "rewrite")
    pythonpath = [ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    for key, value in (env_extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def child_mechanism() -> str:
    """The mechanism the children of :func:`run_python` run: "native" or "rewrite"."""
    if child_env().get("LAZIFY_MECHANISM", "").strip().lower() == "rewrite":
        return "rewrite"
    return "native" if hasattr(sys, "set_lazy_imports_filter") else "rewrite"


def run_python(
    code_or_args: str | Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env_extra: Mapping[str, str | None] | None = None,
    check: bool = False,
    input: str | bytes | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """Run ``sys.executable`` in a subprocess and return the completed process (text mode,
    unless ``input`` is bytes).

    :param code_or_args: a string is run as ``python -c CODE``; a sequence is the argument
        list after the interpreter (``["-m", "lazify", "check", "x.py"]``).
    :param env_extra: variables to set (None removes one) on top of :func:`child_env`.
    :param check: raise :class:`AssertionError` showing stdout and stderr on a non-zero exit.
    """
    if isinstance(code_or_args, str):
        args = [sys.executable, "-c", code_or_args]
    else:
        args = [sys.executable, *code_or_args]
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=child_env(env_extra),
        input=input,
        capture_output=True,
        text=not isinstance(input, bytes),
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{args!r} exited {proc.returncode}\n--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}"
        )
    return proc


def expected_file(directory: str | os.PathLike[str], name: str) -> str:
    """Path of the expectation file *name* in *directory* for the running Python.

    Where a Python version changes what is expected (3.14 evaluates annotations when they
    are read, PEP 649), the case holds ``STEM.X.Y.EXT`` beside ``STEM.EXT``: the one with
    the highest ``X.Y`` not above the running version wins, else *name* itself.
    """
    stem, dot, ext = name.rpartition(".")
    best, best_version = os.path.join(directory, name), (0, 0)
    for entry in os.listdir(directory):
        if not (entry.startswith(stem + ".") and entry.endswith(dot + ext)) or entry == name:
            continue
        middle = entry[len(stem) + 1 : len(entry) - len(dot + ext)]
        parts = middle.split(".")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            continue
        version = (int(parts[0]), int(parts[1]))
        if best_version < version <= sys.version_info[:2]:
            best, best_version = os.path.join(directory, entry), version
    return best


def fixture_requires(directory: str | os.PathLike[str]) -> tuple[int, ...]:
    """The Python version a fixture's input needs (``requires: 3.14`` in its ``module.txt``,
    for syntax older versions cannot parse); (3, 10) when it says nothing."""
    path = os.path.join(directory, "module.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "requires" and not line.startswith("#"):
                    return tuple(int(part) for part in value.split("."))
    return (3, 10)


def interpreters() -> dict[tuple[int, int], str]:
    """One CPython per minor version 3.10-3.15 found on this machine that can run
    ``lazify rewrite`` from this checkout (it imports libcst): ``{(3, 12): path}``.

    ``LAZIFY_PYTHONS`` (paths joined with ``os.pathsep``; ``.ci/run`` sets it to its
    virtual environments) replaces the search, which looks at the running interpreter,
    virtual environments in the checkout (``.venv*``), ``python3.X`` on ``PATH``, pyenv's
    versions and ``/opt/sid-python``; the first of each version that imports libcst wins.
    """
    import glob
    import shutil

    given = os.environ.get("LAZIFY_PYTHONS")
    if given:
        candidates = [p for p in given.split(os.pathsep) if p]
    else:
        candidates = [sys.executable, *sorted(glob.glob(os.path.join(ROOT, ".venv*", "bin", "python")))]
        for minor in range(10, 16):
            candidates.append(shutil.which(f"python3.{minor}") or "")
            candidates.extend(sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/python"))))
            candidates.append(f"/opt/sid-python/3.{minor}/bin/python3.{minor}")
    found: dict[tuple[int, int], str] = {}
    probe = "import sys, libcst; print('%d %d' % sys.version_info[:2])"
    for exe in candidates:
        if not exe or not os.path.isfile(exe):
            continue
        try:
            proc = subprocess.run([exe, "-c", probe], capture_output=True, text=True,
                                  env=child_env(), timeout=60)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode != 0:
            continue
        version = tuple(map(int, proc.stdout.split()))
        if (3, 10) <= version <= (3, 15):
            found.setdefault(version, exe)
    return dict(sorted(found.items()))


def write(root, relpath: str, text: str = "", *, raw: bytes | None = None) -> str:
    """Write *text* (dedented) or *raw* bytes to *relpath* under *root*; return the path."""
    path = os.path.join(str(root), relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(raw if raw is not None else textwrap.dedent(text).encode("utf-8"))
    return path


def unreadable(monkeypatch, directory):
    """os.walk meets a directory it may not list (as a user other than root would)."""
    real = os.scandir

    def scandir(path="."):
        if os.path.abspath(os.fspath(path)) == os.path.abspath(directory):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def tool_beside_python(bindir, name: str, body: str) -> str:
    """A ``bin`` directory as pip fills a venv's: a link to this interpreter (``python``,
    whose ``sys.executable`` it is) and an executable console script *name* running
    *body* with it; the link's path.  For a command installed beside lazify, run from a
    shell whose ``PATH`` does not have that directory."""
    os.makedirs(bindir, exist_ok=True)
    python = os.path.join(str(bindir), "python")
    os.symlink(sys.executable, python)
    script = os.path.join(str(bindir), name)
    with open(script, "w", encoding="utf-8") as f:
        f.write(f"#!{python}\n{textwrap.dedent(body)}")
    os.chmod(script, 0o755)
    return python


#: The child of :func:`lazify_forks`: lazify's command line and libcst imported once,
#: then each command in a fork (stdout and stderr through pipes, as a child's).
_FORKS = r"""
import json, os, select, sys, traceback
import lazify._cli, lazify._emit_cst, lazify._main
commands, watch = json.loads(sys.argv[1])
said = {}
for name, argv in commands.items():
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        try:
            code = lazify._main.main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 1)
    os.close(out_w)
    os.close(err_w)
    got, pending = {out_r: b"", err_r: b""}, [out_r, err_r]
    while pending:
        for fd in select.select(pending, [], [])[0]:
            chunk = os.read(fd, 65536)
            got[fd] += chunk
            if not chunk:
                pending.remove(fd)
                os.close(fd)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    after = {}
    for path in watch:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                after[path] = f.read()
        except OSError:
            after[path] = None
    said[name] = [status, got[out_r].decode(errors="replace"),
                  got[err_r].decode(errors="replace"), after]
print(json.dumps(said))
"""


def lazify_forks(commands: Mapping[str, Sequence[str]], *, cwd, env: Mapping[str, str],
                 watch: Sequence[str] = (), preexec_fn=None, timeout: float = 120) -> dict:
    """``python -m lazify ARGV`` for each of *commands* ({name: argv}, in order), each in
    a fork of one child that imported lazify's command line and libcst first (about
    0.3 s of CPU a process, saved for each command but the first): {name: (exit status,
    stdout, stderr, {path of *watch*, relative to *cwd*: its text after the command, or
    None})}.  For commands that need a process of their own, under a resource limit
    *preexec_fn* sets, but not an interpreter each; *env* is the child's whole environment."""
    import json

    proc = subprocess.run(
        [sys.executable, "-c", _FORKS, json.dumps([dict(commands), list(watch)])], cwd=cwd,
        capture_output=True, text=True, env=dict(env), timeout=timeout, preexec_fn=preexec_fn)
    if proc.returncode != 0:
        raise AssertionError(f"the forks' parent exited {proc.returncode}\n{proc.stderr}")
    return {name: tuple(result) for name, result in json.loads(proc.stdout).items()}
