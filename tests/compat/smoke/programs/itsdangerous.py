# itsdangerous: signed values and serialised payloads, bad signatures
from itsdangerous import BadSignature, Signer, URLSafeSerializer

s = Signer("secret-key")
signed = s.sign("value")
print(signed, s.unsign(signed))
ser = URLSafeSerializer("secret-key", salt="activate")
token = ser.dumps({"id": 5, "name": "ada"})
print(token, ser.loads(token))
try:
    ser.loads(token[:-2] + "xx")
except BadSignature as e:
    print("BadSignature", type(e).__name__)
