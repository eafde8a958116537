"""Argument rules for initializers: nn.init.*_ and in-place tensor initialisation methods
become ``t.set_data(initializer(Init(...), t.shape, t.dtype))``.

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import literal, operand, primary
from migrate.convert.cst import code_of, parse_expr
from migrate.convert.receivers import is_param
from migrate.convert.registry import argument_rule


@argument_rule("MS120", "init_call", runtime=True, examples=[
    ("nn.init.zeros_(w)\n",
     "w.assign_value(initializer(Zero(), w.shape, w.dtype).init_data())\n"),
])
def init_call(edit) -> None:
    """Replace nn.init.kaiming_normal_(t, ...) with t.set_data(initializer(HeNormal(...), t.shape, t.dtype))
    (t.assign_value(initializer(...).init_data()) where t may be a plain Tensor)."""
    converter = edit.converter
    t = edit.bound["tensor"] = _written(edit.bound.get("tensor"))
    initializer = converter.tname("init.initializer")
    tight = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))  # k=v
    ctor = cst.Call(edit.func, [cst.Arg(v, keyword=None if p else cst.Name(k),
                                        equal=tight if not p else cst.MaybeSentinel.DEFAULT)
                                for k, v, p, _ in edit.out if k != "tensor"])
    t_code = primary(t)
    value = f"{initializer}({code_of(ctor)}, {t_code}.shape, {t_code}.dtype)"
    if edit.runtime or not is_param(t):
        # a plain Tensor has no set_data on MindSpore 2.10 (a weight_norm'd layer's `weight`, a
        # local tensor); assign_value takes the drawn values on a Tensor and a Parameter alike
        edit.result = parse_expr(f"{t_code}.assign_value({value}.init_data())")
    else:
        edit.result = parse_expr(f"{t_code}.set_data({value})")


@argument_rule("MS121", "init_uniform", runtime=True, examples=[
    ("nn.init.uniform_(w, -1, 1)\n",
     "w.assign_value(initializer(Uniform(scale=1), w.shape, w.dtype).init_data())\n"),
])
def init_uniform(edit) -> None:
    """Replace nn.init.uniform_(t, -s, s) with t.set_data(initializer(Uniform(scale=s), t.shape, t.dtype)), any other
    range with t.set_data(ops.uniform(t.shape, ms.Tensor(a), ms.Tensor(b), dtype=t.dtype)) (assign_value where t may be
    a plain Tensor)."""
    a, b = edit.value("a"), edit.value("b")
    if edit.runtime or not _symmetric(a, b):
        # MindSpore's Uniform initializer is U(-scale, scale); ops.uniform draws U[a, b)
        t = edit.bound["tensor"] = _written(edit.bound["tensor"])
        method = "assign_value" if edit.runtime or not is_param(t) else "set_data"
        edit.result = parse_expr(f"{primary(t)}.{method}({_uniform_source(edit.converter, primary(t), a, b)})")
        return
    edit.out = [[k, v, p, label] for k, v, p, label in edit.out if k not in ("a", "b")]
    edit.out.append(["scale", b, False, None])
    init_call(edit)


def _written(t):
    """The tensor an initializer writes: ``p`` for ``p.data`` (torch's ``.data`` shares p's storage and only hides
    the write from autograd; MindSpore 2.10's ``Parameter.data`` is a Tensor without set_data)."""
    while isinstance(t, cst.Attribute) and t.attr.value == "data":
        t = t.value
    return t


def _uniform_source(converter, t, a, b) -> str:
    """Source of a new tensor like ``t`` (its shape and dtype) drawn from U[a, b)."""
    tensor, f32 = converter.tname("ms.Tensor"), converter.tname("ms.float32")
    return (f"{converter.tname('ops.uniform')}({t}.shape, {tensor}({code_of(a)}, {f32}), "
            f"{tensor}({code_of(b)}, {f32}), dtype={t}.dtype)")


def _symmetric(a, b) -> bool:
    try:
        va, vb = literal(a), literal(b)
        return va == -vb
    except (ValueError, SyntaxError, TypeError):
        return code_of(a).lstrip("-").strip() == code_of(b).strip() and code_of(a).startswith("-")


@argument_rule("MS122", "tensor_init_method", examples=[
    ("m.weight.data.zero_()\n",
     "m.weight.set_data(initializer(Zero(), m.weight.shape, m.weight.dtype))\n"),
])
def tensor_init_method(edit) -> None:
    """Replace t.data.normal_(m, s) / t.data.zero_() / t.data.fill_(v) with t.set_data(initializer(...))."""
    recv = edit.bound["tensor"] = _written(edit.method_receiver)
    if edit.entry.torch == "Tensor.uniform_" and _made_here(recv):
        fresh_uniform(edit, recv)
    elif edit.entry.torch in ("Tensor.fill_", "Tensor.zero_") and _made_here(recv):
        fresh_constant(edit, recv)
    elif edit.entry.torch == "Tensor.uniform_":
        init_uniform(edit)
    else:
        init_call(edit)


def _made_here(node) -> bool:
    """True for an expression that makes a new tensor (a call, or a choice between calls)."""
    if isinstance(node, cst.IfExp):
        return _made_here(node.body) and _made_here(node.orelse)
    return isinstance(node, cst.Call)


def fresh_constant(edit, recv) -> None:
    """x.fill_(v) / x.zero_() on a tensor the same expression makes (``torch.empty(n, n).fill_(-inf)``):
    nothing else sees the tensor, so ``ops.full_like(x, v)`` / ``ops.zeros_like(x)`` is the same value."""
    if edit.entry.torch == "Tensor.zero_":
        edit.result = parse_expr(f"{edit.converter.tname('ops.zeros_like')}({code_of(recv)})")
    else:
        full_like = edit.converter.tname("ops.full_like")
        edit.result = parse_expr(f"{full_like}({code_of(recv)}, {code_of(edit.value('value'))})")


def fresh_uniform(edit, recv) -> None:
    """x.uniform_(a, b) on a tensor the same expression makes (``torch.zeros(n).uniform_(0, 1)``):
    nothing else sees the tensor, so a new one of its shape and dtype drawn from U[a, b) is the
    same value."""
    edit.result = parse_expr(_uniform_source(edit.converter, primary(recv), edit.value("a"), edit.value("b")))




_UNIT_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")


def _gain_source(name: str, slope: str, sqrt: str = "math.sqrt") -> str | None:
    """torch's gain for a nonlinearity name, as source (None for an unknown name)."""
    if name in _UNIT_GAIN:
        return "1"
    return {"tanh": "5.0 / 3", "relu": f"{sqrt}(2.0)", "selu": "3.0 / 4",
            "leaky_relu": f"{sqrt}(2.0 / (1 + {slope} ** 2))"}.get(name)


@argument_rule("MS155", "calculate_gain", examples=[
    ("y = nn.init.calculate_gain('tanh')\n",
     "y = 5.0 / 3\n"),
])
def calculate_gain(edit) -> None:
    """Replace nn.init.calculate_gain('relu') with math.sqrt(2.0) (a table lookup when the name is a variable:
    MindSpore 2.10 has no public calculate_gain)."""
    sqrt = edit.converter.tname("math.sqrt")  # the file's name for math (another if it is taken)
    name = edit.bound.get("nonlinearity")
    param = edit.bound.get("param")
    slope = "0.01" if param is None or code_of(param) == "None" else operand(param)
    try:
        value = literal(name)
    except (ValueError, SyntaxError, TypeError):
        value = None
    if isinstance(value, str):
        gain = _gain_source(value, slope, sqrt)
        if gain is None:
            edit.unsupported(f"calculate_gain({value!r}): torch raises for an unsupported "
                             "nonlinearity")
            return
        edit.result = parse_expr(gain if gain != "1" else "1")
        return
    if param is not None and code_of(param) != "None" and not isinstance(param, cst.BaseNumber):
        slope = f"(0.01 if {operand(param)} is None else {operand(param)})"  # `param=lambda ...`
    table = ", ".join(f"{n!r}: {_gain_source(n, slope, sqrt)}" for n in
                      _UNIT_GAIN + ("tanh", "relu", "leaky_relu", "selu"))
    edit.result = parse_expr(f"{{{table}}}[{code_of(name)}]")
    edit.worse("transformed", "torch's gains as a table (MindSpore 2.10 has no public "
                              "calculate_gain); an unknown name raises KeyError (torch: ValueError)")
