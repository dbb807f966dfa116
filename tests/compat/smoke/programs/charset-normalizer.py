# charset-normalizer: detect encodings of byte strings
from charset_normalizer import from_bytes

samples = {
    "utf_8": "Voilà une phrase française avec des accents élégants.".encode("utf-8"),
    "cp1251": ("Привет мир, это проверка кодировки текста на русском языке. " * 3).encode("cp1251"),
}
for label, data in samples.items():
    best = from_bytes(data).best()
    print(label, best.encoding, str(best)[:20])
