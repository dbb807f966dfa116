from .collections import collection


class KeyFuncDict(dict):
    @collection
    def set(self, value):
        self[value] = value
