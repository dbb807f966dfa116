# starlette: routes, middleware, JSON responses, the TestClient
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient


async def homepage(request):
    return JSONResponse({"hello": request.query_params.get("name", "world")})


async def user(request):
    return PlainTextResponse(f"user {request.path_params['uid']}")


class Stamp(BaseHTTPMiddleware):
    async def dispatch(self, request, call_next):
        response = await call_next(request)
        response.headers["x-smoke"] = "1"
        return response


app = Starlette(routes=[Route("/", homepage), Route("/u/{uid:int}", user)],
                middleware=[Middleware(Stamp)])
with TestClient(app) as client:
    r = client.get("/?name=ada")
    print(r.status_code, r.json(), r.headers["x-smoke"])
    print(client.get("/u/5").text)
    print(client.get("/missing").status_code)
