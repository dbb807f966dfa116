# wrapt: decorators preserving signatures, object proxies, function wrappers
import inspect

import wrapt


@wrapt.decorator
def logged(wrapped, instance, args, kwargs):
    print("call", wrapped.__name__, args)
    return wrapped(*args, **kwargs)


@logged
def add(a, b=2):
    """Add."""
    return a + b


class C:
    @logged
    def m(self, x):
        return x * 2


print(add(1), C().m(3), add.__name__, add.__doc__, inspect.signature(add))


class Loud(wrapt.ObjectProxy):
    def upper(self):
        return self.__wrapped__.upper() + "!"


p = Loud("hello")
print(p.upper(), len(p), isinstance(p, str))
