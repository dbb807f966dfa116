# Class 3 again: a circular import that works only in the eager order.
# sqlalchemy/orm/collections.py ends with `__go()`, which runs
# `from .mapped_collection import KeyFuncDict`; mapped_collection.py:26 runs
# `from .collections import collection` and uses it at import time (a class
# body decorator, mapped_collection.py:446).  Eagerly, orm/__init__.py's earlier
# imports load collections first, so the cycle closes on a finished
# collections.  Lazily those earlier imports are pending, orm/__init__.py:106
# (eager: that module reads its own namespace) loads mapped_collection first,
# and the cycle closes the other way round: ImportError: cannot import name
# 'KeyFuncDict' from partially initialized module.  pandas/_libs/tslibs
# (Cython modules importing each other, strptime.pyx:91 `cannot import name
# Timestamp`) is the same shape.
import pkg

print(pkg.KeyFuncDict.__name__, pkg.collection_ready)
