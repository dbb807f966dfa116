# httpx: a client on a MockTransport, sync and async
import asyncio

import httpx


def handler(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/fail":
        return httpx.Response(404, json={"error": "missing"})
    return httpx.Response(200, json={"path": request.url.path, "q": dict(request.url.params)})


with httpx.Client(transport=httpx.MockTransport(handler), base_url="https://x.test") as c:
    r = c.get("/hello", params={"a": "1"})
    print(r.status_code, r.json(), r.headers["content-type"])
    r = c.get("/fail")
    try:
        r.raise_for_status()
    except httpx.HTTPStatusError as e:
        print("HTTPStatusError", e.response.status_code)


async def main():
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler),
                                 base_url="https://x.test") as c:
        r = await c.post("/post", json={"k": 1})
        print("async", r.status_code, r.json())

asyncio.run(main())
print(httpx.URL("https://a.test/b?c=d").copy_with(path="/e"))
