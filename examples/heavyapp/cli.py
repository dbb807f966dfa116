"""Argument parsing and dispatch for heavyapp."""

import argparse
import sys

from . import __version__
from .commands import dbstats, headers, mail, serve, total, xmlfmt


def build_parser():
    parser = argparse.ArgumentParser(
        prog="heavyapp", description="A small tool whose commands each need a heavy module."
    )
    parser.add_argument("--version", action="version", version=f"heavyapp {__version__}")
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
        command = total
    elif args.command == "mail":
        command = mail
    elif args.command == "xml":
        command = xmlfmt
    elif args.command == "headers":
        command = headers
    elif args.command == "db":
        command = dbstats
    else:
        command = serve
    return command.run(args, sys.stdin, sys.stdout)
