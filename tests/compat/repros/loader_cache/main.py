# test_runpy/test_pydoc compare the loader type; test_import/test_importlib
# expect __cached__ to be the standard pyc path (and that file to be written).
import importlib.util
import m
print(type(m.__spec__.loader).__name__,
      "__cached__ is the standard pyc path:",
      m.__cached__ == importlib.util.cache_from_source(m.__file__))
