import olefile_not_installed_anywhere as olefile

from . import ACCEPT

ACCEPT["FPX"] = lambda prefix: prefix.startswith(olefile.MAGIC)
