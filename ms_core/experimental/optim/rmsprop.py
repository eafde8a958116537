"""`RMSprop` with PyTorch semantics (`mindspore.experimental.optim.RMSprop`)."""
import numpy as np

from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop, as `torch.optim.RMSprop`.

    .. math::
        v \leftarrow \alpha v + (1-\alpha) g^2;\quad
        d = \sqrt{v - \bar g^2} + \epsilon \text{ (centered) or } \sqrt{v} + \epsilon;\quad
        b \leftarrow \mu b + g/d,\ p \leftarrow p - \text{lr}\, b \text{ (momentum) or }
        p \leftarrow p - \text{lr}\, g/d

    Unlike `mindspore.nn.RMSProp` (eps inside the square root, default lr 0.1, decay 0.9), eps
    is added after the square root and the defaults are torch's.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-2.
        alpha (float): smoothing constant. Default 0.99.
        eps (float): added to the denominator. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        momentum (float): momentum factor. Default 0.
        centered (bool): normalise by the estimated variance of the gradient. Default False.
        maximize (bool): maximize the objective. Default False.

    Example:
        >>> optimizer = RMSprop(net.trainable_params(), lr=0.01, momentum=0.9)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        name = type(self).__name__
        if not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        for arg, value in (("alpha", alpha), ("eps", eps), ("weight_decay", weight_decay),
                           ("momentum", momentum)):
            check_non_negative_float(name, arg, value)
        defaults = dict(lr=lr, alpha=float(alpha), eps=float(eps), weight_decay=float(weight_decay),
                        momentum=float(momentum), centered=bool(centered), maximize=bool(maximize))
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return (("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ())
                + (("grad_avg",) if group["centered"] else ()))

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = np.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = np.zeros_like(param)
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param
        alpha = group["alpha"]
        square_avg = state["square_avg"] * alpha + (1.0 - alpha) * (g * g)
        state["square_avg"] = square_avg
        if group["centered"]:
            grad_avg = state.setdefault("grad_avg", np.zeros_like(param))
            grad_avg = grad_avg + (1.0 - alpha) * (g - grad_avg)  # torch's lerp_
            state["grad_avg"] = grad_avg
            avg = np.sqrt(square_avg - grad_avg * grad_avg)
        else:
            avg = np.sqrt(square_avg)
        avg = avg + group["eps"]
        if group["momentum"] > 0:
            buf = state.setdefault("momentum_buffer", np.zeros_like(param))
            buf = buf * group["momentum"] + g / avg
            state["momentum_buffer"] = buf
            return param - lr * buf
        return param - lr * g / avg
