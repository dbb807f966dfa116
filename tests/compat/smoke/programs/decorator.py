# decorator: signature-preserving decorators and decorator factories
import inspect

from decorator import decorator


@decorator
def trace(f, *args, **kw):
    print("calling", f.__name__, args, kw)
    return f(*args, **kw)


@trace
def area(w, h=1):
    return w * h


def retry(times):
    @decorator
    def _retry(f, *a, **k):
        for i in range(times):
            try:
                return f(*a, **k)
            except ValueError:
                print("retry", i)
        return None
    return _retry


@retry(2)
def bad():
    raise ValueError


print(area(3, h=2), inspect.signature(area), bad())
