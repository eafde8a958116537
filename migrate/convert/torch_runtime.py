"""Run-time translations of torch layer arguments, written once and used twice.

The functions below are plain Python (no torch, no MindSpore). The converter calls them on
literal arguments to fold a translation statically (``nn.Conv2d(..., padding=(0, 3))`` ->
``pad_mode='pad', padding=(0, 0, 3, 3)``), and copies their source into a converted file whose
torch-signature classes need the same translation of values only known at run time
(``padding=p``). One function for both paths: the static and the run-time translations cannot
disagree.

Their names start with ``_torch_``. The sources of the container classes (torch's Sequential,
ModuleList and ModuleDict semantics) and of the metaclass of the torch-signature classes are templates
here too (:data:`CLASS_SOURCES`): they need the target's ``nn`` (or ``ops``) and cannot run in
the converter.
"""
from __future__ import annotations

import inspect

from migrate.convert.einops_runtime import NEEDS as EINOPS_NEEDS, SOURCES as EINOPS_SOURCES
from migrate.convert.optim_runtime import SOURCES as OPTIM_SOURCES
from migrate.convert.vision_runtime import VISION_NEEDS, VISION_SOURCES
from migrate.convert.torch_distributions import NEEDS as DISTRIBUTION_NEEDS, SOURCES as DISTRIBUTION_SOURCES
from migrate.convert.state_runtime import NEEDS as STATE_NEEDS, SOURCES as STATE_SOURCES


def _torch_conv_padding(padding, dims, per_side=True, transpose=False):
    """Return MindSpore's (pad_mode, padding) for torch's Conv ``padding`` over ``dims`` axes.

    An int pads every side; a tuple gives one value per axis, both sides alike: MindSpore's
    layers want (before, after) per axis (``per_side``), ``ops.conv2d`` one value per axis;
    'same'/'valid' are pad modes. A transposed convolution (``transpose``) keeps pad_mode='pad'
    for zero padding: its 'valid' output is in*s + max(k - s, 0), torch's (in - 1)*s + k (they
    differ when k < s), and MindSpore takes output_padding in 'pad' mode only.
    """
    if transpose and not isinstance(padding, str):
        mode, value = _torch_conv_padding(padding, dims, per_side)
        return ("pad", 0) if mode == "valid" else (mode, value)
    if isinstance(padding, str):
        if padding in ("same", "valid"):
            return padding, 0
        raise ValueError(f"For 'Conv', padding must be 'same', 'valid', an int or a tuple of {dims} "
                         f"ints, but got {padding!r}.")
    if isinstance(padding, int) and not isinstance(padding, bool):
        return ("pad", padding) if padding else ("valid", 0)
    pads = tuple(padding)
    if len(pads) == 1:
        pads = pads * dims
    if len(pads) != dims or not all(isinstance(p, int) and not isinstance(p, bool) for p in pads):
        raise ValueError(f"For 'Conv', padding must be 'same', 'valid', an int or a tuple of {dims} "
                         f"ints, but got {padding!r}.")
    if len(set(pads)) == 1:
        return ("pad", pads[0]) if pads[0] else ("valid", 0)
    return "pad", tuple(p for p in pads for _ in range(2 if per_side else 1))


def _torch_pool_padding(padding, *options):
    """Return MindSpore's (pad_mode, padding) for torch's pooling ``padding``; ``options`` are the
    pooling's ceil_mode/dilation/return_indices/divisor_override, which need pad_mode='pad' when
    set (to anything but False, 1 or None)."""
    zero = not any(padding) if isinstance(padding, (tuple, list)) else padding == 0
    unset = all(o is None or o is False or (type(o) is int and o == 1) for o in options)
    if zero and unset:
        return "valid", 0
    return "pad", padding


def _torch_ms_tuple(value, dims):
    """A torch size argument (an int, or a sequence of 1 or ``dims`` ints) as MindSpore takes it:
    the int itself or a tuple of ``dims`` ints (torch accepts ``stride=[2]``; MindSpore does not;
    a 1-D layer takes the int only)."""
    if isinstance(value, (list, tuple)):
        value = tuple(value)
        if dims == 1 and len(value) == 1:
            return value[0]  # MindSpore 2.10's 1-D layers take ints only
        return value * dims if len(value) == 1 else value
    return value


def _torch_ntuple(value, dims):
    """The value torch's layer keeps for a size argument: ``_ntuple(dims)`` (a string is kept)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * dims


def _torch_conv_attr(layer, name):
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


def _torch_compare_(op, x, other):
    """torch's in-place comparison ``x.ge_(other)`` (``op``: ops.ge): 1 or 0 in x's dtype, written
    into x, which is returned."""
    return x.copy_(op(x, other).astype(x.dtype))


def _torch_cast(x, dtype):
    """torch's ``dtype=`` of an op that MindSpore's lacks: ``x`` cast to ``dtype`` (None: as it is)."""
    return x if dtype is None else x.astype(dtype)


def _torch_factory_dtype(kwargs):
    """The dtype in torch's factory keywords given as a dict (``torch.empty(s, **dd)``), None when
    absent; the device, layout, memory format, pinning and requires_grad change no number."""
    unknown = set(kwargs) - {"dtype", "device", "layout", "memory_format", "pin_memory", "requires_grad"}
    if unknown:
        raise TypeError(f"For the creation op, the keywords {sorted(unknown)} are not torch's factory keywords.")
    return kwargs.get("dtype")


def _torch_kernel_area(kernel_size, dims):
    """The number of elements of a kernel of ``kernel_size`` (an int or a sequence) in ``dims``-D."""
    sizes = _torch_ms_tuple(kernel_size, dims)
    if not isinstance(sizes, tuple):
        sizes = (sizes,) * dims
    area = 1
    for size in sizes:
        area *= size
    return area


def _torch_norm_shape(normalized_shape):
    """torch's LayerNorm ``normalized_shape`` (an int or a sequence) as a tuple."""
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _torch_param_names(cell):
    """Name every parameter of ``cell`` by its path, as torch's state_dict keys are.

    MindSpore names a parameter when its cell is assigned to an attribute; cells added to a
    container that is already attached keep shorter names, which may collide (and then
    checkpoints cannot be saved and loaded).
    """
    for name, param in cell.parameters_and_names():
        param.name = name


def _torch_size(obj, dim=None):
    """torch's ``x.size()`` / ``x.size(dim)`` on a value the converter could not type.

    A MindSpore tensor's ``size`` is its element count (an int, not a method): it answers with
    its shape, or one axis of it; any other object calls its own ``size`` method.
    """
    size = getattr(obj, "size", None)
    if callable(size):
        return size() if dim is None else size(dim)
    shape = tuple(obj.shape)
    return shape if dim is None else shape[dim]


def _torch_sizes(*sizes):
    """torch's varargs sizes (``zeros(*s)``, ``repeat(*s)``) as one tuple: the ints given one by
    one, or the one sequence given alone (``zeros(*[(2, 3)])`` is ``zeros((2, 3))``)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        return tuple(sizes[0])
    return tuple(sizes)


def _torch_stride(x, dim=None):
    """torch's ``x.stride()`` as converted code reads it: the strides of x's contiguous
    (row-major) layout, the one _torch_as_strided indexes (the conversion drops ``.contiguous()``,
    and MindSpore 2.10's Tensor.stride reports a view's own)."""
    out, step = [], 1
    for n in reversed(tuple(x.shape)):
        out.append(step)
        step *= max(n, 1)
    out.reverse()
    return tuple(out) if dim is None else out[dim]


def _torch_repeat(obj, *sizes):
    """torch's ``x.repeat(*sizes)`` on a value the converter could not type: a tensor is tiled
    (torch's repeat is NumPy's tile; MindSpore 2.10's Tensor.repeat has no CPU kernel for it), any
    other object calls its own ``repeat``."""
    if not (hasattr(obj, "tile") and hasattr(obj, "asnumpy")):
        return obj.repeat(*sizes)
    return obj.tile(tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes)


def _torch_train(obj, *mode):
    """torch's ``m.train()`` / ``m.train(mode)`` on a value the converter could not type: a
    Cell's ``set_train(mode)`` (which returns the cell, as torch's train does); any other object's
    own ``train`` method."""
    set_train, own = getattr(obj, "set_train", None), getattr(obj, "train", None)
    if set_train is not None and own is None:
        return set_train(*mode) if mode else set_train(True)
    return own(*mode)  # (through a name: a converter run again leaves the helper as it is)


def _torch_eval(obj):
    """torch's ``m.eval()`` on a value the converter could not type: a Cell's
    ``set_train(False)``; any other object's own ``eval`` method."""
    set_train, own = getattr(obj, "set_train", None), getattr(obj, "eval", None)
    if set_train is not None and own is None:
        return set_train(False)
    return own()


def _torch_to(obj, *args, **kwargs):
    """torch's ``x.to(...)`` with arguments the converter could not tell apart: a cast when a dtype
    is among them (or a tensor, whose dtype is meant), of a Cell's floating-point parameters for
    a Cell (returned itself); a device changes nothing on MindSpore.

    A dtype is recognised by its class (``Type`` in MindSpore's and ms_core's dtype hierarchy).
    """
    dtype = kwargs.get("dtype")
    for value in args:
        if any(c.__name__ == "Type" for c in type(value).__mro__):
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
    if str(dtype).lower().lstrip("b").startswith("float"):
        for param in obj.get_parameters():
            if param.dtype != dtype and str(param.dtype).lower().lstrip("b").startswith("float"):
                param.set_dtype(dtype)
    return obj


class _TorchGenerator:
    """torch.Generator: a seeded random stream of its own, for the calls given it (generator=g).

    Each such call takes its seed from the stream (see ``_torch_seed``), so successive calls
    differ and ``manual_seed`` repeats them; the numbers are not torch's.
    """

    def __init__(self, device=None):
        self.manual_seed(67280421310721)  # torch's default seed

    def manual_seed(self, seed):
        import random
        self._initial = int(seed)
        self._stream = random.Random(self._initial)
        return self

    def initial_seed(self):
        return self._initial

    def seed(self):
        import random
        return self.manual_seed(random.SystemRandom().randrange(2 ** 63)).initial_seed()

    def next_seed(self):
        return self._stream.randrange(1, 2 ** 31)


def _torch_seed(generator, unset=None):
    """The ``seed=`` of one random call given torch's ``generator=``: the next seed of the
    generator's stream; ``unset`` (the global stream) when it is None."""
    return unset if generator is None else generator.next_seed()


def _torch_no_cuda(name, *args, **kwargs):
    """torch's CUDA device queries (``torch.cuda.get_device_properties(d)``, ``get_device_name``,
    ``current_device``, ...) where ``torch.cuda.is_available()`` is False, as the converter answers
    it: torch raises, there being no CUDA device; so does this."""
    raise RuntimeError(f"For '{name}', there is no CUDA device: the converted code answers "
                       f"torch.cuda.is_available() with False (MindSpore chooses its device with "
                       f"ms.set_context(device_target=...)).")


def _torch_home(*parts):
    """torch's home directory joined with ``parts``: $TORCH_HOME, else $XDG_CACHE_HOME/torch,
    else ~/.cache/torch (torch.hub._get_torch_home(); torch.hub.get_dir() is _torch_home('hub')).

    A path computation: torch need not be installed."""
    import os
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    return os.path.join(os.path.expanduser(os.environ.get("TORCH_HOME", os.path.join(cache, "torch"))), *parts)


class _TorchLayerAttrs:
    """torch's layer attributes of a layer (``_TorchLayerAttrs(model.fc).in_features``): the
    layer's own when it has one (a user's class, a torch-signature layer), else the MindSpore
    layer's attribute of the same value (Dense's in_channels for in_features, Embedding's
    vocab_size for num_embeddings).

    An attribute read, not a call with the name in quotes: the read may sit inside an f-string.
    """

    MS_NAMES = {"in_features": "in_channels", "out_features": "out_channels",
                "num_embeddings": "vocab_size", "embedding_dim": "embedding_size"}
    # a convolution's geometry: MindSpore's 1-D convolutions hold it 2-D, (1, k)
    GEOMETRY = ("kernel_size", "stride", "dilation")

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        obj = self._obj
        if name in self.GEOMETRY:
            kept = getattr(obj, "torch_" + name, None)  # a torch-signature layer keeps torch's
            if kept is not None:
                return kept
            value = getattr(obj, name)
            one_d = any(k.__name__ in ("Conv1d", "Conv1dTranspose") and k.__module__.split(".")[0] in
                        ("mindspore", "ms_core") for k in type(obj).__mro__)
            return value[1:] if one_d and isinstance(value, tuple) and len(value) == 2 else value
        return getattr(obj, name) if hasattr(obj, name) else getattr(obj, self.MS_NAMES[name])


# torch layer attributes MindSpore's layers hold under another name, read where the receiver's
# class is not known when converting (``model.fc.in_features`` of a model built elsewhere)
LAYER_ATTR_NAMES = _TorchLayerAttrs.MS_NAMES
# and the ones MindSpore holds under the same name but in another form (a 1-D convolution's (1, k))
LAYER_GEOMETRY = _TorchLayerAttrs.GEOMETRY


HELPERS = {fn.__name__: fn for fn in (_torch_conv_padding, _torch_pool_padding, _torch_ms_tuple, _torch_ntuple,
                                       _torch_conv_attr, _torch_compare_, _torch_cast, _torch_factory_dtype,
                                       _torch_kernel_area, _torch_norm_shape, _torch_param_names,
                                       _torch_size, _torch_sizes, _torch_repeat, _torch_stride, _torch_train, _torch_eval,
                                       _TorchGenerator,
                                       _torch_seed, _torch_to, _torch_no_cuda, _torch_home, _TorchLayerAttrs)}


def helper_source(name: str) -> str:
    """The source text of the helper function ``name`` (its docstring's first paragraph only)."""
    source = inspect.getsource(HELPERS[name])
    doc = HELPERS[name].__doc__
    first = doc.split("\n\n")[0].rstrip()
    return source.replace(doc, first, 1)


# --------------------------------------------------------------------------------------------
# class templates: `nn.` is the target's nn module; `_TorchSignature` is the metaclass below
# --------------------------------------------------------------------------------------------
_META = '''
class _TorchSignature(type(nn.Cell)):
    """Metaclass of the torch-signature classes: one of them and its MindSpore class are the same
    class in torch, so an instance of either passes isinstance/issubclass with either, and the
    classes compare equal (also the ones another converted file generates). Their __name__ is
    torch's (BatchNorm2d, Linear): code dispatches on it (norm_layer.__name__.lower())."""

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace, **kwargs)
        if "_torch_base" in namespace and name.startswith("Torch"):
            cls.__name__ = name[len("Torch"):].rstrip("_")

    def __instancecheck__(cls, obj):
        base = cls.__dict__.get("_torch_base")
        return isinstance(obj, base) if base is not None else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        base = cls.__dict__.get("_torch_base")
        return issubclass(sub, base) if base is not None else super().__subclasscheck__(sub)

    def __eq__(cls, other):
        base = cls.__dict__.get("_torch_base")
        if base is not None and (other is base or isinstance(other, type)
                                 and other.__dict__.get("_torch_base") is base):
            return True
        return super().__eq__(other)

    def __hash__(cls):
        base = cls.__dict__.get("_torch_base")
        return hash(base) if base is not None else super().__hash__()
'''

_SEQUENTIAL = '''
class TorchSequential(nn.SequentialCell, metaclass=_TorchSignature):
    """torch.nn.Sequential over nn.SequentialCell: built from cells or an OrderedDict, or filled
    later by add_module/append or attribute assignment; runs every child in insertion order, as
    torch's Sequential runs its _modules (SequentialCell runs only its cell_list)."""

    _torch_base = nn.SequentialCell

    def __init__(self, *args):
        super().__init__()
        items = args[0].items() if len(args) == 1 and isinstance(args[0], dict) else enumerate(args)
        for name, cell in items:
            self.insert_child_to_cell(str(name), cell)

    def insert_child_to_cell(self, child_name, child_cell):
        if child_cell is not None and self._auto_prefix:
            child_cell.update_parameters_name(child_name + ".")
        super().insert_child_to_cell(child_name, child_cell)

    def add_module(self, name, module):
        self.insert_child_to_cell(name, module)

    def append(self, cell):
        self.insert_child_to_cell(str(len(self)), cell)
        return self

    def _children(self):
        return [cell for cell in self._cells.values() if cell is not None]

    def __len__(self):
        return len(self._children())

    def __iter__(self):
        return iter(self._children())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TorchSequential(dict(list(self._cells.items())[index]))
        return self._children()[index]

    def construct(self, input_data):
        for cell in self._children():
            input_data = cell(input_data)
        return input_data
'''

_MODULE_LIST = '''
class TorchModuleList(nn.CellList, metaclass=_TorchSignature):
    """torch.nn.ModuleList over nn.CellList: entries may be None (torch keeps them, with their
    index; only the cells are registered, under their index), and extend takes any iterable."""

    _torch_base = nn.CellList

    def __init__(self, modules=None):
        super().__init__()
        self.__dict__["_torch_items"] = []
        if modules is not None:
            self.extend(modules)

    def _torch_register(self, index, cell):
        if cell is not None:
            if self._auto_prefix:
                cell.update_parameters_name(str(index) + ".")
            self.insert_child_to_cell(str(index), cell)

    def append(self, cell):
        self._torch_items.append(cell)
        self._torch_register(len(self._torch_items) - 1, cell)
        return self

    def extend(self, cells):
        for cell in cells:
            self.append(cell)
        return self

    def __setitem__(self, index, cell):
        index = range(len(self._torch_items))[index]
        self._cells.pop(str(index), None)
        self._torch_items[index] = cell
        self._torch_register(index, cell)

    def __len__(self):
        return len(self._torch_items)

    def __iter__(self):
        return iter(list(self._torch_items))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TorchModuleList(self._torch_items[index])
        return self._torch_items[index]
'''

_MODULE_DICT = '''
class TorchModuleDict(nn.CellDict, metaclass=_TorchSignature):
    """torch.nn.ModuleDict over nn.CellDict whose values may also be containers (a ModuleList, a
    Sequential, another ModuleDict), which MindSpore 2.10's CellDict refuses; parameters are
    named `key.<path>`, as CellDict names them."""

    _torch_base = nn.CellDict

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, cell):
        if not isinstance(key, str) or not key or "." in key:
            raise KeyError(f"For 'ModuleDict', the key must be a non-empty str without '.', but got {key!r}.")
        if not isinstance(cell, nn.Cell):
            raise TypeError(f"For 'ModuleDict', the type of cell should be Cell, but got {type(cell).__name__}.")
        if self._auto_prefix:
            cell.update_parameters_name(key + ".")
        self.insert_child_to_cell(key, cell)
'''

_LAYER_NORM = '''
def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """torch.nn.functional.layer_norm through the ops.LayerNorm primitive (what nn.LayerNorm
    runs): MindSpore 2.10's CPU backend has no kernel for ops.layer_norm (LayerNormExt)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    weight = ops.ones(shape, input.dtype) if weight is None else weight
    bias = ops.zeros(shape, input.dtype) if bias is None else bias
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(input, weight, bias)[0]
'''

_UNFOLD_WINDOWS = '''
def _torch_unfold_windows(x, dimension, size, step):
    """torch's x.unfold(dimension, size, step): the windows of `size` elements every `step` along
    `dimension`, in a new last axis (MindSpore's Tensor.unfold is im2col); one gather of the
    windows' indices, differentiable."""
    dim = dimension % x.ndim
    count = (x.shape[dim] - size) // step + 1
    if size < 1 or step < 1 or count < 1:
        raise ValueError(f"For 'unfold', windows of size {size} every {step} do not fit dimension "
                         f"{dim} of size {x.shape[dim]}.")
    index = (ops.arange(count, dtype=ms.int32).reshape(-1, 1) * step
             + ops.arange(size, dtype=ms.int32).reshape(1, -1)).reshape(-1)
    out = ops.gather(x, index, dim).reshape(x.shape[:dim] + (count, size) + x.shape[dim + 1:])
    return ops.transpose(out, tuple(range(dim + 1)) + tuple(range(dim + 2, out.ndim)) + (dim + 1,))
'''

_BATCH_STATS_NORM = '''
def _torch_batch_stats_norm(input, weight=None, bias=None, training=False, eps=1e-05):
    """torch.nn.functional.batch_norm without running statistics (weight standardization): the
    batch's mean and biased variance over every axis but 1, then weight and bias per channel."""
    if not training:
        raise ValueError("For 'batch_norm', running_mean and running_var must be given when "
                         "training is False.")
    axes = (0,) + tuple(range(2, input.ndim))
    centred = input - ops.mean(input, axes, True)
    out = centred / ops.sqrt(ops.mean(centred * centred, axes, True) + eps)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out
'''

_ATTENTION_INIT = '''
def _torch_attention_init(cell):
    """torch's initialisation of every nn.MultiheadAttention in `cell` (one, or a Transformer
    layer that builds them): out_proj.bias zeros, which MindSpore's Dense draws from
    U(-1/sqrt(E), 1/sqrt(E)); every other parameter already has torch's distribution."""
    for _, c in cell.cells_and_names():
        if isinstance(c, nn.MultiheadAttention) and c.out_proj.bias is not None:
            c.out_proj.bias.set_data(ops.zeros(c.out_proj.bias.shape, c.out_proj.bias.dtype))
    return cell
'''

_MHA_FORWARD = '''
def _torch_multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
        add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
        need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
        k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
        is_causal=False):
    """torch.nn.functional.multi_head_attention_forward in ops, with torch's signature, inputs
    (L, N, E) or unbatched (L, E) and result (output, weights or None)."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise ValueError(f"For 'multi_head_attention_forward', the query's last dimension must be "
                         f"embed_dim_to_check={embed_dim_to_check}, but got {embed_dim}.")
    head_dim = embed_dim // num_heads
    if is_causal and attn_mask is None:
        raise RuntimeError("For 'multi_head_attention_forward', is_causal=True needs attn_mask.")

    def linear(x, w, b):
        y = ops.matmul(x, ops.transpose(w, (1, 0)))
        return y if b is None else y + b

    if use_separate_proj_weight:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        wq, wk, wv = in_proj_weight[:embed_dim], in_proj_weight[embed_dim:2 * embed_dim], in_proj_weight[2 * embed_dim:]
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias[:embed_dim], in_proj_bias[embed_dim:2 * embed_dim], in_proj_bias[2 * embed_dim:]
    q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)

    def as_float_mask(mask, dtype):
        if mask is None or mask.dtype != ms.bool_:
            return mask
        return ops.masked_fill(ops.zeros(mask.shape, dtype), mask, float("-inf"))

    if is_causal and key_padding_mask is None and not need_weights:
        n, s = attn_mask.shape[-2], attn_mask.shape[-1]
        attn_mask = ops.triu(ops.ones((n, s), ms.bool_), 1)  # torch runs SDPA with is_causal=True
    attn_mask = as_float_mask(attn_mask, q.dtype)
    key_padding_mask = as_float_mask(key_padding_mask, q.dtype)
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask.unsqueeze(0)

    def one_more_column(mask):
        return None if mask is None else ops.cat([mask, ops.zeros(mask.shape[:-1] + (1,), mask.dtype)], axis=-1)

    if bias_k is not None and bias_v is not None:
        k = ops.cat([k, ops.tile(bias_k, (1, bsz, 1))], axis=0)
        v = ops.cat([v, ops.tile(bias_v, (1, bsz, 1))], axis=0)
        attn_mask, key_padding_mask = one_more_column(attn_mask), one_more_column(key_padding_mask)
    q = ops.transpose(q.reshape(tgt_len, bsz * num_heads, head_dim), (1, 0, 2))
    k = static_k if static_k is not None else ops.transpose(k.reshape(k.shape[0], bsz * num_heads, head_dim), (1, 0, 2))
    v = static_v if static_v is not None else ops.transpose(v.reshape(v.shape[0], bsz * num_heads, head_dim), (1, 0, 2))
    if add_zero_attn:
        k = ops.cat([k, ops.zeros((k.shape[0], 1, head_dim), k.dtype)], axis=1)
        v = ops.cat([v, ops.zeros((v.shape[0], 1, head_dim), v.dtype)], axis=1)
        attn_mask, key_padding_mask = one_more_column(attn_mask), one_more_column(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = ops.tile(key_padding_mask.reshape(bsz, 1, 1, src_len), (1, num_heads, 1, 1))
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    scores = ops.matmul(q * (1.0 / head_dim) ** 0.5, ops.transpose(k, (0, 2, 1)))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = ops.softmax(scores, axis=-1)
    if training and dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p)
    out = ops.matmul(weights, v)
    out = ops.transpose(out, (1, 0, 2)).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if need_weights:
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(axis=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    return (out if batched else out.squeeze(1)), None
'''

_LOCAL_RESPONSE_NORM = '''
def _torch_local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """torch.nn.functional.local_response_norm in ops: x / (k + alpha / size * sum of x**2 over
    `size` channels, zero-padded size // 2 before and (size - 1) // 2 after) ** beta, any rank >= 3."""
    if input.ndim < 3:
        raise ValueError(f"For 'local_response_norm', the input must have 3 or more dimensions, "
                         f"but got {input.ndim}.")
    n, c = input.shape[0], input.shape[1]
    sq = (input * input).reshape(n, c, -1)
    before, after = size // 2, (size - 1) // 2
    padded = ops.cat([ops.zeros((n, before, sq.shape[2]), sq.dtype), sq,
                      ops.zeros((n, after, sq.shape[2]), sq.dtype)], axis=1)
    total = padded[:, 0:c]
    for j in range(1, size):
        total = total + padded[:, j:j + c]
    div = (total * (alpha / size) + k) ** beta
    return input / div.reshape(input.shape)
'''

_EINSUM = '''
def _torch_einsum(equation, *operands):
    """torch.einsum as sums and batched matmuls of the operands, two at a time (MindSpore 2.10's
    CPU backend has no Einsum kernel); a label repeated in one operand (a diagonal) goes to
    ops.einsum."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    specs = inputs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"For 'einsum', the equation {equation!r} names {len(specs)} operands, but got "
                         f"{len(operands)}.")
    dots = max([op.ndim - len(s) + 3 for s, op in zip(specs, operands) if "..." in s] or [0])

    def labels(spec, ndim):  # the axes of '...' are the labels '0', '1', ... (right-aligned)
        head, _, tail = spec.partition("...")
        n = ndim - len(head) - len(tail) if "..." in spec else 0
        return list(head) + [str(dots - n + i) for i in range(n)] + list(tail)

    terms = [(labels(s, op.ndim), op) for s, op in zip(specs, operands)]
    if any(len(set(names)) != len(names) or len(names) != op.ndim for names, op in terms):
        return ops.einsum(equation, *operands)
    every = [n for names, _ in terms for n in names]
    out = labels(output, dots + len(output.replace("...", ""))) if arrow else \
        [str(i) for i in range(dots)] + sorted(n for n in set(every) if every.count(n) == 1 and not n.isdigit())
    sizes = {}
    for names, op in terms:
        for n, size in zip(names, op.shape):
            sizes[n] = max(size, sizes.get(n, 1))

    def total(names):
        size = 1
        for n in names:
            size *= sizes[n]
        return size

    def keep_only(names, x, keep):
        axes = tuple(i for i, n in enumerate(names) if n not in keep)
        return ([n for n in names if n in keep], ops.sum(x, axes)) if axes else (names, x)

    def arrange(names, x, order):  # axes in this order, broadcast to every operand's lengths
        x = ops.transpose(x, tuple(names.index(n) for n in order)) if names != order else x
        shape = tuple(sizes[n] for n in order)
        return x if tuple(x.shape) == shape else ops.broadcast_to(x, shape)

    names, x = terms[0]
    for k in range(len(terms)):
        later = set(out).union(*[set(t[0]) for t in terms[k + 1:]])
        if k == 0:
            names, x = keep_only(names, x, later)
            continue
        other, y = keep_only(*terms[k], later | set(names))
        batch = [n for n in names if n in other and n in later]
        summed = [n for n in names if n in other and n not in later]
        left, right = [n for n in names if n not in other], [n for n in other if n not in names]
        x = ops.reshape(arrange(names, x, batch + left + summed), (total(batch), total(left), total(summed)))
        y = ops.reshape(arrange(other, y, batch + summed + right), (total(batch), total(summed), total(right)))
        names = batch + left + right
        x = ops.reshape(ops.matmul(x, y), tuple(sizes[n] for n in names))
    names, x = keep_only(names, x, set(out))
    return arrange(names, x, out)
'''

_DROPOUT2D = '''
class Dropout2dAnyRank(nn.Dropout2d):
    """nn.Dropout2d (MindSpore's takes (N, C, H, W) input only) that also takes torch's other
    inputs: (N, C, L) drops whole channels, 2-D input single elements (each its own channel)."""

    def construct(self, x):
        if x.ndim == 3:
            return super().construct(x.reshape(x.shape + (1,))).reshape(x.shape)
        if x.ndim == 2:
            return super().construct(x.reshape((1, -1, 1, 1))).reshape(x.shape)
        return super().construct(x)
'''

_UNFOLD = '''
class UnfoldTorchLayout(nn.Cell):
    """torch.nn.Unfold: the sliding blocks of (N, C, H, W) input as (N, C*kh*kw, L), by
    ops.unfold (MindSpore 2.10's nn.Unfold extracts patches TensorFlow-style)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return ops.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)
'''

_CIRCULAR_PAD = '''
class CircularPadTorch(nn.Cell):
    """torch.nn.CircularPad1d/2d/3d (MindSpore 2.10 has no such layers): wrap-around padding of
    the last `dims` axes by ops.pad(x, padding, mode='circular'), torch's (left, right, top,
    bottom, ...) order; an int pads every side."""

    def __init__(self, padding, dims):
        super().__init__()
        self.padding = (padding,) * (2 * dims) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * dims:
            raise ValueError(f"For 'CircularPad{dims}d', the 'padding' must be an int or a tuple of "
                             f"{2 * dims} ints, but got {padding!r}.")

    def construct(self, x):
        return ops.pad(x, self.padding, mode='circular')
'''

_DATA_LOADER = '''
def DataLoaderTorch(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                    prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                    in_order=True):
    """torch.utils.data.DataLoader's signature over ms.dataset, for arguments known at run time
    (`DataLoader(ds, **kwargs)`): GeneratorDataset(dataset, ...).batch(batch_size, drop_last).
    Worker, pinning, prefetch and generator settings change no batch values and are ignored;
    what has no MindSpore counterpart raises, naming the argument."""
    for name, value in (("batch_sampler", batch_sampler), ("collate_fn", collate_fn),
                        ("worker_init_fn", worker_init_fn)):
        if value is not None:
            raise ValueError(f"For 'DataLoader' (torch signature), '{name}' has no MindSpore "
                             f"counterpart: batch with .batch(per_batch_map=...) or map by hand.")
    if batch_size is None:
        raise ValueError("For 'DataLoader' (torch signature), batch_size=None (no batching) has "
                         "no counterpart here: iterate the dataset itself.")
    if sampler is not None and not isinstance(sampler, ms.dataset.DistributedSampler):
        raise ValueError(f"For 'DataLoader' (torch signature), only a DistributedSampler maps "
                         f"(to ms.dataset.DistributedSampler), but got {type(sampler).__name__}.")
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if isinstance(dataset, ms.dataset.Dataset):  # a converted TensorDataset or torchvision dataset
        if sampler is not None:
            raise ValueError("For 'DataLoader' (torch signature), a sampler over a MindSpore "
                             "dataset: pass num_shards/shard_id to the dataset itself.")
        data = dataset.shuffle(dataset.get_dataset_size()) if shuffle else dataset
    else:
        first = dataset[0] if hasattr(dataset, "__getitem__") else next(iter(dataset))
        count = len(first) if isinstance(first, (tuple, list)) else 1
        names = ["data", "label"] if count == 2 else [f"column_{i}" for i in range(count)]
        data = ms.dataset.GeneratorDataset(dataset, column_names=names, sampler=sampler,
                                           shuffle=None if sampler is not None else bool(shuffle))
    return data.batch(batch_size, drop_remainder=bool(drop_last))
'''

_PARAMETER_LIST = '''
class TorchParameterList(nn.Cell):
    """torch.nn.ParameterList that grows by append/extend (MindSpore's ParameterTuple is
    immutable): each Parameter is registered on this Cell under its index, the name torch gives
    it ("0", "1", ...); iteration and indexing give the Parameters in order."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_torch_params"] = []
        self.extend(values or ())

    def append(self, value):
        if not isinstance(value, ms.Parameter):
            value = ms.Parameter(value, name=str(len(self._torch_params)))
        self.insert_param_to_cell(str(len(self._torch_params)), value)
        self._torch_params.append(value)
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def __len__(self):
        return len(self._torch_params)

    def __iter__(self):
        return iter(list(self._torch_params))

    def __getitem__(self, index):
        return self._torch_params[index]
'''

_AUTOGRAD_FUNCTION = '''
class TorchFunction(nn.Cell):
    """torch.autograd.Function as a Cell: construct runs the static forward(ctx, *inputs); bprop
    runs forward again on a fresh ctx, which rebuilds what it kept (saved tensors, attributes),
    then backward(ctx, *grads). A None gradient becomes zeros (0 for a non-tensor input)."""

    class Context:
        """torch's ctx: what forward keeps for backward."""

        def __init__(self, inputs=()):
            self.saved_tensors = ()
            self.needs_input_grad = tuple(isinstance(x, ms.Tensor) for x in inputs)

        def save_for_backward(self, *tensors):
            self.saved_tensors = tensors

    def construct(self, *inputs):
        return self.forward(self.Context(inputs), *inputs)

    def bprop(self, *args):
        inputs, out, dout = args[:-2], args[-2], args[-1]
        ctx = self.Context(inputs)
        self.forward(ctx, *inputs)  # recomputed: MindSpore's bprop gets inputs, out and dout only
        grads = self.backward(ctx, *(dout if isinstance(out, tuple) else (dout,)))
        grads = grads if isinstance(grads, tuple) else (grads,)
        return tuple((ops.zeros_like(x) if isinstance(x, ms.Tensor) else 0) if g is None else g
                     for g, x in zip(grads, inputs))
'''

_LOAD_INTO = '''
def _torch_load_into(net, checkpoint):
    """torch's ``net = torch.load(f)`` of a whole pickled module: a MindSpore checkpoint holds
    parameters only; they are loaded into the network the script built, which is returned."""
    missing, _ = ms.load_param_into_net(net, checkpoint)
    if missing:
        raise ValueError(f"For 'load', the checkpoint has no value for the parameters {missing}.")
    return net
'''

_TABLE_DTYPE = '''
def _torch_table_dtype(cell, dtype):
    """torch's nn.Embedding(..., dtype=dtype): MindSpore 2.10's Embedding keeps a float32 table
    whatever its dtype argument, so another dtype gets a table Parameter of its own."""
    if dtype is not None and dtype != ms.float32:
        table = cell.embedding_table
        cell.embedding_table = ms.Parameter(table.astype(dtype), name=table.name, requires_grad=table.requires_grad)
    return cell
'''

_WEIGHT_NORM = '''
def _torch_weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.weight_norm on a Cell (MindSpore 2.10 has none): the Parameter ``name``
    becomes ``<name>_g`` (its norm over every axis but ``dim``; None: all axes) and ``<name>_v``
    (the direction), and ``name`` is g * v / ||v||, recomputed before every call."""
    def norm(v):
        if dim is None:
            return ops.sqrt(ops.sum(v * v))
        return ops.sqrt(ops.sum(v * v, tuple(a for a in range(v.ndim) if a != dim % v.ndim), keepdim=True))

    def recompute(cell, inputs=None):
        v = getattr(cell, name + "_v")
        object.__setattr__(cell, name, v * (getattr(cell, name + "_g") / norm(v)))

    weight = getattr(module, name, None)
    if not isinstance(weight, ms.Parameter):
        raise TypeError(f"For 'weight_norm', '{name}' must be a Parameter of the cell, but got "
                        f"{type(weight).__name__}.")
    data = ms.Tensor(weight.asnumpy())
    delattr(module, name)
    setattr(module, name + "_g", ms.Parameter(norm(data), name=weight.name + "_g"))
    setattr(module, name + "_v", ms.Parameter(data, name=weight.name + "_v"))
    recompute(module)
    module.register_forward_pre_hook(recompute)
    return module
'''

_AS_STRIDED = '''
def _torch_as_strided(input, size, stride, storage_offset=0):
    """torch's x.as_strided(size, stride, storage_offset) of a contiguous tensor (MindSpore has
    none): the elements at storage_offset + sum(i_k * stride_k) of the flattened tensor, gathered
    (differentiable; frames of a signal, sliding windows)."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise ValueError(f"For 'as_strided', 'size' and 'stride' must have the same length, but got "
                         f"{len(size)} and {len(stride)}.")
    index = ops.full(size, storage_offset, dtype=ms.int32)
    for axis, (n, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        index = index + ops.arange(n, dtype=ms.int32).reshape(shape) * step
    return ops.gather(input.reshape(-1), index.reshape(-1), 0).reshape(size)
'''

_ROLL = '''
def _torch_roll(input, shifts, dims=None):
    """torch.roll as slices joined by ops.cat (MindSpore 2.10's CPU backend has no Roll kernel):
    each axis of ``dims`` shifted by its ``shifts``; without dims, the flattened tensor."""
    if dims is None:
        return _torch_roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{len(shifts)} and {len(dims)}.")
    out = input
    for shift, dim in zip(shifts, dims):
        n = out.shape[dim]
        k = shift % n if n else 0
        if k:
            index = [slice(None)] * out.ndim
            index[dim] = slice(n - k, None)
            tail = out[tuple(index)]
            index[dim] = slice(0, n - k)
            out = ops.cat((tail, out[tuple(index)]), dim)
    return out
'''

_LINSPACE = '''
def _torch_linspace(start, end, steps, dtype=None):
    """torch.linspace(start, end, steps, dtype=dtype): computed in float64 for float64 (else in
    float32), then cast to dtype; an integer dtype takes start and end as integers first and
    truncates, as torch's does."""
    if dtype is None:
        return ops.linspace(start, end, steps)
    if dtype in (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8):
        start, end = int(start), int(end)
    wide = ms.float64 if dtype == ms.float64 else ms.float32
    return ops.linspace(ms.Tensor(start, wide), ms.Tensor(end, wide), steps).astype(dtype)
'''

_CAST_CELL = '''
def _torch_cast_cell(cell, dtype):
    """torch's module.double() / .half() / .bfloat16(): every floating-point parameter (buffers
    are parameters here) of the cell converted to dtype in place; the cell is returned."""
    for p in cell.get_parameters():
        if p.is_floating_point():
            p.set_dtype(dtype)
    return cell
'''

CLASS_SOURCES = {"_TorchSignature": _META, "_torch_cast_cell": _CAST_CELL, "TorchSequential": _SEQUENTIAL,
                 "TorchModuleList": _MODULE_LIST, "TorchModuleDict": _MODULE_DICT, "Dropout2dAnyRank": _DROPOUT2D,
                 "UnfoldTorchLayout": _UNFOLD, "CircularPadTorch": _CIRCULAR_PAD, "DataLoaderTorch": _DATA_LOADER,
                 "TorchParameterList": _PARAMETER_LIST, "_torch_layer_norm": _LAYER_NORM,
                 "TorchFunction": _AUTOGRAD_FUNCTION, "_torch_attention_init": _ATTENTION_INIT,
                 "_torch_unfold_windows": _UNFOLD_WINDOWS, "_torch_batch_stats_norm": _BATCH_STATS_NORM,
                 "_torch_einsum": _EINSUM, "_torch_multi_head_attention_forward": _MHA_FORWARD,
                 "_torch_local_response_norm": _LOCAL_RESPONSE_NORM,
                 **EINOPS_SOURCES, **VISION_SOURCES,
                 "_torch_load_into": _LOAD_INTO, "_torch_table_dtype": _TABLE_DTYPE, **DISTRIBUTION_SOURCES,
                 **OPTIM_SOURCES, **STATE_SOURCES, "_torch_linspace": _LINSPACE, "_torch_roll": _ROLL, "_torch_as_strided": _AS_STRIDED,
                 "_torch_weight_norm": _WEIGHT_NORM}
# what each piece of generated code needs besides itself
NEEDS = {**DISTRIBUTION_NEEDS, "TorchSequential": ("_TorchSignature",), "TorchModuleList": ("_TorchSignature",),
         "TorchModuleDict": ("_TorchSignature",),
         "_torch_kernel_area": ("_torch_ms_tuple",), **EINOPS_NEEDS, **VISION_NEEDS, **STATE_NEEDS}
