"""`Adagrad` with PyTorch semantics (`mindspore.experimental.optim.Adagrad`)."""
import numpy as np

from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad, as `torch.optim.Adagrad`.

    .. math::
        \text{clr} = \frac{\text{lr}}{1 + (t-1)\,\text{lr\_decay}};\quad s \leftarrow s + g^2;\quad
        p \leftarrow p - \text{clr}\, \frac{g}{\sqrt{s} + \epsilon}

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-2.
        lr_decay (float): learning-rate decay. Default 0.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        initial_accumulator_value (float): starting value of :math:`s`. Default 0.
        eps (float): added to the denominator. Default 1e-10.
        maximize (bool): maximize the objective. Default False.

    Example:
        >>> optimizer = Adagrad(net.trainable_params(), lr=0.01)
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, *, maximize=False):
        name = type(self).__name__
        if not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        for arg, value in (("lr_decay", lr_decay), ("weight_decay", weight_decay),
                           ("initial_accumulator_value", initial_accumulator_value), ("eps", eps)):
            check_non_negative_float(name, arg, value)
        defaults = dict(lr=lr, lr_decay=float(lr_decay), weight_decay=float(weight_decay),
                        initial_accumulator_value=float(initial_accumulator_value), eps=float(eps),
                        maximize=bool(maximize))
        super().__init__(params, defaults)
        # torch creates the accumulator at construction, so state_dict() shows it before a step
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = {"step": 0, "sum": np.full_like(
                    p._data, group["initial_accumulator_value"])}
                self._publish(p)

    def _state_keys(self, group):
        return ("sum",)

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["sum"] = np.full_like(param, group["initial_accumulator_value"])
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param
        clr = lr / (1.0 + (state["step"] - 1) * group["lr_decay"])
        state["sum"] = state["sum"] + g * g
        std = np.sqrt(state["sum"]) + group["eps"]
        return param - clr * g / std
