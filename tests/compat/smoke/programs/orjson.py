# orjson: dataclasses, datetimes, options, errors
import dataclasses
import datetime

import orjson


@dataclasses.dataclass
class Row:
    id: int
    when: datetime.datetime
    tags: list


row = Row(1, datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), ["a"])
print(orjson.dumps(row))
print(orjson.dumps({"b": 1, "a": 2}, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode())
print(orjson.loads(b'{"x": [1, 2.5, null]}'))
try:
    orjson.loads("{")
except orjson.JSONDecodeError as e:
    print("JSONDecodeError", isinstance(e, ValueError))
