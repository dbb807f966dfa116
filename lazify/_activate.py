"""``lazify enable``, ``lazify disable`` and ``lazify status``: lazify on for a whole
Python environment, whatever ``sitecustomize.py`` its interpreter ships.

``enable`` writes two files into the environment's site-packages: ``lazify-enabled.pth``,
which :mod:`site` processes at every start of that environment's Python, before any
``sitecustomize``, and whose one line imports ``_lazify_enabled.py`` (compiled to its pyc
by the environment's interpreter), which hands the recorded settings to
:func:`lazify._startup.enabled` and tolerates a lazify that is gone or broken (one line on
stderr, the program starts eagerly).  A module rather than code in the ``.pth`` line: a
``.pth`` line is compiled at every start (twice on 3.11, whose :mod:`site` processes a
venv's site-packages twice), a module's pyc is read.  Each file is written whole (a
temporary file renamed over it), the ``.pth`` last, so a start never sees half of them.
``disable`` removes those files and, of what ``enable``'s compile step left, the
measurement of the rewriter's dependencies and the start-up bundle for that interpreter in
lazify's own ``__pycache__`` (no other files: the pycs stay, ``lazify cache clean`` removes them): pip
removes only the files it installed, and that one, left behind, kept a ``lazify``
directory that ``import lazify`` found (a namespace package) after ``pip uninstall``.

The target environment is asked about itself by running its interpreter (its version,
site-packages, whether lazify is installed there), so ``--python`` works for any
environment, and the bytecode cache is written by that interpreter, through
:func:`lazify._compile.compile_paths` (:func:`_compile_environment`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from . import _startup

#: what the target interpreter reports about itself; runs on any Python 3
_PROBE = r"""
import json, os, site, sys, sysconfig
out = {"version": list(sys.version_info[:3]), "prefix": sys.prefix,
       "purelib": sysconfig.get_paths()["purelib"],
       "sitedirs": list(getattr(site, "getsitepackages", lambda: [])()),
       "usersite": site.getusersitepackages() if site.ENABLE_USER_SITE else None,
       "cache_tag": sys.implementation.cache_tag}
try:
    import importlib.util
    spec = importlib.util.find_spec("lazify")
    out["lazify"] = spec.origin if spec is not None else None
    out["startup"] = spec is not None and importlib.util.find_spec("lazify._startup") is not None
except Exception:
    out["lazify"] = None
print(json.dumps(out))
"""

#: the first line of the files ``enable`` writes: ``disable`` removes only files that have it
_MARK = "# lazify enable wrote this file; `lazify disable` removes it.\n"
#: the module the ``.pth`` line imports (``enable`` writes it beside the ``.pth``)
MODULE = "_lazify_enabled"


class _Refused(Exception):
    """One line for the user and the exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


def _child_env() -> dict:
    """The environment for the target interpreter's helper runs: lazify off in them."""
    env = dict(os.environ)
    env["LAZIFY"] = "0"
    return env


def probe(python: str | None) -> dict:
    """What the environment of *python* (None: this one) is: version, site-packages,
    where lazify is.  :raises _Refused: not a Python we can enable."""
    exe = python or sys.executable
    if python is not None and os.sep not in python and (os.altsep or os.sep) not in python:
        exe = shutil.which(python) or python     # ``--python python3.14``, as a shell finds it
    # absolute: the helper runs from "/" (and enable names it in what it prints)
    exe = os.path.abspath(exe)
    if python is not None and not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        # what is there, said as it is: a typo'd path and a file that is no program differ
        why = ("not an executable file" if os.path.isfile(exe)
               else "a directory" if os.path.isdir(exe) else "no such file")
        raise _Refused(f"--python {python}: no such interpreter ({why})", 2)
    try:
        # not -I: lazify may be in the user's site-packages; "/" keeps the current
        # directory's packages out of it
        proc = subprocess.run([exe, "-c", _PROBE], capture_output=True, text=True,
                              env=_child_env(), timeout=60, cwd="/")
        info = json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "strerror", None) or exc
        raise _Refused(f"--python {exe}: not a Python interpreter lazify can ask ({detail})", 2)
    info["python"] = exe
    info["purelib"] = site_dir(info["purelib"], info.get("usersite"), info.get("lazify"))
    return info


def site_dir(purelib, usersite, lazify_init) -> str:
    """The site directory ``enable`` writes to and ``status`` counts: the environment's
    site-packages, or the user's (``pip install --user`` outside a venv, where the
    system's may not exist or be writable), when that is where lazify is installed:
    :mod:`site` processes it at every start of this user's interpreter, first."""
    if usersite and lazify_init:
        where = os.path.dirname(os.path.dirname(os.path.abspath(lazify_init)))
        if os.path.normcase(where) == os.path.normcase(os.path.abspath(usersite)):
            return usersite
    return purelib


def _read_too_late(info):
    """The site directory lazify is installed in when :mod:`site` adds it to sys.path only
    after processing the activation file's (a venv with ``--system-site-packages`` and
    lazify outside it), else None."""
    sitedirs = [os.path.normcase(os.path.abspath(d)) for d in info["sitedirs"]]
    here = os.path.normcase(os.path.abspath(info["purelib"]))
    package = os.path.dirname(os.path.abspath(info["lazify"]))
    where = os.path.normcase(os.path.dirname(package))
    if here in sitedirs and where in sitedirs and sitedirs.index(where) > sitedirs.index(here):
        return os.path.dirname(package)
    return None


def _target(info) -> str:
    """What enable turns on: the environment, or this user's starts of it."""
    if info["purelib"] == info.get("usersite"):
        return f"{info['prefix']} for this user ({info['purelib']})"
    return info["prefix"]


def _version(info) -> str:
    return ".".join(map(str, info["version"]))


def _pth_path(info) -> str:
    return os.path.join(info["purelib"], _startup.ENABLED_PTH)


def module_source(record: dict) -> str:
    """``_lazify_enabled.py``: import lazify and hand it the record, or say in one line
    that lazify is gone and let the program start."""
    return (f"{_MARK}\"\"\"Turns lazify on at every start of this environment (imported by "
            f"{_startup.ENABLED_PTH}).\"\"\"\n\n"
            f"RECORD = {record!r}\n\n"
            "try:\n"
            "    from lazify._startup import enabled\n"
            "\n"
            "    enabled(RECORD)\n"
            "except Exception as exc:\n"
            "    import sys\n"
            "\n"
            "    sys.stderr.write(\"lazify: this environment was enabled with `lazify enable` \"\n"
            "                     \"but lazify cannot start (%s: %s); it runs without lazy \"\n"
            "                     \"imports (reinstall lazify, or delete %s and %s)\\n\"\n"
            "                     % (type(exc).__name__, exc, RECORD[\"file\"], __file__))\n")


def pth_text() -> str:
    return f"{_MARK}import {MODULE}\n"


def write_atomically(path: str, text: str) -> None:
    """*text* into *path*, whole or not at all: a temporary file beside it (a name
    :mod:`site` skips) renamed over it."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _settings_to_record(settings_file: str | None) -> tuple[dict, str | None]:
    """The settings ``enable`` records: ``[tool.lazify]`` of *settings_file*, else of
    the ``pyproject.toml`` found from the current directory upwards, else none."""
    from ._config import ConfigError, settings_from_file
    from ._config import find_pyproject

    if settings_file is not None:
        path = os.path.abspath(settings_file)
        if not os.path.isfile(path):
            raise _Refused(f"--settings {settings_file}: no such file", 2)
    else:
        path = find_pyproject()
        if path is None:
            return {}, None
    try:
        return settings_from_file(path), path
    except ConfigError as exc:
        raise _Refused(str(exc), 2) from None


def cmd_enable(args) -> int:
    try:
        return _enable(args.python, args.settings, compile_cache=args.compile)
    except _Refused as exc:
        print(f"lazify enable: {exc}", file=sys.stderr)
        return exc.status


def _enable(python, settings_file, compile_cache=True) -> int:
    settings, source = _settings_to_record(settings_file)
    info = probe(python)
    if tuple(info["version"][:2]) < (3, 10):
        raise _Refused(f"{info['python']} is Python {_version(info)}; lazify needs 3.10 or newer")
    if info["lazify"] is None:
        raise _Refused(f"lazify is not installed for {info['python']}; install it there "
                       f"first ({info['python']} -m pip install lazify-imports)")
    if not info.get("startup"):
        raise _Refused(f"the lazify installed for {info['python']} ({info['lazify']}) has no "
                       f"lazify enable; upgrade it ({info['python']} -m pip install -U lazify-imports)")
    late = _read_too_late(info)
    if late is not None:
        raise _Refused(f"lazify is installed in {late}, which {info['python']} reads after "
                       f"{info['purelib']}, where the activation file goes; install lazify into "
                       f"the environment itself ({info['python']} -m pip install lazify-imports)")
    if settings.get("mechanism") == "native" and tuple(info["version"][:2]) < (3, 15):
        raise _Refused(f'{source}: mechanism "native" needs Python 3.15+; '
                       f"{info['python']} is {_version(info)}", 2)
    pth = _pth_path(info)
    record = {**settings, "from": source, "file": pth}   # only what the file sets
    module = os.path.join(info["purelib"], MODULE + ".py")
    again = os.path.exists(pth)
    try:
        write_atomically(module, module_source(record))
        _byte_compile(info, module)
        write_atomically(pth, pth_text())
    except OSError as exc:
        if not again:
            _remove(info)
        raise _Refused(f"cannot write to {info['purelib']}: {exc.strerror or exc}; "
                       "nothing was changed (run it as the environment's owner)") from None
    lines = [f"lazify enable: {'updated' if again else 'enabled'} {_target(info)} "
             f"(Python {_version(info)}): {pth}",
             f"  settings: {_describe(record)}"]
    if compile_cache:              # all the work first: a closed stdout stops nothing
        lines.append(f"  cache: {_compile_environment(info, record.get('mechanism'))}")
    print("\n".join(lines))
    return 0


def _byte_compile(info, module) -> None:
    """The module's pyc, by the environment's interpreter (its magic number), so that no
    start compiles it (``PYTHONDONTWRITEBYTECODE`` would make every start do so)."""
    code = "import py_compile, sys\npy_compile.compile(sys.argv[1], doraise=True)\n"
    proc = subprocess.run([info["python"], "-c", code, module], capture_output=True,
                          text=True, env=_child_env(), cwd="/")
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["py_compile failed"]
        raise OSError(0, lines[-1], module)


def _remove(info) -> list:
    """Remove what ``enable`` wrote (the ``.pth`` first: it is the switch); return the
    paths removed.  :raises OSError: one could not be removed."""
    module = os.path.join(info["purelib"], MODULE + ".py")
    cache = os.path.join(info["purelib"], "__pycache__")
    removed = []
    paths = [_pth_path(info), module]
    try:
        paths += [os.path.join(cache, n) for n in sorted(os.listdir(cache))
                  if n.startswith(MODULE + ".") and n.endswith(".pyc")]
    except OSError:
        pass
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        removed.append(path)
    for path in _measurements(info):
        try:
            os.unlink(path)              # a cache file: one left is measured again, no harm
        except OSError:
            continue
        removed.append(path)
    return removed


def _measurements(info) -> list:
    """The target interpreter's measurements of the rewriter's dependencies in lazify's
    own ``__pycache__`` (:func:`lazify._cache.rewriter_deps_path`), any lazify version's,
    and its start-up bundles (:mod:`lazify._startup_bundle`, any optimization level):
    pip's ``RECORD`` lists neither."""
    from ._cache_clean import REWRITER_DEPS, STARTUP_BUNDLE

    if not info.get("lazify") or not info.get("cache_tag"):
        return []
    pycache = os.path.join(os.path.dirname(info["lazify"]), "__pycache__")
    try:
        names = sorted(os.listdir(pycache))
    except OSError:
        return []
    tag = info["cache_tag"]
    return [os.path.join(pycache, n) for n in names
            if (n.startswith(f"rewriter-deps.{tag}.") and REWRITER_DEPS.match(n))
            or (n.startswith(f"__startup__.{tag}.") and STARTUP_BUNDLE.match(n))]


def _describe(record) -> str:
    parts = []
    if not record["from"]:
        parts.append("lazify's defaults (no pyproject.toml found from here)")
    elif set(record) <= {"from", "file"}:
        parts.append(f"lazify's defaults ({record['from']} has no [tool.lazify])")
    else:
        parts.append(f"from {record['from']}")
    if record.get("enabled") is False:
        parts.append("enabled = false")
    if record.get("excluding"):
        parts.append("excluding " + ", ".join(record["excluding"]))
    if record.get("mechanism"):
        parts.append(f"mechanism {record['mechanism']}")
    return "; ".join(parts)


def _compile_environment(info, mechanism) -> str:
    """Write lazify's cache for the environment's site-packages, in its own interpreter
    (the one place ``enable`` compiles)."""
    code = ("import sys\nfrom lazify._compile import compile_paths\n"
            "sys.exit(compile_paths(sys.argv[2:], mechanism=sys.argv[1] or None, progress=False))\n")
    directory = info["purelib"]
    try:
        proc = subprocess.run([info["python"], "-c", code, mechanism or "", directory],
                              capture_output=True, text=True, env=_child_env(), cwd="/")
    except OSError as exc:
        return f"not written ({exc}); `lazify compile {directory}` writes it"
    # one "lazify compile: <path>: <why>" line per file it could not compile; any other
    # line (a warning of the child's own) is not a file
    problems = [line for line in proc.stderr.splitlines() if line.startswith("lazify compile: ")]
    if proc.returncode == 0 and not problems:
        return f"written for {directory}"
    return (f"written for {directory}, but for {len(problems)} file(s) it could not be "
            f"(`lazify compile {directory}` lists them)")


def cmd_disable(args) -> int:
    try:
        info = probe(args.python)
    except _Refused as exc:
        print(f"lazify disable: {exc}", file=sys.stderr)
        return exc.status
    pth = _pth_path(info)
    try:
        with open(pth, encoding="utf-8") as f:
            first = f.readline()
    except FileNotFoundError:
        print(f"lazify disable: {info['prefix']} was not enabled (no {pth})")
        return 0
    except OSError as exc:
        print(f"lazify disable: cannot read {pth}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if first != _MARK:
        print(f"lazify disable: {pth} was not written by lazify enable; left as it is",
              file=sys.stderr)
        return 1
    try:
        removed = _remove(info)
    except OSError as exc:
        print(f"lazify disable: cannot remove {exc.filename}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    print(f"lazify disable: disabled {_target(info)} (removed {', '.join(removed)})")
    return 0


# ------------------------------------------------------------------------ status


def cmd_status(args) -> int:
    """Whether lazify is active in this interpreter and why; exit 0 when it is."""
    from . import _hook, _mechanism, _settings

    installed = _hook.is_installed()
    active = installed and _settings.is_lazy_imports_enabled()
    record = _settings.recorded()
    switch = _startup.switch()
    if active:
        why = {"enabled": f"enabled for this environment ({record and record['file']})",
               "LAZIFY=1": "LAZIFY=1"}.get(_startup.started_by,
                                          "lazify.install() was called (sitecustomize.py or the program)")
        print(f"lazify is active: {why}")
    else:
        if installed:
            why = "the hook is installed for explicit opt-ins only (global mode is off)"
        elif switch is False:
            why = "LAZIFY=0"
        elif record is not None:
            why = "enabled for this environment, but it did not start (see the line above)"
        else:
            why = "not enabled (`lazify enable`, or LAZIFY=1 for one run)"
            shadowed = _shadowed_sitecustomize()
            if shadowed is not None:
                why += (f"; {shadowed[0]} would install it, but Python imports one "
                        f"sitecustomize, {shadowed[1]}, and never this one")
        print(f"lazify is off: {why}")
    try:
        from ._config import resolve

        config = resolve(strict=False)
    except Exception as exc:
        print(f"settings: cannot be read: {exc}")
        return 0 if active else 1
    sources = config.sources
    mechanism = _settings.settings.mechanism if installed else (config.mechanism
                                                              or _mechanism.default_mechanism())
    print(f"mechanism: {mechanism} ({sources['mechanism']})")
    print(f"enabled: {'true' if config.enabled else 'false'} ({sources['enabled']})")
    print(f"excluding: lazify's defaults ({', '.join(sorted(_settings.DEFAULT_EXCLUDING))})")
    for where, names in sources["excluding"]:
        print(f"  + {', '.join(names)} ({where})")
    _print_cache(mechanism)
    return 0 if active else 1


def _shadowed_sitecustomize():
    """``(path, imported)`` when a ``sitecustomize.py`` on ``sys.path`` mentions lazify
    but is not the one the interpreter imported (Debian's and Ubuntu's builds ship
    their own in the standard library, ahead of site-packages), else None: the README's
    third way to turn lazify on then does nothing, and says nothing."""
    imported = getattr(sys.modules.get("sitecustomize"), "__file__", None)
    if imported is None:
        return None
    for entry in sys.path:
        path = os.path.join(entry or os.curdir, "sitecustomize.py")
        try:
            if os.path.samefile(path, imported):
                continue
            with open(path, "rb") as file:
                if b"lazify" in file.read():
                    return os.path.abspath(path), imported
        except OSError:
            continue
    return None


def _print_cache(mechanism) -> None:
    import site as site_module
    import sysconfig

    from . import _cache

    usersite = site_module.getusersitepackages() if site_module.ENABLE_USER_SITE else None
    site = site_dir(sysconfig.get_paths()["purelib"], usersite,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "__init__.py"))
    beside = "sys.pycache_prefix " + sys.pycache_prefix if sys.pycache_prefix else "__pycache__ beside each source"
    fallback = _cache.fallback_root()
    if sys.dont_write_bytecode:
        print(f"cache: {beside}; not written in this process (PYTHONDONTWRITEBYTECODE or -B): "
              "`lazify compile` writes it ahead of time")
    else:
        here = sys.pycache_prefix or os.path.join(site, "__pycache__")
        print(f"cache: {beside} ({'writable' if _writable(here) else 'not writable'} in {site}); "
              f"else {fallback or 'no per-user directory'}"
              + ("" if fallback is None else f" ({'writable' if _writable(fallback) else 'not writable'})"))
    total = compiled = 0
    from . import _settings
    from ._sources import python_files

    _settings.settings.mechanism = mechanism    # the cache files of this mechanism
    from ._hook import never_rewritten, plain_modules
    from ._sources import module_name_for

    plain_modules()
    for path in python_files(site):
        name = module_name_for(path)[0]
        if never_rewritten(name) or name == MODULE:
            continue                         # lazify itself, and what its rewriter imports
        total += 1
        for candidate in (_cache.cache_path(path), _cache.fallback_path(path)):
            if candidate and os.path.exists(candidate):
                compiled += 1
                break
    print(f"compiled: {compiled} of {total} modules in {site}")


def _writable(directory: str) -> bool:
    """Whether *directory* can be written, or created under its nearest existing parent."""
    while not os.path.isdir(directory):
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return os.access(directory, os.W_OK)
