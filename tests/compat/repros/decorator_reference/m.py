import deco


@deco.register
class A:
    pass
