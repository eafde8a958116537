"""Dense, Flatten, Identity."""
from ..cell import Cell
from ..._checkparam import check_bool, check_positive_int
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...ops import functional as F


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
        from .activation import get_activation
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
