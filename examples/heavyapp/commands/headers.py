"""``heavyapp headers``: parse an HTTP header block."""

import http.client
import io
import json


def run(args, stdin, stdout) -> int:
    raw = stdin.read().replace("\r\n", "\n").replace("\n", "\r\n")
    if not raw.endswith("\r\n\r\n"):
        raw += "\r\n"
    message = http.client.parse_headers(io.BytesIO(raw.encode("iso-8859-1")))
    stdout.write(json.dumps(dict(message.items()), indent=2, sort_keys=True) + "\n")
    return 0
