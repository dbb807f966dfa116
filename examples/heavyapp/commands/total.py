"""``heavyapp total``: add up decimal amounts exactly."""

import decimal
import json
from collections.abc import Iterable


class Total:
    """The amounts read: how many, and their exact sum."""

    count: int
    amount: decimal.Decimal

    def __init__(self, amounts: Iterable[decimal.Decimal]) -> None:
        amounts = list(amounts)
        self.count = len(amounts)
        self.amount = sum(amounts, decimal.Decimal(0))


def parse(lines: Iterable[str]) -> list[decimal.Decimal]:
    """One amount per non-blank line."""
    return [decimal.Decimal(line.strip()) for line in lines if line.strip()]


def run(args, stdin, stdout) -> int:
    lines = stdin if args.file == "-" else open(args.file, encoding="utf-8")
    with lines:
        result = Total(parse(lines))
    if args.json:
        stdout.write(json.dumps({"count": result.count, "total": str(result.amount)}) + "\n")
    else:
        stdout.write(f"{result.amount}\n")
    return 0
