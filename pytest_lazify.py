"""pytest plugin: run the session with lazify's lazy imports (``pytest --lazify``).

Installed with lazify (the ``pytest11`` entry point ``lazify``) and off unless asked:
``--lazify``, ``-p lazify`` or one of its options.  Off, it adds its options and imports
no lazify module; where lazify is already active in the interpreter (``LAZIFY=1``, an
enabled environment, ``install()`` in ``sitecustomize``) the session is lazy as any
program there is, and pytest's output is pytest's own: no section of lazify's.  On,
everything imported after the options are read is lazy: the project under test, its
dependencies, ``conftest.py`` files and what they import.  Test files belong to pytest's
assertion rewriter, whose loader lazify leaves alone.  A top-level module, not inside the
``lazify`` package, so that pytest loading it imports nothing of lazify.
"""

import json
import os

import pytest

#: the key of a pytest-xdist worker's record in its ``workeroutput``
_WORKER_KEY = "lazify_record"


def pytest_addoption(parser):
    group = parser.getgroup("lazify", "lazy imports (lazify)")
    group.addoption("--lazify", action="store_true", default=False,
                    help="run the session with lazify's lazy imports in global mode")
    group.addoption("--lazify-excluding", action="append", default=[], metavar="NAME",
                    help="module whose own imports stay eager (repeatable; added to "
                         "[tool.lazify] excluding)")
    group.addoption("--lazify-mechanism", choices=("native", "rewrite"), default=None,
                    help="native (3.15+) or rewrite (default: [tool.lazify] mechanism, "
                         "LAZIFY_MECHANISM, else native on 3.15+)")
    group.addoption("--lazify-report", default=None, metavar="PATH",
                    help="write every deferred import, resolved or not, as JSON")


def _asked(config) -> bool:
    """``--lazify``, ``-p lazify`` (or ``-p pytest_lazify``) or another of the plugin's
    options, on the command line or in ``addopts``."""
    options = config.known_args_namespace
    if any(getattr(options, name, None) for name in (
            "lazify", "lazify_excluding", "lazify_mechanism", "lazify_report")):
        return True
    plugins = getattr(options, "plugins", None) or ()
    return "lazify" in plugins or __name__ in plugins


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Before the first conftest is imported: install the hook in global mode."""
    config = early_config
    if not _asked(config):
        return
    options = config.known_args_namespace
    mechanism = getattr(options, "lazify_mechanism", None)
    extra = [name for name in getattr(options, "lazify_excluding", ()) or () if name]
    from lazify import _hook, _import_record
    from lazify._run import resolve_settings

    # a test run asked for lazy imports: lazy from the first (CI) run where the cache can
    # be written, not served plain until a later one
    _hook.defer_unless_set(_hook.WHERE_UNCACHED)
    try:
        enabled, excluding, mechanism = resolve_settings(
            mechanism, project=str(config.rootpath), extra_excluding=extra)
    except ValueError as exc:
        raise pytest.UsageError(f"lazify: {str(exc).removeprefix('lazify: ')}") from None
    _hook.install(enabled=enabled, excluding=excluding, mechanism=mechanism)
    _import_record.start()
    config.stash[_ON] = True


_ON = pytest.StashKey[bool]()
_WORKERS = pytest.StashKey[list]()


def _on(config) -> bool:
    return config.stash.get(_ON, False)


def pytest_sessionfinish(session):
    config = session.config
    if not _on(config):
        return
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:          # a pytest-xdist worker: the controller reports
        from lazify import _import_record

        workeroutput[_WORKER_KEY] = json.dumps(_import_record.snapshot())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: keep each worker's record."""
    output = getattr(node, "workeroutput", None) or {}
    data = output.get(_WORKER_KEY)
    if data is not None:
        node.config.stash.setdefault(_WORKERS, []).append(json.loads(data))


def _record(config):
    from lazify import _import_record

    workers = config.stash.get(_WORKERS, None)
    if workers:
        return _import_record.merge(workers)
    return _import_record.snapshot()


def pytest_terminal_summary(terminalreporter, config):
    if not _on(config) or getattr(config, "workeroutput", None) is not None:
        return
    from lazify import _import_record

    snap = _record(config)
    terminalreporter.write_sep("-", "lazify")
    text = _import_record.format_summary(snap, title="lazy imports", first=str(config.rootpath))
    for line in text.splitlines():
        terminalreporter.write_line(line)
    if snap.get("served_plain"):
        from lazify import _deferred

        _deferred.no_exit_warning = True   # the summary said it (and what to run)
    path = config.getoption("lazify_report")
    if path:
        report = dict(snap)
        report["summary"] = {k: v for k, v in _import_record.summary(snap).items()
                             if k != "never_resolved_imports"}
        try:
            with open(os.path.abspath(path), "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
                f.write("\n")
        except OSError as exc:
            terminalreporter.write_line(f"lazify: cannot write the report {path}: "
                                        f"{exc.strerror or exc}", red=True)
        else:
            terminalreporter.write_line(f"lazify report written to {path}")
