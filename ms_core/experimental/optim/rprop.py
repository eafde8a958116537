"""`Rprop` with PyTorch semantics (`mindspore.experimental.optim.Rprop`)."""
import numpy as np

from ..._checkparam import check_non_negative_float
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Resilient backpropagation, as `torch.optim.Rprop`: per-element step sizes grow by
    `etas[1]` while the gradient keeps its sign and shrink by `etas[0]` when it flips (that
    element then skips its update); the update is :math:`-\text{sign}(g)\cdot\text{step\_size}`.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): initial step size. Default 1e-2.
        etas (tuple[float, float]): (decrease, increase) factors, 0 < etaminus < 1 < etaplus.
            Default (0.5, 1.2).
        step_sizes (tuple[float, float]): (min, max) step size. Default (1e-6, 50).
        maximize (bool): maximize the objective. Default False.

    Raises:
        ValueError: etas out of order.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False):
        name = type(self).__name__
        if not hasattr(lr, "asnumpy"):
            check_non_negative_float(name, "lr", lr)
        if not (isinstance(etas, (tuple, list)) and len(etas) == 2 and 0.0 < etas[0] < 1.0 < etas[1]):
            raise ValueError(f"For '{name}', the 'etas' must be (etaminus, etaplus) with 0 < "
                             f"etaminus < 1 < etaplus, but got {etas}.")
        defaults = dict(lr=lr, etas=(float(etas[0]), float(etas[1])),
                        step_sizes=(float(step_sizes[0]), float(step_sizes[1])),
                        maximize=bool(maximize))
        super().__init__(params, defaults)

    def _state_keys(self, group):
        return ("prev", "step_size")

    def _update(self, param, grad, state, group, lr):
        g = -grad if group["maximize"] else grad
        if not state:
            state.update(step=0, prev=np.zeros_like(param), step_size=np.full_like(param, lr))
        state["step"] += 1
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        s = np.sign(g * state["prev"])
        factor = np.where(s > 0, etaplus, np.where(s < 0, etaminus, 1.0)).astype(param.dtype)
        step_size = np.clip(state["step_size"] * factor, lo, hi).astype(param.dtype)
        g = np.where(factor == etaminus, 0, g).astype(param.dtype)  # a flipped sign skips a step
        state["step_size"], state["prev"] = step_size, g
        return param - np.sign(g) * step_size
