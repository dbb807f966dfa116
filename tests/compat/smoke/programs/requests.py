# requests: a session with a custom transport adapter (no network), as tests do
import requests
from requests.adapters import BaseAdapter
from requests.models import Response


class EchoAdapter(BaseAdapter):
    def send(self, request, **kwargs):
        resp = Response()
        resp.status_code = 200
        resp.headers["Content-Type"] = "application/json"
        resp._content = b'{"method": "%s", "url": "%s", "body": %s}' % (
            request.method.encode(), request.url.encode(), request.body or b"null")
        resp.url = request.url
        resp.request = request
        return resp

    def close(self):
        pass


s = requests.Session()
s.mount("https://api.example.test/", EchoAdapter())
s.headers["User-Agent"] = "smoke/1.0"
r = s.post("https://api.example.test/items", params={"q": "a b", "n": 2}, json={"x": [1, 2]})
print(r.status_code, r.json())
print(r.request.headers["Content-Type"], r.request.headers["User-Agent"])
prep = requests.Request("GET", "https://example.test/p", params={"k": "v"}).prepare()
print(prep.url, requests.utils.quote("a/b c"))
try:
    raise requests.exceptions.HTTPError("boom", response=r)
except requests.RequestException as e:
    print(type(e).__name__, e)
