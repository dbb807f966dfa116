"""``heavyapp xml``: pretty-print XML."""

from xml.dom import minidom
from xml.parsers.expat import ExpatError


def run(args, stdin, stdout) -> int:
    text = stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    try:
        doc = minidom.parseString(text)
    except ExpatError as e:
        stdout.write(f"not XML: {e}\n")
        return 1
    stdout.write(doc.toprettyxml(indent="  "))
    return 0
