# Class 2, an ImportError that moves out of the `try` that expected it.
# PIL/Image.py:489-491 imports every format plugin inside
# `try: __import__(plugin) except ImportError: pass`; PIL/FpxImagePlugin.py:21
# (and MicImagePlugin.py:20) start with `import olefile`, an optional
# dependency.  Plain, the plugin fails to import and is skipped.  Lazily the
# plugin imports fine and registers its `_accept`, which reads `olefile` when
# Image.open tries the formats in turn: ModuleNotFoundError from every
# Image.open of a format tried after FPX (TIFF, WebP, ICO, TGA, ...).
import pkg

print(pkg.open_image(b"II*\x00rest"))
