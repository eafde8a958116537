"""The public names of torch's modules as torch 2.13 has them (mappings/torch_names.txt,
written by bench/torch_names.py): what ``from torch.nn import *`` binds, and what ``dir()`` /
``hasattr()`` find, without importing torch. Read on first use only."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_FILE = Path(__file__).resolve().parents[2] / "mappings" / "torch_names.txt"


@lru_cache(maxsize=1)
def _data() -> tuple[str, dict[str, frozenset], dict[str, tuple]]:
    version, dirs, stars = "0", {}, {}
    for line in _FILE.read_text(encoding="utf-8").splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "version":
            version = rest.strip()
        elif kind in ("dir", "star"):
            module, _, names = rest.partition(" ")
            (dirs if kind == "dir" else stars)[module] = frozenset(names.split()) if kind == "dir" \
                else tuple(names.split())
    return version, dirs, stars


def torch_version() -> str:
    """The version of torch the mappings follow (``"2.13.0"``)."""
    return _data()[0]


def has_attr(module: str, name: str) -> bool | None:
    """Whether torch's ``module`` (``torch.nn.functional``, ``torch.Tensor``) has ``name``; None
    when the module is not in the file.

    Example:
        >>> has_attr("torch.nn.functional", "silu"), has_attr("torch.nn", "NoSuchLayer")
        (True, False)
    """
    names = _data()[1].get(module)
    return None if names is None else name in names


def star_names(module: str) -> tuple[str, ...] | None:
    """The names ``from <module> import *`` binds, or None when the module is not in the file."""
    return _data()[2].get(module)


def is_module(qual: str) -> bool:
    """``qual`` is one of the torch modules the file describes."""
    return qual in _data()[1]


def public_name(qual: str) -> str:
    """A torch.nn class by the name torch.nn exports it under (the tables' name):
    ``torch.nn.modules.linear.Linear`` and ``torch.nn.modules.Linear`` -> ``torch.nn.Linear``;
    anything else (``torch.nn.modules.loss._Loss``, ``torch.nn.modules.utils._pair``) as it is.

    Example:
        >>> public_name("torch.nn.modules.activation.MultiheadAttention")
        'torch.nn.MultiheadAttention'
    """
    if not qual.startswith("torch.nn.modules."):
        return qual
    parts = qual.split(".")
    for k in (3, 4):
        if len(parts) > k and parts[k][:1].isupper() and has_attr("torch.nn", parts[k]) \
                and (k == 3 or not parts[3][:1].isupper()):
            return ".".join(["torch.nn", *parts[k:]])
    return qual
