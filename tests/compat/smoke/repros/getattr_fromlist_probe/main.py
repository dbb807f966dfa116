# lazify mechanism: a package's own __getattr__ reached by importlib's fromlist
# probe.  jsonschema/__init__.py:16 `from jsonschema.validators import
# Draft3Validator, ...` (lazy), then a module __getattr__ (line 75) that
# builds a dict of those validators before it looks at the name (line 98).
# jsonschema/validators.py:24 `from jsonschema import _utils` runs
# `hasattr(jsonschema, "_utils")` first (importlib._bootstrap._handle_fromlist).
# Eagerly that happens before jsonschema's __getattr__ is defined.  Lazily
# validators.py runs later, the probe calls jsonschema.__getattr__("_utils"),
# which resolves Draft3Validator from the half-initialised validators:
# ImportError: cannot import name 'Draft3Validator' from 'jsonschema.validators'.
import pkg

print(pkg.Draft7Validator.FORMAT_CHECKER)
