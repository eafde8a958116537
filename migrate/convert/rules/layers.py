"""Argument rules for layers (nn.Conv*, nn.Linear, norms, pooling, embeddings) and the
functional forms that share their translation (F.conv2d, F.avg_pool2d).

Every rule has one signature, ``apply(edit) -> None``: it reads the bound torch arguments of the
:class:`~migrate.convert.call_edit.CallEdit` and changes the target arguments it will emit.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import is_literal, literal, operand
from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule
from migrate.runtime.arguments import (
    torch_avg_pool_padding, torch_conv_padding, torch_kernel_area, torch_ms_tuple, torch_pool_padding,
)

# a value that is not a literal, for the run-time helpers' static use (it counts as "set")
_UNKNOWN = object()


def _kernel_area(edit, k, dims: int) -> str | None:
    """Source of prod(kernel_size), or None when it cannot be written without knowing k's type."""
    try:
        v = literal(k) if not edit.runtime else _UNKNOWN
    except (ValueError, SyntaxError, TypeError):
        v = _UNKNOWN
    if v is _UNKNOWN:
        # an int or a tuple (timm's to_2tuple(patch_size)): counted when the layer is built
        return f"{edit.helper('torch_kernel_area')}({code_of(k)}, {dims})"
    if isinstance(v, int) or isinstance(v, (tuple, list)) and all(isinstance(i, int) for i in v):
        return str(torch_kernel_area(v, dims))
    return None


def torch_default_init(edit, fan_in: str | None) -> None:
    """Write weight_init/bias_init that reproduce torch's default (kaiming_uniform(a=sqrt 5))."""
    converter = edit.converter
    sqrt = converter.tname("math.sqrt")
    edit.set("weight_init", f"{converter.tname('init.HeUniform')}(negative_slope={sqrt}(5))")
    bias = edit.value("bias")
    if bias is not None and is_literal(bias) and literal(bias) is False:
        return
    if fan_in is None:
        edit.worse("approximate", "bias_init left at the target default: fan-in unknown")
        return
    edit.set("bias_init", f"{converter.tname('init.Uniform')}(scale=1 / {sqrt}({fan_in}))")
    edit.worse("transformed", "explicit torch default initializers")


@argument_rule("MS111", "dense", runtime=True, examples=[
    ("y = nn.Linear(1, 2)\n",
     "y = nn.Dense(1, 2, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(1)))\n"),
])
def dense(edit) -> None:
    """Replace nn.Linear(in, out, bias) with nn.Dense(in, out, has_bias, torch-default inits)."""
    fan = edit.value("in_features")
    try:
        fan_text = repr(literal(fan))
    except (ValueError, SyntaxError):
        fan_text = code_of(fan)
    torch_default_init(edit, fan_text)


def _conv_padding(edit, dims: int, per_side: bool = True, transpose: bool = False) -> None:
    """torch's padding -> pad_mode + padding (``per_side``: (before, after) per axis, as layers
    want; else one value per axis, as ops.conv2d wants; ``transpose``: a transposed
    convolution, whose zero padding stays pad_mode='pad', see ``torch_conv_padding``)."""
    pad = edit.bound.get("padding")
    if pad is None:
        edit.set("pad_mode", "'pad'" if transpose else "'valid'")
        edit.drop("padding")
        return
    if edit.runtime:
        helper = edit.helper("torch_conv_padding")
        edit.prelude.append(f"pad_mode_, padding_ = {helper}({code_of(pad)}, {dims}"
                            f"{'' if per_side else ', per_side=False'}"
                            f"{', transpose=True' if transpose else ''})")
        edit.set("pad_mode", "pad_mode_")
        edit.set("padding", "padding_")
        return
    try:
        v = literal(pad)
    except (ValueError, SyntaxError):
        if not _int_expression(pad):  # a name may hold a tuple or 'same': run time decides
            edit.needs_runtime(f"padding={code_of(pad)} is known only at run time")
        edit.set("pad_mode", "'pad'")
        edit.set("padding", pad)
        edit.worse("approximate", f"padding={code_of(pad)} assumed to be an int")
        return
    try:
        mode, value = torch_conv_padding(v, dims, per_side, transpose)
    except (ValueError, TypeError):
        edit.unsupported(f"padding={code_of(pad)} cannot be expressed")
        return
    edit.set("pad_mode", repr(mode))
    if mode != "pad":
        edit.drop("padding")
        return
    edit.set("padding", repr(value))
    if isinstance(value, tuple):
        edit.worse("transformed", "padding (h, w) -> (top, bottom, left, right)" if per_side else
                   "padding given per axis")


def _int_expression(node) -> bool:
    """``(k - 1) // 2``, ``d + 1``: arithmetic with an int literal, an int (or a TypeError) for
    any operand (``*`` is left out: a tuple times an int is a tuple)."""
    if not isinstance(node, cst.BinaryOperation) or not isinstance(
            node.operator, (cst.FloorDivide, cst.Subtract, cst.Add, cst.Modulo)):
        return False
    return any(isinstance(side, cst.Integer) or _int_expression(side) for side in (node.left, node.right))


def _sizes(edit, dims: int) -> None:
    """kernel_size/stride/dilation as MindSpore takes them (torch also takes 1-element lists)."""
    for name in ("kernel_size", "stride", "dilation"):
        value = edit.get(name)
        if value is None:
            continue
        if edit.runtime:
            edit.set(name, f"{edit.helper('torch_ms_tuple')}({code_of(value)}, {dims})")
            continue
        try:
            v = literal(value)
        except (ValueError, SyntaxError):
            continue
        if isinstance(v, (list, tuple)) and torch_ms_tuple(v, dims) != v:
            edit.set(name, repr(torch_ms_tuple(v, dims)))


def _order_conv(edit) -> None:
    # MindSpore's order: ..., stride, pad_mode, padding, dilation, group, has_bias, inits
    order = ["in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding",
             "output_padding", "dilation", "group", "has_bias", "weight_init", "bias_init"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


def _conv(edit, dims: int, transpose: bool = False) -> None:
    _conv_padding(edit, dims, transpose=transpose)
    _sizes(edit, dims)
    cin = edit.value("out_channels" if transpose else "in_channels")
    groups = edit.value("groups")
    area = _kernel_area(edit, edit.value("kernel_size"), dims)
    fan = None
    if area is not None:
        c = operand(cin)
        g = literal(groups) if is_literal(groups) else None
        cval = literal(cin) if is_literal(cin) else None
        if g == 1 and isinstance(cval, int) and area.isdigit():
            fan = str(cval * int(area))
        elif g == 1:
            fan = f"{c} * {area}"
        else:
            fan = f"{c} // {operand(groups)} * {area}"
    torch_default_init(edit, fan)
    _order_conv(edit)


@argument_rule("MS110", "conv2d", runtime=True,
    needs=["torch_conv_padding", "torch_kernel_area", "torch_ms_tuple"], examples=[
    ("y = nn.Conv2d(1, 2, 3)\n",
     "y = nn.Conv2d(1, 2, 3, pad_mode='valid', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(9)))\n"),
])
def conv2d(edit) -> None:
    """Replace nn.Conv2d(padding=p, groups, bias) with nn.Conv2d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 2)


@argument_rule("MS141", "conv1d", runtime=True,
    needs=["torch_conv_padding", "torch_kernel_area", "torch_ms_tuple"], examples=[
    ("y = nn.Conv1d(1, 2, 3)\n",
     "y = nn.Conv1d(1, 2, 3, pad_mode='valid', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(3)))\n"),
])
def conv1d(edit) -> None:
    """Replace nn.Conv1d(padding=p, groups, bias) with nn.Conv1d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 1)


@argument_rule("MS142", "conv_transpose2d", runtime=True,
    needs=["torch_conv_padding", "torch_kernel_area", "torch_ms_tuple"], examples=[
    ("y = nn.ConvTranspose2d(1, 2, 3)\n",
     "y = nn.Conv2dTranspose(1, 2, 3, pad_mode='pad', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(18)))\n"),
])
def conv_transpose2d(edit) -> None:
    """Replace nn.ConvTranspose2d(padding=p, ...) with nn.Conv2dTranspose(pad_mode='pad', padding=p, ...)."""
    _conv(edit, 2, transpose=True)
    extra = edit.bound.get("output_padding")
    if edit.converter.facts.target_name == "mindspore" and extra is not None and code_of(extra) not in ("0", "(0, 0)"):
        # checked on 2.10: the extra row/column is left zero (torch and ms_core fill it)
        edit.note("MindSpore 2.10's CPU Conv2dTranspose leaves the output_padding row/column "
                  "zero (torch computes it): crop the output and pad it back with ops.pad, or "
                  "pad the input instead")


@argument_rule("MS143", "conv_fn", runtime=True, needs=["torch_conv_padding"], examples=[
    ("y = F.conv2d(x, w)\n",
     "y = ops.conv2d(x, w)\n"),
])
def conv_fn(edit) -> None:
    """Replace F.conv2d(x, w, b, stride, padding=p) with ops.conv2d(x, w, b, stride, pad_mode, padding)."""
    _conv_padding(edit, 2, per_side=False)
    order = ["input", "weight", "bias", "stride", "pad_mode", "padding", "dilation", "groups"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS112", "batchnorm", runtime=True, examples=[
    ("y = nn.BatchNorm2d(2)\n",
     "y = nn.BatchNorm2d(2)\n"),
])
def batchnorm(edit) -> None:
    """Replace BatchNorm momentum m and track_running_stats with momentum=1-m and use_batch_statistics."""
    if edit.runtime:
        edit.reject("momentum is None", f"For '{edit.api_name}' (torch signature), momentum=None "
                                        "(cumulative average) has no MindSpore equivalent.")
        edit.set("use_batch_statistics", "None if track_running_stats else True")
        return
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
            edit.needs_runtime(f"track_running_stats={code_of(trs)} is known only at run time")
            edit.unsupported(f"track_running_stats={code_of(trs)} must be a literal")


@argument_rule("MS113", "pool", runtime=True, needs=["torch_pool_padding"], examples=[
    ("y = nn.MaxPool2d(2)\n",
     "y = nn.MaxPool2d(2, stride=2)\n"),
])
def pool(edit) -> None:
    """Replace MaxPool2d/AvgPool2d(stride=None, padding=p) with stride=kernel_size, pad_mode='pad', padding=p."""
    options = ("ceil_mode", "dilation", "return_indices", "divisor_override")
    if edit.runtime:
        edit.set("stride", "kernel_size if stride is None else stride")
        given = ", ".join(o for o in options if edit.entry.param(o) is not None)
        edit.prelude.append(f"pad_mode_, padding_ = {edit.helper('torch_pool_padding')}(padding, {given})")
        edit.set("pad_mode", "pad_mode_")
        edit.set("padding", "padding_")
    else:
        _pool_static(edit, options)
    order = ["kernel_size", "stride", "pad_mode", "padding", "dilation", "return_indices",
             "ceil_mode", "count_include_pad", "divisor_override"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


def _pool_static(edit, options) -> None:
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.note("stride defaults to kernel_size in torch, to 1 in MindSpore: made explicit")
    pad = edit.bound.get("padding")
    try:
        v = literal(pad) if pad is not None else 0
    except (ValueError, SyntaxError):
        v = _UNKNOWN
    flags = [literal(edit.bound[o]) if is_literal(edit.bound[o]) else _UNKNOWN
             for o in options if edit.bound.get(o) is not None]
    if v is not _UNKNOWN and torch_pool_padding(v)[0] == "valid":  # zero padding
        mode = torch_pool_padding(v, *flags)[0]
        edit.drop("padding")
        edit.set("pad_mode", repr(mode))
        if mode == "pad":
            edit.note("pad_mode='pad' (with zero padding) because ceil_mode/dilation need it")
        return
    edit.set("pad_mode", "'pad'")
    edit.set("padding", pad)
    edit.worse("transformed", "explicit padding -> pad_mode='pad' (max pooling pads with -inf)")


@argument_rule("MS144", "functional_pool_stride", runtime=True, needs=["torch_avg_pool_padding"], examples=[
    ("y = F.avg_pool2d(x, 2)\n",
     "y = ops.avg_pool2d(x, 2, stride=2)\n"),
    ("y = F.avg_pool2d(x, 2, 1, (1, 0))\n",
     "y = ops.avg_pool2d(x, 2, 1, (1, 1, 0, 0))\n"),
])
def functional_pool_stride(edit) -> None:
    """Replace F.avg_pool2d(x, k) with ops.avg_pool2d(x, k, stride=k) (MindSpore's stride defaults
    to 1), and a padding of one value per axis with (before, after) per axis."""
    dims = int(edit.api_name[-2])  # avg_pool1d / avg_pool2d / avg_pool3d
    if edit.runtime:
        edit.set("stride", "kernel_size if stride is None else stride")
        if dims > 1:
            edit.set("padding", f"{edit.helper('torch_avg_pool_padding')}(padding, {dims})")
        return
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.worse("transformed", "stride defaults to kernel_size in torch, to 1 in "
                                  "ops.avg_pool2d: made explicit")
    pad = edit.bound.get("padding")
    if dims == 1 or pad is None:
        return
    try:
        value = literal(pad)
    except (ValueError, SyntaxError):
        edit.needs_runtime(f"padding={code_of(pad)} may give one value per axis, which "
                           f"ops.avg_pool{dims}d refuses")
        return
    if isinstance(value, (tuple, list)):
        edit.set("padding", repr(torch_avg_pool_padding(value, dims)))


@argument_rule("MS114", "layernorm", runtime=True,
    needs=["torch_layer_norm", "torch_norm_shape"], examples=[
    ("y = nn.LayerNorm(4)\n",
     "y = nn.LayerNorm((4,), epsilon=1e-05)\n"),
])
def layernorm(edit) -> None:
    """Replace nn.LayerNorm(n, eps) with nn.LayerNorm((n,), begin_norm_axis, begin_params_axis, epsilon)."""
    if edit.runtime:
        edit.prelude.append(f"normalized_shape_ = {edit.helper('torch_norm_shape')}(normalized_shape)")
        edit.set("normalized_shape", "normalized_shape_", keyword=False)
        edit.set("begin_norm_axis", "-len(normalized_shape_)")
        edit.set("begin_params_axis", "-len(normalized_shape_)")
        _layernorm_without_affine(edit)
        return
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
    for name in ("elementwise_affine", "bias"):
        value = edit.bound.get(name)
        if value is not None and not (is_literal(value) and literal(value) is True):
            # MindSpore's LayerNorm always holds gamma and beta: the torch-signature class
            # removes them after it is built, as torch's layer has none
            edit.needs_runtime(f"{name}={code_of(value)}: torch's LayerNorm without "
                               f"{'weight and bias' if name == 'elementwise_affine' else 'bias'}")


def layer_norm_function(edit) -> str:
    """The local name of the target's functional layer norm with torch's arguments (None weight
    or bias allowed): ops.layer_norm on ms_core; on MindSpore the generated torch_layer_norm
    (MindSpore 2.10's CPU backend has no kernel for ops.layer_norm)."""
    if edit.converter.facts.target_name == "mindspore":
        return edit.helper("torch_layer_norm")
    return edit.converter.tname("ops.layer_norm")


# torch's LayerNorm without weight/bias: MindSpore's construct runs the LayerNorm primitive on
# gamma and beta, which must be tensors; the functional form takes None as torch's does
_LAYERNORM_CONSTRUCT = """def construct(self, input):
    if self.gamma is None or self.beta is None:  # torch's LayerNorm without weight or bias
        return {fn}(input, self.normalized_shape, self.gamma, self.beta, self.epsilon)
    return super().construct(input)"""


def _layernorm_without_affine(edit) -> None:
    """In a torch-signature LayerNorm: elementwise_affine=False / bias=False remove gamma / beta
    after the layer is built (as torch's weight / bias are None), and construct computes
    without them (also when code sets them to None later, as timm's LayerNormNoBias does)."""
    edit.after_init.append("if not elementwise_affine:\n    self.gamma = None\n    self.beta = None\n"
                           "elif not bias:\n    self.beta = None")
    edit.members.append(_LAYERNORM_CONSTRUCT.format(fn=layer_norm_function(edit)))
    edit.members.append(_PARAMETER_TO_NONE)


# torch removes a parameter set to None; MindSpore 2.10 keeps None in the cell's parameter table,
# and save_checkpoint then fails ('NoneType' object has no attribute 'param_info')
_PARAMETER_TO_NONE = """def __setattr__(self, name, value):
    if value is None and name in self.__dict__.get("_params", {}):
        del self._params[name]  # torch: `self.bias = None` removes the parameter
    super().__setattr__(name, value)"""


@argument_rule("MS115", "embedding", runtime=True, needs=["EmbeddingTorch"], examples=[
    ("y = nn.Embedding(4, 2)\n",
     "y = nn.Embedding(4, 2, embedding_table=Normal(sigma=1.0))\n"),
    ("y = nn.Embedding(4, 2, padding_idx=0)\n",
     "y = EmbeddingTorch(4, 2, padding_idx=0, embedding_table=Normal(sigma=1.0))\n"),
])
def embedding(edit) -> None:
    """Replace nn.Embedding(n, d) with nn.Embedding(n, d, embedding_table=Normal(sigma=1.0)) (torch's N(0, 1));
    with a padding_idx, the runtime's EmbeddingTorch, whose padding row gets no gradient as in torch."""
    edit.set("embedding_table", f"{edit.converter.tname('init.Normal')}(sigma=1.0)")
    pad = edit.bound.get("padding_idx")
    if pad is not None and code_of(pad) != "None":
        # checked on MindSpore 2.10: nn.Embedding zeroes the row at creation but still trains it
        edit.func = cst.Name(edit.helper("EmbeddingTorch"))
