"""`NAdam` with PyTorch semantics (`mindspore.experimental.optim.NAdam`)."""
import numpy as np

from .adam import _check_adam_args
from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam (Adam with Nesterov momentum and momentum decay), as `torch.optim.NAdam`.

    With :math:`\mu_t = \beta_1 (1 - 0.5 \cdot 0.96^{t\psi})` and :math:`\Pi_t = \prod \mu_i`:

    .. math::
        p \leftarrow p - \text{lr}\left(\frac{(1-\mu_t) g}{1-\Pi_t}
        + \frac{\mu_{t+1} m}{1-\Pi_{t+1}}\right) / (\sqrt{v / (1-\beta_2^t)} + \epsilon)

    The running product :math:`\Pi` is kept in float32, as torch keeps it.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 2e-3.
        betas (tuple[float, float]): decay rates. Default (0.9, 0.999).
        eps (float): added to the denominator. Default 1e-8.
        weight_decay (float): weight decay. Default 0.
        momentum_decay (float): :math:`\psi`. Default 4e-3.
        decoupled_weight_decay (bool): AdamW-style decay instead of L2. Default False.
        maximize (bool): maximize the objective. Default False.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, maximize=False):
        name = type(self).__name__
        _check_adam_args(name, lr, betas, eps, weight_decay, False, maximize)
        check_non_negative_float(name, "momentum_decay", momentum_decay)
        defaults = dict(lr=lr, betas=tuple(float(b) for b in betas), eps=float(eps),
                        weight_decay=float(weight_decay), momentum_decay=float(momentum_decay),
                        decoupled_weight_decay=bool(decoupled_weight_decay), maximize=maximize)
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("mu_product", "exp_avg", "exp_avg_sq")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        beta1, beta2 = (float(b) for b in group["betas"])
        if not state:
            state.update(step=0, mu_product=1.0, exp_avg=np.zeros_like(param),
                         exp_avg_sq=np.zeros_like(param))
        state["step"] += 1
        step = state["step"]
        bias_correction2 = 1.0 - beta2 ** step
        wd = group["weight_decay"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param = param * (1.0 - lr * wd)
            else:
                g = g + wd * param
        psi = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * psi))
        mu_product = float(np.float32(state["mu_product"]) * np.float32(mu))  # a float32 tensor in torch
        state["mu_product"] = mu_product
        exp_avg = state["exp_avg"]
        exp_avg = exp_avg + (1.0 - beta1) * (g - exp_avg)
        exp_avg_sq = state["exp_avg_sq"] * beta2 + (1.0 - beta2) * (g * g)
        state["exp_avg"], state["exp_avg_sq"] = exp_avg, exp_avg_sq
        denom = np.sqrt(exp_avg_sq / bias_correction2) + group["eps"]
        mu_product_next = mu_product * mu_next
        param = param + (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
        return param + (-lr * mu_next / (1.0 - mu_product_next)) * exp_avg / denom
