"""`Adamax` with PyTorch semantics (`mindspore.experimental.optim.Adamax`)."""
import numpy as np

from .adam import _check_adam_args
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax (Adam with the infinity norm), as `torch.optim.Adamax`.

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g;\quad u \leftarrow \max(\beta_2 u, |g| + \epsilon);
        \quad p \leftarrow p - \frac{\text{lr}}{1-\beta_1^t} \frac{m}{u}

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 2e-3.
        betas (tuple[float, float]): decay rates. Default (0.9, 0.999).
        eps (float): added to |g|. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        maximize (bool): maximize the objective. Default False.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *,
                 maximize=False):
        _check_adam_args(type(self).__name__, lr, betas, eps, weight_decay, False, maximize)
        defaults = dict(lr=lr, betas=tuple(float(b) for b in betas), eps=float(eps),
                        weight_decay=float(weight_decay), maximize=maximize)
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("exp_avg", "exp_inf")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        beta1, beta2 = (float(b) for b in group["betas"])
        if not state:
            state.update(step=0, exp_avg=np.zeros_like(param), exp_inf=np.zeros_like(param))
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param
        exp_avg = state["exp_avg"]
        exp_avg = exp_avg + (1.0 - beta1) * (g - exp_avg)
        exp_inf = np.maximum(state["exp_inf"] * beta2, np.abs(g) + group["eps"])
        state["exp_avg"], state["exp_inf"] = exp_avg, exp_inf
        clr = lr / (1.0 - beta1 ** state["step"])
        return param - clr * exp_avg / exp_inf
