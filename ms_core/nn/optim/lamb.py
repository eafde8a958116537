"""`nn.Lamb` (layer-wise adaptive moments) with MindSpore's formula."""
import numpy as np

from .optimizer import Optimizer, _true
from .adam import _check_betas

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """LAMB as MindSpore computes it (t = global step + 1):

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g²
        r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps) + wd * w
                                                  (wd where the decay flag is set: see Optimizer)
        trust = ||w|| / ||r|| when both norms are > 0, else 1
        w -= lr * trust * r

    The norms are per parameter tensor. There is no loss_scale argument. torch has no LAMB in
    `torch.optim`. (Deprecated in MindSpore after 2.9, still present in 2.10.)
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas("Lamb", beta1, beta2, eps)
        self.moments1 = self._clone_state("lamb_m", "zeros")
        self.moments2 = self._clone_state("lamb_v", "zeros")

    def construct(self, gradients):
        grads = self._check_gradients(gradients)
        grads = self.gradients_centralization(self.flatten_gradients(grads))
        wd = self.get_weight_decay()
        wds = wd if self.is_group else (wd,) * len(self.parameters)
        lrs = self._lrs_per_param(self.get_lr())
        t = int(self.global_step._data[0]) + 1
        b1, b2, eps = self.beta1, self.beta2, self.eps
        c1, c2 = 1.0 - b1 ** t, 1.0 - b2 ** t
        for p, m, v, g, lr, w, flag in zip(self.parameters, self.moments1, self.moments2, grads, lrs,
                                           wds, self.decay_flags):
            g = g._data
            m._data = b1 * m._data + (1.0 - b1) * g
            v._data = b2 * v._data + (1.0 - b2) * (g * g)
            r = (m._data / c1) / (np.sqrt(v._data / c2) + eps)
            if flag and w > 0:
                r = r + w * p._data
            w_norm = float(np.linalg.norm(p._data.astype(np.float64)))
            r_norm = float(np.linalg.norm(r.astype(np.float64)))
            trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
            p._data = p._data - (lr * trust) * r
        return _true()
