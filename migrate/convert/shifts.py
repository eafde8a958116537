"""Bit shifts of tensors: ``lengths >> 2`` / ``x << 1``.

torch's Tensor has ``>>`` and ``<<`` (``__rshift__``, ``__lshift__``, and their in-place forms); MindSpore 2.10's
Tensor has neither (``TypeError: unsupported operand type(s) for >>``), ms_core's likewise. Where an operand is
known to be a tensor, the shift is ``ops.bitwise_right_shift`` / ``ops.bitwise_left_shift`` (integer tensors, as
torch's, which refuses floating-point ones too); ``x >>= n`` is ``x = ops.bitwise_right_shift(x, n)``. MindSpore
2.10 defines no backward for RightShift/LeftShift and raises in any gradient computation whose tape holds one
(integer values carry no gradient anyway): with --target mindspore the shift is inside ``ops.stop_gradient``.
Shifts of values not known to be tensors (Python ints) stay as written.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.receivers import is_tensor
from migrate.convert.registry import node_rule

TENSOR_SHIFT = node_rule(
    "MS470", "tensor_shift",
    "Replace a >> n / a << n (and >>=, <<=) on a tensor with ops.bitwise_right_shift(a, n) / "
    "ops.bitwise_left_shift(a, n): MindSpore's Tensor has no shift operators.", examples=[
        ("def f(x: torch.Tensor):\n    return x >> 2\n",
         "def f(x: ms.Tensor):\n    return ops.bitwise_right_shift(x, 2)\n"),
    ])
_FUNCTIONS = {cst.RightShift: "ops.bitwise_right_shift", cst.LeftShift: "ops.bitwise_left_shift",
              cst.RightShiftAssign: "ops.bitwise_right_shift", cst.LeftShiftAssign: "ops.bitwise_left_shift"}


def _applies(converter, operator, operands) -> str | None:
    """The target function for a shift of these (torch) operands, or None."""
    function = _FUNCTIONS.get(type(operator))
    if function is None or not converter.walk_state.aliases or not converter.allows(TENSOR_SHIFT.id):
        return None
    return function if any(is_tensor(converter, o) for o in operands) else None


def _shift_call(converter, function, left, right) -> cst.Call:
    call = cst.Call(converter.target(function), [cst.Arg(left), cst.Arg(_bare(right))])
    if converter.facts.target_name == "mindspore":
        call = cst.Call(converter.target("ops.stop_gradient"), [cst.Arg(call)])
    return call


def _bare(node):
    """An operand as a call argument: its own parentheses are not needed there."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def tensor_shift(converter, node: cst.BinaryOperation, walked):
    """Apply MS470 to ``node`` (``walked``: its operands converted), or return ``walked``."""
    function = _applies(converter, node.operator, (node.left, node.right))
    if function is None:
        return walked
    new = _shift_call(converter, function, _bare(walked.left), walked.right)
    new = new.with_changes(lpar=walked.lpar, rpar=walked.rpar)
    converter.record(node, new, TENSOR_SHIFT.id, "exact", "a tensor's bit shift is an op (MindSpore's Tensor has "
                                                          "no shift operators)")
    return new


def tensor_shift_assign(converter, node: cst.AugAssign, target, value):
    """``x >>= n`` on a tensor: ``x = ops.bitwise_right_shift(x, n)`` (``target``, ``value``: converted), or None."""
    function = _applies(converter, node.operator, (node.target,))
    if function is None:
        return None
    new = cst.Assign([cst.AssignTarget(target)], _shift_call(converter, function, target, value))
    converter.record(node, new, TENSOR_SHIFT.id, "exact", "a tensor's bit shift is an op (MindSpore's Tensor has "
                                                          "no shift operators)")
    return new
