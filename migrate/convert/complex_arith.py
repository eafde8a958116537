"""Arithmetic with complex values on MindSpore 2.10's CPU kernels (--target mindspore).

torch promotes: ``1j * y`` on a float32 tensor is complex64, and ``mag * (x + 1j * y)`` multiplies
a real tensor by a complex one. MindSpore 2.10 refuses a Python complex beside a tensor in every
arithmetic op, and has no CPU Mul or Div for a real tensor beside a complex one (Add and Sub it
has). Where an operand is complex by its form (an imaginary literal, ``complex(...)``,
``torch.complex`` / ``polar`` / ``view_as_complex``, an FFT (``torch.fft.fft2``...), ``exp`` of such,
arithmetic over them, a name the same function last assigned one of those), the operation is the
runtime's ``complex_mul`` (``_div``, ``_add``, ``_sub``), which promotes as torch does. Values the
converter cannot see to be complex (a function's argument) are left as written.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.dtype_forms import COMPLEX_CALLS, dtype_by_form
from migrate.convert.registry import node_rule

COMPLEX_ARITHMETIC = node_rule(
    "MS463", "complex_arithmetic",
    "Replace a * b / a / b where an operand is complex by its form (mag * (x + 1j * y)), and a Python complex "
    "beside a tensor in + or - (--target mindspore), with the runtime's complex_mul / complex_div / complex_add / "
    "complex_sub: torch's promotion, which MindSpore 2.10's CPU kernels refuse.",
    needs=["complex_mul", "complex_div", "complex_add", "complex_sub"], examples=[
        ("def spectrum(mag, p):\n    return mag * (torch.cos(p) + 1j * torch.sin(p))\n",
         "def spectrum(mag, p):\n    return complex_mul(mag, ops.cos(p) + complex_mul(1j, ops.sin(p)))\n",
         "mindspore"),
    ])
_HELPERS = {cst.Multiply: "complex_mul", cst.Divide: "complex_div", cst.Add: "complex_add",
            cst.Subtract: "complex_sub"}
# exp keeps a complex argument complex
_KEEPS_COMPLEX = ("torch.exp", "torch.conj", "torch.conj_physical")


def _python_complex(node) -> bool:
    """An imaginary literal or ``complex(...)``, possibly negated."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _python_complex(node.expression)
    return isinstance(node, cst.Imaginary) or (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "complex")


def complex_by_form(converter, node, depth: int = 0) -> bool:
    """Whether ``node`` (torch code) is complex by its form alone."""
    if depth > 8:
        return False
    if _python_complex(node):
        return True
    if isinstance(node, cst.UnaryOperation):
        return complex_by_form(converter, node.expression, depth + 1)
    if isinstance(node, cst.Name):  # `spec = torch.fft.fft2(x)` earlier in the function
        return (dtype_by_form(converter, node) or "").startswith("complex")
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _HELPERS:
        return complex_by_form(converter, node.left, depth + 1) or complex_by_form(converter, node.right, depth + 1)
    if isinstance(node, cst.Call):
        q = converter.qual(node.func)
        if q in COMPLEX_CALLS:
            return True
        if q in _KEEPS_COMPLEX and node.args:
            return complex_by_form(converter, node.args[0].value, depth + 1)
    return False


def complex_arithmetic(converter, node: cst.BinaryOperation, walked):
    """Apply MS463 to ``node`` (``walked``: its operands converted), or return ``walked``."""
    helper = _HELPERS.get(type(node.operator))
    if helper is None or converter.facts.target_name != "mindspore" or not converter.walk_state.aliases \
            or not converter.allows(COMPLEX_ARITHMETIC.id):
        return walked
    scalar = _python_complex(node.left) or _python_complex(node.right)
    if not (scalar or helper in ("complex_mul", "complex_div") and (
            complex_by_form(converter, node.left) or complex_by_form(converter, node.right))):
        return walked
    if _number(node.left) and _number(node.right):
        return walked  # two Python numbers (2.0 - 1j): Python's own arithmetic
    name = converter.output.signatures.helper(helper)
    new = cst.Call(cst.Name(name), [cst.Arg(walked.left.with_changes(lpar=[], rpar=[]) if _bare(walked.left)
                                            else walked.left),
                                    cst.Arg(walked.right.with_changes(lpar=[], rpar=[]) if _bare(walked.right)
                                            else walked.right)])
    new = new.with_changes(lpar=walked.lpar, rpar=walked.rpar)
    converter.record(node, new, COMPLEX_ARITHMETIC.id, "transformed",
                     "complex arithmetic promoted as torch does (MindSpore 2.10's CPU kernels refuse a Python complex "
                     "beside a tensor, and a real tensor beside a complex one in Mul/Div)")
    return new


def _number(node) -> bool:
    """A number literal (``2``, ``0.5``, ``1j``, ``-1j``) or ``complex(...)``."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _number(node.expression)
    return isinstance(node, (cst.Integer, cst.Float)) or _python_complex(node)


def _bare(node) -> bool:
    """A parenthesised operand that can stand alone as a call argument."""
    return bool(getattr(node, "lpar", None)) and not isinstance(node, (cst.Tuple, cst.GeneratorExp))
