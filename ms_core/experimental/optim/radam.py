"""`RAdam` with PyTorch semantics (`mindspore.experimental.optim.RAdam`)."""
import numpy as np

from .adam import _check_adam_args
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam (rectified Adam), as `torch.optim.RAdam`: while the variance estimate is unreliable
    (:math:`\rho_t \le 5`) it takes an SGD-with-momentum step, afterwards a rectified Adam step.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-3.
        betas (tuple[float, float]): decay rates. Default (0.9, 0.999).
        eps (float): added to the denominator. Default 1e-8.
        weight_decay (float): weight decay. Default 0.
        decoupled_weight_decay (bool): AdamW-style decay instead of L2. Default False.
        maximize (bool): maximize the objective. Default False.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, maximize=False):
        _check_adam_args(type(self).__name__, lr, betas, eps, weight_decay, False, maximize)
        defaults = dict(lr=lr, betas=tuple(float(b) for b in betas), eps=float(eps),
                        weight_decay=float(weight_decay),
                        decoupled_weight_decay=bool(decoupled_weight_decay), maximize=maximize)
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("exp_avg", "exp_avg_sq")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        beta1, beta2 = (float(b) for b in group["betas"])
        if not state:
            state.update(step=0, exp_avg=np.zeros_like(param), exp_avg_sq=np.zeros_like(param))
        state["step"] += 1
        step = state["step"]
        wd = group["weight_decay"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param = param * (1.0 - lr * wd)
            else:
                g = g + wd * param
        exp_avg = state["exp_avg"]
        exp_avg = exp_avg + (1.0 - beta1) * (g - exp_avg)
        exp_avg_sq = state["exp_avg_sq"] * beta2 + (1.0 - beta2) * (g * g)
        state["exp_avg"], state["exp_avg_sq"] = exp_avg, exp_avg_sq
        bias_correction1 = 1.0 - beta1 ** step
        bias_correction2 = 1.0 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        rho_t = rho_inf - 2.0 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / (np.sqrt(exp_avg_sq) + group["eps"])
            return param - corrected * lr * adaptive * rect
        return param - corrected * lr
