# regrtest does `hasattr(test_mod, "test_main")` on test.test_importlib,
# which has a submodule test_main.py nobody imports.
import pkg
print("hasattr:", hasattr(pkg, "test_main"))
