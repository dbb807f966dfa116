# lazify bug (3.12+, cold cache only): the planner parses the `>>>` lines of
# docstrings (_plan.py _doctest_names, `ast.parse(chunk)`) to learn which names
# doctests read.  requests/status_codes.py:13 has `>>> requests.codes['\o/']`
# in its (raw) module docstring; compiling that line on its own warns, and the
# warning reaches the program's stderr as
#   <unknown>:1: SyntaxWarning: "\o" is an invalid escape sequence. ...
# (on 3.11 it is a DeprecationWarning, hidden by the default filters).
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import pkg

    print(pkg.codes["\\o/"])
print([f"{w.category.__name__} {w.filename}:{w.lineno}" for w in caught])
