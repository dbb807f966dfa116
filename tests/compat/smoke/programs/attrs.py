# attrs: define, validators, converters, evolve, asdict
import attrs
from attrs import define, field, validators


@define
class Point:
    x: int = field(converter=int)
    y: int = field(default=0, validator=validators.ge(0))
    tags: list = field(factory=list)


@attrs.frozen(order=True)
class Version:
    major: int
    minor: int


p = Point("3", 4)
print(p, attrs.asdict(p), attrs.evolve(p, y=9))
try:
    Point(1, -1)
except ValueError as e:
    print("ValueError", e.args[0])
print(sorted([Version(1, 2), Version(0, 9), Version(1, 0)]))
print([a.name for a in attrs.fields(Point)], attrs.has(Point))
try:
    Version(1, 2).major = 3
except attrs.exceptions.FrozenInstanceError:
    print("frozen")
