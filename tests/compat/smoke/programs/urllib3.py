# urllib3: URL parsing, retries, multipart encoding, a pool manager (no request sent)
import urllib3
from urllib3.util import Retry, Timeout, parse_url

u = parse_url("https://user@example.test:8443/a/b?x=1#frag")
print(u.scheme, u.host, u.port, u.path, u.query, u.fragment)
retry = Retry(total=3, backoff_factor=0.5, status_forcelist=[502, 503])
print(retry.total, retry.is_retry("GET", 503), retry.is_retry("GET", 404))
print(Timeout(connect=1.0, read=2.0))
body, ctype = urllib3.encode_multipart_formdata({"field": "value"}, boundary="BOUNDARY")
print(ctype)
print(body.decode().replace("\r\n", "|"))
pm = urllib3.PoolManager(num_pools=2, retries=retry)
print(type(pm.connection_from_url("https://example.test/")).__name__)
print(urllib3.make_headers(basic_auth="u:p", keep_alive=True))
