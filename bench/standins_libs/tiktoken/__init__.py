"""tiktoken stand-in (bench only; see bench/standins_libs/README.md): `get_encoding(name)` gives
a byte-level encoding into 64 ids (each UTF-8 byte modulo 64), so the recipes' small
vocabularies hold every token; decode maps ids back to printable characters."""


class Encoding:
    def __init__(self, name, n_vocab=64):
        self.name, self.n_vocab = name, n_vocab
        self.eot_token = n_vocab - 1

    def encode(self, text, **kwargs):
        return [b % self.n_vocab for b in text.encode("utf-8")]

    def encode_ordinary(self, text):
        return self.encode(text)

    def decode(self, tokens):
        return "".join(chr(32 + int(t) % 95) for t in tokens)


def get_encoding(name):
    return Encoding(name)
