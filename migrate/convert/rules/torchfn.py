"""Argument rules for torch.* functions whose torch signature has overloads or whose MindSpore
counterpart needs a different call shape (random sampling, dtype information, ...).

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import parse_expr
from migrate.convert.registry import argument_rule
from migrate.convert.template import render


def _call(edit, name: str, args: list, keywords: dict | None = None) -> cst.Call:
    """``name(*args, **keywords)`` with ``name`` a target name (``ops.randint``)."""
    out = [cst.Arg(a) for a in args]
    out += [cst.Arg(v, keyword=cst.Name(k), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        for k, v in (keywords or {}).items() if v is not None]
    return cst.Call(edit.conv.target(name), out)


@argument_rule("MS180", "randint")
def randint(edit) -> None:
    """Replace torch.randint(high, size) / torch.randint(low, high, size) with
    ops.randint(low, high, size) (torch's first argument is `high` when only two are given)."""
    low, high, size = (edit.bound.get(n) for n in ("low", "high", "size"))
    if size is None and high is not None and "high" in edit.positional:
        low, high, size = None, low, high          # randint(high, size)
    elif high is None and low is not None:
        low, high = None, low                      # randint(high, size=...)
    if high is None or size is None:
        edit.unsupported("randint needs high and size")
        return
    edit.result = _call(edit, "ops.randint", [low or cst.Integer("0"), high, size],
                        {"dtype": edit.bound.get("dtype")})


@argument_rule("MS181", "dtype_info")
def dtype_info(edit) -> None:
    """Replace torch.finfo(dtype) / torch.iinfo(dtype) with np.finfo / np.iinfo of the dtype's
    NumPy type (eps, max, min, tiny, bits: the same numbers, as NumPy scalars)."""
    fn = "np." + edit.entry.torch.rsplit(".", 1)[-1]
    dtype = edit.bound.get("type")
    if dtype is None:
        dtype = edit.conv.target("ms.float32")   # torch.finfo() is the default float type's
    edit.result = _call(edit, fn, [_call(edit, "ms.dtype_to_nptype", [dtype])])


@argument_rule("MS182", "normal")
def normal(edit) -> None:
    """Replace torch.normal(mean, std, size) with ops.normal(size, mean, std), and
    torch.normal(mean, std) (tensors) with ops.normal((mean + std).shape, mean, std): MindSpore
    draws `shape` samples and broadcasts them, so the shape must be the whole result's."""
    values = {"mean": edit.bound["mean"], "std": edit.value("std"), "size": edit.bound.get("size")}
    template = "ops.normal({size}, {mean}, {std})" if values["size"] is not None else \
        "ops.normal(({mean} + {std}).shape, {mean}, {std})"
    edit.result = render(edit.conv, template, values)


@argument_rule("MS183", "bernoulli")
def bernoulli(edit) -> None:
    """Replace torch.bernoulli(probs) with ops.bernoulli(probs, probs) (MindSpore's first argument
    gives only the shape and dtype; the probability is `p`), and torch.bernoulli(x, p) with
    ops.bernoulli(x, p)."""
    values = {"input": edit.bound["input"], "p": edit.bound.get("p")}
    template = "ops.bernoulli({input}, {input})" if values["p"] is None else "ops.bernoulli({input}, {p})"
    edit.result = render(edit.conv, template, values)
