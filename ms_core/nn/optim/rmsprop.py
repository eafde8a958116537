"""`nn.RMSProp` with MindSpore's formulas (ApplyRMSProp / ApplyCenteredRMSProp)."""
import numpy as np

from .optimizer import Optimizer, _true
from ..._checkparam import check_bool, check_float

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """RMSProp as MindSpore computes it:

        ms = decay * ms + (1 - decay) * g²                  (ms starts at ONE, torch's at zero)
        centered: mg = decay * mg + (1 - decay) * g;  denom = sqrt(ms - mg² + epsilon)
        otherwise: denom = sqrt(ms + epsilon)               (eps inside the sqrt; torch: outside)
        mom = momentum * mom + lr * g / denom;  w -= mom    (lr inside the buffer)

    torch's `RMSprop(alpha=decay, eps, momentum, centered)` matches once its square average starts
    at one (the eps placement changes results by a relative eps / ms); with a changing learning
    rate the buffers differ, because MindSpore accumulates lr * g, torch g. Note the argument
    names: `decay` here is torch's `alpha`; the default learning rate is 0.1 (torch 0.01).
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_float("RMSProp", "decay", decay, low=0.0)
        self.momentum = check_float("RMSProp", "momentum", momentum, low=0.0)
        self.epsilon = check_float("RMSProp", "epsilon", epsilon, 0.0, inc="(]")
        check_bool("RMSProp", "use_locking", use_locking)
        self.centered = check_bool("RMSProp", "centered", centered)
        if centered:
            self.mg = self._clone_state("mean_grad", "zeros")
        self.ms = self._clone_state("mean_square", "ones")
        self.moment = self._clone_state("moment", "zeros")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        rho, mu, eps = self.decay, self.momentum, self.epsilon
        mgs = self.mg if self.centered else [None] * len(self.parameters)
        for p, ms_, mom, mg, g, lr in zip(self.parameters, self.ms, self.moment, mgs, grads, lrs):
            g = g._data
            ms_._data = rho * ms_._data + (1.0 - rho) * (g * g)
            if self.centered:
                mg._data = rho * mg._data + (1.0 - rho) * g
                denom = np.sqrt(ms_._data - mg._data * mg._data + eps)
            else:
                denom = np.sqrt(ms_._data + eps)
            mom._data = mu * mom._data + lr * g / denom
            p._data = p._data - mom._data
        return _true()
