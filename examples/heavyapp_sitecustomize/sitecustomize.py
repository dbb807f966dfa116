"""Activate lazify for every program started with this directory on PYTHONPATH.

    PYTHONPATH=examples/heavyapp_sitecustomize:examples python -m heavyapp total --json
"""

import lazify

lazify.install()
