"""``python -m heavyapp``."""

from .cli import main

raise SystemExit(main())
