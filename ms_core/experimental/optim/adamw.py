"""`AdamW` with PyTorch semantics (`mindspore.experimental.optim.AdamW`)."""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""AdamW, as `torch.optim.AdamW`: decoupled weight decay, :math:`p \leftarrow p(1 -
    \text{lr}\,\lambda)` before the Adam step, instead of an L2 term in the gradient.

    Args:
        params: Parameters or parameter-group dicts (see `Optimizer`).
        lr (float): learning rate. Default 1e-3.
        betas (tuple[float, float]): decay rates of the moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator. Default 1e-8.
        weight_decay (float): decoupled decay :math:`\lambda`. Default 1e-2 (as in PyTorch).
        amsgrad (bool): use the AMSGrad variant. Default False.
        maximize (bool): maximize the objective. Default False.

    Example:
        >>> optimizer = AdamW(net.trainable_params(), lr=1e-3, weight_decay=0.05)
        >>> optimizer(grads)
    """

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
