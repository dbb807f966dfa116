# Class 4, a package attribute shadowed by a submodule.  pendulum/__init__.py:24
# `from pendulum.duration import Duration`, then pendulum/__init__.py:301
# `def duration(...)`.  Eagerly the submodule is imported first and the def
# rebinds `pendulum.duration` to the function.  Lazily the submodule is
# imported on the first use of Duration, after the def, and importing a
# submodule sets it as an attribute of its package: `pendulum.duration` is
# the module.  TypeError: 'module' object is not callable.
import pkg

print(pkg.duration(3))
print(pkg.duration(4))
