"""Loss cells."""
from ..cell import Cell
from ...ops import functional as F


class LossBase(Cell):
    """Base of losses: validates `reduction` and applies it (`get_loss`)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', the 'reduction' must be one of "
                             f"['mean', 'sum', 'none'], but got {reduction!r}.")
        self.reduction = reduction

    def get_loss(self, x, weights=1.0):
        if not (isinstance(weights, float) and weights == 1.0):
            x = x * weights
        return F._reduce(x, self.reduction, type(self).__name__)


class MSELoss(LossBase):
    def construct(self, logits, labels):
        d = logits - labels
        return self.get_loss(d * d)


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(F.abs(logits - labels))


class BCEWithLogitsLoss(LossBase):
    """Sigmoid + binary cross-entropy with optional `weight` and `pos_weight`."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        return F.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                  self.reduction)
