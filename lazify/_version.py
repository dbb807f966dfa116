"""lazify's version: the one place it is written (pyproject.toml reads it from here,
``lazify.__version__`` and the cache tag of :mod:`lazify._cache` import it).  A leaf."""

VERSION = "0.1.0"
