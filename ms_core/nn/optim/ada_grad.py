"""`nn.Adagrad` with MindSpore's formula (ApplyAdagrad)."""
import numpy as np

from .optimizer import Optimizer, _true
from ..._checkparam import check_bool, check_float

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad as MindSpore computes it:

        accum += g²  (when update_slots; accum starts at `accum`, default 0.1)
        w -= lr * g / sqrt(accum)

    torch's `Adagrad(lr, initial_accumulator_value=accum, eps=0)` is the same; torch's defaults
    differ (initial accumulator 0, eps 1e-10, lr 0.01 vs 0.001 here) and its argument order puts lr
    first: MindSpore's second positional argument is `accum`. MindSpore 2.10's CPU kernel ignores
    `update_slots=False` (it always accumulates); ms_core follows the documented meaning.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.initial_accum = check_float("Adagrad", "accum", accum, low=0.0)
        self.update_slots = check_bool("Adagrad", "update_slots", update_slots)
        self.accum = self._clone_state("accum", self.initial_accum)

    def construct(self, gradients):
        grads, lrs = self._prepare(gradients)
        for p, acc, g, lr in zip(self.parameters, self.accum, grads, lrs):
            g = g._data
            if self.update_slots:
                acc._data = acc._data + g * g
            p._data = p._data - lr * g / np.sqrt(acc._data)
        return _true()
