class Artist:
    """Base of everything drawn."""


def kwdoc(name):
    found = [c for c in Artist.__subclasses__() if c.__name__ == name]
    if len(found) != 1:
        raise KeyError(f"{name}:kwdoc")
    return f"{name} properties: {', '.join(sorted(vars(found[0]).get('props', ())))}"


def interpd(func):
    func.__doc__ = func.__doc__.format(kwdoc=kwdoc("Axes"))
    return func
