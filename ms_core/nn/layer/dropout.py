"""Dropout, Dropout1d, Dropout2d, Dropout3d with MindSpore 2.x arguments and validation."""

from ..cell import Cell
from ..._checkparam import (check_float_dtype, check_number_range, check_rank, check_tensor,
                           check_value_type)
from ...common import dtype as mstype
from ...ops import nn_ops as NF

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


class Dropout(Cell):
    """Zero each element with probability 1 - keep_prob in training, scaling kept elements by
    1 / keep_prob; identity in inference mode (the default mode of a Cell: call `set_train()`).

    MindSpore-vs-torch: `keep_prob` is the probability to KEEP (keep_prob = 1 - p_torch). `p`
    (the drop probability, as torch) is accepted too and wins when given. Validation as
    MindSpore: keep_prob must be a float in (0, 1]; p a float or int in [0, 1).

    Mask source: masks are drawn from the global generator (`ms.set_seed`). To replay a known
    mask (the differential checker replays torch's), set `mask_provider` on the instance (or
    globally with `ms_core.ops.nn_ops.set_dropout_mask_provider`): a callable
    `fn(shape, keep_prob)` returning an array of `shape` whose non-zero entries are kept.

    Example:
        >>> net = nn.Dropout(p=0.2).set_train()
        >>> y = net(x)
    """

    mask_provider = None

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        if p is None:
            check_value_type(name, "keep_prob", keep_prob, (float,))
            self.keep_prob = check_number_range(name, "keep_prob", keep_prob, 0, 1, "(]",
                                                phrase="a number in range")
        else:
            check_value_type(name, "p", p, (float, int))
            self.keep_prob = 1.0 - check_number_range(name, "p", p, 0, 1, "[)",
                                                      phrase="a number in range")
        self.p = p
        self.dtype = dtype

    def construct(self, x):
        check_tensor(type(self).__name__, None, x)
        if not self.training or self.keep_prob == 1.0:
            return x
        check_float_dtype(type(self).__name__, None, x)
        return NF._apply_dropout(x, self.keep_prob, x.shape, self.mask_provider)

    def extend_repr(self):
        return f"keep_prob={self.keep_prob}" if self.p is None else f"p={self.p}"


class _ChannelDropout(Cell):
    """Zero whole channels (axis 1 of batched input) with probability `p`; see `Dropout` for the
    `mask_provider` hook (the mask has shape (N, C, 1, ...))."""

    mask_provider = None
    _ndims = (4,)

    def __init__(self, p=0.5):
        super().__init__()
        name = type(self).__name__
        check_value_type(name, "p", p, (float,))
        check_number_range(name, "p", p, 0, 1, phrase="a number in range")
        self.p = p
        self.keep_prob = 1.0 - p

    def construct(self, x):
        name = type(self).__name__
        check_tensor(name, None, x)
        if not self.training or self.p == 0:
            # as MindSpore 2.10: the identity in inference mode, whatever the rank
            return x
        check_rank(name, None, x, self._ndims)
        lead = 2 if x.ndim == max(self._ndims) else 1
        mask_shape = tuple(x.shape[:lead]) + (1,) * (x.ndim - lead)
        return NF._apply_dropout(x, self.keep_prob, mask_shape, self.mask_provider)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """Channel dropout for (N, C, L) or (C, L) inputs (torch's Dropout1d, same `p`)."""

    _ndims = (2, 3)


class Dropout2d(_ChannelDropout):
    """Channel dropout for (N, C, H, W) inputs (torch's Dropout2d, same `p`): each (n, c)
    feature map is zeroed with probability p, the rest scaled by 1 / (1 - p). As MindSpore 2.10,
    training needs a 4-D input and inference returns any input unchanged (torch also accepts 2-D
    input, dropped element-wise, and 3-D input, as (N, C, L))."""

    _ndims = (4,)


class Dropout3d(_ChannelDropout):
    """Channel dropout for (N, C, D, H, W) inputs (5-D in training, as MindSpore 2.10)."""

    _ndims = (5,)
