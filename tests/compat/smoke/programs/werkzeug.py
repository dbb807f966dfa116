# werkzeug: routing, a WSGI app, the test client, security helpers
from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.test import Client
from werkzeug.wrappers import Request, Response

url_map = Map([Rule("/", endpoint="index"), Rule("/user/<int:uid>", endpoint="user")])


@Request.application
def app(request):
    adapter = url_map.bind_to_environ(request.environ)
    try:
        endpoint, args = adapter.match()
    except HTTPException as e:
        return e
    return Response(f"{endpoint} {args} {request.args.get('x')}")


c = Client(app)
print(c.get("/").get_data(as_text=True))
print(c.get("/user/7?x=y").get_data(as_text=True))
r = c.get("/nope")
print(r.status_code, isinstance(NotFound(), HTTPException))
h = generate_password_hash("secret")
print(h.split("$")[0], check_password_hash(h, "secret"), check_password_hash(h, "nope"))
print(url_map.bind("example.test").build("user", {"uid": 3}))
