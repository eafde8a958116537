"""`ASGD` with PyTorch semantics (`mindspore.experimental.optim.ASGD`)."""
import numpy as np

from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD, as `torch.optim.ASGD`: an SGD step with a decaying step size
    :math:`\eta_t = \text{lr} / (1 + \lambda\,\text{lr}\,t)^\alpha` and decay
    :math:`p \leftarrow p(1 - \lambda\eta)`, plus a running average of the parameters (in
    `state['ax']`) that starts after `t0` steps. :math:`\eta` and :math:`\mu` are kept in float32,
    as torch keeps them.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-2.
        lambd (float): decay term. Default 1e-4.
        alpha (float): power of the eta update. Default 0.75.
        t0 (float): step at which averaging starts. Default 1e6.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        maximize (bool): maximize the objective. Default False.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 maximize=False):
        name = type(self).__name__
        if not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        check_non_negative_float(name, "weight_decay", weight_decay)
        for key, value in (("lambd", lambd), ("t0", t0)):
            if not isinstance(value, float):  # MindSpore 2.10 refuses an int here
                raise TypeError(f"For 'ASGD', the type of {key} must be float, but got {type(value)}.")
        defaults = dict(lr=lr, lambd=float(lambd), alpha=float(alpha), t0=float(t0),
                        weight_decay=float(weight_decay), maximize=bool(maximize))
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("eta", "mu", "ax")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        if not state:
            state.update(step=0, eta=float(np.float32(lr)), mu=1.0, ax=np.zeros_like(param))
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param
        lambd, eta = group["lambd"], state["eta"]
        param = param * (1.0 - lambd * eta)
        param = param - eta * g
        if state["mu"] != 1:
            state["ax"] = state["ax"] + (param - state["ax"]) * state["mu"]
        else:
            state["ax"] = param.copy()
        step = state["step"]
        state["eta"] = float(np.float32(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        state["mu"] = float(np.float32(1 / max(1, step - group["t0"])))
        return param
