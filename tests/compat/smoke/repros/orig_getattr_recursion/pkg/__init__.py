import json


def _first_getattr(name):
    if name == "Bar":
        return "Bar from the first __getattr__"
    raise AttributeError(name)


__getattr__ = _first_getattr
orig_getattr = __getattr__


def __getattr__(name):
    if name == "FigureWidget":
        return json.dumps("widget")
    return orig_getattr(name)
