"""Argument rules for layers (nn.Conv*, nn.Linear, norms, pooling, embeddings) and the
functional forms that share their translation (F.conv2d, F.avg_pool2d).

Every rule has one signature, ``apply(edit) -> None``: it reads the bound torch arguments of the
:class:`~migrate.convert.call_edit.CallEdit` and changes the target arguments it will emit.
"""
from __future__ import annotations

from migrate.convert.call_edit import is_literal, literal, operand
from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule


def _math(edit) -> None:
    edit.conv.used.add("math")


def _kernel_area(edit, k, dims: int) -> str | None:
    """Source of prod(kernel_size), or None when it cannot be written without knowing k's type."""
    try:
        v = literal(k)
    except (ValueError, SyntaxError, TypeError):
        edit.worse("approximate", f"fan-in assumes an int kernel_size ({code_of(k)})")
        return " * ".join([operand(k)] * dims)
    if isinstance(v, int):
        return str(v ** dims)
    if isinstance(v, (tuple, list)) and all(isinstance(i, int) for i in v):
        n = 1
        for i in v:
            n *= i
        return str(n)
    return None


def torch_default_init(edit, fan_in: str | None) -> None:
    """Write weight_init/bias_init that reproduce torch's default (kaiming_uniform(a=sqrt 5))."""
    conv = edit.conv
    _math(edit)
    conv.init_names.update({"HeUniform"})
    edit.set("weight_init", "HeUniform(negative_slope=math.sqrt(5))")
    bias = edit.value("bias")
    if bias is not None and is_literal(bias) and literal(bias) is False:
        return
    if fan_in is None:
        edit.worse("approximate", "bias_init left at the target default: fan-in unknown")
        return
    conv.init_names.add("Uniform")
    edit.set("bias_init", f"Uniform(scale=1 / math.sqrt({fan_in}))")
    edit.worse("transformed", "explicit torch default initializers")


@argument_rule("MS111", "dense")
def dense(edit) -> None:
    """Replace nn.Linear(in, out, bias) with nn.Dense(in, out, has_bias, torch-default inits)."""
    fan = edit.value("in_features")
    try:
        fan_text = repr(literal(fan))
    except (ValueError, SyntaxError):
        fan_text = code_of(fan)
    torch_default_init(edit, fan_text)


def _conv_padding(edit, dims: int, transpose: bool = False) -> None:
    pad = edit.bound.get("padding")
    # a transposed convolution keeps pad_mode='pad' even without padding: its 'valid' output is
    # in*s + max(k - s, 0), torch's (in - 1)*s + k (they differ when k < s), and MindSpore
    # takes output_padding in 'pad' mode only
    zero_mode = "'pad'" if transpose else "'valid'"
    if pad is None:
        edit.set("pad_mode", zero_mode)
        edit.drop("padding")
        return
    try:
        v = literal(pad)
    except (ValueError, SyntaxError):
        edit.set("pad_mode", "'pad'")
        edit.set("padding", pad)
        edit.worse("approximate", f"padding={code_of(pad)} assumed to be an int")
        return
    if v == "same" or v == "valid":
        edit.set("pad_mode", repr(v))
        edit.drop("padding")
        return
    if isinstance(v, int):
        if v == 0:
            edit.set("pad_mode", zero_mode)
            edit.drop("padding")
        else:
            edit.set("pad_mode", "'pad'")
            edit.set("padding", repr(v))
        return
    if isinstance(v, (tuple, list)) and len(v) == dims:
        if len(set(v)) == 1:
            edit.set("pad_mode", "'pad'" if v[0] else zero_mode)
            if v[0]:
                edit.set("padding", repr(v[0]))
            else:
                edit.drop("padding")
            return
        if dims in (2, 3):
            edit.set("pad_mode", "'pad'")
            edit.set("padding", repr(tuple(p for p in v for _ in range(2))))
            edit.worse("transformed", "padding per axis -> (before, after) pairs per axis")
            return
    edit.unsupported(f"padding={code_of(pad)} cannot be expressed")


def _order_conv(edit) -> None:
    # MindSpore's order: ..., stride, pad_mode, padding, dilation, group, has_bias, inits
    order = ["in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding",
             "output_padding", "dilation", "group", "has_bias", "weight_init", "bias_init"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


def _conv(edit, dims: int, transpose: bool = False) -> None:
    _conv_padding(edit, dims, transpose)
    cin = edit.value("out_channels" if transpose else "in_channels")
    groups = edit.value("groups")
    area = _kernel_area(edit, edit.value("kernel_size"), dims)
    fan = None
    if area is not None:
        c = operand(cin)
        try:
            g = literal(groups)
        except (ValueError, SyntaxError):
            g = None
        try:
            cval = literal(cin)
        except (ValueError, SyntaxError):
            cval = None
        if g == 1 and isinstance(cval, int) and area.isdigit():
            fan = str(cval * int(area))
        elif g == 1:
            fan = f"{c} * {area}"
        else:
            fan = f"{c} // {operand(groups)} * {area}"
    torch_default_init(edit, fan)
    _order_conv(edit)


@argument_rule("MS110", "conv2d")
def conv2d(edit) -> None:
    """Replace nn.Conv2d(padding=p, groups, bias) with nn.Conv2d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 2)


def ints_1d(edit, names=("kernel_size", "stride", "dilation")) -> None:
    """MindSpore 2.10's 1-D convolutions take ints only: a literal 1-tuple becomes its int."""
    for name in names:
        value = edit.get(name)
        if value is None:
            continue
        try:
            v = literal(value)
        except (ValueError, SyntaxError, TypeError):
            continue
        if isinstance(v, (tuple, list)) and len(v) == 1:
            edit.set(name, repr(v[0]), keyword=False)


@argument_rule("MS141", "conv1d")
def conv1d(edit) -> None:
    """Replace nn.Conv1d(padding=p, groups, bias) with nn.Conv1d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 1)
    ints_1d(edit)


@argument_rule("MS142", "conv_transpose2d")
def conv_transpose2d(edit) -> None:
    """Replace nn.ConvTranspose2d(padding=p, ...) with nn.Conv2dTranspose(pad_mode='pad', padding=p, ...)."""
    _conv(edit, 2, transpose=True)
    extra = edit.bound.get("output_padding")
    if edit.conv.target_name == "mindspore" and extra is not None and code_of(extra) not in ("0", "(0, 0)"):
        # checked on 2.10: the extra row/column is left zero (torch and ms_core fill it)
        edit.note("MindSpore 2.10's CPU Conv2dTranspose leaves the output_padding row/column "
                  "zero (torch computes it): crop the output and pad it back with ops.pad, or "
                  "pad the input instead")


@argument_rule("MS143", "conv_fn")
def conv_fn(edit) -> None:
    """Replace F.conv2d(x, w, b, stride, padding=p) with ops.conv2d(x, w, b, stride, pad_mode, padding)."""
    _conv_padding(edit, 2)
    order = ["input", "weight", "bias", "stride", "pad_mode", "padding", "dilation", "groups"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS112", "batchnorm")
def batchnorm(edit) -> None:
    """Replace BatchNorm momentum m and track_running_stats with momentum=1-m and use_batch_statistics."""
    m = edit.bound.get("momentum")
    if m is not None and code_of(m) == "None":
        edit.unsupported("momentum=None (cumulative average) has no MindSpore equivalent")
        return
    trs = edit.bound.get("track_running_stats")
    if trs is not None:
        if is_literal(trs) and literal(trs) is False:
            edit.set("use_batch_statistics", "True")
            edit.worse("approximate", "track_running_stats=False -> use_batch_statistics=True "
                                      "(moving statistics are still updated but never used)")
        elif not (is_literal(trs) and literal(trs) is True):
            edit.unsupported(f"track_running_stats={code_of(trs)} must be a literal")


@argument_rule("MS113", "pool")
def pool(edit) -> None:
    """Replace MaxPool2d/AvgPool2d(stride=None, padding=p) with stride=kernel_size, pad_mode='pad', padding=p."""
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.note("stride defaults to kernel_size in torch, to 1 in MindSpore: made explicit")
    pad = edit.bound.get("padding")
    try:
        v = literal(pad) if pad is not None else 0
    except (ValueError, SyntaxError):
        v = None
    needs_pad = any(edit.bound.get(k) is not None and code_of(edit.bound[k]) not in ("False", "1", "None")
                    for k in ("ceil_mode", "dilation", "return_indices", "divisor_override"))
    zero = v == 0 or (isinstance(v, (tuple, list)) and not any(v))
    if zero and not needs_pad:
        edit.drop("padding")
        edit.set("pad_mode", "'valid'")
    elif zero:
        edit.drop("padding")
        edit.set("pad_mode", "'pad'")
        edit.note("pad_mode='pad' (with zero padding) because ceil_mode/dilation need it")
    else:
        edit.set("pad_mode", "'pad'")
        edit.set("padding", pad)
        edit.worse("transformed", "explicit padding -> pad_mode='pad' (max pooling pads with -inf)")
    order = ["kernel_size", "stride", "pad_mode", "padding", "dilation", "return_indices",
             "ceil_mode", "count_include_pad", "divisor_override"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS144", "functional_pool_stride")
def functional_pool_stride(edit) -> None:
    """Replace F.avg_pool2d(x, k) with ops.avg_pool2d(x, k, stride=k) (MindSpore's stride defaults to 1)."""
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.worse("transformed", "stride defaults to kernel_size in torch, to 1 in "
                                  "ops.avg_pool2d: made explicit")


@argument_rule("MS114", "layernorm")
def layernorm(edit) -> None:
    """Replace nn.LayerNorm(n, eps) with nn.LayerNorm((n,), begin_norm_axis, begin_params_axis, epsilon)."""
    shape = edit.value("normalized_shape")
    try:
        v = literal(shape)
    except (ValueError, SyntaxError):
        v = None
    if isinstance(v, int):
        edit.set("normalized_shape", f"({v},)", keyword=False)
        n = 1
    elif isinstance(v, (tuple, list)) and len(v) > 1:
        # MindSpore 2.10 takes begin_norm_axis in [-1, rank): -len(shape) raises, and the
        # non-negative axis depends on the input's rank, which the call does not say
        edit.unsupported(f"normalized_shape={code_of(shape)}: MindSpore 2.10's LayerNorm takes "
                         f"begin_norm_axis in [-1, rank); write nn.LayerNorm({code_of(shape)}, "
                         f"begin_norm_axis=R - {len(v)}, begin_params_axis=R - {len(v)}) for "
                         f"inputs of rank R")
        return
    elif isinstance(v, (tuple, list)):
        n = len(v)
    else:
        edit.set("normalized_shape", f"({operand(shape)},)", keyword=False)
        edit.worse("approximate", f"normalized_shape={code_of(shape)} assumed to be an int")
        n = 1
    edit.set("begin_norm_axis", str(-n))
    edit.set("begin_params_axis", str(-n))
    affine = edit.bound.get("elementwise_affine")
    if affine is not None and not (is_literal(affine) and literal(affine) is True):
        edit.unsupported("elementwise_affine=False has no MindSpore LayerNorm equivalent")


@argument_rule("MS115", "embedding")
def embedding(edit) -> None:
    """Replace nn.Embedding(n, d) with nn.Embedding(n, d, embedding_table=Normal(sigma=1.0)) (torch's N(0, 1))."""
    edit.conv.init_names.add("Normal")
    edit.set("embedding_table", "Normal(sigma=1.0)")
    pad = edit.bound.get("padding_idx")
    if pad is not None and code_of(pad) != "None":
        # checked on MindSpore 2.10: the row starts at zero but its gradient is not masked
        edit.worse("approximate", "padding_idx: MindSpore 2.10 zeroes the row at creation but "
                                  "still trains it (torch keeps its gradient zero); inference "
                                  "is the same")
