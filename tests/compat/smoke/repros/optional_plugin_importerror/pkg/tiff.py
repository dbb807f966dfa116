from . import ACCEPT

ACCEPT["TIFF"] = lambda prefix: prefix[:4] == b"II*\x00"
