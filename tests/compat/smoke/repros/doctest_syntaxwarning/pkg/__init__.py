r"""Status codes.

>>> pkg.codes['\o/']
200
"""
import json

codes = {"\\o/": json.dumps(200)}
