"""``lazify cache clean``: remove lazify's cache files, and nothing else
(:mod:`lazify._cache_clean`)."""

from __future__ import annotations

from .common import SUBCOMMANDS


def run(args) -> int:
    """``lazify cache clean``: remove lazify's cache files and nothing else."""
    from lazify._cache_clean import clean

    return clean(args.paths, dry_run=args.dry_run)


#: ``(name, help, description, [(flags, add_argument options)])``: :func:`run` runs it
COMMANDS = (
    ("cache",
     "lazify's bytecode cache: clean",
     "clean: remove lazify's cache files, and nothing else: beside the sources of this "
     "environment (the stdlib included) and in the per-user cache directory, or only "
     "those of the PATHs given.",
     [SUBCOMMANDS, ("clean", "remove lazify's cache files, and nothing else", [
         (("paths",), {"nargs": "*", "metavar": "PATH",
                       "help": "trees to clean (default: this environment's, and the "
                               "per-user cache directory)"}),
         (("-n", "--dry-run"), {"action": "store_true",
                                "help": "list what would be removed; remove nothing"})])]),
)
