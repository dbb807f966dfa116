"""Argument parsing and dispatch for heavyapp."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('argparse', None))
__lazy__.__lazy_import__(('sys', None))

__lazy__.__lazy_from__('.', ('__version__', None))
__lazy__.__lazy_from__('.commands', ('dbstats', None), ('headers', None), ('mail', None), ('serve', None), ('total', None), ('xmlfmt', None))


def build_parser():
    parser = __lazy__.argparse.ArgumentParser(
        prog="heavyapp", description="A small tool whose commands each need a heavy module."
    )
    parser.add_argument("--version", action="version", version=f"heavyapp {__lazy__.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("total", help="add up decimal amounts, one per line (decimal, json)")
    p.add_argument("file", nargs="?", default="-", help="input file, - for stdin")
    p.add_argument("--json", action="store_true", help="print the result as JSON")

    p = sub.add_parser("mail", help="print an RFC 5322 message (email)")
    p.add_argument("--to", required=True)
    p.add_argument("--subject", default="(no subject)")
    p.add_argument("body")

    p = sub.add_parser("xml", help="pretty-print an XML document (xml.dom.minidom)")
    p.add_argument("file", nargs="?", default="-", help="input file, - for stdin")

    p = sub.add_parser("headers", help="parse HTTP headers from stdin as JSON (http.client)")

    p = sub.add_parser("db", help="count word frequencies with SQLite (sqlite3)")
    p.add_argument("words", nargs="+")

    p = sub.add_parser("wait", help="run timers concurrently (asyncio)")
    p.add_argument("seconds", nargs="+", type=float)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    # Only the chosen command module is touched; a dict of all of them (at module level
    # or here) would read, and so import, every one.
    if args.command == "total":
        command = __lazy__.total
    elif args.command == "mail":
        command = __lazy__.mail
    elif args.command == "xml":
        command = __lazy__.xmlfmt
    elif args.command == "headers":
        command = __lazy__.headers
    elif args.command == "db":
        command = __lazy__.dbstats
    else:
        command = __lazy__.serve
    return command.run(args, __lazy__.sys.stdin, __lazy__.sys.stdout)
