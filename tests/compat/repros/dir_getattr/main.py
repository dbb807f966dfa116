# unittest.TestLoader.loadTestsFromModule does this: dir() listed lazify's
# __getattr__, which leaves the module once the last pending name resolves.
import m
for name in dir(m):
    getattr(m, name)
print("ok")
