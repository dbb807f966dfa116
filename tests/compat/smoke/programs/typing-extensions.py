# typing_extensions: TypedDict, Protocol, Annotated, Literal introspection, override
from typing_extensions import (Annotated, Literal, NotRequired, Protocol, TypedDict, get_args,
                               get_type_hints, override, runtime_checkable)


class Movie(TypedDict):
    title: str
    year: NotRequired[int]


@runtime_checkable
class Closer(Protocol):
    def close(self) -> None: ...


class F:
    def close(self):
        pass


class Base:
    def m(self):
        return 1


class Sub(Base):
    @override
    def m(self):
        return 2


print(Movie.__required_keys__, Movie.__optional_keys__, isinstance(F(), Closer))
print(get_args(Literal["a", "b"]), get_type_hints(Movie)["title"])
print(get_args(Annotated[int, "meta"]), Sub().m(), getattr(Sub.m, "__override__", None))
