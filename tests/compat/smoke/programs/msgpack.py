# msgpack: pack/unpack, streaming unpacker, ext hooks
import datetime

import msgpack

data = {"a": [1, 2.5, None, True], "b": b"\x00\x01", "c": "text"}
packed = msgpack.packb(data)
print(packed.hex(), msgpack.unpackb(packed))
u = msgpack.Unpacker()
u.feed(msgpack.packb(1) + msgpack.packb([2, 3]))
print(list(u))


def default(o):
    if isinstance(o, datetime.date):
        return msgpack.ExtType(1, o.isoformat().encode())
    raise TypeError


def ext_hook(code, data):
    return datetime.date.fromisoformat(data.decode()) if code == 1 else msgpack.ExtType(code, data)


print(msgpack.unpackb(msgpack.packb([datetime.date(2024, 1, 2)], default=default), ext_hook=ext_hook))
