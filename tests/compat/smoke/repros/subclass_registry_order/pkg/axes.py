from .artist import Artist


class Axes(Artist):
    props = ("xlim", "ylim")
