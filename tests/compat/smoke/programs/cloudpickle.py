# cloudpickle: pickle lambdas, closures and local classes, load with pickle
import pickle

import cloudpickle

base = 10
f = lambda x: x + base  # noqa: E731


def make():
    class Local:
        def __init__(self, v):
            self.v = v

        def twice(self):
            return self.v * 2
    return Local


data = cloudpickle.dumps((f, make()(21)))
g, obj = pickle.loads(data)
print(g(5), obj.twice(), type(obj).__name__)
