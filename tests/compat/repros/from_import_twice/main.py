# `from pkg import bar` where executing pkg.bar raises AttributeError: the
# package __getattr__ (asked by importlib's hasattr probe) imports pkg.bar, the
# AttributeError makes hasattr answer False, and importlib imports pkg.bar a
# second time: its import-time code runs twice.
import other

try:
    from pkg import bar
except Exception as e:
    print(type(e).__name__, e)
