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


def _given(edit, name: str):
    """The argument ``name`` as given, or None."""
    return edit.bound.get(name)


@argument_rule("MS184", "var_std")
def var_std(edit) -> None:
    """Replace torch.var/std/var_mean/std_mean(x, dim, unbiased | correction=c, keepdim) with
    ops.var/...(x, dim, ddof=c, keepdims=keepdim) (torch's default removes one degree of freedom)."""
    dim, unbiased, correction = _given(edit, "dim"), _given(edit, "unbiased"), _given(edit, "correction")
    if dim is not None and isinstance(dim, cst.Name) and dim.value in ("True", "False") and unbiased is None:
        dim, unbiased = None, dim                      # the old overload var(x, unbiased)
    if correction is not None:
        ddof = correction
    elif unbiased is None or (isinstance(unbiased, cst.Name) and unbiased.value == "True"):
        ddof = cst.Integer("1")
    elif isinstance(unbiased, cst.Name) and unbiased.value == "False":
        ddof = cst.Integer("0")
    else:
        ddof = render(edit.conv, "int({unbiased})", {"unbiased": unbiased})
    keep = _given(edit, "keepdim")
    edit.result = _call(edit, edit.entry.target, [edit.bound["input"]] + ([dim] if dim is not None else []),
                        {"ddof": ddof, "keepdims": keep})


@argument_rule("MS185", "median")
def median(edit) -> None:
    """Replace torch.median(x) with ops.median(ops.reshape(x, (-1,)), 0)[0] (the lower median of
    all elements) and torch.median(x, dim, keepdim) with ops.median(x, dim, keepdim)."""
    values = {"input": edit.bound["input"], "dim": _given(edit, "dim"), "keepdim": edit.value("keepdim")}
    if values["dim"] is None:
        edit.result = render(edit.conv, "ops.median(ops.reshape({input}, (-1,)), 0)[0]", values)
    elif "keepdim" in edit.bound:
        edit.result = render(edit.conv, "ops.median({input}, {dim}, {keepdim})", values)
    else:
        edit.result = render(edit.conv, "ops.median({input}, {dim})", values)


@argument_rule("MS186", "aminmax")
def aminmax(edit) -> None:
    """Replace torch.aminmax(x) with (ops.amin(x), ops.amax(x)) (MindSpore's default axis is 0,
    torch's all axes) and torch.aminmax(x, dim=d) with ops.aminmax(x, axis=d)."""
    values = {"input": edit.bound["input"], "dim": _given(edit, "dim"), "keepdim": edit.value("keepdim")}
    if values["dim"] is None:
        template = "(ops.amin({input}, None, {keepdim}), ops.amax({input}, None, {keepdim}))" \
            if "keepdim" in edit.bound else "(ops.amin({input}), ops.amax({input}))"
    else:
        template = "ops.aminmax({input}, axis={dim}, keepdims={keepdim})"
    edit.result = render(edit.conv, template, values)


_UNIQUE_SORTED = "ops.sort(ops.reshape({input}, (-1,)))[0]"


@argument_rule("MS187", "unique")
def unique(edit) -> None:
    """Replace torch.unique(x, return_inverse, return_counts) with ops.unique_consecutive of the
    sorted elements (torch's result is sorted; ops.unique keeps the order of appearance), the
    inverse by ops.searchsorted."""
    inverse, counts = (_flag(edit, n) for n in ("return_inverse", "return_counts"))
    if inverse is None or counts is None:
        edit.unsupported("return_inverse/return_counts must be written as True or False")
        return
    base = f"ops.unique_consecutive({_UNIQUE_SORTED}" + (", False, True)" if counts else ")")
    if not inverse:
        template = base
    elif counts:
        template = f"(lambda _u: (_u[0], ops.searchsorted(_u[0], {{input}}), _u[1]))({base})"
    else:
        template = f"(lambda _u: (_u, ops.searchsorted(_u, {{input}})))({base})"
    edit.result = render(edit.conv, template, {"input": edit.bound["input"]})


def _flag(edit, name: str):
    """A boolean argument's value (its default when not given), or None when it is not a literal."""
    value = edit.value(name)
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    return None


@argument_rule("MS188", "count_nonzero")
def count_nonzero(edit) -> None:
    """Replace torch.count_nonzero(x, dim) with ops.count_nonzero(x, dim, dtype=ms.int64) (Int64
    as torch's; MindSpore counts over all axes with axis=())."""
    dim = _given(edit, "dim")
    template = "ops.count_nonzero({input}, dtype=ms.int64)" if dim is None else \
        "ops.count_nonzero({input}, {dim}, dtype=ms.int64)"
    edit.result = render(edit.conv, template, {"input": edit.bound["input"], "dim": dim})


@argument_rule("MS189", "bincount")
def bincount(edit) -> None:
    """Replace torch.bincount(x, minlength=m) with ops.bincount(x, minlength=m).astype(ms.int64)
    (MindSpore counts in Float32; with weights the result has their float type, as torch's)."""
    weights, minlength = _given(edit, "weights"), _given(edit, "minlength")
    call = _call(edit, "ops.bincount", [edit.bound["input"]] + ([weights] if weights is not None else []),
                 {"minlength": minlength})
    if weights is None:
        call = cst.Call(cst.Attribute(call, cst.Name("astype")), [cst.Arg(edit.conv.target("ms.int64"))])
    edit.result = call
