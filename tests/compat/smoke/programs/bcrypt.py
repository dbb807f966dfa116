# bcrypt: hash with a fixed salt, check, kdf
import bcrypt

salt = b"$2b$04$" + b"abcdefghijklmnopqrstuu"
h = bcrypt.hashpw(b"correct horse", salt)
print(h.decode(), bcrypt.checkpw(b"correct horse", h), bcrypt.checkpw(b"wrong", h))
print(bcrypt.kdf(password=b"pw", salt=b"salt", desired_key_bytes=16, rounds=4).hex())
fresh = bcrypt.hashpw(b"x", bcrypt.gensalt(rounds=4))
print(len(fresh), bcrypt.checkpw(b"x", fresh))
