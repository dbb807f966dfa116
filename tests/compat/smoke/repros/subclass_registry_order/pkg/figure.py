from .artist import Artist, interpd
from .axes import Axes


class Figure(Artist):
    @interpd
    def add_axes(self):
        """Add axes: {kwdoc}"""
        return Axes()
