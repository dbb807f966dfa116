def register(obj):
    return obj
