"""Tensor methods on receivers the converter cannot type, whose name MindSpore's Tensor holds with
another meaning.

``x.size()`` is torch's shape; MindSpore's ``Tensor.size`` is the element count, an int property,
so ``x.size()`` left as written raises "'int' object is not callable" and ``x.size`` would be a
wrong number. Where ``x`` is a function parameter, an attribute, a call result or a loop variable
the walk cannot tell a tensor from a user object with a ``size()`` method of its own, so the call
goes through a generated helper that decides at run time
(:func:`~migrate.convert.torch_runtime._torch_size`).

The other names checked (MindSpore 2.10 and ms_core alike): ``dim()``, ``numel()``,
``nelement()``, ``ndimension()`` mean what torch's do and are left as written; ``view(*shape)``
and ``view(dtype)`` (a bit reinterpretation) too; ``type()`` is handled by its table entry on any
receiver (MS174), ``stride()`` is marked (MS901).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.receivers import is_module, is_tensor
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import signatures

UNTYPED_SIZE = node_rule(
    "MS250", "untyped_size",
    "Replace x.size() / x.size(d) / x.size(dim=d) on a receiver not known to be a tensor with "
    "_torch_size(x) / _torch_size(x, d): a tensor's shape (MindSpore's Tensor.size is the element "
    "count), any other object's own size().")


def is_untyped_size(conv, node: cst.Call, recv0) -> bool:
    """``recv0.size(...)`` called as torch's Tensor.size is (no argument, one axis, or ``dim=``) on
    a receiver the walk does not know, in a file that imports torch."""
    if not conv.aliases or not conv.allows(UNTYPED_SIZE.id):
        return False
    args = node.args
    if len(args) > 1 or any(a.star for a in args):
        return False
    if args and args[0].keyword is not None and args[0].keyword.value != "dim":
        return False
    if isinstance(recv0, cst.Name) and recv0.value == "self" or is_module(conv, recv0):
        return False  # a Cell's own size() method
    return not is_tensor(conv, recv0)


def untyped_size(conv, node: cst.Call, walked: cst.Call) -> cst.Call:
    """Apply MS250: ``walked`` is ``node`` (``x.size(...)``) with its parts converted."""
    helper = signatures(conv).helper("_torch_size")
    args = [cst.Arg(walked.func.value), *(cst.Arg(a.value) for a in walked.args)]
    new = cst.Call(cst.Name(helper), args)
    conv.record(node, new, UNTYPED_SIZE.id, "exact",
                "the receiver may be a tensor (shape) or another object (its own size())")
    return new
