"""Argument rules for torch.* functions whose torch signature has overloads or whose MindSpore
counterpart needs a different call shape (random sampling, dtype information, ...).

Their IDs are ``MS3xx`` (rewrites of torch.* and torch.nn.functional calls): MS1xx had too few
free IDs left for them.

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import is_literal, literal
from migrate.convert.cst import as_argument, code_of, parse_expr
from migrate.convert.dtype_forms import BOOL_CALLS, known_equal
from migrate.convert.registry import argument_rule
from migrate.convert.rules.layers import _conv_padding, layer_norm_function
from migrate.convert.template import render


def _call(edit, name: str, args: list, keywords: dict | None = None) -> cst.Call:
    """``name(*args, **keywords)`` with ``name`` a target name (``ops.randint``)."""
    out = [cst.Arg(a) for a in args]
    out += [cst.Arg(v, keyword=cst.Name(k), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        for k, v in (keywords or {}).items() if v is not None]
    return cst.Call(edit.converter.target(name), out)


@argument_rule("MS300", "randint", needs=["torch_seed"], examples=[
    ("y = torch.randint(10, (2, 3))\n",
     "y = ops.randint(0, 10, (2, 3))\n"),
])
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
                        {"seed": generator_seed(edit, "None"), "dtype": edit.bound.get("dtype")})


def generator_seed(edit, unset: str):
    """``seed=`` for torch's ``generator=g`` argument: ``torch_seed(g, unset)``, the next seed of
    the generator's own stream (None when no generator is given)."""
    g = edit.bound.get("generator")
    edit.out = [item for item in edit.out if item[0] != "generator"]
    if g is None or code_of(g) == "None":
        return None
    return parse_expr(f"{edit.helper('torch_seed')}({code_of(g)}, {unset})")


@argument_rule("MS251", "generator_to_seed", needs=["torch_seed"], examples=[
    ("g = torch.Generator()\n"
     "i = torch.randperm(8, generator=g)\n",
     "g = TorchGenerator()\n"
     "i = ops.randperm(8, seed=torch_seed(g, 0))\n"),
])
def generator_to_seed(edit) -> None:
    """Replace torch.randperm / multinomial(..., generator=g) with the op given
    seed=torch_seed(g, unset): each call draws its seed from the generator's stream (the global
    stream when g is None)."""
    seed = generator_seed(edit, "0" if edit.entry.target == "ops.randperm" else "None")
    if seed is not None:
        edit.out.append(["seed", seed, False, None])


@argument_rule("MS252", "generator_class", needs=["TorchGenerator"], examples=[
    ("g = torch.Generator()\n"
     "g.manual_seed(0)\n",
     "g = TorchGenerator()\n"
     "g.manual_seed(0)\n"),
])
def generator_class(edit) -> None:
    """Replace torch.Generator() with TorchGenerator() (generated: a seeded stream whose seeds
    feed the random calls given it; MindSpore 2.10's Generator drives no CPU kernel)."""
    edit.result = parse_expr(f"{edit.helper('TorchGenerator')}()")


@argument_rule("MS301", "dtype_info", examples=[
    ("y = torch.finfo(torch.float16)\n",
     "y = np.finfo(ms.dtype_to_nptype(ms.float16))\n"),
])
def dtype_info(edit) -> None:
    """Replace torch.finfo(dtype) / torch.iinfo(dtype) with np.finfo / np.iinfo of the dtype's
    NumPy type (eps, max, min, tiny, bits: the same numbers, as NumPy scalars; a field read on the
    call itself becomes a Python float, as torch's are: MS354)."""
    fn = "np." + edit.entry.torch.rsplit(".", 1)[-1]
    dtype = edit.bound.get("type")
    if dtype is None:
        dtype = edit.converter.target("ms.float32")   # torch.finfo() is the default float type's
    edit.result = _call(edit, fn, [_call(edit, "ms.dtype_to_nptype", [dtype])])


@argument_rule("MS302", "normal", examples=[
    ("y = torch.normal(0.0, 1.0, (2, 3))\n",
     "y = ops.normal((2, 3), 0.0, 1.0)\n"),
])
def normal(edit) -> None:
    """Replace torch.normal(mean, std, size) with ops.normal(size, mean, std), and
    torch.normal(mean, std) (tensors) with ops.normal((mean + std).shape, mean, std): MindSpore
    draws `shape` samples and broadcasts them, so the shape must be the whole result's."""
    values = {"mean": edit.bound["mean"], "std": edit.value("std"), "size": edit.bound.get("size")}
    template = "ops.normal({size}, {mean}, {std})" if values["size"] is not None else \
        "ops.normal(({mean} + {std}).shape, {mean}, {std})"
    edit.result = render(edit.converter, template, values)


@argument_rule("MS303", "bernoulli", runtime=True, examples=[
    ("y = torch.bernoulli(p)\n",
     "y = ops.bernoulli(p, p)\n"),
])
def bernoulli(edit) -> None:
    """Replace torch.bernoulli(probs) with ops.bernoulli(probs, probs) (MindSpore's first argument
    gives only the shape and dtype; the probability is `p`), and torch.bernoulli(x, p) with
    ops.bernoulli(x, p)."""
    values = {"input": edit.bound["input"], "p": edit.bound.get("p")}
    template = "ops.bernoulli({input}, {input})" if values["p"] is None else "ops.bernoulli({input}, {p})"
    if edit.runtime:  # p=None at run time: the input's own probabilities
        template = "ops.bernoulli({input}, {input} if {p} is None else {p})"
    edit.result = render(edit.converter, template, values)


def _given(edit, name: str):
    """The argument ``name`` as given, or None."""
    return edit.bound.get(name)


@argument_rule("MS304", "var_std", examples=[
    ("y = torch.var(x, 1, unbiased=False)\n",
     "y = ops.var(x, 1, ddof=0)\n"),
])
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
        ddof = render(edit.converter, "int({unbiased})", {"unbiased": unbiased})
    keep = _given(edit, "keepdim")
    edit.result = _call(edit, edit.entry.target, [edit.bound["input"]] + ([dim] if dim is not None else []),
                        {"ddof": ddof, "keepdims": keep})


@argument_rule("MS305", "torch_median", examples=[
    ("y = torch.median(x)\n",
     "y = ops.median(ops.reshape(x, (-1,)), 0)[0]\n"),
])
def median(edit) -> None:
    """Replace torch.median(x) with ops.median(ops.reshape(x, (-1,)), 0)[0] (the lower median of
    all elements) and torch.median(x, dim, keepdim) with ops.median(x, dim, keepdim)."""
    values = {"input": edit.bound["input"], "dim": _given(edit, "dim"), "keepdim": edit.value("keepdim")}
    if values["dim"] is None:
        edit.result = render(edit.converter, "ops.median(ops.reshape({input}, (-1,)), 0)[0]", values)
    elif "keepdim" in edit.bound:
        edit.result = render(edit.converter, "ops.median({input}, {dim}, {keepdim})", values)
    else:
        edit.result = render(edit.converter, "ops.median({input}, {dim})", values)


@argument_rule("MS306", "aminmax", examples=[
    ("y = torch.aminmax(x)\n",
     "y = (ops.amin(x), ops.amax(x))\n"),
])
def aminmax(edit) -> None:
    """Replace torch.aminmax(x) with (ops.amin(x), ops.amax(x)) (MindSpore's default axis is 0,
    torch's all axes) and torch.aminmax(x, dim=d) with ops.aminmax(x, axis=d)."""
    values = {"input": edit.bound["input"], "dim": _given(edit, "dim"), "keepdim": edit.value("keepdim")}
    if values["dim"] is None:
        template = "(ops.amin({input}, None, {keepdim}), ops.amax({input}, None, {keepdim}))" \
            if "keepdim" in edit.bound else "(ops.amin({input}), ops.amax({input}))"
    else:
        template = "ops.aminmax({input}, axis={dim}, keepdims={keepdim})"
    edit.result = render(edit.converter, template, values)


_UNIQUE_SORTED = "ops.sort(ops.reshape({input}, (-1,)))[0]"


@argument_rule("MS307", "unique", runtime=True, needs=["torch_unique"], examples=[
    ("y = torch.unique(x, return_counts=True)\n",
     "y = ops.unique_consecutive(ops.sort(ops.reshape(x, (-1,)))[0], False, True)\n"),
    ("y, i = torch.unique(x, return_inverse=True)\n",
     "y, i = torch_unique(x, return_inverse=True)\n"),
])
def unique(edit) -> None:
    """Replace torch.unique(x) / x.unique() and return_counts=True with ops.unique_consecutive of the sorted
    elements (torch's result is sorted; ops.unique keeps the order of appearance); with return_inverse, dim
    or flags known at run time only with the runtime's torch_unique, torch's semantics (x.unique() left as it
    is on ms_core)."""
    method = edit.entry.torch.startswith("Tensor.")
    source = as_argument(edit.method_receiver if method else edit.bound["input"])
    inverse, counts = (_flag(edit, n) for n in ("return_inverse", "return_counts"))
    dim = edit.bound.get("dim")
    if edit.runtime or inverse is not False or counts is None or not (dim is None or code_of(dim) == "None"):
        args = [cst.Arg(source)] + [
            cst.Arg(edit.bound[n], keyword=cst.Name(n), equal=_EQ)
            for n in ("sorted", "return_inverse", "return_counts", "dim") if n in edit.bound]
        edit.result = cst.Call(cst.Name(edit.helper("torch_unique")), args)
        return
    if method and not counts and edit.converter.facts.target_name == "ms_core":
        return  # x.unique(): ms_core's Tensor.unique is torch's (MindSpore 2.10's has no CPU kernel)
    template = f"ops.unique_consecutive({_UNIQUE_SORTED}" + (", False, True)" if counts else ")")
    edit.result = render(edit.converter, template, {"input": source})


def _flag(edit, name: str):
    """A boolean argument's value (its default when not given), or None when it is not a literal."""
    value = edit.value(name)
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    return None


@argument_rule("MS308", "count_nonzero", examples=[
    ("y = torch.count_nonzero(x, 1)\n",
     "y = ops.count_nonzero(x, 1, dtype=ms.int64)\n"),
])
def count_nonzero(edit) -> None:
    """Replace torch.count_nonzero(x, dim) with ops.count_nonzero(x, dim, dtype=ms.int64) (Int64
    as torch's; MindSpore counts over all axes with axis=())."""
    dim = _given(edit, "dim")
    template = "ops.count_nonzero({input}, dtype=ms.int64)" if dim is None else \
        "ops.count_nonzero({input}, {dim}, dtype=ms.int64)"
    edit.result = render(edit.converter, template, {"input": edit.bound["input"], "dim": dim})


@argument_rule("MS309", "bincount", examples=[
    ("y = torch.bincount(x)\n",
     "y = ops.bincount(x).astype(ms.int64)\n"),
])
def bincount(edit) -> None:
    """Replace torch.bincount(x, minlength=m) with ops.bincount(x, minlength=m).astype(ms.int64)
    (MindSpore counts in Float32; with weights the result has their float type, as torch's)."""
    weights, minlength = _given(edit, "weights"), _given(edit, "minlength")
    call = _call(edit, "ops.bincount", [edit.bound["input"]] + ([weights] if weights is not None else []),
                 {"minlength": minlength})
    if weights is None:
        call = cst.Call(cst.Attribute(call, cst.Name("astype")), [cst.Arg(edit.converter.target("ms.int64"))])
    edit.result = call


def _spread_single(edit, several: bool = False) -> list:
    """The ``*name`` parameter's values as separate arguments: a single list or tuple literal is
    unpacked (``meshgrid([a, b])``); a single other value is starred when ``several`` says it
    stands for several operands."""
    args = edit.star_args
    if len(args) == 1 and not args[0].star:
        value = args[0].value
        if isinstance(value, (cst.List, cst.Tuple)):
            return [cst.Arg(e.value, star="*" if isinstance(e, cst.StarredElement) else "")
                    for e in value.elements]
        if several:
            return [cst.Arg(value, star="*")]
    return [cst.Arg(a.value, star=a.star) for a in args]


@argument_rule("MS310", "einsum", needs=["torch_einsum"], examples=[
    ("y = torch.einsum('ij,jk->ik', [a, b])\n",
     "y = ops.einsum('ij,jk->ik', a, b)\n"),
])
def einsum(edit) -> None:
    """Replace torch.einsum(eq, [a, b]) / torch.einsum(eq, a, b) with ops.einsum(eq, a, b)
    (MindSpore takes the operands one by one), or with --target mindspore with torch_einsum(eq, a,
    b), a generated function of sums and batched matmuls (MindSpore 2.10's CPU backend has no
    Einsum kernel)."""
    equation = edit.bound["equation"]
    several = not isinstance(equation, cst.SimpleString) or "," in equation.value
    operands = _spread_single(edit, several)
    func = edit.converter.target("ops.einsum")
    if edit.converter.facts.target_name == "mindspore":
        func = cst.Name(edit.helper("torch_einsum"))
        edit.worse("transformed", "MindSpore 2.10's CPU backend has no Einsum kernel: torch_einsum computes it "
                                  "with sums and batched matmuls")
    edit.result = cst.Call(func, [cst.Arg(equation)] + operands)


def _written_operands(call: cst.Call) -> list | None:
    """The operands of torch.cat(tensors, ...) as written when ``tensors`` is a list or tuple display without
    starred items; None otherwise (a sequence built elsewhere)."""
    args = call.args
    sequence = next((a.value for a in args[:1] if a.keyword is None and not a.star), None) or \
        next((a.value for a in args if a.keyword is not None and a.keyword.value in ("tensors", "seq")), None)
    if not isinstance(sequence, (cst.List, cst.Tuple)) or \
            any(isinstance(e, cst.StarredElement) for e in sequence.elements):
        return None
    return [e.value for e in sequence.elements]


@argument_rule("MS335", "cat_promote", runtime=True, needs=["cat_promoted", "stack_promoted"], examples=[
    ("def f(labels):\n"
     "    pad = -torch.ones(2, 1)\n"
     "    return torch.cat([labels, pad], dim=1)\n",
     "def f(labels):\n"
     "    pad = -ops.ones((2, 1))\n"
     "    return ops.cat([labels, pad], axis=1)\n"),
])
def cat_promote(edit) -> None:
    """Replace torch.cat / torch.stack with --target mindspore, where the operands' dtypes are not known equal
    by form (a tensor made or cast to a dtype beside one whose dtype only run time knows), with cat_promoted /
    stack_promoted, ops.cat / ops.stack after torch's type promotion (MindSpore 2.10's Concat and Stack take one
    dtype: int64 labels with float32 padding fail); operands of one form stay ops.cat."""
    if edit.converter.facts.target_name != "mindspore":
        return
    if not edit.runtime:  # (at run time, in the torch-signature function, nothing is known)
        operands = _written_operands(edit.original)
        if operands is None or known_equal(edit.converter, operands):
            return
    stack = edit.entry.torch.endswith("stack")
    edit.func = cst.Name(edit.helper("stack_promoted" if stack else "cat_promoted"))
    edit.worse("transformed", "the operands' dtypes may differ: torch promotes them, MindSpore 2.10's "
                              f"{'Stack' if stack else 'Concat'} takes one dtype")


@argument_rule("MS336", "softmax_guard", runtime=True, needs=["softmax_guarded"], examples=[
    ("y = F.softmax(x, dim=-1)\n",
     "y = ops.softmax(x, axis=-1)\n"),
])
def softmax_guard(edit) -> None:
    """Replace F.softmax(x, dim) / x.softmax(dim) with --target mindspore with softmax_guarded(x, axis): ones over an
    axis of length 1 (MindSpore 2.10's CPU Softmax there makes another softmax's gradient in the same backward pass
    wrong), ops.softmax otherwise."""
    if edit.converter.facts.target_name != "mindspore":
        return
    edit.func = cst.Name(edit.helper("softmax_guarded"))
    if edit.entry.torch.startswith("Tensor."):
        edit.receiver = as_argument(edit.method_receiver)
    edit.worse("transformed", "MindSpore 2.10's CPU Softmax over an axis of length 1 makes the gradient of another "
                              "softmax in the same backward pass wrong: softmax_guarded writes that case as ones")


@argument_rule("MS330", "roll", needs=["torch_roll"], examples=[
    ("y = torch.roll(x, 1, 0)\n",
     "y = ops.roll(x, 1, 0)\n"),
])
def roll(edit) -> None:
    """Replace torch.roll(x, s, d) / x.roll(s, d) with ops.roll / x.roll, or with --target
    mindspore with torch_roll(x, s, d), slices joined by ops.cat (MindSpore 2.10's CPU backend
    has no Roll kernel)."""
    if edit.converter.facts.target_name != "mindspore":
        return
    x = edit.method_receiver if edit.entry.torch.startswith("Tensor.") else edit.bound["input"]
    args = [cst.Arg(x), cst.Arg(edit.bound["shifts"])]
    if edit.bound.get("dims") is not None:
        args.append(cst.Arg(edit.bound["dims"]))
    edit.worse("transformed", "MindSpore 2.10's CPU backend has no Roll kernel: torch_roll joins slices")
    edit.result = cst.Call(cst.Name(edit.helper("torch_roll")), args)


def _non_negative_amounts(pad) -> bool:
    """``pad`` is a tuple or list of non-negative integers written out."""
    if not isinstance(pad, (cst.Tuple, cst.List)) or not is_literal(pad):
        return False
    return all(isinstance(v, int) and v >= 0 for v in literal(pad))


@argument_rule("MS331", "empty_shape_factory", examples=[
    ("y = torch.zeros(2, 3)\n",
     "y = ops.zeros((2, 3))\n"),
])
def empty_shape_factory(edit) -> None:
    """Replace torch.zeros(()) / torch.ones(s) with ops.zeros(()), or with --target mindspore
    ops.zeros((), dtype=ms.float32) where the shape may be empty and no dtype is given (MindSpore
    2.10's CPU Zeros/Ones kernels refuse a 0-d shape without one; float32 is torch's default)."""
    if edit.converter.facts.target_name != "mindspore" or code_of(edit.value("dtype")) != "None":
        return
    size = next((item[1] for item in edit.out if item[0] == "size"), None)
    if isinstance(size, (cst.Tuple, cst.List)) and size.elements:
        return  # a shape of one or more axes: MindSpore's default dtype is float32 too
    edit.converter.output.used.add("ms")
    edit.set("dtype", "ms.float32")
    edit.note("dtype=ms.float32 given: MindSpore 2.10's CPU kernel refuses a 0-d shape without a dtype")


@argument_rule("MS311", "meshgrid", examples=[
    ("y = torch.meshgrid(a, b)\n",
     "y = ops.meshgrid(a, b, indexing='ij')\n"),
])
def meshgrid(edit) -> None:
    """Replace torch.meshgrid(a, b) / torch.meshgrid([a, b]) with ops.meshgrid(a, b, indexing='ij')
    (torch's default indexing is 'ij', MindSpore's 'xy'; MindSpore takes the tensors one by one)."""
    tensors = _spread_single(edit)
    indexing = edit.bound.get("indexing") or cst.SimpleString("'ij'")
    edit.result = cst.Call(edit.converter.target("ops.meshgrid"),
                           tensors + [cst.Arg(indexing, keyword=cst.Name("indexing"), equal=_EQ)])


_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


@argument_rule("MS312", "where", examples=[
    ("y = torch.where(x > 0)\n",
     "y = ops.unbind(ops.nonzero(x > 0), 1)\n"),
])
def where(edit) -> None:
    """Replace torch.where(condition) (one argument) with ops.unbind(ops.nonzero(condition), 1).
    With --target mindspore, torch.where(condition, x, y) whose condition is not bool by its form
    (a comparison, a logical operation, .bool()) gets condition.astype(ms.bool_): torch takes a
    uint8 mask (torch.ByteTensor, pytorch-crf's), MindSpore 2.10's CPU Select refuses it."""
    if "input" in edit.bound or "other" in edit.bound:
        condition = edit.bound.get("condition")
        if edit.converter.facts.target_name == "mindspore" and condition is not None and not _bool_by_form(condition):
            cast = cst.Attribute(condition, cst.Name("astype"))
            edit.set("condition", cst.Call(cast, [cst.Arg(edit.converter.target("ms.bool_"))]))
            edit.worse("transformed", "the condition is cast to bool: torch takes a uint8 mask, MindSpore 2.10's "
                                      "Select a bool one only")
        return
    edit.result = _call(edit, "ops.unbind", [_call(edit, "ops.nonzero", [edit.bound["condition"]]), cst.Integer("1")])


def _bool_by_form(node) -> bool:
    """``node`` is a bool tensor by its form: a comparison, ``~`` / ``&`` / ``|`` / ``^`` of such,
    or a call that returns bool (``m.bool()``, ``torch.isnan(x)``)."""
    node = node.expression if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert) \
        else node
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _bool_by_form(node.left) or _bool_by_form(node.right)
    if isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name)):
        name = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
        return name in BOOL_CALLS
    return False


@argument_rule("MS313", "diag", runtime=True, examples=[
    ("y = torch.diag(x)\n",
     "y = (ops.diag_embed(x, 0) if x.ndim == 1 else ops.diagonal(x, 0))\n"),
])
def diag(edit) -> None:
    """Replace torch.diag(x, k) with ops.diag_embed(x, k) for a vector and ops.diagonal(x, k) for
    a matrix (MindSpore's ops.diag builds a rank-2k tensor from a rank-k one)."""
    values = {"input": edit.bound["input"], "diagonal": edit.value("diagonal")}
    template = "(ops.diag_embed({input}, {diagonal}) if {input}.ndim == 1 else ops.diagonal({input}, {diagonal}))"
    edit.result = render(edit.converter, template, values)


@argument_rule("MS314", "scatter", examples=[
    ("y = torch.scatter(x, 1, i, value=0.5)\n",
     "y = ops.scatter(x, 1, i, ops.full(i.shape, 0.5, dtype=x.dtype))\n"),
])
def scatter(edit) -> None:
    """Replace torch.scatter(x, dim, index, src | value=v) with ops.scatter(x, dim, index, src)
    (a value becomes a tensor of index's shape in x's dtype)."""
    values = {n: edit.bound.get(n) for n in ("input", "dim", "index", "src", "value")}
    if values["src"] is None and values["value"] is None:
        edit.unsupported("scatter needs src or value")
        return
    if values["src"] is not None and not isinstance(values["src"], (cst.Integer, cst.Float, cst.UnaryOperation)):
        template = "ops.scatter({input}, {dim}, {index}, {src})"
    else:
        values["value"] = values["value"] if values["value"] is not None else values["src"]
        template = "ops.scatter({input}, {dim}, {index}, ops.full({index}.shape, {value}, dtype={input}.dtype))"
    edit.result = render(edit.converter, template, values)


@argument_rule("MS315", "svd", runtime=True, examples=[
    ("y = torch.linalg.svd(x)\n",
     "y = torch_linalg_svd(x)\n"),
])
def svd(edit) -> None:
    """Replace torch.linalg.svd(A) (U, S, Vh) and torch.svd(A) (U, S, V) with ops.svd, which
    returns (S, U, V): reordered (and V transposed for linalg.svd); in converted code, the
    generated torch_linalg_svd / torch_svd that do so."""
    values = {"A": edit.bound.get("A", edit.bound.get("input"))}
    if edit.entry.torch == "torch.svd":
        some = edit.value("some")
        full = {"True": "False", "False": "True"}.get(code_of(some), "not {some}")
        values["some"] = some
        order = "(_r[1], _r[0], _r[2])"
    else:
        full = "{full_matrices}"
        values["full_matrices"] = edit.value("full_matrices")
        order = "(_r[1], _r[0], ops.swapaxes(_r[2], -1, -2))"
    template = f"(lambda _r: {order})(ops.svd({{A}}, {full}))"
    edit.result = render(edit.converter, template, values)


# --- torch.nn.functional ----------------------------------------------------------------------

def _is_zero(node) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.value) == 0.0


def _is_true(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _call_with_options(edit, helper: str, values: dict, positional, defaults: dict) -> cst.Call:
    """``helper(<positional values>, name=value, ...)`` with the options that are not their default."""
    args = [cst.Arg(values[n]) for n in positional]
    for name, default in defaults.items():
        value = values[name]
        if isinstance(value, (cst.Integer, cst.Float, cst.Name)) and _literal_value(value) == default \
                and type(_literal_value(value)) is type(default):
            continue
        args.append(cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                                                 cst.SimpleWhitespace(""))))
    return cst.Call(cst.Name(edit.helper(helper)), args)


def _literal_value(node):
    text = code_of(node)
    return {"None": None, "True": True, "False": False}.get(text, text) if isinstance(node, cst.Name) \
        else float(text) if isinstance(node, cst.Float) else int(text, 0)


@argument_rule("MS316", "sdpa", needs=["torch_sdpa"], examples=[
    ("y = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n",
     "y = ops.matmul(ops.softmax(ops.masked_fill(ops.matmul(q, ops.swapaxes(k, -2, "
     "-1)) * q.shape[-1] ** -0.5, ops.triu(ops.ones((q.shape[-2], k.shape[-2]), "
     "ms.bool_), 1), float('-inf')), -1), v)\n"),
])
def sdpa(edit) -> None:
    """Replace F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale) with
    softmax(q @ k^T * scale + mask) @ v in ops (a Bool mask keeps where True, a float mask adds);
    with is_causal known at run time only, with the generated torch_sdpa(q, k, v, ...)."""
    values = {n: edit.value(n) for n in ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")}
    causal = values["is_causal"]
    if not isinstance(causal, cst.Name) or causal.value not in ("True", "False"):
        names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
        edit.result = cst.Call(cst.Name(edit.helper("torch_sdpa")), [cst.Arg(values[n]) for n in names])
        edit.note("is_causal known at run time: the generated torch_sdpa applies the causal mask then")
        return
    scale = "{scale}" if code_of(values["scale"]) != "None" else "{query}.shape[-1] ** -0.5"
    scores = f"ops.matmul({{query}}, ops.swapaxes({{key}}, -2, -1)) * {scale}"
    if _is_true(causal):
        scores = (f"ops.masked_fill({scores}, ops.triu(ops.ones(({{query}}.shape[-2], {{key}}.shape[-2]), "
                  f"ms.bool_), 1), float('-inf'))")
    if code_of(values["attn_mask"]) != "None":
        # a Bool mask keeps where True, a float one adds: the dtype decides at run time
        edit.result = _call_with_options(edit, "torch_sdpa", values, ("query", "key", "value"),
                                         {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None})
        edit.note("attn_mask: torch_sdpa applies it as torch does (a Bool mask keeps where True, a float one adds)")
        return
    weights = f"ops.softmax({scores}, -1)"
    if not _is_zero(values["dropout_p"]):
        weights = f"ops.dropout({weights}, p=float({{dropout_p}}))"  # MindSpore 2.10 refuses an int p
    edit.result = render(edit.converter, f"ops.matmul({weights}, {{value}})", values)


@argument_rule("MS317", "batch_norm_fn", needs=["torch_batch_stats_norm"], examples=[
    ("y = F.batch_norm(x, m, v)\n",
     "y = ops.batch_norm(x, m, v, ops.ones_like(m), ops.zeros_like(m))\n"),
])
def batch_norm_fn(edit) -> None:
    """Replace F.batch_norm(x, mean, var, weight=None, bias=None, ...) with ops.batch_norm(x, mean,
    var, weight, bias, ...) (MindSpore needs the weight and bias: ones and zeros by default);
    without running statistics with the generated torch_batch_stats_norm(x, weight, bias, ...)."""
    names = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")
    values = {n: edit.value(n) for n in names}
    if code_of(values["running_mean"]) == "None" and code_of(values["running_var"]) == "None":
        # batch statistics only (timm's weight standardization): normalized over every axis but 1
        helper = edit.helper("torch_batch_stats_norm")
        edit.result = render(edit.converter, helper + "({input}, {weight}, {bias}, training={training}, eps={eps})",
                             values)
        edit.note("no running statistics: torch_batch_stats_norm normalizes with the batch's "
                  "mean and biased variance over every axis but 1, as torch does")
        return
    if code_of(values["running_mean"]) == "None" or code_of(values["running_var"]) == "None":
        edit.unsupported("batch_norm with one of the running statistics only: MindSpore's ops.batch_norm needs both")
        return
    weight = "{weight}" if code_of(values["weight"]) != "None" else "ops.ones_like({running_mean})"
    bias = "{bias}" if code_of(values["bias"]) != "None" else "ops.zeros_like({running_mean})"
    rest = ", ".join(f"{n}={{{n}}}" for n in ("training", "momentum", "eps") if n in edit.bound)
    template = f"ops.batch_norm({{input}}, {{running_mean}}, {{running_var}}, {weight}, {bias}" + \
        (f", {rest})" if rest else ")")
    edit.result = render(edit.converter, template, values)


@argument_rule("MS318", "fold_fn", examples=[
    ("y = F.fold(x, 4, 2)\n",
     "y = ops.fold(x, ms.Tensor((4,4), ms.int32), 2)\n"),
])
def fold_fn(edit) -> None:
    """Replace F.fold(x, output_size, ...) with ops.fold(x, ms.Tensor(output_size, ms.int32), ...)
    (MindSpore takes the output size as a Tensor; an int n is (n, n))."""
    size = edit.bound["output_size"]
    if isinstance(size, cst.Integer):
        size = cst.Tuple([cst.Element(size, comma=cst.Comma()), cst.Element(size)])
    converter = edit.converter
    tensor, int32 = converter.target("ms.Tensor"), converter.target("ms.int32")
    edit.set("output_size", cst.Call(tensor, [cst.Arg(size), cst.Arg(int32)]))


@argument_rule("MS319", "pool1d_fn", examples=[
    ("y = F.max_pool1d(x, 2)\n",
     "y = ops.squeeze(ops.max_pool2d(ops.expand_dims(x, -2), (1, 2), (1, 2), (0, 0), "
     "(1, 1), ceil_mode=False), -2)\n"),
])
def pool1d_fn(edit) -> None:
    """Replace F.max_pool1d(x, k, s, p, d, ceil_mode) with ops.max_pool2d on x with a unit height
    axis (MindSpore has no ops.max_pool1d), squeezed back."""
    values = {n: edit.value(n) for n in ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode")}
    if code_of(values["stride"]) == "None":
        values["stride"] = values["kernel_size"]
    pairs = ", ".join(f"(1, {{{n}}})" if n != "padding" else "(0, {padding})"
                      for n in ("kernel_size", "stride", "padding", "dilation"))
    template = f"ops.squeeze(ops.max_pool2d(ops.expand_dims({{input}}, -2), {pairs}, ceil_mode={{ceil_mode}}), -2)"
    edit.result = render(edit.converter, template, values)


@argument_rule("MS320", "conv1d_fn", runtime=True, examples=[
    ("y = F.conv1d(x, w, padding=1)\n",
     "y = ops.conv1d(x, w, pad_mode='pad', padding=1)\n"),
])
def conv1d_fn(edit) -> None:
    """Replace F.conv1d(x, w, b, stride, padding=p) with ops.conv1d(x, w, b, stride, pad_mode, padding)."""
    _conv_padding(edit, 1)
    order = ["input", "weight", "bias", "stride", "pad_mode", "padding", "dilation", "groups"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS431", "conv3d_fn", runtime=True, examples=[
    ("y = F.conv3d(x, w, padding=(1, 0, 2))\n",
     "y = ops.conv3d(x, w, pad_mode='pad', padding=(1, 0, 2))\n"),
])
def conv3d_fn(edit) -> None:
    """Replace F.conv3d(x, w, b, stride, padding=p) with ops.conv3d(x, w, b, stride, pad_mode,
    padding): one padding value per axis (depth, height, width), as MindSpore 2.10's ops.conv3d takes."""
    _conv_padding(edit, 3, per_side=False)
    order = ["input", "weight", "bias", "stride", "pad_mode", "padding", "dilation", "groups"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS321", "elu_fn", examples=[
    ("y = F.elu(x, alpha=0.5)\n",
     "y = ops.where(x > 0, x, 0.5 * ops.expm1(ops.minimum(x, 0.0)))\n"),
])
def elu_fn(edit) -> None:
    """Replace F.elu(x, alpha) with ops.elu(x) for alpha 1 and with
    ops.where(x > 0, x, alpha * ops.expm1(ops.minimum(x, 0.0))) otherwise (MindSpore 2.10's
    Elu takes only alpha=1.0)."""
    alpha = edit.bound.get("alpha")
    if alpha is None or (isinstance(alpha, (cst.Integer, cst.Float)) and float(alpha.value) == 1.0):
        edit.result = _call(edit, "ops.elu", [edit.bound["input"]])
        return
    edit.result = render(edit.converter,
                         "ops.where({input} > 0, {input}, {alpha} * ops.expm1(ops.minimum({input}, 0.0)))",
                         {"input": edit.bound["input"], "alpha": alpha})


@argument_rule("MS322", "searchsorted", examples=[
    ("y = torch.searchsorted(s, x)\n",
     "y = ops.searchsorted(s, x, out_int32=True).astype(ms.int64)\n"),
])
def searchsorted(edit) -> None:
    """Replace torch.searchsorted(seq, v, right=r) (Int64) with ops.searchsorted(seq, v,
    out_int32=True, right=r).astype(ms.int64): MindSpore 2.10's CPU kernel fails on Int64 output."""
    if _flag(edit, "out_int32") is None:
        edit.unsupported("out_int32 must be written as True or False")
        return
    call = _call(edit, "ops.searchsorted", [edit.bound["sorted_sequence"], edit.bound["input"]],
                 {"out_int32": cst.Name("True"), "right": _given(edit, "right"), "side": _given(edit, "side"),
                  "sorter": _given(edit, "sorter")})
    if not _flag(edit, "out_int32"):
        call = cst.Call(cst.Attribute(call, cst.Name("astype")), [cst.Arg(edit.converter.target("ms.int64"))])
    edit.result = call


@argument_rule("MS323", "nonzero", examples=[
    ("y = torch.nonzero(x, as_tuple=True)\n",
     "y = ops.unbind(ops.nonzero(x), 1)\n"),
])
def nonzero(edit) -> None:
    """Replace torch.nonzero(x, as_tuple=True) with ops.unbind(ops.nonzero(x), 1) (MindSpore 2.10
    has no CPU kernel for the tuple form) and torch.nonzero(x) with ops.nonzero(x)."""
    as_tuple = _flag(edit, "as_tuple")
    if as_tuple is None:
        edit.unsupported("as_tuple must be written as True or False")
        return
    call = _call(edit, "ops.nonzero", [edit.bound["input"]])
    edit.result = _call(edit, "ops.unbind", [call, cst.Integer("1")]) if as_tuple else call


@argument_rule("MS324", "diff", examples=[
    ("y = torch.diff(x, n=2)\n",
     "y = ops.diff(ops.diff(x, 1, -1), 1, -1)\n"),
])
def diff(edit) -> None:
    """Replace torch.diff(x, n, dim, prepend, append) with n nested ops.diff(x, 1, dim, ...)
    (MindSpore 2.10 takes only n=1)."""
    n = edit.value("n")
    if not isinstance(n, cst.Integer) or int(n.value) < 1:
        edit.unsupported("n must be a positive int literal")
        return
    dim = edit.value("dim")
    out = _call(edit, "ops.diff", [edit.bound["input"], cst.Integer("1"), dim],
                {"prepend": _given(edit, "prepend"), "append": _given(edit, "append")})
    for _ in range(int(n.value) - 1):
        out = _call(edit, "ops.diff", [out, cst.Integer("1"), dim])
    edit.result = out



@argument_rule("MS349", "functional_layer_norm", examples=[
    ("y = F.layer_norm(x, (4,))\n",
     "y = ops.layer_norm(x, (4,))\n"),
])
def functional_layer_norm(edit) -> None:
    """Replace F.layer_norm(x, shape, w, b, eps) with ops.layer_norm(...) (ms_core), or with --target mindspore with
    torch_layer_norm(...), a generated function over the ops.LayerNorm primitive (MindSpore 2.10's CPU backend has no
    kernel for ops.layer_norm)."""
    if edit.converter.facts.target_name == "mindspore":
        edit.func = cst.Name(layer_norm_function(edit))
        edit.worse("transformed", "MindSpore 2.10's CPU backend has no kernel for ops.layer_norm "
                                  "(LayerNormExt): torch_layer_norm runs the ops.LayerNorm primitive, "
                                  "as nn.LayerNorm does")


@argument_rule("MS442", "generated_function",
    needs=["torch_local_response_norm", "torch_multi_head_attention_forward", "torch_pad_sequence", "torch_stft",
           "torch_istft", "embedding_from_pretrained", "embedding_bag_from_pretrained", "torch_get_worker_info"],
    examples=[
    ("y = F.multi_head_attention_forward(q, k, v, 8, 2, w, b, None, None, False, 0.0, ow, ob)\n",
     "y = torch_multi_head_attention_forward(q, k, v, 8, 2, w, b, None, None, False, 0.0, ow, ob)\n"),
])
def generated_function(edit) -> None:
    """Replace a torch function with the generated function of the same signature named by the
    entry's target (``F.multi_head_attention_forward(...)`` -> ``torch_multi_head_attention_forward(...)``):
    the arguments stay as torch names them."""
    edit.func = cst.Name(edit.helper(edit.entry.target))


@argument_rule("MS419", "conv_transpose_fn", runtime=True, needs=["torch_conv_transpose2d"], examples=[
    ("y = F.conv_transpose2d(x, w, stride=2, padding=1)\n",
     "y = ops.conv_transpose2d(x, w, stride=2, padding=1)\n"),
    ("y = F.conv_transpose2d(x, w, stride=2, padding=1)\n",
     "y = torch_conv_transpose2d(x, w, stride=2, padding=1)\n", "mindspore"),
])
def conv_transpose_fn(edit) -> None:
    """Replace F.conv_transpose2d(...) with --target mindspore with torch_conv_transpose2d(...), the runtime's
    function of torch's signature over the Conv2DTranspose primitive (MindSpore 2.10 has no CPU kernel for the
    functional ops.conv_transpose2d; ms_core keeps it)."""
    if edit.converter.facts.target_name == "mindspore":
        edit.func = cst.Name(edit.helper("torch_conv_transpose2d"))


@argument_rule("MS161", "linspace_dtype", needs=["torch_linspace"], examples=[
    ("x = torch.linspace(0, 1, 5, dtype=torch.float64)\n",
     "x = torch_linspace(0, 1, 5, dtype=ms.float64)\n"),
])
def linspace_dtype(edit) -> None:
    """Replace torch.linspace(start, end, steps, dtype=d) with torch_linspace(start, end, steps, dtype=d), a generated
    function that computes in float64 for float64 (else float32) and casts (MindSpore's ops.linspace takes no dtype)."""
    dtype = edit.bound.get("dtype")
    if dtype is None or is_literal(dtype) and literal(dtype) is None:
        return
    edit.func = cst.Name(edit.helper("torch_linspace"))
    edit.set("dtype", dtype)


# torch.distributions class -> its generated class (migrate/convert/torch_distributions.py)
_DISTRIBUTIONS = {"Categorical": "TorchCategorical", "Normal": "TorchNormal", "Uniform": "TorchUniform",
                  "Bernoulli": "TorchBernoulli"}


@argument_rule("MS441", "distribution",
    needs=["TorchBernoulli", "TorchCategorical", "TorchNormal", "TorchUniform"], examples=[
    ("y = torch.distributions.Categorical(logits=x).entropy()\n",
     "y = TorchCategorical(logits=x).entropy()\n"),
])
def distribution(edit) -> None:
    """Replace torch.distributions.Categorical(probs=p) / Normal(loc, scale) with TorchCategorical / TorchNormal,
    generated classes written with ops that compute torch's formulas (MindSpore 2.10's distributions do not normalise
    probs and take no logits)."""
    edit.func = cst.Name(edit.helper(_DISTRIBUTIONS[edit.entry.torch.rsplit(".", 1)[-1]]))


@argument_rule("MS477", "distribution_constraint", needs=["TorchConstraints"], examples=[
    ("from torch.distributions import constraints\nc = constraints.interval(0, 1)\n",
     "c = TorchConstraints.interval(0, 1)\n"),
])
def distribution_constraint(edit) -> None:
    """Replace torch.distributions.constraints.interval(lo, hi) (greater_than, independent, integer_interval, ...)
    with TorchConstraints.interval(lo, hi): the runtime's constraint objects, with torch's check(value), is_discrete,
    event_dim (MindSpore has no constraints)."""
    edit.func = constraint_member(edit.converter, edit.entry.torch)


def constraint_member(converter, qual: str) -> cst.Attribute:
    """``TorchConstraints.<name>`` for ``torch.distributions.constraints.<name>`` (its import noted)."""
    local = converter.output.signatures.helper("TorchConstraints")
    return cst.Attribute(cst.Name(local), cst.Name(qual.rsplit(".", 1)[-1]))


CONSTRAINTS = "torch.distributions.constraints."


def constraint_reference(converter, node, qual: str):
    """Apply MS477 to a constraint used as a value (``domain = constraints.real``,
    ``@constraints.dependent_property``, ``-> constraints.Constraint``) or read through
    (``constraints.positive.check``, ``constraints.real.event_dim``): ``TorchConstraints.<name>...``;
    None when ``qual`` is not one of the mapped constraints or the rule is not selected."""
    name, *rest = qual[len(CONSTRAINTS):].split(".") if qual.startswith(CONSTRAINTS) else ("",)
    entry = converter.facts.tables.get(CONSTRAINTS + name)
    if entry is None or entry.rule != "distribution_constraint" or not converter.allows("MS477"):
        return None
    new = constraint_member(converter, CONSTRAINTS + name)
    for attr in rest:
        new = cst.Attribute(new, cst.Name(attr))
    converter.record(node, new, "MS477", "exact", f"{qual}: the runtime's constraint, with torch's check(value)")
    return new


@argument_rule("MS416", "sparse_coo_dense", needs=["torch_sparse_coo_tensor"], examples=[
    ("y = torch.sparse_coo_tensor(i, v, (3, 3))\n",
     "y = torch_sparse_coo_tensor(i, v, (3, 3))\n"),
])
def sparse_coo_dense(edit) -> None:
    """Replace torch.sparse_coo_tensor(indices, values, size) with torch_sparse_coo_tensor(...), a generated function
    returning the dense tensor (duplicates summed, as coalesce does; memory is dense, the numbers exact)."""
    edit.func = cst.Name(edit.helper("torch_sparse_coo_tensor"))


@argument_rule("MS329", "pad_value", runtime=True, needs=["torch_pad_crop"], examples=[
    ("def f(x, mode):\n    return F.pad(x, (1, 1), mode, 0.0)\n",
     "def f(x, mode):\n    return ops.pad(x, (1, 1), mode, 0.0 if mode == 'constant' else None)\n"),
])
def pad_value(edit) -> None:
    """Replace F.pad(x, p, mode, value) for a non-constant mode: torch takes value=0 (or None) there
    and ignores it, MindSpore 2.10 refuses any value ("the padding mode 'reflect' can not set
    value"): value=0 is dropped for a literal mode, passed as `value if mode == 'constant' else
    None` for a mode known at run time only (encodec's and demucs' pad1d). With --target mindspore,
    amounts that may be negative (a crop: anything but non-negative integers written out) go
    through torch_pad_crop, which crops by slicing (MindSpore 2.10's CPU ops.pad gives wrong
    values for a negative amount once it has run before)."""
    if edit.converter.facts.target_name == "mindspore" and not _non_negative_amounts(edit.bound.get("pad")):
        args = [cst.Arg(edit.bound["input"]), cst.Arg(edit.bound["pad"])]
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        args += [cst.Arg(edit.bound[k], keyword=cst.Name(k), equal=equal)
                 for k in ("mode", "value") if edit.bound.get(k) is not None]
        edit.worse("transformed", "the amounts may be negative (a crop), which MindSpore 2.10's CPU ops.pad gets "
                                  "wrong: torch_pad_crop crops by slicing and pads the rest")
        edit.result = cst.Call(cst.Name(edit.helper("torch_pad_crop")), args)
        return
    value, mode = edit.bound.get("value"), edit.bound.get("mode")
    if value is None or mode is None or (isinstance(value, cst.Name) and value.value == "None"):
        return
    if isinstance(mode, cst.SimpleString):
        zero = is_literal(value) and literal(value) == 0
        if mode.evaluated_value != "constant" and zero:
            edit.drop("value")
            edit.note(f"value=0 dropped: torch ignores it for mode {mode.evaluated_value!r}, MindSpore refuses it")
        return
    if isinstance(mode, (cst.Name, cst.Attribute)):
        constant = cst.Comparison(mode, [cst.ComparisonTarget(cst.Equal(), cst.SimpleString("'constant'"))])
        edit.set("value", cst.IfExp(test=constant, body=value, orelse=cst.Name("None")))
        edit.note("the value is given for mode 'constant' only: MindSpore refuses one for the other modes")
