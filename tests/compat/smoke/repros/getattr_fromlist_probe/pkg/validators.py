from pkg import _utils


class Draft3Validator:
    FORMAT_CHECKER = _utils.checker(3)


class Draft7Validator:
    FORMAT_CHECKER = _utils.checker(7)
