"""`nn.Adam` and `nn.AdamWeightDecay` with MindSpore's update formulas."""
import math

import numpy as np

from .optimizer import Optimizer, _true
from ..._checkparam import check_bool, check_float
from ...common.parameter import Parameter
from ...common.tensor import Tensor

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas(cls, beta1, beta2, eps):
    """beta1, beta2 in (0, 1) and eps > 0 as floats: the arguments the Adam family shares."""
    beta1 = check_float(cls, "beta1", beta1, 0.0, 1.0, "()")
    beta2 = check_float(cls, "beta2", beta2, 0.0, 1.0, "()")
    eps = check_float(cls, "eps", eps, 0.0, inc="(]")
    return beta1, beta2, eps


class Adam(Optimizer):
    """Adam as MindSpore's ApplyAdam computes it (t = 1, 2, ...):

        g = (grad + wd * loss_scale * w) / loss_scale      (L2 decay; skips 'beta'/'gamma' names)
        m = m + (g - m) * (1 - beta1);  v = v + (g² - v) * (1 - beta2)
        lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
        w -= lr_t * m / (sqrt(v) + eps)
        use_nesterov:  w -= lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)
        use_amsgrad:   vmax = max(vmax, v); w -= lr_t * m / (sqrt(vmax) + eps)

    torch's Adam divides by sqrt(v / (1 - beta2^t)) + eps, i.e. its eps is MindSpore's eps times
    sqrt(1 - beta2^t): the two agree up to a relative eps / sqrt(v) in the update (1e-6 or less
    for gradients of order 1e-2 and above). torch's `weight_decay` is the same L2 decay, applied to
    every parameter.

    State: `beta1_power`, `beta2_power`, `moment1`, `moment2` (and `vhat` for amsgrad).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = _check_betas("Adam", beta1, beta2, eps)
        check_bool("Adam", "use_locking", use_locking)
        self.use_nesterov = check_bool("Adam", "use_nesterov", use_nesterov)
        self.use_amsgrad = check_bool("Adam", "use_amsgrad", use_amsgrad)
        if use_nesterov and use_amsgrad:
            raise ValueError("For 'Adam', 'use_nesterov' and 'use_amsgrad' can not both be True.")
        self.use_locking = use_locking
        self.beta1_power = Parameter(Tensor._wrap(np.ones((1,), np.float32)), name="beta1_power",
                                     requires_grad=False)
        self.beta2_power = Parameter(Tensor._wrap(np.ones((1,), np.float32)), name="beta2_power",
                                     requires_grad=False)
        self.moment1 = self._clone_state("moment1", "zeros")
        self.moment2 = self._clone_state("moment2", "zeros")
        if use_amsgrad:
            self.vhat = self._clone_state("vhat", "zeros")

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        # float32 powers, as MindSpore keeps them in float32 Parameters
        self.beta1_power._data = self.beta1_power._data * np.float32(self.beta1)
        self.beta2_power._data = self.beta2_power._data * np.float32(self.beta2)
        b1p = float(self.beta1_power._data[0])
        b2p = float(self.beta2_power._data[0])
        b1, b2, eps = self.beta1, self.beta2, self.eps
        vhats = self.vhat if self.use_amsgrad else [None] * len(self.parameters)
        for p, m, v, vh, g, lr in zip(self.parameters, self.moment1, self.moment2, vhats, grads, lrs):
            g = g._data
            m._data = m._data + (g - m._data) * (1.0 - b1)
            v._data = v._data + (g * g - v._data) * (1.0 - b2)
            lr_t = lr * math.sqrt(1.0 - b2p) / (1.0 - b1p)
            if self.use_amsgrad:
                vh._data = np.maximum(vh._data, v._data)
                denom = np.sqrt(vh._data) + eps
            else:
                denom = np.sqrt(v._data) + eps
            num = b1 * m._data + (1.0 - b1) * g if self.use_nesterov else m._data
            p._data = p._data - lr_t * (num / denom)
        return _true()


class AdamWeightDecay(Optimizer):
    """Adam with decoupled weight decay, as MindSpore computes it — no bias correction:

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g²
        update = m / (sqrt(v) + eps) + wd * w     (wd only where the decay flag is set:
                                                   names without 'beta'/'gamma', or groups wd > 0)
        w -= lr * update

    torch's `AdamW(lr, betas, eps, weight_decay)` applies the same decoupled decay (w -= lr*wd*w)
    but bias-corrects m and v, so early steps differ (torch's first step moves each weight by about
    lr; MindSpore's by lr * (1 - beta1) / sqrt(1 - beta2) ≈ 3.16 lr with the defaults); eps
    defaults to 1e-6 here, 1e-8 in torch; torch's weight_decay default is 0.01, here 0.0.
    There is no loss_scale argument (gradients are used as given).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas("AdamWeightDecay", beta1, beta2, eps)
        self.moments1 = self._clone_state("adam_m", "zeros")
        self.moments2 = self._clone_state("adam_v", "zeros")

    def construct(self, gradients):
        grads = self._check_gradients(gradients)
        grads = self.gradients_centralization(self.flatten_gradients(grads))
        wd = self.get_weight_decay()
        wds = wd if self.is_group else (wd,) * len(self.parameters)
        lrs = self._lrs_per_param(self.get_lr())
        b1, b2, eps = self.beta1, self.beta2, self.eps
        for p, m, v, g, lr, w, flag in zip(self.parameters, self.moments1, self.moments2, grads, lrs,
                                           wds, self.decay_flags):
            g = g._data
            m._data = b1 * m._data + (1.0 - b1) * g
            v._data = b2 * v._data + (1.0 - b2) * (g * g)
            update = m._data / (np.sqrt(v._data) + eps)
            if flag and w > 0:
                update = update + w * p._data
            p._data = p._data - lr * update
        return _true()
