# idna: encode and decode internationalised domain names
import idna

print(idna.encode("ドメイン.テスト"), idna.decode("xn--eckwd4c7c.xn--zckzah"))
print(idna.encode("Königsgäßchen.example", uts46=True))
try:
    idna.encode("a..b")
except idna.IDNAError as e:
    print("IDNAError", e)
