"""setuptools, plus one file: ``lazify-imports.pth`` at the top of site-packages.

Everything else is in pyproject.toml.  The ``.pth`` file is how ``LAZIFY=1`` turns lazify
on for any program of an environment lazify is installed in (lazify/_startup.py); it
must be in the wheel and in the editable wheel of ``pip install -e .``, which setuptools
builds without build_py's outputs, so each command gets it added here.
"""

import os
import zipfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "lazify-imports.pth"
HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithPth(build_py):
    """The wheel: the file beside the package in build/lib, which the wheel's purelib is."""

    def run(self):
        super().run()
        self.copy_file(os.path.join(HERE, PTH), os.path.join(self.build_lib, PTH))


class EditableWheelWithPth(editable_wheel):
    """``pip install -e .``: the file added to the editable wheel, and setuptools' "compat"
    mode by default (a ``.pth`` line naming this directory) rather than its import finder,
    which imports ``pathlib`` and more at every start of the environment's Python (about
    10 ms; every test's child process paid it).  ``--config-settings editable_mode=...``
    still chooses another mode."""

    def finalize_options(self):
        if not self.mode:
            self.mode = "compat"
        super().finalize_options()

    def run(self):
        super().run()
        for name in os.listdir(self.dist_dir):
            if name.endswith(".whl") and ".editable-" in name:
                with zipfile.ZipFile(os.path.join(self.dist_dir, name), "a") as wheel:
                    if PTH not in wheel.namelist():
                        wheel.write(os.path.join(HERE, PTH), PTH)


setup(cmdclass={"build_py": BuildPyWithPth, "editable_wheel": EditableWheelWithPth})
