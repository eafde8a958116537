"""transformers stand-in (bench only; see bench/standins_libs/README.md): the model classes the
recipes import; loading pretrained weights raises (no network, no hub)."""


class GPT2LMHeadModel:
    @classmethod
    def from_pretrained(cls, *args, **kwargs):
        raise RuntimeError("transformers is a bench stand-in here: no pretrained model can be loaded")
