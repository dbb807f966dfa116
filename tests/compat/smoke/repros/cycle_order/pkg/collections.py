def collection(fn):
    fn._collection = True
    return fn


def _go():
    global KeyFuncDict
    from .mapped import KeyFuncDict


_go()
collection_ready = True
