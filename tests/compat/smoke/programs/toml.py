# toml: load and dump
import toml

data = toml.loads('title = "x"\n[owner]\nname = "Tom"\n[db]\nports = [8001, 8002]\n')
print(data)
data["db"]["enabled"] = True
print(toml.dumps(data), end="")
try:
    toml.loads("a = ")
except toml.TomlDecodeError as e:
    print("TomlDecodeError", type(e).__mro__[1].__name__)
