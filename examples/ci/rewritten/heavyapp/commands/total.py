"""``heavyapp total``: add up decimal amounts exactly."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('decimal', None))
__lazy__.__lazy_import__(('json', None))


def run(args, stdin, stdout) -> int:
    lines = stdin if args.file == "-" else open(args.file, encoding="utf-8")
    with lines:
        amounts = [__lazy__.decimal.Decimal(line.strip()) for line in lines if line.strip()]
    result = sum(amounts, __lazy__.decimal.Decimal(0))
    if args.json:
        stdout.write(__lazy__.json.dumps({"count": len(amounts), "total": str(result)}) + "\n")
    else:
        stdout.write(f"{result}\n")
    return 0
