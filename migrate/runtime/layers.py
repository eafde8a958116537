"""Layers with torch's semantics where MindSpore 2.10's layer of the same name differs or is
missing, and what torch's module methods do to a Cell (cast, initialise, retype a table).
"""
from .backend import TARGET, init, ms, nn, ops
from .functional import softmax_guarded
from .values import _mindspore_name


class Dropout2dAnyRank(nn.Dropout2d):
    """nn.Dropout2d (MindSpore's takes (N, C, H, W) input only) that also takes torch's other
    inputs: (N, C, L) drops whole channels, 2-D input single elements (each its own channel)."""

    def construct(self, x):
        if x.ndim == 3:
            return super().construct(x.reshape(x.shape + (1,))).reshape(x.shape)
        if x.ndim == 2:
            return super().construct(x.reshape((1, -1, 1, 1))).reshape(x.shape)
        return super().construct(x)


class _InstanceNormByGroups:
    """torch's InstanceNorm (no running statistics) through GroupNorm with one channel a group, which
    is the same normalisation (per sample and channel over the spatial axes): MindSpore 2.10 has no
    CPU kernel for InstanceNorm, and its InstanceNorm layers hold moving statistics torch's lack.
    The layer stays an instance of the target's InstanceNorm class (isinstance checks hold)."""

    def _drop_moving_statistics(self):
        for name in ("moving_mean", "moving_variance"):
            if hasattr(self, name):
                delattr(self, name)

    def construct(self, x):
        return ops.group_norm(x, self.num_features, self.gamma, self.beta, self.eps)


class InstanceNorm1dByGroups(_InstanceNormByGroups, nn.InstanceNorm1d):
    """torch.nn.InstanceNorm1d(track_running_stats=False) for MindSpore 2.10's CPU: see
    _InstanceNormByGroups."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True):
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine)
        self._drop_moving_statistics()


class InstanceNorm2dByGroups(_InstanceNormByGroups, nn.InstanceNorm2d):
    """torch.nn.InstanceNorm2d(track_running_stats=False) for MindSpore 2.10's CPU: see
    _InstanceNormByGroups."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True):
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine)
        self._drop_moving_statistics()


class InstanceNorm3dByGroups(_InstanceNormByGroups, nn.InstanceNorm3d):
    """torch.nn.InstanceNorm3d(track_running_stats=False) for MindSpore 2.10's CPU: see
    _InstanceNormByGroups."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True):
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine)
        self._drop_moving_statistics()


class EmbeddingTorch(nn.Embedding):
    """nn.Embedding with torch's ``padding_idx``: that row's gradient is zero, so training leaves
    it as it is (MindSpore 2.10's nn.Embedding zeroes the row when built, then trains it)."""

    def construct(self, ids):
        if self.padding_idx is None:
            return super().construct(ids)
        table = self.embedding_table
        keep = (ops.arange(table.shape[0]) != self.padding_idx).astype(table.dtype).reshape(-1, 1)
        # the same values; the padding row's share goes through stop_gradient
        table = table * keep + ops.stop_gradient(table) * (1 - keep)
        return ops.gather(table, ids, 0)


def _pretrained_table(embeddings, name):
    if getattr(embeddings, "ndim", None) != 2:
        raise ValueError(f"For '{name}.from_pretrained', the 'embeddings' must be a 2-D tensor (rows, dim), but got "
                         f"shape {tuple(getattr(embeddings, 'shape', ()))}.")
    return embeddings if isinstance(embeddings, ms.Tensor) else ms.Tensor(embeddings)


def embedding_from_pretrained(embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                              scale_grad_by_freq=False, sparse=False):
    """torch.nn.Embedding.from_pretrained: an Embedding whose table holds ``embeddings`` as given
    (torch leaves a given table's padding row as it is; MindSpore's Embedding would zero it),
    frozen unless ``freeze=False``; the ``padding_idx`` row gets no gradient (EmbeddingTorch).

    Example:
        >>> emb = embedding_from_pretrained(ms.Tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> emb.embedding_table.requires_grad
        False
    """
    if max_norm is not None or scale_grad_by_freq:
        raise ValueError("For 'Embedding.from_pretrained', 'max_norm' and 'scale_grad_by_freq' are not supported: "
                         "renormalise the table or scale its gradient in the training step instead.")
    table = _pretrained_table(embeddings, "Embedding")
    rows, dim = table.shape
    layer = EmbeddingTorch(rows, dim, padding_idx=padding_idx, embedding_table=table)
    layer.embedding_table.set_data(table.copy())
    layer.embedding_table.requires_grad = not freeze
    return layer


def embedding_bag_from_pretrained(embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                                  mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
    """torch.nn.EmbeddingBag.from_pretrained: an EmbeddingBagTorch whose ``weight`` is
    ``embeddings``, frozen unless ``freeze=False``."""
    table = _pretrained_table(embeddings, "EmbeddingBag")
    rows, dim = table.shape
    layer = EmbeddingBagTorch(rows, dim, max_norm=max_norm, norm_type=norm_type,
                              scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse, _weight=table.copy(),
                              include_last_offset=include_last_offset, padding_idx=padding_idx)
    layer.weight.requires_grad = not freeze
    return layer


class SoftplusTorch(nn.Cell):
    """torch.nn.Softplus (MindSpore 2.10 has no Softplus layer): log(1 + exp(beta * x)) / beta,
    x itself where beta * x exceeds ``threshold``, by ops.softplus."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class SoftmaxGuarded(nn.Cell):
    """nn.Softmax(axis) through softmax_guarded: ones over an axis of length 1, where MindSpore 2.10's CPU Softmax makes
    the gradient of another softmax in the same backward pass wrong."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = self.dim = axis

    def construct(self, input):
        return softmax_guarded(input, self.axis)


class UnfoldTorchLayout(nn.Cell):
    """torch.nn.Unfold: the sliding blocks of (N, C, H, W) input as (N, C*kh*kw, L), by
    ops.unfold (MindSpore 2.10's nn.Unfold extracts patches TensorFlow-style)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return ops.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class CircularPadTorch(nn.Cell):
    """torch.nn.CircularPad1d/2d/3d (MindSpore 2.10 has no such layers): wrap-around padding of
    the last ``dims`` axes by ops.pad(x, padding, mode='circular'), torch's (left, right, top,
    bottom, ...) order; an int pads every side."""

    def __init__(self, padding, dims):
        super().__init__()
        self.padding = (padding,) * (2 * dims) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * dims:
            raise ValueError(f"For 'CircularPad{dims}d', the 'padding' must be an int or a tuple of "
                             f"{2 * dims} ints, but got {padding!r}.")

    def construct(self, x):
        return ops.pad(x, self.padding, mode='circular')


class EmbeddingBagTorch(nn.Cell):
    """torch.nn.EmbeddingBag (MindSpore 2.10 has none): the rows of ``weight`` (named as torch names it, so
    checkpoints map) for each bag of indices, summed, averaged or their maximum, by a gather and a bag
    membership matrix (differentiable: a matmul for sum and mean, a masked max). Bags are the rows of 2-D
    input, or the runs of 1-D input that ``offsets`` start (``include_last_offset``: its last entry ends the
    last bag); ``per_sample_weights`` scale the rows (mode 'sum'); ``padding_idx`` is left out of its bag;
    an empty bag gives zeros."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"For 'EmbeddingBag', the 'mode' must be one of ['sum', 'mean', 'max'], but got {mode!r}.")
        if max_norm is not None or scale_grad_by_freq:
            raise ValueError("For 'EmbeddingBag', 'max_norm' and 'scale_grad_by_freq' are not supported: renormalise "
                             "the weight or scale its gradient in the training step instead.")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'EmbeddingBag', the 'padding_idx' must be in [{-num_embeddings}, "
                                 f"{num_embeddings}), but got {padding_idx}.")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.mode = num_embeddings, embedding_dim, mode
        self.include_last_offset, self.padding_idx, self.sparse = include_last_offset, padding_idx, sparse
        if _weight is None:
            _weight = init.initializer(init.Normal(1.0), (num_embeddings, embedding_dim),
                                       ms.float32 if dtype is None else dtype).init_data()
            if padding_idx is not None:
                kept = (ops.arange(num_embeddings) != padding_idx).reshape(-1, 1)
                _weight = ops.where(kept, _weight, ops.zeros_like(_weight))
        self.weight = ms.Parameter(_weight, name="weight")

    def _bags(self, input, offsets):
        """(the indices in one row, each bag's first and end position in it)."""
        if input.ndim == 2:
            if offsets is not None:
                raise ValueError("For 'EmbeddingBag', 'offsets' must be None when 'input' is 2-D (each row is a bag).")
            starts = ops.arange(input.shape[0], dtype=ms.int32) * input.shape[1]
            return input.reshape(-1), starts, starts + input.shape[1]
        if input.ndim != 1 or offsets is None or offsets.ndim != 1:
            given = None if offsets is None else tuple(offsets.shape)
            raise ValueError(f"For 'EmbeddingBag', 'input' must be 2-D, or 1-D with 1-D 'offsets', but got 'input' of "
                             f"shape {tuple(input.shape)} and 'offsets' {given}.")
        offsets = offsets.astype(ms.int32)
        if self.include_last_offset:
            return input, offsets[:-1], offsets[1:]
        return input, offsets, ops.cat((offsets[1:], ms.Tensor([input.shape[0]], ms.int32)))

    def construct(self, input, offsets=None, per_sample_weights=None):
        index, starts, ends = self._bags(input, offsets)
        index = index.astype(ms.int32)
        rows = ops.gather(self.weight, index, 0)
        position = ops.arange(index.shape[0], dtype=ms.int32).reshape(1, -1)
        member = ops.logical_and(position >= starts.reshape(-1, 1), position < ends.reshape(-1, 1))
        if self.padding_idx is not None:
            member = ops.logical_and(member, (index != self.padding_idx).reshape(1, -1))
        if per_sample_weights is not None:
            if self.mode != "sum":
                raise ValueError(f"For 'EmbeddingBag', 'per_sample_weights' is only supported for mode 'sum', but "
                                 f"mode is {self.mode!r}.")
            rows = rows * per_sample_weights.reshape(-1, 1).astype(rows.dtype)
        weights = member.astype(rows.dtype)
        count = weights.sum(axis=1, keepdims=True)
        if self.mode == "max":
            masked = ops.where(member.reshape(member.shape + (1,)), rows.reshape((1,) + rows.shape),
                               ms.Tensor(float("-inf"), rows.dtype))
            values = ops.max(masked, 1)[0]
            return ops.where(count > 0, values, ops.zeros_like(values))
        out = ops.matmul(weights, rows)
        return out / ops.maximum(count, ms.Tensor(1.0, rows.dtype)) if self.mode == "mean" else out

    def extend_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}"


def _pair(name, value):
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v >= 0 for v in pair):
        raise ValueError(f"For 'Conv2d', the '{name}' must be an int or a pair of non-negative ints, "
                         f"but got {value!r}.")
    return pair


def torch_conv_set(conv, stride=None, dilation=None, padding=None):
    """torch's writes to a built Conv2d's geometry (``conv.stride = (1, 1)``, ``conv.dilation = (2, 2)``,
    ``conv.padding = (2, 2)``: segmentation encoders turn strides into dilation so), made on the Cell: the
    attributes in MindSpore's form (padding as (top, bottom, left, right) with pad_mode 'pad', or torch's
    'same' / 'valid'), and the convolution rebuilt from them (MindSpore's nn.Conv2d builds its Conv2D primitive
    once, in __init__: a bare attribute write would change nothing)."""
    if not isinstance(conv, nn.Conv2d):
        raise TypeError(f"For 'torch_conv_set', the layer must be a Conv2d, but got {type(conv).__name__}.")
    changed = {"stride": stride, "dilation": dilation}
    for name, value in changed.items():
        if value is not None:
            setattr(conv, name, _pair(name, value))
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"For 'Conv2d', the 'padding' must be 'same', 'valid', an int or a pair of ints, but "
                             f"got {padding!r}.")
        conv.pad_mode, conv.padding, pads = padding, 0, (0, 0, 0, 0)
    elif padding is not None:
        high, wide = _pair("padding", padding)
        pads = (high, high, wide, wide)
        conv.pad_mode, conv.padding = "pad", pads
    for name, value in (*changed.items(), ("padding", padding)):
        if value is not None and getattr(conv, "torch_" + name, None) is not None:  # a torch-signature layer
            setattr(conv, "torch_" + name, value if isinstance(value, str) else _pair(name, value))
    if TARGET == "mindspore":
        conv.conv2d = ops.Conv2D(out_channel=conv.out_channels, kernel_size=conv.kernel_size, mode=1,
                                 pad_mode=conv.pad_mode, pad=conv.padding, stride=conv.stride,
                                 dilation=conv.dilation, group=conv.group, data_format=conv.data_format)
    elif padding is not None:
        conv._pads = pads  # ms_core's Conv2d reads the others when it runs


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


def torch_cast_cell(cell, dtype):
    """torch's module.double() / .half() / .bfloat16(): every floating-point parameter (buffers
    are parameters here) of the cell converted to dtype in place; the cell is returned."""
    for p in cell.get_parameters():
        if p.is_floating_point():
            p.set_dtype(dtype)
    return cell


def torch_attention_init(cell):
    """torch's initialisation of every nn.MultiheadAttention in ``cell`` (one, or a Transformer
    layer that builds them): out_proj.bias zeros, which MindSpore's Dense draws from
    U(-1/sqrt(E), 1/sqrt(E)); every other parameter already has torch's distribution."""
    for _, c in cell.cells_and_names():
        if isinstance(c, nn.MultiheadAttention) and c.out_proj.bias is not None:
            c.out_proj.bias.set_data(ops.zeros(c.out_proj.bias.shape, c.out_proj.bias.dtype))
    return cell


def torch_table_dtype(cell, dtype):
    """torch's nn.Embedding(..., dtype=dtype): MindSpore 2.10's Embedding keeps a float32 table
    whatever its dtype argument, so another dtype gets a table Parameter of its own."""
    if dtype is not None and dtype != ms.float32:
        table = cell.embedding_table
        cell.embedding_table = ms.Parameter(table.astype(dtype), name=table.name, requires_grad=table.requires_grad)
    return cell


def _unit(x, eps):
    """x / max(||x||, eps): torch's F.normalize of a vector."""
    return x / ops.maximum(ops.sqrt(ops.sum(x * x)), ms.Tensor(eps, x.dtype))


def torch_spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """torch.nn.utils.spectral_norm on a Cell (MindSpore 2.10 has none): the Parameter ``name``
    becomes ``<name>_orig`` and ``name`` is ``<name>_orig / sigma`` before every call, sigma the
    largest singular value of the weight as a matrix (axis ``dim`` first: 0, 1 for a transposed
    convolution) estimated as ``u . (W v)`` from the buffers ``<name>_u`` and ``<name>_v``, which
    ``n_power_iterations`` steps of power iteration update in training mode only (as torch)."""
    if n_power_iterations <= 0:
        raise ValueError(f"For 'spectral_norm', 'n_power_iterations' must be positive, but got {n_power_iterations}.")
    attr = _mindspore_name(module, name) or name
    weight = getattr(module, attr, None)
    if not isinstance(weight, ms.Parameter):
        raise TypeError(f"For 'spectral_norm', '{name}' must be a Parameter of the cell, but got "
                        f"{type(weight).__name__}.")
    if dim is None:
        dim = 1 if any(c.__name__.startswith("ConvTranspose") or c.__name__.startswith("Conv2dTranspose")
                       for c in type(module).__mro__) else 0

    def matrix(w):
        axes = (dim % w.ndim, *[a for a in range(w.ndim) if a != dim % w.ndim])
        return ops.transpose(w, axes).reshape(w.shape[dim], -1)

    data = ms.Tensor(weight.asnumpy())
    rows, cols = matrix(data).shape
    u = _unit(ops.randn((rows,)).astype(data.dtype), eps)
    v = _unit(ops.randn((cols,)).astype(data.dtype), eps)
    delattr(module, attr)
    setattr(module, attr + "_orig", ms.Parameter(data, name=weight.name + "_orig"))
    setattr(module, attr + "_u", ms.Parameter(u, name=weight.name + "_u", requires_grad=False))
    setattr(module, attr + "_v", ms.Parameter(v, name=weight.name + "_v", requires_grad=False))
    object.__setattr__(module, attr, data)  # torch's: the raw weight until the first call

    def recompute(cell, inputs=None):
        w = getattr(cell, attr + "_orig")
        u, v = getattr(cell, attr + "_u"), getattr(cell, attr + "_v")
        mat = matrix(w)
        if cell.training:
            fixed = ops.stop_gradient(mat)
            new_u = u
            for _ in range(n_power_iterations):
                new_v = _unit(ops.matmul(ops.transpose(fixed, (1, 0)), new_u), eps)
                new_u = _unit(ops.matmul(fixed, new_v), eps)
            u.set_data(new_u)
            v.set_data(new_v)
        sigma = ops.sum(ops.stop_gradient(u) * ops.matmul(mat, ops.stop_gradient(v)))
        object.__setattr__(cell, attr, w / sigma)

    module.register_forward_pre_hook(recompute)
    return module


def torch_weight_norm(module, name="weight", dim=0):
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
