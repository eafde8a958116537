"""Dense, BiDense, Flatten, Unflatten, Identity, ChannelShuffle."""
import math

from ..cell import Cell
from ..._checkparam import check_bool, check_positive_int
from ...common import dtype as mstype
from ...common import initializer as init_mod
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...ops import functional as F
from ...ops import layer_ops as LO
from .activation import get_activation

__all__ = ["Dense", "BiDense", "Flatten", "Unflatten", "Identity", "ChannelShuffle"]


class Dense(Cell):
    """Fully connected layer: y = activation(x @ weight.T + bias), weight shape (out, in).

    MindSpore 2.0 defaults: weight N(0, 0.01²) ('normal'), bias zeros.
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = check_positive_int("Dense", "in_channels", in_channels)
        self.out_channels = check_positive_int("Dense", "out_channels", out_channels)
        self.has_bias = check_bool("Dense", "has_bias", has_bias)
        self.weight = Parameter(initializer(weight_init, (out_channels, in_channels), dtype).init_data(),
                                name="weight")
        self.bias = None
        if has_bias:
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype).init_data(), name="bias")
        self.activation = _activation(activation)
        self.activation_flag = self.activation is not None

    def construct(self, x):
        if x.shape[-1] != self.in_channels:
            raise ValueError(f"For 'Dense', the last dimension of the input must be in_channels="
                             f"{self.in_channels}, but got input shape {list(x.shape)}.")
        out = F.dense(x, self.weight, self.bias)
        return self.activation(out) if self.activation_flag else out

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation!r}"
        return s


def _activation(activation):
    if activation is None:
        return None
    if isinstance(activation, str):
        return get_activation(activation)
    if isinstance(activation, Cell) or callable(activation):
        return activation
    raise TypeError(f"For 'Dense', the 'activation' must be a str, a Cell or None, but got "
                    f"{type(activation).__name__}.")


class Flatten(Cell):
    """Flatten axes start_dim..end_dim (default: all but the batch axis)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return F.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    """Return the input unchanged; constructor arguments are accepted and ignored (as torch's and
    MindSpore 2.10's Identity do, so that placeholders can be built with any layer's arguments).

    Example:
        >>> import ms_core as ms
        >>> ms.nn.Identity(54, unused_argument=0.1)(ms.Tensor([1.0])).asnumpy()
        array([1.], dtype=float32)
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


class Unflatten(Cell):
    """Split axis `axis` into `unflattened_size` (a tuple or list of ints, one of them may be
    -1), `mindspore.nn.Unflatten(axis, unflattened_size)` (torch: `dim`)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', the 'axis' must be int, but got "
                            f"{type(axis).__name__}.")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"For 'Unflatten', the 'unflattened_size' must be tuple or list, but "
                            f"got {type(unflattened_size).__name__}.")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        axis = self.axis % input_x.ndim
        shape = input_x.shape[:axis] + self.unflattened_size + input_x.shape[axis + 1:]
        return F.reshape(input_x, shape)


class ChannelShuffle(Cell):
    """Interleave the channels of `groups` groups: (N, g*c, ...) -> (N, c*g, ...),
    `mindspore.nn.ChannelShuffle(groups)`."""

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"For 'ChannelShuffle', the 'groups' must be a positive int, but got "
                             f"{groups!r}.")
        self.groups = groups

    def construct(self, x):
        return LO.channel_shuffle(x, self.groups)


class BiDense(Cell):
    """Bilinear layer y = x1 W x2^T + b with weight (out, in1, in2), `mindspore.nn.BiDense`
    (torch's Bilinear). As MindSpore 2.10, `weight_init=None` / `bias_init=None` give
    U(+-1/sqrt(in1_channels)), torch's own initialisation.

    Example:
        >>> net = nn.BiDense(4, 6, 5)
        >>> y = net(x1, x2)
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, dtype=mstype.float32):
        super().__init__()
        self.in1_channels = check_positive_int("BiDense", "in1_channels", in1_channels)
        self.in2_channels = check_positive_int("BiDense", "in2_channels", in2_channels)
        self.out_channels = check_positive_int("BiDense", "out_channels", out_channels)
        self.has_bias = check_bool("BiDense", "has_bias", has_bias)
        bound = 1.0 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(initializer(init_mod.Uniform(bound) if weight_init is None
                                            else weight_init, shape, dtype).init_data(),
                                name="weight")
        self.bias = None
        if has_bias:
            self.bias = Parameter(initializer(init_mod.Uniform(bound) if bias_init is None
                                              else bias_init, (out_channels,), dtype).init_data(),
                                  name="bias")

    def construct(self, input1, input2):
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels:
            raise ValueError(f"For 'BiDense', the last dimensions of the inputs must be "
                             f"{self.in1_channels} and {self.in2_channels}, but got shapes "
                             f"{list(input1.shape)} and {list(input2.shape)}.")
        return LO.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self):
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"output_channels={self.out_channels}, has_bias={self.has_bias}")
