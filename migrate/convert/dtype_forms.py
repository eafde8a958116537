"""The dtype a torch expression has by its form alone (``torch.ones(3)`` is float32, ``x.long()`` int64,
``a > b`` bool), or None when only run time knows. Read on the code as written (torch names); a name
assigned one of those in the same function has its dtype (:func:`migrate.convert.receivers.track_assign`)."""
from __future__ import annotations

import libcst as cst

# calls whose result is bool whatever their input (a method or a torch function of that name)
BOOL_CALLS = frozenset({"bool", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isclose", "isin", "eq", "ne",
                        "gt", "lt", "ge", "le", "greater", "less", "equal", "not_equal", "logical_and", "logical_or",
                        "logical_not", "logical_xor", "signbit", "any", "all"})
_CASTS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
          "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool"}
_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64", "float16": "float16",
           "half": "float16", "bfloat16": "bfloat16", "int64": "int64", "long": "int64", "int32": "int32",
           "int": "int32", "int16": "int16", "short": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool"}
# torch functions whose result is complex (float32 input: complex64): the complex constructors and the FFTs of
# real or complex input (irfft, hfft give real results)
COMPLEX_CALLS = frozenset({"torch.complex", "torch.polar", "torch.view_as_complex"} | {
    f"torch.fft.{name}" for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn",
                                     "ihfft", "ihfft2", "ihfftn")})
# creations whose dtype without dtype= is torch's default float (float32)
_FLOAT_CREATIONS = frozenset({"zeros", "ones", "empty", "rand", "randn", "eye", "linspace", "logspace"})


def _torch_dtype(converter, node) -> str | None:
    q = converter.qual(node)
    return _DTYPES.get(q[len("torch."):]) if q and q.startswith("torch.") else None


def _literal_dtype(node) -> str | None:
    """torch's dtype for a Python number or a (nested) list of them: bool, int64 or float32."""
    if isinstance(node, cst.UnaryOperation):
        return _literal_dtype(node.expression)
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Integer):
        return "int64"
    if isinstance(node, cst.Float):
        return "float32"
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        kinds = {_literal_dtype(e.value) for e in node.elements}
        order = ("float32", "int64", "bool")
        return next((k for k in order if k in kinds), None) if None not in kinds else None
    return None


def _creation_dtype(converter, call: cst.Call, q: str) -> str | None:
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if "dtype" in keywords:
        return _torch_dtype(converter, keywords["dtype"])
    name = q[len("torch."):]
    positional = [a.value for a in call.args if a.keyword is None]
    if name in _FLOAT_CREATIONS:
        return "float32"
    if name in ("randint", "randperm"):
        return "int64"
    if name == "full" and len(positional) > 1:
        return _literal_dtype(positional[1])
    if name in ("tensor", "as_tensor") and positional:
        return _literal_dtype(positional[0])
    if name == "arange" and positional:
        kinds = {_literal_dtype(v) for v in positional}
        return "float32" if "float32" in kinds else "int64" if kinds == {"int64"} else None
    return None


def dtype_by_form(converter, node) -> str | None:
    """The dtype of ``node`` (torch code as written) by its form, or None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return dtype_by_form(converter, node.expression)
    if isinstance(node, cst.Comparison) or (isinstance(node, cst.UnaryOperation)
                                            and isinstance(node.operator, cst.BitInvert)
                                            and dtype_by_form(converter, node.expression) == "bool"):
        return "bool"
    if isinstance(node, cst.Name):
        scope = converter.scope
        return scope.dtypes.get(node.value) if scope is not None else None
    if not isinstance(node, cst.Call):
        return None
    q = converter.qual(node.func)
    if q in COMPLEX_CALLS:
        return "complex64"
    if q is not None and q.startswith("torch.") and q.count(".") == 1:
        name = q[len("torch."):]
        return "bool" if name in BOOL_CALLS else _creation_dtype(converter, node, q)
    if not isinstance(node.func, cst.Attribute):
        return None
    method = node.func.attr.value
    if method in _CASTS and not node.args:
        return _CASTS[method]
    if method in ("to", "type") and node.args:
        first = node.args[0].value if node.args[0].keyword in (None,) else None
        dtype = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dtype"), first)
        return _torch_dtype(converter, dtype) if dtype is not None else None
    return "bool" if method in BOOL_CALLS else None


def known_equal(converter, operands) -> bool:
    """The operands' dtypes are equal by form: all the same known dtype, or none known (nothing in the code
    sets one apart)."""
    kinds = {dtype_by_form(converter, node) for node in operands}
    return len(kinds) == 1
