"""``lazify report``'s ``sitecustomize``: copied into a temporary directory that the
report puts first on ``PYTHONPATH`` for every run of the command, plain and lazy, so that
both runs start the same way.  Never imported as ``lazify._report_site``.

It undoes what the report changed in the environment (``PYTHONPATH``,
``PYTHONPROFILEIMPORTTIME`` and its own variables), so that the program and the processes
it starts see the environment they would see without the report; runs the
``sitecustomize`` it hides (Debian's and Ubuntu's Pythons ship one); in the lazy run
installs lazify as an application's ``sitecustomize`` would (``lazify.install()``, which
reads ``[tool.lazify]``); and, when asked, writes at exit what only the process knows:
its peak RSS, ``sys.modules`` with each module's file, and the runtime's record of
deferred imports (:mod:`lazify._import_record`).

It imports nothing the interpreter has not imported already (``os``, ``sys``, and
``atexit``, a built-in module): the module lists of both runs are the program's.
"""

import os
import sys

_PREFIX = "LAZIFY_REPORT_"


def _restore_environment(env):
    """Give back every variable the report set: ``LAZIFY_REPORT_WAS_<NAME>`` holds
    ``=value`` when NAME was set before, ``-`` when it was not."""
    for key in [k for k in env if k.startswith(_PREFIX + "WAS_")]:
        name = key[len(_PREFIX + "WAS_"):]
        was = env.pop(key)
        if was.startswith("="):
            env[name] = was[1:]
        else:
            env.pop(name, None)
    return {k[len(_PREFIX):]: env.pop(k) for k in [k for k in env if k.startswith(_PREFIX)]}


def _chain(ours):
    """Import the ``sitecustomize`` this one hides, as ``site`` would have."""
    sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  (the next one on sys.path)
    except ImportError as exc:
        if exc.name != "sitecustomize":
            raise
        sys.modules["sitecustomize"] = ours


def _install(settings):
    home = settings.get("HOME")
    try:
        try:
            import lazify
        except ImportError:
            if not home:
                raise
            sys.path.insert(0, home)
            try:
                import lazify
            finally:
                sys.path.remove(home)
        lazify.install(mechanism=settings.get("MECHANISM") or None)
        from lazify import _settings

        if settings.get("WARM_UP"):
            from lazify import _hook

            _hook.defer_unless_set(_hook.WHERE_UNCACHED)

        mechanism = _settings.settings.mechanism
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        sys.stderr.write(f"lazify report: lazify not active in this run: {message}\n")
        return None, message
    if settings.get("RECORD"):
        try:
            _record_on()
        except Exception as exc:
            sys.stderr.write(f"lazify report: no record of deferred imports: "
                             f"{type(exc).__name__}: {exc}\n")
    return mechanism, None


def _record_on():
    from lazify import _import_record

    _import_record.start()


def _peak_rss_kib():
    """The process's peak resident set size, ``VmHWM`` of ``/proc/self/status`` (Linux):
    that of this program alone.  (The kernel's ``ru_maxrss`` of a child also counts the
    pages it shared with its parent between fork and exec: the report's own size.)"""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _lazify_active():
    """Whether lazify's hook is installed in global mode (an environment ``lazify
    enable`` turned on starts it from a ``.pth`` file, before this runs)."""
    hook, settings = sys.modules.get("lazify._hook"), sys.modules.get("lazify._settings")
    try:
        return bool(hook is not None and settings is not None and hook.is_installed()
                    and settings.is_lazy_imports_enabled())
    except Exception:
        return False


def _dump(path, mode, mechanism, error, light):
    """Write ``key<TAB>repr`` lines (read back with ``ast.literal_eval``): no module is
    imported for this, at exit, where ``-X importtime`` would list it.  *light*: the
    peak RSS alone (the timed runs)."""
    if light:
        lines = [f"peak_rss_kib\t{_peak_rss_kib()!r}", f"error\t{error!r}",
                 f"lazify_active\t{mode == 'plain' and _lazify_active()!r}"]
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        except (OSError, ValueError):
            pass
        return
    lines = [
        f"peak_rss_kib\t{_peak_rss_kib()!r}",
        f"lazify_active\t{mode == 'plain' and _lazify_active()!r}",
        f"mode\t{mode!r}",
        f"python\t{sys.version.split()[0]!r}",
        f"executable\t{sys.executable!r}",
        f"mechanism\t{mechanism!r}",
        f"error\t{error!r}",
    ]
    for name, module in list(sys.modules.items()):
        lines.append(f"module\t{(name, getattr(module, '__file__', None))!r}")
    miss = sys.modules.get("lazify._miss")
    if miss is not None:                 # cache misses served from their plain pycs, eagerly
        lines.append(f"served_plain\t{len(miss.missed)!r}")
    record = sys.modules.get("lazify._import_record")
    if record is not None and record.recording:
        snapshot = record.snapshot()
        lines.append(f"modules_rewritten\t{snapshot.get('modules_rewritten')!r}")
        for entry in snapshot["deferred"]:
            lines.append(f"deferred\t{entry!r}")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    except (OSError, ValueError):
        pass


def _not_the_programs():
    """Take this file out of lazify's cache misses.  Where lazify starts before it (an
    environment ``lazify enable`` turned on), the hook imported it: a temporary file,
    never in lazify's cache, so served plain and counted as the program's (the note '1
    module of the lazy run was missing from lazify's bytecode cache ... `lazify compile
    --env`' after a compile), warned about at exit or rewritten in a child."""
    miss, hook = sys.modules.get("lazify._miss"), sys.modules.get("lazify._hook")
    if miss is None:
        return
    mine = os.path.abspath(__file__)
    for entry in [e for e in miss.missed if os.path.abspath(e[1]) == mine]:
        miss.missed.remove(entry)
        if hook is not None and hook.stats.get("deferred"):
            hook.stats["deferred"] -= 1


def _main():
    _not_the_programs()
    ours = sys.modules.get("sitecustomize")
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    settings = _restore_environment(os.environ)
    try:
        _chain(ours)
    finally:
        mode = settings.get("MODE")
        mechanism = error = None
        if mode == "lazy":
            mechanism, error = _install(settings)
        out = settings.get("OUT")
        if out:
            import atexit

            atexit.register(_dump, out, mode, mechanism, error, bool(settings.get("LIGHT")))


_main()
del _main
