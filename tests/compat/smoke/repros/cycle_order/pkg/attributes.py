from . import collections


def make(kind):
    return collections.collection(kind)
