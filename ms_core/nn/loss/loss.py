"""Loss cells with MindSpore 2.x arguments (`reduction` defaults differ per loss, as MindSpore's)."""
import numpy as np

from ..cell import Cell
from ..._checkparam import check_int, check_tensor
from ..._engine import apply
from ..._prims import loss as L
from ...common.tensor import Tensor
from ...ops import functional as F
from ...ops import layer_ops as LO
from ...ops import nn_ops as NF

__all__ = ["LossBase", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
           "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits",
           "KLDivLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "SoftMarginLoss",
           "TripletMarginLoss", "HingeEmbeddingLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss",
           "PoissonNLLLoss", "GaussianNLLLoss"]


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
    """(logits - labels)², reduced (default 'mean')."""

    def construct(self, logits, labels):
        d = logits - labels
        return self.get_loss(d * d)


class L1Loss(LossBase):
    """|logits - labels|, reduced (default 'mean')."""

    def construct(self, logits, labels):
        return self.get_loss(F.abs(logits - labels))


class SmoothL1Loss(LossBase):
    """0.5 d² / beta where |d| < beta, else |d| - 0.5 beta.

    MindSpore-vs-torch: the default reduction is 'none' (torch: 'mean').
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, float):
            raise TypeError(f"For 'SmoothL1Loss', the 'beta' must be float, but got "
                            f"{type(beta).__name__}.")
        if beta <= 0:
            raise ValueError(f"For 'SmoothL1Loss', the 'beta' must be greater than 0, but got "
                             f"{beta}.")
        self.beta = beta

    def construct(self, logits, labels):
        if logits.shape != labels.shape:
            raise ValueError(f"For 'SmoothL1Loss', the 'labels' shape {list(labels.shape)} must "
                             f"equal the 'logits' shape {list(logits.shape)}.")
        return NF.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """0.5 d² where |d| < delta, else delta (|d| - 0.5 delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return NF.huber_loss(logits, labels, self.reduction, self.delta)


class BCELoss(LossBase):
    """Binary cross-entropy on probabilities: -w (y log x + (1 - y) log(1 - x)); logs clamped at
    -100 as torch. Default reduction 'mean' (MindSpore 2.x; 1.x defaulted to 'none')."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'BCELoss', the 'weight' must be a Tensor or None, but got "
                            f"{type(weight).__name__}.")
        self.weight = weight

    def construct(self, logits, labels):
        return NF.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Sigmoid + binary cross-entropy with optional `weight` and `pos_weight`."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        return F.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                  self.reduction)


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices (N, ...), as
    torch's NLLLoss ('mean' divides by the summed weights of the non-ignored targets)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = check_tensor("NLLLoss", "weight", weight, allow_none=True)
        self.ignore_index = check_int("NLLLoss", "ignore_index", ignore_index)

    def construct(self, logits, labels):
        return NF.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class CrossEntropyLoss(LossBase):
    """Cross-entropy of logits (N, C, ...) against class indices (N, ...) or class
    probabilities (N, C, ...), with class `weight`, `ignore_index` and `label_smoothing`;
    same semantics as torch's CrossEntropyLoss (a fused log-softmax + NLL primitive).

    Example:
        >>> loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
        >>> loss = loss_fn(logits, labels)
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = check_tensor("CrossEntropyLoss", "weight", weight, allow_none=True)
        self.ignore_index = check_int("CrossEntropyLoss", "ignore_index", ignore_index)
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, float):
            raise TypeError(f"For 'CrossEntropyLoss', the 'label_smoothing' must be float, but "
                            f"got {type(label_smoothing).__name__}.")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', the 'label_smoothing' must be in range "
                             f"[0.0, 1.0], but got {label_smoothing}.")
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        return NF.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                self.label_smoothing)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """-sum(labels * log_softmax(logits), -1) per sample for (N, C) logits.

    `sparse=True`: labels are class indices (N,) (turned into one-hot); `sparse=False`: labels
    are (N, C) distributions. MindSpore's default reduction here is 'none'. There is no class
    weight or ignore_index (use CrossEntropyLoss for those).
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', the 'sparse' must be bool, "
                            f"but got {type(sparse).__name__}.")
        self.sparse = sparse

    def construct(self, logits, labels):
        name = "SoftmaxCrossEntropyWithLogits"
        if not isinstance(logits, Tensor) or logits.ndim != 2:
            raise ValueError(f"For '{name}', the 'logits' must be a 2-D Tensor (N, C), but got "
                             f"{list(logits.shape) if isinstance(logits, Tensor) else type(logits).__name__}.")
        n, c = logits.shape
        if self.sparse:
            idx = labels._data.astype(np.int64).reshape(-1)
            if idx.shape != (n,) or (idx.size and (idx.min() < 0 or idx.max() >= c)):
                raise ValueError(f"For '{name}', sparse labels must be {n} class indices in "
                                 f"[0, {c}), but got shape {list(labels.shape)}.")
            coef = Tensor._wrap(np.eye(c, dtype=logits._data.dtype)[idx])
        else:
            if labels.shape != logits.shape:
                raise ValueError(f"For '{name}', the 'labels' shape {list(labels.shape)} must "
                                 f"equal the 'logits' shape {list(logits.shape)}.")
            coef = F.cast(labels, logits.dtype)
        return self.get_loss(apply(L.SoftmaxCrossEntropy(-1), logits, coef))


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits) with log-probability `logits`; reduction 'mean'
    (over all elements, as torch), 'batchmean', 'sum' or 'none'."""

    def __init__(self, reduction="mean"):
        Cell.__init__(self)
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"For 'KLDivLoss', the 'reduction' must be one of ['none', 'mean', "
                             f"'batchmean', 'sum'], but got {reduction!r}.")
        self.reduction = reduction

    def construct(self, logits, labels):
        return NF.kl_div(logits, labels, self.reduction)


def _float_arg(cls, arg, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', the '{arg}' must be float, but got {type(value).__name__}.")
    return float(value)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) where labels are 1, max(0, cos(x1, x2) - margin) where they are -1,
    `mindspore.nn.CosineEmbeddingLoss(margin=0.0, reduction='mean')`; cos over the last axis."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float_arg("CosineEmbeddingLoss", "margin", margin)
        if not -1.0 <= self.margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range [-1.0, "
                             f"1.0], but got {margin}.")

    def construct(self, logits_x1, logits_x2, labels):
        return LO.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin),
    `mindspore.nn.MarginRankingLoss(margin=0.0, reduction='mean')`."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float_arg("MarginRankingLoss", "margin", margin)

    def construct(self, input1, input2, target):
        return LO.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(-labels * logits)), `mindspore.nn.SoftMarginLoss(reduction='mean')`.

    MindSpore 2.10 has no CPU kernel for it (Ascend/GPU only); ms_core computes it everywhere.
    """

    def construct(self, logits, labels):
        return LO.soft_margin_loss(logits, labels, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with the p-norm distance,
    `mindspore.nn.TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)`.

    As MindSpore, `construct` also takes a `margin` (used when the constructor's is 1.0).
    MindSpore 2.10 has no CPU kernel for it; ms_core computes it everywhere.
    """

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap = p, swap
        self.eps = _float_arg("TripletMarginLoss", "eps", eps)
        self.margin = _float_arg("TripletMarginLoss", "margin", margin)

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return LO.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap,
                                      self.reduction)


class HingeEmbeddingLoss(LossBase):
    """logits where labels are 1, max(0, margin - logits) where they are -1,
    `mindspore.nn.HingeEmbeddingLoss(margin=1.0, reduction='mean')`."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float_arg("HingeEmbeddingLoss", "margin", margin)

    def construct(self, logits, labels):
        return LO.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: per sample, sum over j != y of max(0, margin - x_y + x_j)^p * w_y
    / C, `mindspore.nn.MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)`."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', the 'p' must be 1 or 2, but got {p}.")
        self.p = p
        self.margin = _float_arg("MultiMarginLoss", "margin", margin)
        self.weight = check_tensor("MultiMarginLoss", "weight", weight, allow_none=True)

    def construct(self, x, target, weight=None):
        weight = self.weight if weight is None else weight
        return LO.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """-mean over classes of (y log sigmoid(x) + (1 - y) log sigmoid(-x)), class weights
    optional, `mindspore.nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean')`."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = check_tensor("MultiLabelSoftMarginLoss", "weight", weight, allow_none=True)

    def construct(self, x, target):
        return LO.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class PoissonNLLLoss(LossBase):
    """Poisson negative log-likelihood: exp(x) - t x (log_input) or x - t log(x + eps), plus
    Stirling's term with `full`, `mindspore.nn.PoissonNLLLoss(log_input=True, full=False,
    eps=1e-08, reduction='mean')`."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full = log_input, full
        self.eps = _float_arg("PoissonNLLLoss", "eps", eps)

    def construct(self, input, target):
        return LO.poisson_nll_loss(input, target, self.log_input, self.full, self.eps,
                                   self.reduction)


class GaussianNLLLoss(LossBase):
    """Gaussian negative log-likelihood 0.5 (log var + (logits - labels)^2 / var) with var
    clamped at eps, `mindspore.nn.GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean')`
    (keyword-only arguments, as MindSpore and torch)."""

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.full = full
        self.eps = _float_arg("GaussianNLLLoss", "eps", eps)

    def construct(self, logits, labels, var):
        return LO.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)
