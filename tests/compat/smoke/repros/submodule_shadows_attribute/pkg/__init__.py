from pkg.duration import Duration


def duration(days):
    return Duration(days)
