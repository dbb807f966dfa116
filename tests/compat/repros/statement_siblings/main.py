# test_json does this (test.support.import_helper.import_fresh_module): import
# a fresh copy of a package, then put the original modules back.  Eagerly,
# both names of `from .sub import Decoder, DecodeError` come from the fresh
# pkg.sub; lazily, DecodeError is resolved later, against sys.modules, where
# pkg.sub is the original again.
import sys

import pkg as original

saved = {k: v for k, v in sys.modules.items() if k == "pkg" or k.startswith("pkg.")}
for k in saved:
    del sys.modules[k]
import pkg as fresh

sys.modules.update(saved)
try:
    fresh.default.decode()
except fresh.DecodeError:
    print("caught fresh.DecodeError")
except Exception as e:
    print("not caught:", type(e).__module__, "same class as original:", type(e) is original.DecodeError)
