class DecodeError(ValueError):
    pass


class Decoder:
    def decode(self):
        raise DecodeError("bad")
