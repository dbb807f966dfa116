"""``heavyapp wait``: run several timers concurrently."""

import asyncio
import time


async def _timer(seconds: float) -> float:
    await asyncio.sleep(seconds)
    return seconds


async def _main(seconds):
    return await asyncio.gather(*(_timer(s) for s in seconds))


def run(args, stdin, stdout) -> int:
    start = time.monotonic()
    done = asyncio.run(_main(args.seconds))
    elapsed = time.monotonic() - start
    stdout.write(f"{len(done)} timers done in {elapsed:.1f}s (longest {max(done):.1f}s)\n")
    return 0
