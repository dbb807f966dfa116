from .sub import Decoder, DecodeError

default = Decoder()
