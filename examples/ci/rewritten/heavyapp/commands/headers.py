"""``heavyapp headers``: parse an HTTP header block."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('http.client', None))
__lazy__.__lazy_import__(('io', None))
__lazy__.__lazy_import__(('json', None))


def run(args, stdin, stdout) -> int:
    raw = stdin.read().replace("\r\n", "\n").replace("\n", "\r\n")
    if not raw.endswith("\r\n\r\n"):
        raw += "\r\n"
    message = __lazy__.http.client.parse_headers(__lazy__.io.BytesIO(raw.encode("iso-8859-1")))
    stdout.write(__lazy__.json.dumps(dict(message.items()), indent=2, sort_keys=True) + "\n")
    return 0
