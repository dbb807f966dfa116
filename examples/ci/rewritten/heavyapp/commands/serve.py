"""``heavyapp wait``: run several timers concurrently."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('asyncio', None))
__lazy__.__lazy_import__(('time', None))


async def _timer(seconds: float) -> float:
    await __lazy__.asyncio.sleep(seconds)
    return seconds


async def _main(seconds):
    return await __lazy__.asyncio.gather(*(_timer(s) for s in seconds))


def run(args, stdin, stdout) -> int:
    start = __lazy__.time.monotonic()
    done = __lazy__.asyncio.run(_main(args.seconds))
    elapsed = __lazy__.time.monotonic() - start
    stdout.write(f"{len(done)} timers done in {elapsed:.1f}s (longest {max(done):.1f}s)\n")
    return 0
