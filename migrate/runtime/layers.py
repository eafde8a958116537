"""Layers with torch's semantics where MindSpore 2.10's layer of the same name differs or is
missing, and what torch's module methods do to a Cell (cast, initialise, retype a table).
"""
from .backend import ms, nn, ops


class Dropout2dAnyRank(nn.Dropout2d):
    """nn.Dropout2d (MindSpore's takes (N, C, H, W) input only) that also takes torch's other
    inputs: (N, C, L) drops whole channels, 2-D input single elements (each its own channel)."""

    def construct(self, x):
        if x.ndim == 3:
            return super().construct(x.reshape(x.shape + (1,))).reshape(x.shape)
        if x.ndim == 2:
            return super().construct(x.reshape((1, -1, 1, 1))).reshape(x.shape)
        return super().construct(x)


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


class SoftplusTorch(nn.Cell):
    """torch.nn.Softplus (MindSpore 2.10 has no Softplus layer): log(1 + exp(beta * x)) / beta,
    x itself where beta * x exceeds ``threshold``, by ops.softplus."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


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
