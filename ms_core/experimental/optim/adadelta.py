"""`Adadelta` with PyTorch semantics (`mindspore.experimental.optim.Adadelta`)."""
import numpy as np

from ..._checkparam import check_non_negative_float, check_number_range
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta, as `torch.optim.Adadelta`.

    .. math::
        v \leftarrow \rho v + (1-\rho) g^2;\quad
        \Delta = \frac{\sqrt{u + \epsilon}}{\sqrt{v + \epsilon}}\, g;\quad
        u \leftarrow \rho u + (1-\rho) \Delta^2;\quad p \leftarrow p - \text{lr}\, \Delta

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): scale of the update. Default 1.0.
        rho (float): decay of the running averages, in [0, 1]. Default 0.9.
        eps (float): added inside the square roots. Default 1e-6.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        maximize (bool): maximize the objective. Default False.

    Example:
        >>> optimizer = Adadelta(net.trainable_params())
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False):
        name = type(self).__name__
        if not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        check_number_range(name, "rho", rho, 0.0, 1.0, "[]", phrase="in")
        check_non_negative_float(name, "eps", eps)
        check_non_negative_float(name, "weight_decay", weight_decay)
        defaults = dict(lr=lr, rho=float(rho), eps=float(eps), weight_decay=float(weight_decay),
                        maximize=bool(maximize))
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("square_avg", "acc_delta")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(param)
            state["acc_delta"] = np.zeros_like(param)
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param
        rho, eps = group["rho"], group["eps"]
        square_avg = state["square_avg"] * rho + (1.0 - rho) * (g * g)
        std = np.sqrt(square_avg + eps)
        delta = np.sqrt(state["acc_delta"] + eps) / std * g
        state["square_avg"] = square_avg
        state["acc_delta"] = state["acc_delta"] * rho + (1.0 - rho) * (delta * delta)
        return param - lr * delta
