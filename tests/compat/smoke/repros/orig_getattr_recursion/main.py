# lazify mechanism: `orig_getattr = __getattr__` reads lazify's hook.
# plotly/graph_objects/__init__.py:131 binds `__getattr__` (from
# relative_import), line 275 saves it, `orig_getattr = __getattr__`, and
# line 277 defines a new `__getattr__` that falls back to `orig_getattr`.
# lazify keeps its own `__getattr__` in the namespace and chains the module's
# (runtime.py chain()), so `orig_getattr` is lazify's hook, which calls the
# module's newest `__getattr__`, which calls `orig_getattr`:
# RecursionError on any missing attribute (plotly.graph_objects.Bar).
import json  # noqa: F401  (a lazy import, so that lazify installs its hook)

import pkg

print(pkg.Bar)
