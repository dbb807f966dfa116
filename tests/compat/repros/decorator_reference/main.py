# The only use of `deco` in m.py is a class decorator: the AST emitter skips
# a decorated statement whose decorator lines hold the only reference
# (touches() looks at the `class` line, not the first decorator line).
import m
print("ok", m.A.__name__)
