# cryptography: hashes, HKDF, AES-GCM with a fixed nonce, Ed25519, Fernet round trip, X.509 name
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography import x509
from cryptography.x509.oid import NameOID

h = hashes.Hash(hashes.SHA256())
h.update(b"smoke")
print(h.finalize().hex())
key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"s", info=b"i").derive(b"secret")
print(key.hex())
ct = AESGCM(key).encrypt(b"\x00" * 12, b"message", b"aad")
print(ct.hex(), AESGCM(key).decrypt(b"\x00" * 12, ct, b"aad"))
sk = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
sig = sk.sign(b"msg")
sk.public_key().verify(sig, b"msg")
print(sig.hex()[:32], sk.public_key().public_bytes(serialization.Encoding.Raw,
                                                   serialization.PublicFormat.Raw).hex())
f = Fernet(Fernet.generate_key())
print(f.decrypt(f.encrypt(b"round trip")))
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "smoke.test"),
                  x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Smoke")])
print(name.rfc4514_string())
