# Class 3, an import-time registry that depends on import order.
# matplotlib/_docstring.py:79 finds the class for `%(Axes:kwdoc)s` among
# `recursive_subclasses(Artist)` while matplotlib/figure.py:538 is being
# executed (a docstring decorator in the class body).  figure.py:50
# `from matplotlib.axes import Axes` is otherwise used only inside methods, so
# lazily matplotlib.axes is not imported yet, Axes is no subclass yet:
# KeyError: 'Axes:kwdoc'.  (Next in line: axes/_axes.py needs
# `_legend_kw_axes`, registered by importing matplotlib.legend.)
import pkg.figure

print(pkg.figure.Figure.add_axes.__doc__)
