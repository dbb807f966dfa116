def __getattr__(name):
    import helper
    raise AttributeError(name)
