"""torch's methods and attributes on values the converter could not type: each function looks at
the value when the code runs and does what torch's method would (``x.size()`` on a tensor is its
shape, on another object its own ``size()``). Plain Python: the framework's objects are told
apart by what they have (``set_train``, ``astype``, a ``Type`` dtype), so this module imports no
framework.
"""
from .state_names import TORCH_RENAMES


def torch_size(obj, dim=None):
    """torch's ``x.size()`` / ``x.size(dim)`` on a value the converter could not type.

    A MindSpore tensor's ``size`` is its element count (an int, not a method): it answers with
    its shape, or one axis of it; any other object calls its own ``size`` method.
    """
    size = getattr(obj, "size", None)
    if callable(size):
        return size() if dim is None else size(dim)
    shape = tuple(obj.shape)
    return shape if dim is None else shape[dim]


def torch_train(obj, *mode):
    """torch's ``m.train()`` / ``m.train(mode)`` on a value the converter could not type: a
    Cell's ``set_train(mode)`` (which returns the cell, as torch's train does); any other object's
    own ``train`` method."""
    set_train, own = getattr(obj, "set_train", None), getattr(obj, "train", None)
    if set_train is not None and own is None:
        return set_train(*mode) if mode else set_train(True)
    return own(*mode)


def torch_eval(obj):
    """torch's ``m.eval()`` on a value the converter could not type: a Cell's
    ``set_train(False)``; any other object's own ``eval`` method."""
    set_train, own = getattr(obj, "set_train", None), getattr(obj, "eval", None)
    if set_train is not None and own is None:
        return set_train(False)
    return own()


def _is_dtype(value) -> bool:
    """A dtype of MindSpore's or ms_core's hierarchy (its classes derive from ``Type``)."""
    return any(c.__name__ == "Type" for c in type(value).__mro__)


def _is_float_dtype(dtype) -> bool:
    return str(dtype).lower().lstrip("b").startswith("float")


def torch_to(obj, *args, **kwargs):
    """torch's ``x.to(...)`` with arguments the converter could not tell apart: a cast when a dtype
    is among them (or a tensor, whose dtype is meant), of a Cell's floating-point parameters for
    a Cell (returned itself); a device changes nothing on MindSpore.
    """
    dtype = kwargs.get("dtype")
    for value in args:
        if _is_dtype(value):
            dtype = value
        elif hasattr(value, "dtype") and hasattr(value, "shape"):
            dtype = value.dtype  # x.to(other): other's dtype (and device)
    if dtype is None:
        return obj
    if hasattr(obj, "astype"):
        return obj.astype(dtype)
    if not hasattr(obj, "get_parameters"):
        raise TypeError(f"For 'to', casting a {type(obj).__name__} to {dtype} has no counterpart.")
    # a Cell: torch's module.to(dtype) casts its floating-point parameters in place
    if _is_float_dtype(dtype):
        for param in obj.get_parameters():
            if param.dtype != dtype and _is_float_dtype(param.dtype):
                param.set_dtype(dtype)
    return obj


def torch_cast(x, dtype):
    """torch's ``dtype=`` of an op that MindSpore's lacks: ``x`` cast to ``dtype`` (None: as it is)."""
    return x if dtype is None else x.astype(dtype)


def torch_compare_(op, x, other):
    """torch's in-place comparison ``x.ge_(other)`` (``op``: ops.ge): 1 or 0 in x's dtype, written
    into x, which is returned."""
    return x.copy_(op(x, other).astype(x.dtype))


def torch_param_names(cell):
    """Name every parameter of ``cell`` by its path, as torch's state_dict keys are.

    MindSpore names a parameter when its cell is assigned to an attribute; cells added to a
    container that is already attached keep shorter names, which may collide (and then
    checkpoints cannot be saved and loaded).
    """
    for name, param in cell.parameters_and_names():
        param.name = name


def torch_conv_attr(layer, name):
    """A convolution's ``padding``/``kernel_size``/``stride``/``dilation``/``padding_mode`` as
    torch's layer holds it.

    A torch-signature layer keeps torch's value (``torch_padding``). A MindSpore layer keeps
    pad_mode plus (before, after) per axis, and a 1-D layer 2-D sizes ``(1, k)``; torch keeps one
    value per axis ('same' for pad_mode 'same'), and 'zeros' for the padding mode.
    """
    kept = getattr(layer, "torch_" + name, None)
    if kept is not None:
        return kept
    if name == "padding_mode":  # (MindSpore's layers pad with zeros and may not hold the name)
        return getattr(layer, name, None) or "zeros"
    value = getattr(layer, name)
    kinds = [c.__name__[:6] for c in type(layer).__mro__]
    dims = next((int(k[4]) for k in kinds if k in ("Conv1d", "Conv2d", "Conv3d")), 2)
    if name != "padding":
        sizes = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
        return sizes[-dims:]
    if layer.pad_mode in ("same", "valid"):
        return "same" if layer.pad_mode == "same" else (0,) * dims
    pads = tuple(value) if isinstance(value, (tuple, list)) else (value,) * (2 * dims)
    pads = pads[-2 * dims:]
    if pads[0::2] != pads[1::2]:
        raise ValueError(f"For '{type(layer).__name__}', the padding {pads} (before, after per axis) "
                         f"has no torch form: torch pads both sides of an axis alike.")
    return pads[0::2]


# torch layer attributes MindSpore's layers hold under another name: torch's name -> MindSpore's
# (the converter reads this table to know which reads need TorchLayerAttrs)
LAYER_ATTR_NAMES = {"in_features": "in_channels", "out_features": "out_channels",
                    "num_embeddings": "vocab_size", "embedding_dim": "embedding_size"}
# a convolution's geometry, which MindSpore's 1-D convolutions hold 2-D, (1, k)
LAYER_GEOMETRY = ("kernel_size", "stride", "dilation")


class TorchLayerAttrs:
    """torch's layer attributes of a layer (``TorchLayerAttrs(model.fc).in_features``): the
    layer's own when it has one (a user's class, a torch-signature layer), else the MindSpore
    layer's attribute of the same value (Dense's in_channels for in_features, Embedding's
    vocab_size for num_embeddings; a 1-D convolution's (k,) kernel_size/stride/dilation where
    MindSpore holds (1, k)).

    An attribute read, not a call with the name in quotes: the read may sit inside an f-string.
    """

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        obj = self._obj
        if name in LAYER_GEOMETRY:
            kept = getattr(obj, "torch_" + name, None)  # a torch-signature layer keeps torch's
            if kept is not None:
                return kept
            value = getattr(obj, name)
            one_d = any(k.__name__ in ("Conv1d", "Conv1dTranspose") and k.__module__.split(".")[0] in
                        ("mindspore", "ms_core") for k in type(obj).__mro__)
            return value[1:] if one_d and isinstance(value, tuple) and len(value) == 2 else value
        if hasattr(obj, name):
            return getattr(obj, name)
        renamed = _mindspore_name(obj, name)
        if renamed is None:
            return getattr(obj, LAYER_ATTR_NAMES.get(name, name))
        for part in renamed.split("."):  # a child's parameter: BatchNorm3d's weight is bn2d.gamma
            obj = getattr(obj, part)
        return obj


def _mindspore_name(layer, name):
    """MindSpore's name of torch's parameter or buffer ``name`` for the layer's class (Embedding's
    weight is embedding_table, a norm's weight gamma), by class name along its MRO; None when the
    class keeps torch's name."""
    for cls in type(layer).__mro__:
        renames = TORCH_RENAMES.get(cls.__name__, {})
        if name in renames:
            if renames[name] is None:
                raise AttributeError(f"For '{type(layer).__name__}', torch's '{name}' has no MindSpore counterpart.")
            return renames[name]
    return None


def torch_stride(x, dim=None):
    """torch's ``x.stride()`` / ``x.stride(dim)`` as converted code reads it: the strides of x's
    contiguous (row-major) layout, the one :func:`migrate.runtime.functional.torch_as_strided`
    indexes (the conversion drops ``.contiguous()``, and MindSpore 2.10's Tensor.stride reports a
    view's own)."""
    out, step = [], 1
    for n in reversed(tuple(x.shape)):
        out.append(step)
        step *= max(n, 1)
    out.reverse()
    return tuple(out) if dim is None else out[dim]


def torch_repeat(obj, *sizes):
    """torch's ``x.repeat(*sizes)`` on a value the converter could not type: a tensor is tiled
    (torch's repeat is NumPy's tile; MindSpore 2.10's Tensor.repeat has no CPU kernel for it), any
    other object calls its own ``repeat``."""
    if not (hasattr(obj, "tile") and hasattr(obj, "asnumpy")):
        return obj.repeat(*sizes)
    return obj.tile(tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes)
