# tomli: parse a pyproject-like document
import tomli

doc = """
[project]
name = "demo"
version = "1.2.3"
dependencies = ["a>=1", "b"]
[tool.x]
when = 1979-05-27T07:32:00Z
ratio = 0.5
"""
data = tomli.loads(doc)
print(data["project"], data["tool"]["x"]["when"].isoformat(), data["tool"]["x"]["ratio"])
try:
    tomli.loads("a = ")
except tomli.TOMLDecodeError as e:
    print("TOMLDecodeError", e)
