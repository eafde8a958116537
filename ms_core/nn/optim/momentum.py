"""`nn.Momentum`: MindSpore's momentum SGD (ApplyMomentum)."""
import numpy as np

from .optimizer import Optimizer, _true
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..._checkparam import check_bool, check_float

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Momentum SGD as MindSpore's ApplyMomentum computes it:

        g = (grad + wd * loss_scale * w) / loss_scale     (decay skips 'beta'/'gamma' names)
        accum = momentum * accum + g                        (accum starts at zero)
        w -= lr * accum                                     (use_nesterov: w -= lr * (g + momentum * accum))

    Equal to torch's `SGD(momentum=m, dampening=0, nesterov=...)`: torch seeds its buffer with the
    first gradient, MindSpore adds it to a zero accumulator — the same number. Differences: the
    argument is required here (no default), and weight decay skips 'beta'/'gamma' parameters when
    there are no groups (torch decays everything). MindSpore 2.10's CPU kernel ignores
    `use_nesterov` (it computes plain momentum); ms_core follows the documented Nesterov formula
    above, as MindSpore's `nn.SGD(nesterov=True)` does.

    Args:
        params: Parameters or group dicts (see `Optimizer`).
        learning_rate: float, per-step list/Tensor, or LearningRateSchedule.
        momentum: float >= 0.
        weight_decay, loss_scale: see `Optimizer`.
        use_nesterov: Nesterov momentum.

    Example:
        >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = check_float("Momentum", "momentum", momentum, low=0.0)
        # a Parameter, as in MindSpore: `opt.momentum.set_data(...)` changes it mid-training
        self.momentum = Parameter(Tensor._wrap(np.asarray(momentum, np.float32)), name="momentum")
        self.use_nesterov = check_bool("Momentum", "use_nesterov", use_nesterov)
        self.moments = self._clone_state("moments", "zeros")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        m = float(self.momentum._data)
        for p, acc, g, lr in zip(self.parameters, self.moments, grads, lrs):
            a = acc._data * p._data.dtype.type(m) + g._data
            acc._data = a
            step = (g._data + m * a) if self.use_nesterov else a
            p._data = p._data - lr * step
        return _true()
