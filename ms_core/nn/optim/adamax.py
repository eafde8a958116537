"""`nn.AdaMax` with MindSpore's formula (ApplyAdaMax)."""
import numpy as np

from .optimizer import Optimizer, _true
from .adam import _check_betas
from ...common.parameter import Parameter
from ...common.tensor import Tensor

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    """AdaMax (Adam with the infinity norm) as MindSpore computes it, t = 1, 2, ...:

        g = (grad + wd * loss_scale * w) / loss_scale     (L2 decay; skips 'beta'/'gamma' names)
        m = beta1 * m + (1 - beta1) * g;  v = max(beta2 * v, |g|)
        w -= lr / (1 - beta1^t) * m / (v + eps)

    The same as torch's `Adamax(lr, betas, eps, weight_decay)` except for eps placement: torch
    adds eps inside the max (v = max(beta2 * v, |g| + eps)); with eps=1e-8 the two agree to
    float32 precision. MindSpore names it `AdaMax` (torch: `Adamax`).
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = _check_betas("AdaMax", beta1, beta2, eps)
        self.beta1_power = Parameter(Tensor._wrap(np.ones((1,), np.float32)), name="beta1_power")
        self.moment1 = self._clone_state("moment1", "zeros")
        self.moment2 = self._clone_state("moment2", "zeros")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        self.beta1_power._data = self.beta1_power._data * np.float32(self.beta1)
        b1p = float(self.beta1_power._data[0])
        b1, b2, eps = self.beta1, self.beta2, self.eps
        for p, m, v, g, lr in zip(self.parameters, self.moment1, self.moment2, grads, lrs):
            g = g._data
            m._data = b1 * m._data + (1.0 - b1) * g
            v._data = np.maximum(b2 * v._data, np.abs(g))
            p._data = p._data - (lr / (1.0 - b1p)) * (m._data / (v._data + eps))
        return _true()
