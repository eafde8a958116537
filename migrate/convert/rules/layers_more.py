"""Argument rules for the layers beyond the common ones: 1-D and 3-D (transposed) convolutions,
local response normalisation, RReLU, Bilinear and the fixed-mode upsampling layers.

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import literal, operand
from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule
from migrate.convert.rules.layers import _conv


def _value(edit, name):
    """The literal value of torch argument ``name`` (its default when omitted), or raise."""
    return literal(edit.value(name))


@argument_rule("MS400", "conv_transpose1d", runtime=True, examples=[
    ("y = nn.ConvTranspose1d(2, 3, 3)\n",
     "y = nn.Conv1dTranspose(2, 3, 3, pad_mode='pad', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(9)))\n"),
])
def conv_transpose1d(edit) -> None:
    """Replace nn.ConvTranspose1d(padding=p, groups, bias) with nn.Conv1dTranspose(pad_mode='pad', padding, group,
    has_bias, torch inits)."""
    _conv(edit, 1, transpose=True)


@argument_rule("MS401", "conv3d", runtime=True, examples=[
    ("y = nn.Conv3d(2, 3, 3)\n",
     "y = nn.Conv3d(2, 3, 3, pad_mode='valid', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(54)))\n"),
])
def conv3d(edit) -> None:
    """Replace nn.Conv3d(padding=p or (d, h, w), groups, bias) with nn.Conv3d(pad_mode, padding (6 values), group,
    has_bias, torch inits)."""
    _conv(edit, 3)


@argument_rule("MS402", "conv_transpose3d", runtime=True, examples=[
    ("y = nn.ConvTranspose3d(2, 3, 3)\n",
     "y = nn.Conv3dTranspose(2, 3, 3, pad_mode='pad', has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(81)))\n"),
])
def conv_transpose3d(edit) -> None:
    """Replace nn.ConvTranspose3d(...) with nn.Conv3dTranspose(pad_mode='pad', padding (6 values), output_padding,
    ...)."""
    if edit.runtime:
        edit.reject("(dilation if isinstance(dilation, int) else dilation[0]) != 1",
                    "For 'ConvTranspose3d' (torch signature), MindSpore 2.10's Conv3dTranspose "
                    "takes a depth dilation of 1 only.")
        _conv(edit, 3, transpose=True)
        _order_transpose3d(edit)
        return
    try:
        d = _value(edit, "dilation")
    except (ValueError, SyntaxError, TypeError):
        d = None
    depth = d if isinstance(d, int) else d[0] if isinstance(d, (tuple, list)) else None
    if depth is None:
        edit.worse("approximate", f"dilation={code_of(edit.value('dilation'))} assumed to be 1 "
                                  "along the depth (MindSpore 2.10 refuses another)")
    elif depth != 1:
        edit.unsupported(f"dilation={code_of(edit.value('dilation'))}: MindSpore 2.10's "
                         "Conv3dTranspose takes a depth dilation of 1 only")
        return
    _conv(edit, 3, transpose=True)
    _order_transpose3d(edit)


def _order_transpose3d(edit) -> None:
    order = ["in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding",
             "dilation", "group", "output_padding", "has_bias", "weight_init", "bias_init"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@argument_rule("MS403", "local_response_norm", runtime=True, examples=[
    ("y = nn.LocalResponseNorm(3)\n",
     "y = nn.LRN(depth_radius=1, alpha=0.0001 / 3, beta=0.75)\n"),
])
def local_response_norm(edit) -> None:
    """Replace nn.LocalResponseNorm(size, alpha, beta, k) with nn.LRN(depth_radius=(size-1)//2, bias=k,
    alpha=alpha/size, beta)."""
    size = edit.value("size")
    if edit.runtime:
        edit.reject(f"{code_of(size)} % 2 == 0", "For 'LocalResponseNorm' (torch signature), an "
                    "even size is not centred in torch; MindSpore's LRN window is "
                    "2 * depth_radius + 1 wide.")
    try:
        n = literal(size)
    except (ValueError, SyntaxError, TypeError):
        n = None
    if isinstance(n, int) and n % 2 == 0:
        edit.unsupported(f"size={n}: torch's even window is not centred; MindSpore's LRN window "
                         "is 2 * depth_radius + 1 wide")
        return
    if n is None:
        edit.worse("approximate", f"size={code_of(size)} assumed to be odd (MindSpore's window "
                                  "is 2 * depth_radius + 1 wide)")
    radius = str((n - 1) // 2) if isinstance(n, int) else f"({operand(size)} - 1) // 2"
    edit.out = []
    edit.set("depth_radius", radius)
    edit.set("bias", code_of(edit.value("k")))
    edit.set("alpha", f"{operand(edit.value('alpha'))} / {operand(size)}")
    edit.set("beta", code_of(edit.value("beta")))
    edit.worse("transformed", "window size -> depth_radius; alpha is divided by the size (torch "
                              "averages the squares, TensorFlow-style LRN sums them)")


@argument_rule("MS404", "rrelu_inference", runtime=True, examples=[
    ("y = nn.RReLU()\n",
     "y = nn.LeakyReLU(alpha=0.22916666666666666)\n"),
])
def rrelu_inference(edit) -> None:
    """Replace nn.RReLU(lower, upper) with nn.LeakyReLU(alpha=(lower + upper) / 2) (torch's inference-mode RReLU)."""
    lower, upper = edit.value("lower"), edit.value("upper")
    try:
        slope = repr((literal(lower) + literal(upper)) / 2)
    except (ValueError, SyntaxError, TypeError):
        slope = f"({code_of(lower)} + {code_of(upper)}) / 2"
    edit.out = []
    edit.set("alpha", slope)
    edit.worse("approximate", "training-mode random slopes are not drawn: the layer is torch's "
                              "inference-mode RReLU, a LeakyReLU with slope (lower + upper) / 2 "
                              "(MindSpore 2.10's RReLU draws slopes in inference mode too)")


@argument_rule("MS405", "bilinear", runtime=True, examples=[
    ("y = nn.Bilinear(2, 3, 4)\n",
     "y = nn.BiDense(2, 3, 4, weight_init=Uniform(scale=1 / math.sqrt(2)), "
     "bias_init=Uniform(scale=1 / math.sqrt(2)))\n"),
])
def bilinear(edit) -> None:
    """Replace nn.Bilinear(in1, in2, out, bias) with nn.BiDense(in1, in2, out, has_bias, torch's U(+-1/sqrt(in1))
    inits)."""
    converter = edit.converter
    bound = (f"{converter.tname('init.Uniform')}(scale=1 / "
             f"{converter.tname('math.sqrt')}({code_of(edit.value('in1_features'))}))")
    edit.set("weight_init", bound)
    bias = edit.value("bias")
    try:
        no_bias = literal(bias) is False
    except (ValueError, SyntaxError, TypeError):
        no_bias = False
    if not no_bias:
        edit.set("bias_init", bound)
    edit.worse("transformed", "explicit torch default initializers")


@argument_rule("MS406", "upsampling_mode", runtime=True, needs=["torch_float_scale"], examples=[
    ("y = nn.UpsamplingNearest2d(scale_factor=2)\n",
     "y = nn.Upsample(scale_factor=2.0, recompute_scale_factor=True)\n"),
])
def upsampling_mode(edit) -> None:
    """Replace nn.UpsamplingNearest2d / UpsamplingBilinear2d(size, scale_factor) (and F.upsample_nearest /
    upsample_bilinear) with nn.Upsample (ops.interpolate)(size, scale_factor, mode=..., align_corners=...)."""
    bilinear_mode = edit.entry.torch.endswith(("Bilinear2d", "upsample_bilinear"))
    edit.set("mode", "'bilinear'" if bilinear_mode else "'nearest'")
    if bilinear_mode:
        edit.set("align_corners", "True")
    upsample(edit)


@argument_rule("MS407", "implicit_softmax_dim", runtime=True, needs=["SoftmaxGuarded"], examples=[
    ("y = nn.Softmax(dim=1)\n",
     "y = nn.Softmax(axis=1)\n"),
])
def implicit_softmax_dim(edit) -> None:
    """Replace nn.Softmax() / LogSoftmax() / Softmin() without dim with MindSpore's axis=-1, labelled approximate
    (torch's implicit dim is 1 for 2-D and 4-D input). With --target mindspore, nn.Softmax is the runtime's
    SoftmaxGuarded (ones over an axis of length 1: MindSpore 2.10's CPU Softmax there breaks another softmax's
    gradient)."""
    dim = edit.bound.get("dim")
    if edit.converter.facts.target_name == "mindspore" and edit.entry.torch == "torch.nn.Softmax":
        edit.func = cst.Name(edit.helper("SoftmaxGuarded"))
    if edit.runtime:
        edit.set("axis", f"-1 if {code_of(dim)} is None else {code_of(dim)}")
        return
    if dim is not None and code_of(dim) != "None":
        return
    edit.drop("axis")
    edit.worse("approximate", "no dim: MindSpore uses axis=-1; torch's implicit (deprecated) dim "
                              "is 0 for 0-D, 1-D and 3-D input and 1 otherwise, the same axis "
                              "only for 1-D and 2-D input")


@argument_rule("MS408", "parameter_list", runtime=True, needs=["TorchParameterList"], examples=[
    ("y = nn.ParameterList([nn.Parameter(torch.ones(2))])\n",
     "y = TorchParameterList([ms.Parameter(ops.ones((2,)))])\n"),
])
def parameter_list(edit) -> None:
    """Replace nn.ParameterList(values) with the runtime's TorchParameterList(values), a Cell that registers each
    Parameter under its index as torch names it ("gamma.0"): MindSpore 2.10's ParameterTuple leaves them unnamed
    ("Parameter$1") or keeps names they had elsewhere (two blocks' "fc1.weight" collide), and cannot grow."""
    values = edit.bound.get("values")
    args = [] if values is None or code_of(values) in ("None", "[]", "()") else [cst.Arg(values)]
    edit.result = cst.Call(cst.Name(edit.helper("TorchParameterList")), args)
    edit.worse("transformed", "TorchParameterList registers each Parameter under its index, as torch "
                              "(MindSpore's ParameterTuple does not name them by path and cannot grow)")


@argument_rule("MS410", "weight_norm", needs=["torch_weight_norm"], examples=[
    ("y = torch.nn.utils.weight_norm(nn.Linear(2, 3))\n",
     "y = nn.utils.weight_norm(nn.Dense(2, 3, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(2))))\n"),
])
def weight_norm(edit) -> None:
    """Replace torch.nn.utils(.parametrizations).weight_norm(m) with nn.utils.weight_norm(m) on
    ms_core, with the runtime's torch_weight_norm(m) for --target mindspore (MindSpore 2.10 has
    none: the same reparametrisation, weight = g * v / ||v|| recomputed in a forward pre-hook)."""
    if edit.converter.facts.target_name != "mindspore":
        return
    if edit.entry.torch.endswith("remove_weight_norm"):
        edit.unsupported("MindSpore 2.10 has no remove_weight_norm: keep the weight-normalised "
                         "layer, or convert with the ms_core target")
        return
    args = [cst.Arg(edit.bound["module"])]
    for key in ("name", "dim"):
        if edit.bound.get(key) is not None:
            args.append(cst.Arg(edit.bound[key], keyword=cst.Name(key), equal=_EQUAL))
    edit.worse("transformed", "MindSpore 2.10 has no weight_norm: the runtime's torch_weight_norm "
                              "reparametrises the Parameter as torch does (weight_g, weight_v)")
    edit.result = cst.Call(cst.Name(edit.helper("torch_weight_norm")), args)


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _float_scale(edit, scale) -> None:
    """scale_factor as MindSpore 2.10 takes it: float values, with recompute_scale_factor=True."""
    try:
        v = literal(scale)
    except (ValueError, SyntaxError, TypeError):
        v = None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        edit.set("scale_factor", repr(float(v)))
        whole = float(v).is_integer()
    elif isinstance(v, (tuple, list)) and all(isinstance(i, (int, float)) for i in v):
        edit.set("scale_factor", repr(tuple(float(i) for i in v)))
        whole = all(float(i).is_integer() for i in v)
    else:
        edit.set("scale_factor", f"{edit.helper('torch_float_scale')}({code_of(scale)})")
        whole = False
    recompute = edit.bound.get("recompute_scale_factor")
    edit.set("recompute_scale_factor", "True")
    if not whole and not (recompute is not None and code_of(recompute) == "True"):
        edit.worse("approximate", "scale_factor with recompute_scale_factor=True (MindSpore 2.10 "
                                  "refuses it otherwise): the same as torch for whole-number "
                                  "scales; for others the output size floor(in * s) defines the "
                                  "sampling")
    else:
        edit.worse("transformed", "scale_factor as floats with recompute_scale_factor=True "
                                  "(what MindSpore 2.10 accepts; the same sampling for "
                                  "whole-number scales)")


@argument_rule("MS411", "upsample", runtime=True, needs=["torch_float_scale"], examples=[
    ("y = nn.Upsample(scale_factor=2)\n",
     "y = nn.Upsample(scale_factor=2.0, recompute_scale_factor=True)\n"),
])
def upsample(edit) -> None:
    """Replace nn.Upsample(scale_factor=2) with nn.Upsample(scale_factor=2.0, recompute_scale_factor=True) (MindSpore
    2.10 takes float scales, and only so for 3-D/4-D input)."""
    scale = edit.bound.get("scale_factor")
    if edit.runtime:
        recompute = edit.bound.get("recompute_scale_factor")  # UpsamplingNearest2d has none
        s_, r_ = code_of(scale), "None" if recompute is None else code_of(recompute)
        edit.set("scale_factor", f"None if {s_} is None else tuple(float(i) for i in {s_}) if "
                                 f"isinstance({s_}, (tuple, list)) else float({s_})")
        edit.set("recompute_scale_factor", f"True if {s_} is not None else {r_}")
        return
    if scale is not None and code_of(scale) != "None":
        _float_scale(edit, scale)


@argument_rule("MS462", "interpolate_scale", runtime=True, needs=["torch_float_scale"], examples=[
    ("y = F.interpolate(x, scale_factor=2, mode='nearest')\n",
     "y = ops.interpolate(x, scale_factor=2.0, mode='nearest', recompute_scale_factor=True)\n"),
])
def interpolate_scale(edit) -> None:
    """Replace F.interpolate(x, scale_factor=2) with ops.interpolate(x, scale_factor=2.0, recompute_scale_factor=True),
    as nn.Upsample: MindSpore 2.10's interpolate refuses an int scale_factor, and a float one without
    recompute_scale_factor=True for 3-D and 4-D input (BigGAN's and most U-Nets' upsampling)."""
    upsample(edit)


@argument_rule("MS464", "instance_norm_by_groups", runtime=True,
               needs=["InstanceNorm1dByGroups", "InstanceNorm2dByGroups", "InstanceNorm3dByGroups"], examples=[
    ("y = nn.InstanceNorm2d(4)\n",
     "y = nn.InstanceNorm2d(4, affine=False)\n"),
])
def instance_norm_by_groups(edit) -> None:
    """Replace nn.InstanceNorm1d/2d/3d(C, ...) with the runtime's InstanceNorm1d/2d/3dByGroups(C, ...) for --target
    mindspore: MindSpore 2.10 has no CPU kernel for InstanceNorm; GroupNorm with one channel a group is the same
    normalisation (the class stays a subclass of MindSpore's InstanceNorm, without its moving statistics)."""
    if edit.converter.facts.target_name != "mindspore" or edit.problems:
        return
    kind = edit.entry.torch.rsplit(".", 1)[-1]
    edit.func = cst.Name(edit.helper(f"{kind}ByGroups"))
    edit.worse("transformed", f"MindSpore 2.10 has no CPU kernel for {kind}: {kind}ByGroups normalises through "
                              "GroupNorm with one channel a group, the same computation")


@argument_rule("MS412", "dropout2d_any_rank", runtime=True, needs=["Dropout2dAnyRank"], examples=[
    ("y = nn.Dropout2d(0.2)\n",
     "y = Dropout2dAnyRank(0.2)\n"),
])
def dropout2d_any_rank(edit) -> None:
    """Replace nn.Dropout2d(p) with Dropout2dAnyRank(p), a generated nn.Dropout2d that also takes torch's 2-D and 3-D
    inputs (MindSpore 2.10's takes 4-D input only in training)."""
    edit.func = cst.Name(edit.helper("Dropout2dAnyRank"))
    edit.worse("transformed", "MindSpore 2.10's nn.Dropout2d takes (N, C, H, W) input only: "
                              "Dropout2dAnyRank also drops channels of (N, C, L) input and "
                              "elements of 2-D input, as torch does")


@argument_rule("MS413", "unfold_layer", runtime=True, needs=["UnfoldTorchLayout"], examples=[
    ("y = nn.Unfold(3, stride=2)\n",
     "y = UnfoldTorchLayout(3, stride=2)\n"),
])
def unfold_layer(edit) -> None:
    """Replace nn.Unfold(kernel_size, dilation, padding, stride) with UnfoldTorchLayout(...), a generated Cell whose
    construct is ops.unfold (torch's layout; MindSpore 2.10's nn.Unfold is TensorFlow-style)."""
    edit.func = cst.Name(edit.helper("UnfoldTorchLayout"))


@argument_rule("MS414", "circular_pad_layer", runtime=True, needs=["CircularPadTorch"], examples=[
    ("y = nn.CircularPad2d(1)\n",
     "y = CircularPadTorch(1, dims=2)\n"),
])
def circular_pad_layer(edit) -> None:
    """Replace nn.CircularPad2d(padding) with CircularPadTorch(padding, dims=2), a generated Cell whose construct is
    ops.pad(x, padding, mode='circular') (MindSpore 2.10 has no CircularPad layers)."""
    edit.func = cst.Name(edit.helper("CircularPadTorch"))
    edit.set("dims", edit.entry.torch[-2])


@argument_rule("MS417", "softplus_layer", runtime=True, needs=["SoftplusTorch"], examples=[
    ("y = nn.Softplus(beta=2)\n",
     "y = nn.Softplus(beta=2)\n"),
])
def softplus_layer(edit) -> None:
    """Replace nn.Softplus(beta, threshold) with --target mindspore with SoftplusTorch(beta, threshold), a generated
    Cell whose construct is ops.softplus (MindSpore 2.10 has no Softplus layer; ms_core keeps nn.Softplus)."""
    if edit.converter.facts.target_name == "mindspore":
        edit.func = cst.Name(edit.helper("SoftplusTorch"))


@argument_rule("MS418", "embedding_bag_layer", runtime=True, needs=["EmbeddingBagTorch"], examples=[
    ("y = nn.EmbeddingBag(10, 4, mode='sum')\n",
     "y = EmbeddingBagTorch(10, 4, mode='sum')\n"),
])
def embedding_bag_layer(edit) -> None:
    """Replace nn.EmbeddingBag(...) with EmbeddingBagTorch(...), a Cell of the runtime with torch's arguments, forward
    and parameter name (MindSpore 2.10 has no EmbeddingBag)."""
    edit.func = cst.Name(edit.helper("EmbeddingBagTorch"))


@argument_rule("MS415", "attention_init", runtime=True, needs=["torch_attention_init"], examples=[
    ("y = nn.MultiheadAttention(16, 4)\n",
     "y = torch_attention_init(nn.MultiheadAttention(16, 4))\n"),
])
def attention_init(edit) -> None:
    """Replace nn.MultiheadAttention(...) (and the Transformer layers and models that build it) with
    torch_attention_init(nn.MultiheadAttention(...)): out_proj.bias starts at zero as in torch (MindSpore's Dense draws
    U(±1/√E))."""
    edit.finish = edit.helper("torch_attention_init")
    edit.note("out_proj.bias of each attention layer set to zeros after construction, as torch "
              "initialises it (MindSpore draws it from U(-1/sqrt(E), 1/sqrt(E)))")
