"""Activation cells with MindSpore 2.x names, arguments and defaults, and `get_activation`."""
import numpy as np

from ..cell import Cell
from ..._checkparam import check_number, check_positive_int
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops import functional as F
from ...ops import layer_ops as LO
from ...ops import nn_ops as NF

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "Sigmoid", "Tanh", "GELU", "FastGelu", "SiLU",
           "HSwish", "HSigmoid", "Softmax", "LogSoftmax", "ELU", "Softplus", "Mish", "Hardtanh",
           "SeLU", "Softsign", "LogSigmoid", "HShrink", "SoftShrink", "Tanhshrink", "CELU",
           "Threshold", "Softmin", "Softmax2d", "GLU", "RReLU", "get_activation"]


class ReLU(Cell):
    """max(x, 0)."""

    def construct(self, x):
        return F.relu(x)


class ReLU6(Cell):
    """min(max(x, 0), 6)."""

    def construct(self, x):
        return NF.relu6(x)


class LeakyReLU(Cell):
    """x for x > 0, alpha * x otherwise.

    MindSpore-vs-torch: the slope is `alpha` with default 0.2; torch's `negative_slope`
    defaults to 0.01.
    """

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = float(check_number("LeakyReLU", "alpha", alpha))

    def construct(self, x):
        return NF.leaky_relu(x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class PReLU(Cell):
    """x for x > 0, w * x otherwise, with a learnable slope `w` (one value, or one per channel
    of axis 1).

    MindSpore-vs-torch: the argument `channel` is torch's `num_parameters` and `w` its `init`.
    The Parameter is stored in the attribute `w` and, as in MindSpore, created with the name
    'a' (torch: `weight`).
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        self.channel = channel = check_positive_int("PReLU", "channel", channel)
        if isinstance(w, (float, np.floating)) or (isinstance(w, int) and not isinstance(w, bool)):
            arr = np.full((channel,), float(w), dtype=np.float32)
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(f"For 'PReLU', when the 'w' is a list, the length should be equal "
                                 f"to the channel, but got the length {len(w)}, the channel "
                                 f"{channel}.")
            arr = np.asarray(w, dtype=np.float32)
        elif isinstance(w, Tensor):
            if w.ndim != 1 or w.shape[0] != channel:
                raise ValueError(f"For 'PReLU', the dimension of 'w' should be 1, and the elements "
                                 f"number should be equal to the 'channel' when the 'w' is a "
                                 f"tensor, but got 'w' shape {list(w.shape)}, the 'channel' "
                                 f"{channel}.")
            arr = w._data.astype(np.float32)
        else:
            raise TypeError(f"For 'PReLU', the 'w' only supported float, list and tensor, but got "
                            f"{type(w).__name__}.")
        self.w = Parameter(Tensor._wrap(arr.copy()), name="a")

    def construct(self, x):
        return NF.prelu(x, F.cast(self.w, x.dtype))

    def extend_repr(self):
        return f"channel={self.channel}"


class Sigmoid(Cell):
    """1 / (1 + exp(-x))."""

    def construct(self, x):
        return F.sigmoid(x)


class Tanh(Cell):
    """tanh(x)."""

    def construct(self, x):
        return F.tanh(x)


class GELU(Cell):
    """Gaussian error linear unit.

    MindSpore-vs-torch: `nn.GELU()` defaults to `approximate=True`, the tanh approximation
    0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))); torch's `nn.GELU()` defaults to the exact
    x·Φ(x) (approximate='none'). `approximate=False` gives the exact form.
    """

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', the 'approximate' must be bool, but got "
                            f"{type(approximate).__name__}.")
        self.approximate = approximate

    def construct(self, x):
        return NF.gelu(x, "tanh" if self.approximate else "none")

    def extend_repr(self):
        return f"approximate={self.approximate}"


class FastGelu(Cell):
    """x / (1 + exp(-1.702 |x|)) · exp(0.851 (x - |x|)) (MindSpore's sigmoid-based fast GELU)."""

    def construct(self, x):
        ax = F.abs(x)
        return x / (F.exp(ax * -1.702) + 1.0) * F.exp((x - ax) * 0.851)


class SiLU(Cell):
    """x * sigmoid(x) (swish)."""

    def construct(self, x):
        return NF.silu(x)


class HSwish(Cell):
    """x * relu6(x + 3) / 6 (torch: Hardswish)."""

    def construct(self, x):
        return NF.hardswish(x)


class HSigmoid(Cell):
    """relu6(x + 3) / 6 (torch: Hardsigmoid)."""

    def construct(self, input_x):
        return NF.hardsigmoid(input_x)


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis` (torch: `dim`)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple)):
            raise TypeError(f"For 'Softmax', the 'axis' must be int or tuple, but got "
                            f"{type(axis).__name__}.")
        self.axis = axis

    def construct(self, x):
        return F.softmax(x, self.axis)

    def extend_repr(self):
        return f"axis={self.axis}"


class LogSoftmax(Softmax):
    """log(softmax(x)) along `axis`, computed stably."""

    def construct(self, x):
        return F.log_softmax(x, self.axis)


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = float(check_number("ELU", "alpha", alpha))

    def construct(self, x):
        return NF.elu(x, self.alpha)


class Softplus(Cell):
    """log(1 + exp(beta x)) / beta, linear above `threshold`."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = float(check_number("Softplus", "beta", beta))
        self.threshold = float(check_number("Softplus", "threshold", threshold))

    def construct(self, input):
        return NF.softplus(input, self.beta, self.threshold)


class Mish(Cell):
    """x * tanh(softplus(x))."""

    def construct(self, x):
        return NF.mish(x)


class Hardtanh(Cell):
    """clip(x, min_val, max_val)."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = float(check_number("Hardtanh", "min_val", min_val))
        self.max_val = float(check_number("Hardtanh", "max_val", max_val))
        if self.min_val > self.max_val:
            raise ValueError(f"For 'Hardtanh', the 'min_val' must not be greater than 'max_val', "
                             f"but got min_val={min_val}, max_val={max_val}.")

    def construct(self, x):
        return NF.hardtanh(x, self.min_val, self.max_val)


class SeLU(Cell):
    """Scaled ELU with the self-normalising constants."""

    def construct(self, input_x):
        return NF.selu(input_x)


class Softsign(Cell):
    """x / (1 + |x|)."""

    def construct(self, x):
        return NF.softsign(x)


class LogSigmoid(Cell):
    """log(sigmoid(x))."""

    def construct(self, input_x):
        return NF.logsigmoid(input_x)


class HShrink(Cell):
    """x where |x| > lambd, else 0 (torch: Hardshrink)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(check_number("HShrink", "lambd", lambd))

    def construct(self, input_x):
        return NF.hardshrink(input_x, self.lambd)


class SoftShrink(Cell):
    """Soft thresholding by lambd (torch: Softshrink)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(check_number("SoftShrink", "lambd", lambd))

    def construct(self, input_x):
        return NF.softshrink(input_x, self.lambd)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x):
        return x - F.tanh(x)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), `mindspore.nn.CELU(alpha=1.0)`."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = float(check_number("CELU", "alpha", alpha))
        if self.alpha == 0:
            raise ValueError("For 'CELU', the 'alpha' must not be 0.")

    def construct(self, x):
        return LO.celu(x, self.alpha)


class Threshold(Cell):
    """x where x > threshold, else value: `mindspore.nn.Threshold(threshold, value)` (torch's
    Threshold without `inplace`)."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = float(check_number("Threshold", "threshold", threshold))
        self.value = float(check_number("Threshold", "value", value))

    def construct(self, input_x):
        return LO.threshold(input_x, self.threshold, self.value)


class Softmin(Cell):
    """softmax(-x) along `axis` (torch: `dim`), `mindspore.nn.Softmin(axis=-1)`."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple)):
            raise TypeError(f"For 'Softmin', the 'axis' must be int or tuple, but got "
                            f"{type(axis).__name__}.")
        self.axis = axis

    def construct(self, x):
        return LO.softmin(x, self.axis)


class Softmax2d(Cell):
    """softmax over the channel axis of (N, C, H, W) or (C, H, W) input (axis -3)."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must be a 3-D or 4-D Tensor, but got "
                             f"shape {list(x.shape)}.")
        return F.softmax(x, -3)


class GLU(Cell):
    """a * sigmoid(b) with (a, b) the halves of x along `axis` (torch: `dim`), default -1."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'GLU', the 'axis' must be int, but got {type(axis).__name__}.")
        self.dim = axis

    def construct(self, x):
        return LO.glu(x, self.dim)


class RReLU(Cell):
    """x for x >= 0, a * x otherwise with random slopes a ~ U(lower, upper).

    MindSpore-vs-torch: MindSpore 2.10 draws the slopes in inference mode too (torch uses the
    fixed slope (lower + upper) / 2 there); the converter writes torch's inference behaviour as
    nn.LeakyReLU((lower + upper) / 2).
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        self.lower = float(check_number("RReLU", "lower", lower))
        self.upper = float(check_number("RReLU", "upper", upper))
        if self.lower > self.upper:
            raise ValueError(f"For 'RReLU', the value of 'upper' must be greater than or equal to "
                             f"'lower', but got upper: {upper}, lower: {lower}.")

    def construct(self, x):
        return LO.rrelu(x, self.lower, self.upper)


_ACTIVATIONS = {
    "softmax": Softmax, "logsoftmax": LogSoftmax, "relu": ReLU, "relu6": ReLU6, "silu": SiLU,
    "tanh": Tanh, "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "gelu": GELU,
    "fast_gelu": FastGelu, "elu": ELU, "sigmoid": Sigmoid, "softsign": Softsign, "prelu": PReLU,
    "leakyrelu": LeakyReLU, "hswish": HSwish, "hsigmoid": HSigmoid, "logsigmoid": LogSigmoid,
    "softshrink": SoftShrink, "hshrink": HShrink, "mish": Mish, "softplus": Softplus,
    "selu": SeLU, "softmin": Softmin, "rrelu": RReLU, "softmax2d": Softmax2d,
}


def get_activation(name, prim_name=None):
    """The activation Cell registered under `name` ('relu', 'gelu', 'leakyrelu', ...).

    Args:
        name (str): case-insensitive activation name; None returns None.

    Returns:
        A new Cell instance with default arguments.

    Raises:
        KeyError: unknown name.

    Example:
        >>> act = nn.get_activation('relu6')
    """
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For 'get_activation', the 'name' must be a str, but got "
                        f"{type(name).__name__}.")
    key = name.lower()
    if key not in _ACTIVATIONS:
        raise KeyError(f"For 'get_activation', the name must be one of {sorted(_ACTIVATIONS)}, "
                       f"but got {name!r}.")
    return _ACTIVATIONS[key]()
