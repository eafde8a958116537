"""`SGD` with PyTorch semantics (`mindspore.experimental.optim.SGD`)."""
from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer, _REQUIRED

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent with optional momentum, as `torch.optim.SGD`.

    For each parameter, with :math:`g` its gradient (negated when `maximize`):

    .. math::
        g \leftarrow g + \lambda p;\quad
        b \leftarrow \mu b + (1 - \tau) g \ (b = g \text{ at the first step});\quad
        g \leftarrow g + \mu b \text{ (nesterov) or } b;\quad p \leftarrow p - \text{lr}\, g

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate (required, as in MindSpore's experimental SGD).
        momentum (float): momentum factor :math:`\mu`. Default 0.
        dampening (float): dampening :math:`\tau` for momentum. Default 0.
        weight_decay (float): L2 penalty :math:`\lambda` added to the gradient. Default 0.
        nesterov (bool): Nesterov momentum. Default False.
        maximize (bool): maximize the objective instead of minimizing it. Default False.

    Raises:
        ValueError: a negative lr / momentum / weight_decay, or nesterov without momentum or with
            dampening.

    Example:
        >>> optimizer = SGD(net.trainable_params(), lr=0.1, momentum=0.9)
        >>> loss, grads = grad_fn(x, y)
        >>> optimizer(grads)
    """

    def __init__(self, params, lr=_REQUIRED, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False):
        name = type(self).__name__
        if lr is not _REQUIRED and not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        check_non_negative_float(name, "momentum", momentum)
        check_non_negative_float(name, "weight_decay", weight_decay)
        if not isinstance(nesterov, bool) or not isinstance(maximize, bool):
            raise TypeError(f"For '{name}', the 'nesterov' and 'maximize' must be bool, but got "
                            f"{type(nesterov).__name__} and {type(maximize).__name__}.")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(f"For '{name}', Nesterov momentum requires a momentum > 0 and zero "
                             f"dampening, but got momentum={momentum}, dampening={dampening}.")
        defaults = dict(lr=lr, momentum=float(momentum), dampening=float(dampening),
                        weight_decay=float(weight_decay), nesterov=nesterov, maximize=maximize)
        super().__init__(params, defaults)

    _has_step_state = False  # torch's SGD keeps only the momentum buffer

    def _state_keys(self, group):
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        weight_decay = group["weight_decay"]
        if weight_decay != 0:
            g = g + weight_decay * param
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.copy()  # torch starts the buffer at the first gradient, undampened
            else:
                buf = buf * momentum + (1.0 - group["dampening"]) * g
            state["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        return param - lr * g
