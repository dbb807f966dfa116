from . import events  # noqa: F401  (registers the event names)
from .registry import EVENTS


def listen(name):
    if name not in EVENTS:
        raise LookupError(f"no such event {name!r}")
    return f"listening to {name}"
