"""``heavyapp xml``: pretty-print XML."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_from__('xml.dom', ('minidom', None))
__lazy__.__lazy_from__('xml.parsers.expat', ('ExpatError', None))


def run(args, stdin, stdout) -> int:
    text = stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    try:
        doc = __lazy__.minidom.parseString(text)
    except __lazy__.ExpatError as e:
        stdout.write(f"not XML: {e}\n")
        return 1
    stdout.write(doc.toprettyxml(indent="  "))
    return 0
