from .registry import EVENTS

EVENTS.update({"connect", "close"})
