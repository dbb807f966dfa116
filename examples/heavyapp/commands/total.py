"""``heavyapp total``: add up decimal amounts exactly."""

import decimal
import json


def run(args, stdin, stdout) -> int:
    lines = stdin if args.file == "-" else open(args.file, encoding="utf-8")
    with lines:
        amounts = [decimal.Decimal(line.strip()) for line in lines if line.strip()]
    result = sum(amounts, decimal.Decimal(0))
    if args.json:
        stdout.write(json.dumps({"count": len(amounts), "total": str(result)}) + "\n")
    else:
        stdout.write(f"{result}\n")
    return 0
