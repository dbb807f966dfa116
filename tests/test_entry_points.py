"""lazify._entry_points: the names the emitters spell, against the runtime that defines them."""

from __future__ import annotations


def test_runtime_defines_every_entry_point():
    """Every name the emitters spell from lazify._entry_points exists on the runtime."""
    from lazify import _entry_points as ep
    from lazify import _importlib_bootstrap as _runtime

    assert _runtime.__name__ == ep.RUNTIME
    assert callable(getattr(_runtime, ep.FACTORY))
    module = {"__name__": "entry_points_probe"}
    module[ep.NAMESPACE] = namespace = getattr(_runtime, ep.FACTORY)(module)
    assert _runtime.state_of(module) is not None    # found under that name
    assert set(ep.NAMESPACE_READS.values()) <= set(ep.METHODS)
    for method in ep.METHODS:
        assert callable(getattr(type(namespace), method, None)), method
