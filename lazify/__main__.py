"""``python -m lazify``: the same command line as the ``lazify`` console script."""

from lazify._cli import main

raise SystemExit(main())
