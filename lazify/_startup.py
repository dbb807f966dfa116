"""Activation at interpreter start-up, from a ``.pth`` file.

Two ``.pth`` files call in here, both processed by :mod:`site` before ``sitecustomize``:

- ``lazify-enabled.pth``, written by ``lazify enable`` into one environment's
  site-packages: it hands over the settings recorded for the environment
  (:func:`enabled`), and global mode starts unless ``LAZIFY=0``;
- ``lazify-imports.pth``, shipped in the distribution: it imports nothing unless
  ``LAZIFY`` is set, then :func:`from_environment` starts global mode for ``LAZIFY=1``
  (in any environment lazify is installed in, child processes included).

The names sort ``lazify-enabled`` first, so the recorded settings are known when
``LAZIFY=1`` asks for global mode.  Both lines catch a lazify that cannot be imported
and say so in one line: an environment must keep starting without it.

On every start-up path of an enabled environment: nothing but ``os`` and ``sys``
(through :mod:`lazify._settings`) is imported until global mode starts.
"""

from . import _settings

#: why global mode started in this process: "enabled" (the environment's ``.pth``),
#: "LAZIFY=1", or None (it did not start from a ``.pth`` file)
started_by = None

#: the activation file ``lazify enable`` writes, and the one the distribution ships
ENABLED_PTH = "lazify-enabled.pth"
DISTRIBUTION_PTH = "lazify-imports.pth"


def switch():
    """``LAZIFY`` as a boolean, None when it is unset (or empty)."""
    return _settings.env_flag("LAZIFY", None)


def enabled(record) -> None:
    """The enabled environment's ``.pth``: keep *record* (the settings ``lazify enable``
    recorded: ``enabled``, ``excluding``, ``mechanism``, ``from``, the file they were
    read from or None, and ``file``, the ``.pth`` file; :func:`lazify._settings.recorded`),
    start global mode unless ``LAZIFY=0``."""
    _settings.keep_recorded(record)
    if switch() is not False:
        _start("enabled")


def from_environment() -> None:
    """The distribution's ``.pth``, with ``LAZIFY`` set: ``LAZIFY=1`` starts global mode."""
    if switch():
        _start("LAZIFY=1")


def _start(why: str) -> None:
    global started_by
    if started_by is not None:
        return
    try:
        from . import install

        install()
    except Exception as exc:             # lazify must never be why a program fails to start
        _settings.report(f"not started ({why}): {type(exc).__name__}: {exc}")
        return
    started_by = why
