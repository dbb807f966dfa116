# pyjwt: encode and decode HS256 tokens, claims validation, headers
import jwt

token = jwt.encode({"sub": "42", "role": "admin", "exp": 4102444800}, "secret", algorithm="HS256",
                   headers={"kid": "k1"})
print(token)
print(jwt.decode(token, "secret", algorithms=["HS256"]))
print(jwt.get_unverified_header(token))
try:
    jwt.decode(token, "wrong", algorithms=["HS256"])
except jwt.InvalidSignatureError as e:
    print("InvalidSignatureError", e)
try:
    jwt.decode(jwt.encode({"exp": 1}, "s"), "s", algorithms=["HS256"])
except jwt.ExpiredSignatureError as e:
    print("ExpiredSignatureError", e)
