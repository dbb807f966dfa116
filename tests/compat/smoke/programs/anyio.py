# anyio: task groups, memory streams, cancellation scopes, threads
import anyio


async def producer(send):
    async with send:
        for i in range(3):
            await send.send(i)


async def main():
    send, recv = anyio.create_memory_object_stream(10)
    got = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(producer, send)
        async with recv:
            async for item in recv:
                got.append(item)
    print(got)
    with anyio.move_on_after(0.01) as scope:
        await anyio.sleep(1)
    print(scope.cancelled_caught)
    print(await anyio.to_thread.run_sync(sum, [1, 2, 3]))

anyio.run(main)
