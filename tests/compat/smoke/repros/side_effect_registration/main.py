# Class 1, an import kept only for what importing does.  sqlalchemy/sql/naming.py:15
# `from . import events` defines the DDL event classes, whose metaclass registers
# the event names; the module never reads `events`.  Lazily the import never
# runs and `event.listen(...)` finds no such event.  Same shape: sqlalchemy
# pool/__init__.py:20 and engine/__init__.py:18, alembic/ddl/__init__.py:1-5
# (dialect impls, metaclass registry), alembic/operations/__init__.py:1
# (`from . import toimpl`), pandas/__init__.py:44 (`import pandas.core.config_init`,
# options), pandas/_config/__init__.py:18, pandas/_libs/__init__.py:16-17 (a C
# module that sets a capsule on `pandas`), seaborn/__init__.py (`from . import cm`,
# colormaps), alembic/__init__.py:1-2 (`from . import context`: module proxies).
import pkg

print(pkg.listen("connect"))
