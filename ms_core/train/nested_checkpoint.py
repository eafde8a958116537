"""Checkpoints of nested objects (what `torch.save` is given in training scripts), without pickle.

A training script saves one object that holds everything a resumed run needs::

    {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
     "scheduler": scheduler.state_dict(), "epoch": 3, "best_loss": float("inf")}

:func:`save` writes it as a checkpoint file: every array leaf (Tensor, Parameter, NumPy array) is
one entry, named by its path in the object (``model/fc.weight``, ``optimizer/state/0/exp_avg``;
a flat state dict keeps its own names), and the rest of the object -- dicts (any JSON key type:
an optimizer state's int keys), lists, tuples, Python numbers (``inf`` and ``nan`` too), str,
bool, None, NumPy scalars -- is one JSON string entry, :data:`STRUCTURE`, that says where each
entry goes. The file is MindSpore's protobuf ``.ckpt`` layout whenever every entry has a MindSpore
type (real MindSpore's ``load_checkpoint`` reads it: the entries and the structure string), and
ms_core's own checkpoint format otherwise (complex arrays). Nothing in the file is executed on
loading: :func:`load` parses it with the checkpoint readers and rebuilds the object, floats
bit for bit (JSON keeps a double's shortest repr), arrays with their dtypes.

Configuration objects (dataclass instances, ``argparse.Namespace``, ``types.SimpleNamespace``) are
saved as their fields and load back as a ``types.SimpleNamespace`` with the same attributes (no
class is imported on loading). Other objects that are not data (a Cell, a function, a class
instance) are refused with a message that says what to save instead.
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from collections import OrderedDict

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell
from .serialization import (
    _PREFIX,
    MAGIC,
    VERSION,
    _atomic_write,
    _encode,
    _encode_mindspore,
    _parse,
    _parse_mindspore,
)

__all__ = ["STRUCTURE", "is_nested", "load", "save"]

STRUCTURE = "__nested_structure__"
_KIND = "$"


def _tag(kind, **fields):
    return {_KIND: kind, **fields}


class _Flattener:
    """Walks an object: array leaves become entries, the rest a JSON structure."""

    def __init__(self, fn):
        self.fn = fn
        self.entries: list[tuple[str, object]] = []
        self.names: set[str] = set()

    def entry(self, path, value):
        name = "/".join(path) or "value"
        while name in self.names or name == STRUCTURE:
            name += "_"
        self.names.add(name)
        self.entries.append((name, value))
        return name

    def walk(self, obj, path):
        if isinstance(obj, Tensor):  # a Parameter too: loaded back as a Tensor, as torch's state dicts
            return _tag("tensor", entry=self.entry(path, Tensor._wrap(obj.asnumpy())))
        if isinstance(obj, np.ndarray):
            return _tag("ndarray", entry=self.entry(path, obj))
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.generic):
            return _tag("scalar", dtype=obj.dtype.name, value=self.walk(obj.item(), path))
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            value = float(obj)
            return value if math.isfinite(value) else _tag("float", value=repr(value))
        if isinstance(obj, dict):
            items = [[self.walk(k, []), self.walk(v, path + [_key(k)])] for k, v in obj.items()]
            if all(isinstance(k, str) for k in obj) and not any(k == _KIND for k in obj):
                plain = {k: v for (k, v) in zip(obj, (v for _, v in items))}
                return plain if type(obj) is dict else _tag("odict", items=items)
            return _tag("odict" if isinstance(obj, OrderedDict) else "dict", items=items)
        if isinstance(obj, list):
            return [self.walk(v, path + [str(i)]) for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            return _tag("tuple", items=[self.walk(v, path + [str(i)]) for i, v in enumerate(obj)])
        fields = _config_fields(obj)
        if fields is not None:  # a config object: its fields, given back as attributes
            return _tag("namespace", cls=type(obj).__name__,
                        items=[[k, self.walk(v, path + [_key(k)])] for k, v in fields.items()])
        raise TypeError(_refusal(self.fn, obj, path))


def _config_fields(obj):
    """The fields of a configuration object -- a dataclass instance, an ``argparse.Namespace`` or a
    ``types.SimpleNamespace`` (what scripts put beside the weights: ``'config': GPTConfig(...)``,
    ``'args': args``) -- or None for any other object. They load back as a SimpleNamespace: the
    same attributes, no class imported or code run on loading."""
    import argparse
    import dataclasses
    import types
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, (argparse.Namespace, types.SimpleNamespace)):
        return dict(vars(obj))
    return None


def _key(k):
    return str(k).replace("/", "\\/")


def _refusal(fn, obj, path):
    where = "/".join(path) or "the object"
    if isinstance(obj, Cell):
        what = (f"a whole network ({type(obj).__name__}); save its parameters "
                f"(net.parameters_dict(), what state_dict() converts to) and build the network "
                f"before loading them")
    elif callable(obj):
        what = f"a function or class ({getattr(obj, '__name__', type(obj).__name__)}), which only pickle can save"
    else:
        what = (f"a {type(obj).__name__} object, which only pickle can save; save its data (numbers, "
                f"strings, Tensors, dicts and lists of them)")
    return f"For '{fn}', {where} is {what}."


def _rebuild(node, arrays):
    if isinstance(node, list):
        return [_rebuild(v, arrays) for v in node]
    if not isinstance(node, dict):
        return node
    kind = node.get(_KIND)
    if kind is None:
        return {k: _rebuild(v, arrays) for k, v in node.items()}
    if kind in ("tensor", "ndarray"):
        arr = arrays[node["entry"]]
        return Tensor._wrap(arr) if kind == "tensor" else arr
    if kind == "scalar":
        return np.dtype(node["dtype"]).type(_rebuild(node["value"], arrays))
    if kind == "float":
        return float(node["value"])
    if kind == "tuple":
        return tuple(_rebuild(v, arrays) for v in node["items"])
    if kind == "namespace":
        import types
        return types.SimpleNamespace(**{k: _rebuild(v, arrays) for k, v in node["items"]})
    if kind in ("dict", "odict"):
        pairs = [(_hashable(_rebuild(k, arrays)), _rebuild(v, arrays)) for k, v in node["items"]]
        return OrderedDict(pairs) if kind == "odict" else dict(pairs)
    raise ValueError(f"For 'load', the checkpoint's structure has an unknown node kind {kind!r}.")


def _hashable(key):
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def save(obj, f, fn="save"):
    """Write a nested object as a checkpoint at exactly the path ``f`` (or into a binary file
    object), atomically; see the module docstring for the format.

    Args:
        obj: the object: dicts, lists, tuples, numbers, str, None, Tensors, Parameters, arrays.
        f: a path (str or PathLike; no suffix is added) or a binary file object opened for writing.

    Raises:
        TypeError: a leaf that is not data (a Cell, a function, another object), naming its path.

    Example:
        >>> save({"model": net.parameters_dict(), "epoch": 3}, "ckpt.pt")
    """
    flat = _Flattener(fn)
    structure = flat.walk(obj, [])
    entries = [(name, value, False) for name, value in flat.entries]
    entries.append((STRUCTURE, json.dumps(structure, separators=(",", ":"), allow_nan=False), False))
    try:
        chunks = _encode_mindspore(entries, fn)
    except TypeError:  # a dtype MindSpore's checkpoints have no type for (complex): ms_core's format
        header, buffers = _encode(entries, fn)
        chunks = [_PREFIX.pack(MAGIC, VERSION, len(header), hashlib.sha256(header).digest()), header] + buffers
    if isinstance(f, (str, os.PathLike)):
        _atomic_write(os.fspath(f), chunks)
        return
    for chunk in chunks:
        f.write(bytes(chunk))


def is_nested(params) -> bool:
    """Whether a dict ``load_checkpoint`` returned holds a nested object (see :func:`save`)."""
    return isinstance(params, dict) and isinstance(params.get(STRUCTURE), str)


def rebuild(params):
    """The object :func:`save` wrote, from the dict ``load_checkpoint`` returned for its file."""
    structure = json.loads(params[STRUCTURE])
    arrays = {k: (v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)) for k, v in params.items()
              if k != STRUCTURE}
    return _rebuild(structure, arrays)


def load(f):
    """Read what :func:`save` wrote (a path or a binary file object); nothing in it is executed.

    Raises:
        ValueError: no such file, or a corrupt or truncated checkpoint.
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not os.path.isfile(path):
            raise ValueError(f"For 'load', the file '{path}' does not exist.")
        with open(path, "rb") as fh:
            data = fh.read()
    else:
        path, data = getattr(f, "name", "<file object>"), f.read()
    entries = _parse(path, data) if data[:len(MAGIC)] == MAGIC else _parse_mindspore(path, data)
    params = OrderedDict((name, value) for name, value, _ in entries)
    if not is_nested(params):
        return OrderedDict((k, v if isinstance(v, str) else Parameter(Tensor._wrap(v), name=k))
                           for k, v in params.items())
    return rebuild(params)
