# six: moves, metaclass helpers, string types
import six
from six.moves import configparser, filter, range, urllib
from six.moves.urllib.parse import urlencode, urlparse


class Meta(type):
    def __new__(mcs, name, bases, ns):
        ns["tag"] = name.lower()
        return super().__new__(mcs, name, bases, ns)


class Thing(six.with_metaclass(Meta, object)):
    pass


print(six.PY3, Thing.tag, isinstance("x", six.string_types), six.text_type is str)
print(urlparse("https://a.test/p?q=1").netloc, urlencode({"a": 1}), list(filter(None, range(4))))
print(configparser.ConfigParser.__name__, urllib.request.Request.__name__)
print(six.ensure_str(b"bytes"), six.b("x"), list(six.iteritems({"k": 1})))
try:
    six.reraise(ValueError, ValueError("again"))
except ValueError as e:
    print("reraised", e)
