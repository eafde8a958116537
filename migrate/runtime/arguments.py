"""torch's layer and function arguments as MindSpore takes them: plain Python, no framework.

The converter calls these on literal arguments to fold a translation statically
(``nn.Conv2d(..., padding=(0, 3))`` -> ``pad_mode='pad', padding=(0, 0, 3, 3)``), and the
torch-signature classes (:mod:`migrate.runtime.generated`) call them on the values only run time
knows (``padding=p``). One function for both paths: the static and the run-time translations
cannot disagree. This module imports nothing, so the converter can use it without a framework.
"""


def torch_conv_padding(padding, dims, per_side=True, transpose=False):
    """Return MindSpore's (pad_mode, padding) for torch's Conv ``padding`` over ``dims`` axes.

    An int pads every side; a tuple gives one value per axis, both sides alike: MindSpore's
    layers want (before, after) per axis (``per_side``), ``ops.conv2d`` one value per axis;
    'same'/'valid' are pad modes. A transposed convolution (``transpose``) keeps pad_mode='pad'
    for zero padding: its 'valid' output is in*s + max(k - s, 0), torch's (in - 1)*s + k (they
    differ when k < s), and MindSpore takes output_padding in 'pad' mode only.

    Example:
        >>> torch_conv_padding((0, 3), 2)
        ('pad', (0, 0, 3, 3))
    """
    if transpose and not isinstance(padding, str):
        mode, value = torch_conv_padding(padding, dims, per_side)
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


def torch_pool_padding(padding, *options):
    """Return MindSpore's (pad_mode, padding) for torch's pooling ``padding``; ``options`` are the
    pooling's ceil_mode/dilation/return_indices/divisor_override, which need pad_mode='pad' when
    set (to anything but False, 1 or None)."""
    zero = not any(padding) if isinstance(padding, (tuple, list)) else padding == 0
    unset = all(o is None or o is False or (type(o) is int and o == 1) for o in options)
    if zero and unset:
        return "valid", 0
    return "pad", padding


def torch_avg_pool_padding(padding, dims):
    """torch's functional average pooling ``padding`` over ``dims`` axes (an int, or one value
    per axis) as MindSpore 2.10's ops.avg_pool2d/avg_pool3d take it: the int, or (before, after)
    for each axis (they refuse one value per axis; ops.avg_pool1d takes torch's form).

    Example:
        >>> torch_avg_pool_padding((1, 0), 2)
        (1, 1, 0, 0)
    """
    if dims == 1 or not isinstance(padding, (tuple, list)):
        return padding
    pads = tuple(padding)
    if len(pads) == 1:
        pads = pads * dims
    if len(pads) != dims:
        raise ValueError(f"For 'avg_pool{dims}d', the 'padding' must be an int or a tuple of {dims} ints "
                         f"(one per axis, as torch takes it), but got {padding!r}.")
    return tuple(p for p in pads for _ in range(2))


def torch_ms_tuple(value, dims):
    """A torch size argument (an int, or a sequence of 1 or ``dims`` ints) as MindSpore takes it:
    the int itself or a tuple of ``dims`` ints (torch accepts ``stride=[2]``; MindSpore does not;
    a 1-D layer takes the int only)."""
    if isinstance(value, (list, tuple)):
        value = tuple(value)
        if dims == 1 and len(value) == 1:
            return value[0]  # MindSpore 2.10's 1-D layers take ints only
        return value * dims if len(value) == 1 else value
    return value


def torch_ntuple(value, dims):
    """The value torch's layer keeps for a size argument: ``_ntuple(dims)`` (a string is kept)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * dims


def torch_kernel_area(kernel_size, dims):
    """The number of elements of a kernel of ``kernel_size`` (an int or a sequence) in ``dims``-D."""
    sizes = torch_ms_tuple(kernel_size, dims)
    if not isinstance(sizes, tuple):
        sizes = (sizes,) * dims
    area = 1
    for size in sizes:
        area *= size
    return area


def torch_norm_shape(normalized_shape):
    """torch's LayerNorm ``normalized_shape`` (an int or a sequence) as a tuple."""
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(normalized_shape)


def torch_factory_dtype(kwargs):
    """The dtype in torch's factory keywords given as a dict (``torch.empty(s, **dd)``), None when
    absent; the device, layout, memory format, pinning and requires_grad change no number."""
    unknown = set(kwargs) - {"dtype", "device", "layout", "memory_format", "pin_memory", "requires_grad"}
    if unknown:
        raise TypeError(f"For the creation op, the keywords {sorted(unknown)} are not torch's factory keywords.")
    return kwargs.get("dtype")


def torch_sizes(*sizes):
    """torch's varargs sizes (``zeros(*s)``, ``repeat(*s)``) as one tuple: the ints given one by
    one, or the one sequence given alone (``zeros(*[(2, 3)])`` is ``zeros((2, 3))``)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        return tuple(sizes[0])
    return tuple(sizes)


class TorchGenerator:
    """torch.Generator: a seeded random stream of its own, for the calls given it (generator=g).

    Each such call takes its seed from the stream (see :func:`torch_seed`), so successive calls
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


def torch_seed(generator, unset=None):
    """The ``seed=`` of one random call given torch's ``generator=``: the next seed of the
    generator's stream; ``unset`` (the global stream) when it is None."""
    return unset if generator is None else generator.next_seed()


def torch_no_cuda(name, *args, **kwargs):
    """torch's CUDA device queries (``torch.cuda.get_device_properties(d)``, ``get_device_name``,
    ``current_device``, ...) where ``torch.cuda.is_available()`` is False, as the converter answers
    it: torch raises, there being no CUDA device; so does this."""
    raise RuntimeError(f"For '{name}', there is no CUDA device: the converted code answers "
                       f"torch.cuda.is_available() with False (MindSpore chooses its device with "
                       f"ms.set_context(device_target=...)).")


def torch_float_scale(scale):
    """torch's ``scale_factor`` as MindSpore 2.10's ``nn.Upsample`` takes it: a float, or a tuple of
    floats for a sequence; None (an output size given instead) stays None."""
    if scale is None:
        return None
    if isinstance(scale, (tuple, list)):
        return tuple(float(s) for s in scale)
    return float(scale)


def torch_home(*parts):
    """torch's home directory joined with ``parts``: $TORCH_HOME, else $XDG_CACHE_HOME/torch,
    else ~/.cache/torch (torch.hub._get_torch_home(); torch.hub.get_dir() is torch_home('hub')).

    A path computation: torch need not be installed."""
    import os  # (here, not at the top: this module imports nothing when it is loaded)
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    return os.path.join(os.path.expanduser(os.environ.get("TORCH_HOME", os.path.join(cache, "torch"))), *parts)
