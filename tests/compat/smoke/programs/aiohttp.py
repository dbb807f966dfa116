# aiohttp: a web application served on loopback by the test utilities, queried by a client
import asyncio

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer


async def hello(request):
    return web.json_response({"hello": request.match_info["name"], "q": request.query.get("q")})


async def echo(request):
    data = await request.json()
    return web.json_response({"got": data})


async def main():
    app = web.Application()
    app.router.add_get("/hello/{name}", hello)
    app.router.add_post("/echo", echo)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        r = await client.get("/hello/ada", params={"q": "x"})
        print(r.status, await r.json())
        r = await client.post("/echo", json=[1, 2])
        print(r.status, await r.json())
        r = await client.get("/missing")
        print(r.status)

asyncio.run(main())
