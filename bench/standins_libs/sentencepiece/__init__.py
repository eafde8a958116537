"""sentencepiece stand-in (bench only; see bench/standins_libs/README.md): importable, not usable."""


class SentencePieceProcessor:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("sentencepiece is a bench stand-in here: no tokenizer model can be loaded")


class SentencePieceTrainer:
    @staticmethod
    def train(*args, **kwargs):
        raise RuntimeError("sentencepiece is a bench stand-in here: no tokenizer can be trained")
