"""`nn.Adadelta` with MindSpore's formula (ApplyAdadelta)."""
import numpy as np

from .optimizer import Optimizer, _true
from ..._checkparam import check_float

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta as MindSpore computes it:

        g = (grad + wd * loss_scale * w) / loss_scale     (L2 decay; skips 'beta'/'gamma' names)
        accum = rho * accum + (1 - rho) * g²
        update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
        accum_update = rho * accum_update + (1 - rho) * update²
        w -= lr * update

    The same as torch's `Adadelta(lr, rho, eps, weight_decay)` (torch decays every parameter).
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = check_float("Adadelta", "rho", rho, 0.0, 1.0)
        self.epsilon = check_float("Adadelta", "epsilon", epsilon, 0.0, inc="(]")
        self.accum = self._clone_state("accum", "zeros")
        self.accum_update = self._clone_state("accum_update", "zeros")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        rho, eps = self.rho, self.epsilon
        for p, acc, accu, g, lr in zip(self.parameters, self.accum, self.accum_update, grads, lrs):
            g = g._data
            acc._data = rho * acc._data + (1.0 - rho) * (g * g)
            update = np.sqrt(accu._data + eps) / np.sqrt(acc._data + eps) * g
            accu._data = rho * accu._data + (1.0 - rho) * (update * update)
            p._data = p._data - lr * update
        return _true()
