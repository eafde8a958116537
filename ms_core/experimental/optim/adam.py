"""`Adam` with PyTorch semantics (`mindspore.experimental.optim.Adam`)."""
import numpy as np

from ..._checkparam import check_non_negative_float, check_number_range
from .optimizer import Optimizer

__all__ = ["Adam"]


def _check_adam_args(name, lr, betas, eps, weight_decay, amsgrad, maximize):
    """The arguments Adam, AdamW, Adamax, NAdam and RAdam share (torch's checks)."""
    if not hasattr(lr, "asnumpy"):
        check_non_negative_float(name, "lr", lr)
    check_non_negative_float(name, "eps", eps)
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"For '{name}', the 'betas' must be a tuple of two floats, but got {betas!r}.")
    check_number_range(name, "betas[0]", betas[0], 0.0, 1.0, "[)", phrase="in")
    check_number_range(name, "betas[1]", betas[1], 0.0, 1.0, "[)", phrase="in")
    check_non_negative_float(name, "weight_decay", weight_decay)
    if not isinstance(amsgrad, bool) or not isinstance(maximize, bool):
        raise TypeError(f"For '{name}', the 'amsgrad' and 'maximize' must be bool, but got "
                        f"{type(amsgrad).__name__} and {type(maximize).__name__}.")


def _adam_update(param, grad, state, group, lr, decoupled):
    """One Adam / AdamW step on arrays, following torch's single-tensor implementation."""
    g = -grad if group["maximize"] else grad
    beta1, beta2 = (float(b) for b in group["betas"])
    weight_decay = group["weight_decay"]
    if not state:
        state["step"] = 0
        state["exp_avg"] = np.zeros_like(param)
        state["exp_avg_sq"] = np.zeros_like(param)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(param)
    state["step"] += 1
    step = state["step"]
    if weight_decay != 0:
        if decoupled:
            param = param * (1.0 - lr * weight_decay)
        else:
            g = g + weight_decay * param
    exp_avg = state["exp_avg"]
    exp_avg = exp_avg + (1.0 - beta1) * (g - exp_avg)  # torch's lerp_
    exp_avg_sq = state["exp_avg_sq"] * beta2 + (1.0 - beta2) * (g * g)
    state["exp_avg"], state["exp_avg_sq"] = exp_avg, exp_avg_sq
    bias_correction1 = 1.0 - beta1 ** step
    bias_correction2_sqrt = (1.0 - beta2 ** step) ** 0.5
    step_size = lr / bias_correction1
    if group["amsgrad"]:
        if "max_exp_avg_sq" not in state:  # amsgrad switched on after the first step
            state["max_exp_avg_sq"] = np.zeros_like(param)
        state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], exp_avg_sq)
        denom = np.sqrt(state["max_exp_avg_sq"]) / bias_correction2_sqrt + group["eps"]
    else:
        denom = np.sqrt(exp_avg_sq) / bias_correction2_sqrt + group["eps"]
    return param - step_size * exp_avg / denom


class Adam(Optimizer):
    r"""Adam, as `torch.optim.Adam` (L2 weight decay added to the gradient).

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g;\quad v \leftarrow \beta_2 v + (1-\beta_2) g^2;\quad
        p \leftarrow p - \frac{\text{lr}}{1-\beta_1^t}\,
        \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} + \epsilon}

    (with `amsgrad`, :math:`v` in the denominator is the running maximum of :math:`v`).
    Unlike `mindspore.nn.Adam`, eps is added after the bias correction, as in PyTorch.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-3.
        betas (tuple[float, float]): decay rates of the moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default 0.
        amsgrad (bool): use the AMSGrad variant. Default False.
        maximize (bool): maximize the objective. Default False.

    Example:
        >>> optimizer = Adam(net.trainable_params(), lr=1e-3)
        >>> optimizer(grads)
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False):
        _check_adam_args(type(self).__name__, lr, betas, eps, weight_decay, amsgrad, maximize)
        defaults = dict(lr=lr, betas=tuple(float(b) for b in betas), eps=float(eps),
                        weight_decay=float(weight_decay), amsgrad=amsgrad, maximize=maximize)
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())

    def _update(self, param, grad, state, group, lr):
        return _adam_update(param, grad, state, group, lr, self._decoupled)
