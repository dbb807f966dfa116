# regrtest does `hasattr(test_mod, "test_main")` on test.test_importlib, which
# has a submodule test_main.py that nobody imports: eagerly False.  The
# package's submodule fallback imports it instead (while anything is pending).
import pkg

print("hasattr from the main script:", hasattr(pkg, "test_main"))
import probe
