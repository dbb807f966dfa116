from . import attributes  # noqa: F401  (loads .collections as a side effect, eagerly)
from .mapped import KeyFuncDict
from .collections import collection_ready
