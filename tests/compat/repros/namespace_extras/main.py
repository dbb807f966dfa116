# pydoc lists __lazy__ under DATA (with the module's docstring as its doc);
# runpy/reload namespace comparisons see __lazy__, __getattr__, __dir__.
import m
print(sorted(k for k in vars(m) if k in ("__lazy__", "__getattr__", "__dir__")))
