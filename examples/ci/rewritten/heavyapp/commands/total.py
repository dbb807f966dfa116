"""``heavyapp total``: add up decimal amounts exactly."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('decimal', None))
__lazy__.__lazy_import__(('json', None))
__lazy__.__lazy_from__('collections.abc', ('Iterable', None))


class Total:
    """The amounts read: how many, and their exact sum."""

    __lazy__.__lazy_annotate__('decimal'); count: int
    amount: __lazy__.__lazy_deferred__(lambda: __lazy__.decimal.Decimal, 'decimal')
    @__lazy__.__lazy_annotated__('Iterable', 'decimal')
    def __init__(self, amounts: __lazy__.__lazy_deferred__(lambda: __lazy__.Iterable[__lazy__.decimal.Decimal], 'Iterable', 'decimal')) -> None:
        amounts = list(amounts)
        self.count = len(amounts)
        self.amount = sum(amounts, __lazy__.decimal.Decimal(0))

@__lazy__.__lazy_annotated__('Iterable', 'decimal')
def parse(lines: __lazy__.__lazy_deferred__(lambda: __lazy__.Iterable[str], 'Iterable')) -> __lazy__.__lazy_deferred__(lambda: list[__lazy__.decimal.Decimal], 'decimal'):
    """One amount per non-blank line."""
    return [__lazy__.decimal.Decimal(line.strip()) for line in lines if line.strip()]


def run(args, stdin, stdout) -> int:
    lines = stdin if args.file == "-" else open(args.file, encoding="utf-8")
    with lines:
        result = Total(parse(lines))
    if args.json:
        stdout.write(__lazy__.json.dumps({"count": result.count, "total": str(result.amount)}) + "\n")
    else:
        stdout.write(f"{result.amount}\n")
    return 0
