"""``python -m lazify``: the same command line as the ``lazify`` console script."""

from lazify._main import main

raise SystemExit(main())
