# simplejson: Decimal support, sorting, indentation, errors
from decimal import Decimal

import simplejson as json

s = json.dumps({"b": Decimal("1.10"), "a": [1, None, True]}, sort_keys=True, indent=1)
print(s)
print(json.loads('{"x": 1.5}', use_decimal=True), json.loads("[1, 2]"))
try:
    json.loads("{bad")
except json.JSONDecodeError as e:
    print("JSONDecodeError", e.msg, e.pos)
