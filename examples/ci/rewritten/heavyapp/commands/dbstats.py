"""``heavyapp db``: word counts through an in-memory SQLite database."""

import sqlite3
from decimal import Decimal

# Module-level use: `lazify check` reports sqlite3 and Decimal as "used at import
# time" here, since this line needs them while the module is being imported.
sqlite3.register_adapter(Decimal, str)


def run(args, stdin, stdout) -> int:
    db = sqlite3.connect(":memory:")
    try:
        db.execute("create table words (word text)")
        db.executemany("insert into words values (?)", [(w,) for w in args.words])
        rows = db.execute(
            "select word, count(*) from words group by word order by count(*) desc, word"
        )
        for word, count in rows:
            stdout.write(f"{count:4d}  {word}\n")
    finally:
        db.close()
    return 0
