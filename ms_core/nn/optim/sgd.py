"""`nn.SGD`: MindSpore's SGD (momentum, dampening, Nesterov, weight decay)."""
import numpy as np

from .optimizer import Optimizer, _true
from ..cell import Cell
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..._checkparam import check_bool, check_float

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent as MindSpore computes it:

        g = (grad + wd * loss_scale * w) / loss_scale      (decay skips 'beta'/'gamma' names)
        if momentum > 0:
            accum = g on the first step, else momentum * accum + (1 - dampening) * g
            g = g + momentum * accum if nesterov else accum
        w -= lr * g

    This is torch's `optim.SGD(lr, momentum, dampening, weight_decay, nesterov)` except that,
    without parameter groups, weight decay skips parameters whose names contain 'beta' or
    'gamma' (checked on MindSpore 2.10: a 'bn.gamma' is not decayed); torch decays everything.
    Note the default learning rate 0.1 (torch requires one).

    Args:
        params: Parameters or group dicts (see `Optimizer`).
        learning_rate: default 0.1.
        momentum, dampening, weight_decay: floats >= 0.
        nesterov: needs momentum > 0 and dampening == 0.
        loss_scale: float > 0.

    Example:
        >>> opt = nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.dynamic_weight_decay or any(isinstance(w, Cell) for w in self._raw_weight_decay):
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument "
                            "'weight_decay' or 'weight_decay' set in grouped 'params' must be float or "
                            "int type.")
        momentum = check_float("SGD", "momentum", momentum, low=0.0)
        self.dampening = check_float("SGD", "dampening", dampening, low=0.0)
        self.nesterov = check_bool("SGD", "nesterov", nesterov)
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and "
                             f"'dampening' must equal to 0.0, but got 'momentum' {momentum}, "
                             f"'dampening' {dampening}.")
        self.momentum = Parameter(Tensor._wrap(np.asarray(momentum, np.float32)), name="momentum")
        self.accum = self._clone_state("accum", "zeros")
        self.stat = self._clone_state("stat", "ones")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        m, d = float(self.momentum._data), self.dampening
        for p, acc, st, g, lr in zip(self.parameters, self.accum, self.stat, grads, lrs):
            g = g._data
            if m > 0:
                if st._data.reshape(-1)[0] > 0:  # first step: the buffer is the gradient itself
                    a = g.copy()
                    st._data = st._data * 0
                else:
                    a = m * acc._data + (1.0 - d) * g
                acc._data = a
                g = g + m * a if self.nesterov else a
            p._data = p._data - lr * g
        return _true()
