# pyyaml: safe_load, dump, anchors, a custom tag
import yaml

doc = """
defaults: &d
  retries: 3
  hosts: [a, b]
prod:
  <<: *d
  retries: 5
when: 2024-01-02
"""
data = yaml.safe_load(doc)
print(data["prod"], data["when"], type(data["when"]).__name__)
print(yaml.safe_dump({"b": [1, 2], "a": {"x": None, "y": True}}, sort_keys=True), end="")


class Point(yaml.YAMLObject):
    yaml_tag = "!Point"
    yaml_loader = yaml.SafeLoader

    def __init__(self, x, y):
        self.x, self.y = x, y


p = yaml.load("!Point {x: 1, y: 2}", Loader=yaml.SafeLoader)
print(type(p).__name__, p.x, p.y)
print(list(yaml.safe_load_all("a: 1\n---\nb: 2\n")))
try:
    yaml.safe_load("a: [1, 2")
except yaml.YAMLError as e:
    print(type(e).__name__)
print(yaml.__with_libyaml__ in (True, False))
