"""Functional neural-network ops (`ms_core.ops.batch_norm`, `ops.dropout`, `ops.gelu`,
`ops.cross_entropy`, ...) with MindSpore 2.x signatures.

Differences from torch that matter when migrating are stated in each docstring.
"""
import numpy as np

from .. import _random
from .._engine import apply
from .._prims import loss as L
from .._prims import nn as N
from .._checkparam import (check_float_tensor, check_number, check_number_range,
                           check_same_shape, check_string, check_tensor)
from ..common import dtype as mstype
from ..common.tensor import Tensor
from . import functional as F

__all__ = [
    # normalisation
    "batch_norm", "layer_norm", "group_norm", "instance_norm",
    # dropout
    "dropout", "dropout1d", "dropout2d", "dropout3d",
    # activations
    "relu6", "leaky_relu", "prelu", "elu", "gelu", "silu", "hardswish", "hardsigmoid", "softplus",
    "mish", "hardtanh", "selu", "softsign", "logsigmoid", "log_sigmoid", "hardshrink", "softshrink",
    # losses
    "cross_entropy", "nll_loss", "binary_cross_entropy", "smooth_l1_loss", "mse_loss", "l1_loss",
    "kl_div", "huber_loss",
]


_REDUCTIONS = ["none", "mean", "sum"]


def _reduce(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


# --- normalisation ----------------------------------------------------------------------------

def _channel_vector(name, arg, value, c):
    """Check that `value` is a (C,) Tensor."""
    check_tensor(name, arg, value)
    if value.shape != (c,):
        raise ValueError(f"For '{name}', the shape of '{arg}' must be ({c},) (one value per "
                         f"channel), but got {list(value.shape)}.")
    return value


def _update_running(stat, new_value):
    """Write new_value into a running-statistics Tensor/Parameter in place (not recorded)."""
    arr = np.asarray(new_value, dtype=stat._data.dtype)
    if stat._data.flags.writeable:
        stat._data[...] = arr
    else:
        stat._data = arr.copy()


def _batch_norm(name, x, running_mean, running_var, weight, bias, use_batch_stats, update,
                ms_momentum, eps, on_stats=None):
    """Shared body of nn.BatchNorm*d and ops.batch_norm.

    `ms_momentum` is MindSpore's nn convention: moving = m * moving + (1 - m) * batch.
    """
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the input must have at least 2 dimensions (N, C, ...), "
                         f"but got shape {list(x.shape)}.")
    c = x.shape[1]
    if weight is None:  # later MindSpore versions make weight / bias optional
        weight = Tensor._wrap(np.ones(c, dtype=x._data.dtype))
    if bias is None:
        bias = Tensor._wrap(np.zeros(c, dtype=x._data.dtype))
    for arg, v in (("running_mean", running_mean), ("running_var", running_var),
                   ("weight", weight), ("bias", bias)):
        _channel_vector(name, arg, v, c)
    if not use_batch_stats:
        bs = (1, c) + (1,) * (x.ndim - 2)
        # (x - mean) first, as torch: folding the mean into a shift loses digits when
        # |mean| >> std
        scale = weight * F.rsqrt(running_var + eps)
        return (x - F.reshape(running_mean, bs)) * F.reshape(scale, bs) + F.reshape(bias, bs)
    n = x.size // c
    if update and n < 2:
        raise ValueError(f"For '{name}', expected more than 1 value per channel when training, "
                         f"but got input shape {list(x.shape)}.")
    prim = N.BatchNormTrain(eps)
    out = apply(prim, x, weight, bias)
    if on_stats is not None:
        on_stats(prim)
    if update:
        m = ms_momentum
        unbiased = prim.batch_var * (n / (n - 1))
        _update_running(running_mean, m * running_mean._data + (1.0 - m) * prim.batch_mean)
        _update_running(running_var, m * running_var._data + (1.0 - m) * unbiased)
    return out


def batch_norm(input_x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over the channel axis 1 of an (N, C, ...) input.

    Note the momentum convention: this *functional* op follows torch's
    `running = (1 - momentum) * running + momentum * batch` (default 0.1), as MindSpore 2.x
    documents for `ops.batch_norm`; the `nn.BatchNorm*d` layers use the opposite convention
    (`moving = momentum * moving + (1 - momentum) * batch`, default 0.9). In training the running
    variance is updated with the unbiased batch variance; the output uses the biased one.

    Args:
        input_x (Tensor): (N, C) or (N, C, ...).
        running_mean, running_var (Tensor | Parameter): (C,); updated in place when `training`.
        weight, bias (Tensor | Parameter | None): (C,); None means ones / zeros.
        training (bool): batch statistics and running-statistics update when True.
        momentum (float): in [0, 1].
        eps (float): in (0, 1].

    Returns:
        Tensor with the shape of `input_x`.

    Example:
        >>> y = ops.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1)
    """
    check_float_tensor("batch_norm", "input_x", input_x)
    if not isinstance(training, bool):
        raise TypeError(f"For 'batch_norm', the 'training' must be bool, but got "
                        f"{type(training).__name__}.")
    momentum = check_number_range("batch_norm", "momentum", momentum, 0.0, 1.0)
    eps = check_number_range("batch_norm", "eps", eps, 0.0, 1.0, "(]")
    return _batch_norm("batch_norm", input_x, running_mean, running_var, weight, bias, training,
                       training, 1.0 - momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing `normalized_shape` axes, then `* weight + bias`.

    Example:
        >>> y = ops.layer_norm(x, (8,), w, b)
    """
    check_float_tensor("layer_norm", "input", input)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or k > input.ndim or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise ValueError(f"For 'layer_norm', the 'normalized_shape' {list(normalized_shape)} must "
                         f"equal the trailing dimensions of the input shape {list(input.shape)}.")
    return _affine(apply(N.Normalize(tuple(range(input.ndim - k, input.ndim)), eps), input),
                   weight, bias)


def _affine(out, weight, bias, shape=None):
    if weight is not None:
        out = out * (weight if shape is None else F.reshape(weight, shape))
    if bias is not None:
        out = out + (bias if shape is None else F.reshape(bias, shape))
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation of an (N, C, ...) input: statistics per sample over each group of
    C / num_groups channels and all spatial positions; `weight`, `bias` are per channel.

    Example:
        >>> y = ops.group_norm(x, 2, w, b)
    """
    check_float_tensor("group_norm", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'group_norm', the input must have at least 2 dimensions, but got "
                         f"shape {list(input.shape)}.")
    n, c = input.shape[0], input.shape[1]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0 \
            or c % num_groups:
        raise ValueError(f"For 'group_norm', the 'num_groups' must be a positive int that divides "
                         f"the number of channels {c}, but got {num_groups!r}.")
    grouped = F.reshape(input, (n, num_groups, -1))
    out = F.reshape(apply(N.Normalize((2,), eps), grouped), input.shape)
    return _affine(out, weight, bias, (1, c) + (1,) * (input.ndim - 2))


def instance_norm(input, weight=None, bias=None, eps=1e-5):
    """Per-sample, per-channel normalisation over the spatial axes (no running statistics)."""
    check_float_tensor("instance_norm", "input", input)
    axes = tuple(range(2, input.ndim))
    out = apply(N.Normalize(axes, eps), input)
    return _affine(out, weight, bias, (1, input.shape[1]) + (1,) * (input.ndim - 2))


# --- dropout ----------------------------------------------------------------------------------

_MASK_PROVIDER = [None]


def set_dropout_mask_provider(fn):
    """Install a global source of dropout masks (None restores random masks); returns the old one.

    `fn(shape, keep_prob)` must return an array of `shape` whose non-zero entries mark the kept
    elements (for channel dropout `shape` is (N, C, 1, ...)). The differential checker uses this
    to replay the exact mask the PyTorch run drew. A `mask_provider` set on a Dropout cell wins
    over the global one.
    """
    old = _MASK_PROVIDER[0]
    _MASK_PROVIDER[0] = fn
    return old


def _keep_mask(shape, keep_prob, provider=None):
    fn = provider if provider is not None else _MASK_PROVIDER[0]
    if fn is not None:
        mask = np.asarray(fn(tuple(shape), keep_prob))
        if mask.shape != tuple(shape):
            raise ValueError(f"For 'dropout', the mask provider must return an array of shape "
                             f"{list(shape)}, but got {list(mask.shape)}.")
        return mask != 0
    return _random.generator().random(shape) < keep_prob


def _apply_dropout(x, keep_prob, mask_shape, provider=None):
    """x * mask / keep_prob with a Bernoulli(keep_prob) keep-mask of `mask_shape` (broadcast)."""
    if keep_prob >= 1.0:
        return x
    keep = _keep_mask(mask_shape, keep_prob, provider)
    if keep_prob <= 0.0:
        scaled = np.zeros(mask_shape, dtype=x._data.dtype)
    else:
        scaled = keep.astype(x._data.dtype) * x._data.dtype.type(1.0 / keep_prob)
    return x * Tensor._wrap(scaled)


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability `p` and scale the rest by 1/(1-p) when `training`.

    MindSpore 2.x `ops.dropout` takes the drop probability `p` (like torch), whereas
    `nn.Dropout(keep_prob=...)` historically takes the keep probability. `seed` is accepted;
    masks come from the global generator (`ms.set_seed`).

    Example:
        >>> y = ops.dropout(x, p=0.2, training=True)
    """
    check_float_tensor("dropout", "input", input)
    if training is not False and isinstance(p, int):  # MindSpore 2.10: keep_prob = 1 - p must be a float
        raise TypeError('Failed calling Dropout with "Dropout(keep_prob=int, Seed0=int, Seed1=int)(x=Tensor)".')
    p = check_number_range("dropout", "p", p, 0.0, 1.0)
    if not training or p == 0.0:
        return input
    return _apply_dropout(input, 1.0 - p, input.shape)


def _channel_dropout(name, input, p, training, ndims):
    check_float_tensor(name, "input", input)
    p = check_number_range(name, "p", p, 0.0, 1.0)
    if input.ndim not in ndims:
        raise ValueError(f"For '{name}', the input must be {' or '.join(f'{d}D' for d in ndims)}, "
                         f"but got shape {list(input.shape)}.")
    if not training or p == 0.0:
        return input
    # an unbatched input (C, ...) drops channels of axis 0
    lead = 2 if input.ndim == max(ndims) else 1
    mask_shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    return _apply_dropout(input, 1.0 - p, mask_shape)


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, L) or (C, L) input with probability `p` (a float, as
    MindSpore 2.10 requires)."""
    if not isinstance(p, float):
        raise TypeError(f"For dropout1d, 'p' must be float, but got type {type(p)}.")
    return _channel_dropout("dropout1d", input, p, training, (2, 3))


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, H, W) input with probability `p`."""
    return _channel_dropout("dropout2d", input, p, training, (3, 4))


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, D, H, W) input with probability `p`."""
    return _channel_dropout("dropout3d", input, p, training, (4, 5))


# --- activations ------------------------------------------------------------------------------

def _act(name, prim, x):
    check_tensor(name, "input", x)
    if x._data.dtype.kind != "f":
        x = F.cast(x, mstype.float32)
    return apply(prim, x)


def relu6(x):
    """min(max(x, 0), 6)."""
    return _act("relu6", N.ReLU6(), x)


def leaky_relu(input, alpha=0.2):
    """x for x > 0, alpha * x otherwise. MindSpore's default alpha is 0.2 (torch's
    negative_slope default is 0.01)."""
    return _act("leaky_relu", N.LeakyReLU(float(check_number("leaky_relu", "alpha", alpha))), input)


def prelu(input, weight):
    """x for x > 0, weight * x otherwise; weight has 1 value or one per channel (axis 1)."""
    check_float_tensor("prelu", "x", input)
    check_float_tensor("prelu", "weight", weight)
    c = input.shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1 or weight.size not in (1, c):
        raise ValueError(f"For 'prelu', the 'weight' must be a 1-D Tensor of size 1 or the number "
                         f"of channels {c}, but got shape {list(weight.shape)}.")
    return apply(N.PReLU(), input, weight)


def elu(input_x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _act("elu", N.ELU(float(check_number("elu", "alpha", alpha))), input_x)


def gelu(input, approximate="none"):
    """x * Phi(x) ('none', exact erf form) or its tanh approximation ('tanh').

    `ops.gelu` defaults to the exact form like torch; `nn.GELU()` defaults to
    `approximate=True`, the tanh form.
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"For 'gelu', the 'approximate' must be 'none' or 'tanh', but got "
                         f"{approximate!r}.")
    return _act("gelu", N.GELU(approximate), input)


def silu(input):
    """x * sigmoid(x)."""
    return _act("silu", N.SiLU(), input)


def hardswish(input):
    """x * relu6(x + 3) / 6."""
    return _act("hardswish", N.HSwish(), input)


def hardsigmoid(input):
    """relu6(x + 3) / 6."""
    return _act("hardsigmoid", N.HSigmoid(), input)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta; linear where beta * x > threshold."""
    beta = float(check_number("softplus", "beta", beta))
    threshold = float(check_number("softplus", "threshold", threshold))
    return _act("softplus", N.Softplus(beta, threshold), input)


def mish(x):
    """x * tanh(softplus(x))."""
    return _act("mish", N.Mish(), x)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """clip(x, min_val, max_val)."""
    if min_val > max_val:
        raise ValueError(f"For 'hardtanh', the 'min_val' must not be greater than 'max_val', but "
                         f"got min_val={min_val}, max_val={max_val}.")
    return _act("hardtanh", N.Hardtanh(min_val, max_val), input)


def selu(input_x):
    """scale * (x for x > 0 else alpha * (exp(x) - 1)) with the self-normalising constants."""
    return _act("selu", N.SeLU(), input_x)


def softsign(x):
    """x / (1 + |x|)."""
    check_float_tensor("softsign", "x", x)
    return x / (F.abs(x) + 1.0)


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    check_float_tensor("logsigmoid", "x", x)
    return F.neg(softplus(F.neg(x)))


log_sigmoid = logsigmoid


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    check_float_tensor("hardshrink", "input", input)
    return F.where(F.abs(input) > lambd, input, F.zeros_like(input))


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    check_float_tensor("softshrink", "input", input)
    zeros = F.zeros_like(input)
    return F.where(input > lambd, input - lambd, F.where(input < -lambd, input + lambd, zeros))


# --- losses -----------------------------------------------------------------------------------

def _class_coefficients(name, input, target, weight, ignore_index, label_smoothing):
    """Coefficients a (input's shape) with loss = -sum_c a_c * logp_c for class-index targets,
    and the torch/MindSpore 'mean' divisor sum(weight[target]) over non-ignored samples."""
    axis = 1 if input.ndim >= 2 else 0
    c = input.shape[axis]
    expected = tuple(s for i, s in enumerate(input.shape) if i != axis)
    if tuple(target.shape) != expected:
        raise ValueError(f"For '{name}', the 'target' shape must be {list(expected)} for an input "
                         f"of shape {list(input.shape)} (class axis {axis}), but got "
                         f"{list(target.shape)}.")
    t = target._data.astype(np.int64)
    valid = t != ignore_index
    if np.any(valid & ((t < 0) | (t >= c))):
        bad = t[valid & ((t < 0) | (t >= c))][0]
        raise ValueError(f"For '{name}', every 'target' value must be in [0, {c}) or equal "
                         f"ignore_index={ignore_index}, but got {bad}.")
    dt = input._data.dtype
    w = np.ones(c, dtype=np.float64) if weight is None else weight._data.astype(np.float64)
    if w.shape != (c,):
        raise ValueError(f"For '{name}', the 'weight' must have shape ({c},), but got "
                         f"{list(w.shape)}.")
    idx = np.where(valid, t, 0)
    w_t = w[idx] * valid
    a = np.zeros(input.shape, dtype=np.float64)
    np.put_along_axis(a, np.expand_dims(idx, axis), np.expand_dims((1.0 - label_smoothing) * w_t, axis),
                      axis)
    if label_smoothing > 0:
        wshape = [1] * input.ndim
        wshape[axis] = c
        a += (label_smoothing / c) * w.reshape(wshape) * np.expand_dims(valid, axis)
    return Tensor._wrap(a.astype(dt)), float(w_t.sum()), axis


def _weighted_mean(loss, divisor):
    with np.errstate(invalid="ignore", divide="ignore"):
        return F.sum(loss) / divisor


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between logits `input` (N, C, ...) and class indices (N, ...) or class
    probabilities (same shape as input), computed as one fused log-softmax + NLL primitive.

    Same semantics as torch: with class indices, 'mean' divides by the summed weights of the
    non-ignored targets; label smoothing mixes in eps/C * sum_c w_c * (-logp_c). With
    probabilities, targets become (1 - eps) * t + eps / C and 'mean' divides by N·∏spatial.

    Example:
        >>> loss = ops.cross_entropy(logits, labels, label_smoothing=0.1)
    """
    check_float_tensor("cross_entropy", "input", input)
    check_tensor("cross_entropy", "target", target)
    check_string("cross_entropy", "reduction", reduction, _REDUCTIONS)
    ls = check_number_range("cross_entropy", "label_smoothing", label_smoothing, 0.0, 1.0)
    axis = 1 if input.ndim >= 2 else 0
    c = input.shape[axis]
    if target._data.dtype.kind == "f":
        if target.shape != input.shape:
            raise ValueError(f"For 'cross_entropy', class-probability targets must have the input "
                             f"shape {list(input.shape)}, but got {list(target.shape)}.")
        coef = target * (1.0 - ls) + ls / c if ls > 0 else target
        if weight is not None:
            wshape = [1] * input.ndim
            wshape[axis] = c
            coef = coef * F.reshape(weight, tuple(wshape))
        loss = apply(L.SoftmaxCrossEntropy(axis), input, F.cast(coef, input.dtype))
        return _reduce(loss, reduction)
    coef, divisor, axis = _class_coefficients("cross_entropy", input, target, weight,
                                              ignore_index, ls)
    loss = apply(L.SoftmaxCrossEntropy(axis), input, coef)
    if reduction == "mean":
        return _weighted_mean(loss, divisor)
    return _reduce(loss, reduction)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """Negative log-likelihood of log-probabilities `inputs` (N, C, ...) at class indices
    `target` (N, ...), with class weights, ignore_index and label smoothing as torch's
    cross-entropy ('mean' divides by the summed weights of the non-ignored targets).

    Example:
        >>> loss = ops.nll_loss(ops.log_softmax(logits, 1), labels)
    """
    check_float_tensor("nll_loss", "inputs", inputs)
    check_tensor("nll_loss", "target", target)
    check_string("nll_loss", "reduction", reduction, _REDUCTIONS)
    ls = check_number_range("nll_loss", "label_smoothing", label_smoothing, 0.0, 1.0)
    if target._data.dtype.kind == "f":
        raise TypeError("For 'nll_loss', the 'target' must hold integer class indices, but got "
                        f"{target.dtype}.")
    coef, divisor, axis = _class_coefficients("nll_loss", inputs, target, weight, ignore_index, ls)
    loss = F.neg(F.sum(inputs * coef, axis))
    if reduction == "mean":
        return _weighted_mean(loss, divisor)
    return _reduce(loss, reduction)


def _clamped_log(p):
    """max(log(p), -100) with finite gradients at p = 0 (log is only taken where p > 0)."""
    pos = p > 0
    safe = F.where(pos, p, F.ones_like(p))
    return F.maximum(F.where(pos, F.log(safe), F.full_like(p, -100.0)), -100.0)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-weight * (y * log(x) + (1 - y) * log(1 - x)) on probabilities `logits` in [0, 1].

    Each log is clamped at -100 (as torch), so x = 0 or 1 gives a finite loss.

    Example:
        >>> loss = ops.binary_cross_entropy(ops.sigmoid(z), y)
    """
    check_float_tensor("binary_cross_entropy", "logits", logits)
    check_tensor("binary_cross_entropy", "labels", labels)
    check_same_shape("binary_cross_entropy", "logits", logits, "labels", labels)
    check_string("binary_cross_entropy", "reduction", reduction, _REDUCTIONS)
    log_x = _clamped_log(logits)
    log_1mx = _clamped_log(1.0 - logits)
    loss = F.neg(labels * log_x + (1.0 - labels) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 * d² / beta where |d| < beta, else |d| - 0.5 * beta, d = input - target.

    MindSpore's default reduction here is 'none' (torch's is 'mean').
    """
    check_float_tensor("smooth_l1_loss", "input", input)
    check_tensor("smooth_l1_loss", "target", target)
    beta = float(check_number("smooth_l1_loss", "beta", beta, 0.0, inc="(]"))
    check_string("smooth_l1_loss", "reduction", reduction, _REDUCTIONS)
    d = input - target
    ad = F.abs(d)
    loss = F.where(ad < beta, d * d * (0.5 / beta), ad - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 * d² where |d| < delta, else delta * (|d| - 0.5 * delta)."""
    check_float_tensor("huber_loss", "input", input)
    delta = float(check_number("huber_loss", "delta", delta, 0.0, inc="(]"))
    check_string("huber_loss", "reduction", reduction, _REDUCTIONS)
    d = input - target
    ad = F.abs(d)
    loss = F.where(ad < delta, d * d * 0.5, (ad - 0.5 * delta) * delta)
    return _reduce(loss, reduction)


def mse_loss(input, target, reduction="mean"):
    """(input - target)², reduced."""
    check_float_tensor("mse_loss", "input", input)
    check_string("mse_loss", "reduction", reduction, _REDUCTIONS)
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, reduction="mean"):
    """|input - target|, reduced."""
    check_float_tensor("l1_loss", "input", input)
    check_string("l1_loss", "reduction", reduction, _REDUCTIONS)
    return _reduce(F.abs(input - target), reduction)


def kl_div(logits, labels, reduction="mean", log_target=False):
    """labels * (log(labels) - logits) with `logits` log-probabilities (0 where labels == 0).

    'mean' averages over every element (as torch's 'mean'); 'batchmean' divides the sum by the
    batch size, which is the mathematically correct KL divergence.
    """
    check_float_tensor("kl_div", "logits", logits)
    check_tensor("kl_div", "labels", labels)
    check_string("kl_div", "reduction", reduction, _REDUCTIONS + ["batchmean"])
    if log_target:
        loss = F.exp(labels) * (labels - logits)
    else:
        pos = labels > 0
        safe = F.where(pos, labels, F.ones_like(labels))
        loss = F.where(pos, labels * (F.log(safe) - logits), F.zeros_like(logits))
    if reduction == "batchmean":
        return F.sum(loss) / float(logits.shape[0] if logits.ndim else 1)
    return _reduce(loss, reduction)


# --- primitive classes (`ops.GeLU()(x)`, `ops.BatchNorm(...)(...)`, ...) ----------------------
# MindSpore code written against the operator classes: construct once with attributes, call
# with Tensors. Multi-output operators return the same tuples as MindSpore.

from .operations import PrimitiveOp as _PrimitiveOp  # noqa: E402


def _op_class(name, fn, doc):
    return type(name, (_PrimitiveOp,), {"__call__": lambda self, x: fn(x), "__doc__": doc})


ReLU6 = _op_class("ReLU6", relu6, "`ops.ReLU6()(x)`: min(max(x, 0), 6).")
GeLU = _op_class("GeLU", lambda x: gelu(x, "tanh"),
                 "`ops.GeLU()(x)`: the tanh approximation of GELU (as MindSpore's operator).")
HSwish = _op_class("HSwish", hardswish, "`ops.HSwish()(x)`: x * relu6(x + 3) / 6.")
HSigmoid = _op_class("HSigmoid", hardsigmoid, "`ops.HSigmoid()(x)`: relu6(x + 3) / 6.")
Mish = _op_class("Mish", mish, "`ops.Mish()(x)`: x * tanh(softplus(x)).")
SeLU = _op_class("SeLU", selu, "`ops.SeLU()(x)`.")
Softplus = _op_class("Softplus", softplus, "`ops.Softplus()(x)`: log(1 + exp(x)).")
Softsign = _op_class("Softsign", softsign, "`ops.Softsign()(x)`: x / (1 + |x|).")


class FastGeLU(_PrimitiveOp):
    """`ops.FastGeLU()(x)`: x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|))."""

    def __call__(self, x):
        ax = F.abs(x)
        return x / (F.exp(ax * -1.702) + 1.0) * F.exp((x - ax) * 0.851)


class Elu(_PrimitiveOp):
    """`ops.Elu(alpha=1.0)(x)`."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def __call__(self, x):
        return elu(x, self.alpha)


class PReLU(_PrimitiveOp):
    """`ops.PReLU()(x, weight)`."""

    def __call__(self, x, weight):
        return prelu(x, weight)


class Dropout(_PrimitiveOp):
    """`ops.Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)` -> (output, mask): always drops (the
    operator has no training flag; nn.Dropout skips it in inference). The mask is float 0/1."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        self.keep_prob = check_number_range("Dropout", "keep_prob", keep_prob, 0.0, 1.0, "(]")

    def _mask_shape(self, x):
        return x.shape

    def __call__(self, x):
        check_float_tensor(type(self).__name__, "x", x)
        shape = self._mask_shape(x)
        keep = _keep_mask(shape, self.keep_prob)
        scaled = keep.astype(x._data.dtype) * x._data.dtype.type(1.0 / self.keep_prob)
        out = x * Tensor._wrap(scaled)
        return out, Tensor._wrap(np.broadcast_to(keep, x.shape).astype(x._data.dtype))


class Dropout2D(Dropout):
    """`ops.Dropout2D(keep_prob=0.5)(x)` -> (output, mask) zeroing whole (N, C) channels of a
    4-D input; the mask is boolean, as MindSpore's."""

    _ndim = 4

    def __init__(self, keep_prob=0.5):
        super().__init__(keep_prob)

    def _mask_shape(self, x):
        if x.ndim != self._ndim:
            raise ValueError(f"For '{type(self).__name__}', the input must be {self._ndim}-D, "
                             f"but got shape {list(x.shape)}.")
        return tuple(x.shape[:2]) + (1,) * (x.ndim - 2)

    def __call__(self, x):
        out, mask = super().__call__(x)
        return out, F.cast(mask, mstype.bool_)


class Dropout3D(Dropout2D):
    """`ops.Dropout3D(keep_prob=0.5)(x)` for 5-D inputs."""

    _ndim = 5


class BatchNorm(_PrimitiveOp):
    """`ops.BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1)(x, scale, bias, mean,
    variance)` -> (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2).

    The operator's momentum is the weight of the NEW statistics (moving = (1 - momentum) *
    moving + momentum * batch), which is why nn.BatchNorm passes 1 - its own momentum. In
    training, `mean` / `variance` (Parameters) are updated in place with the unbiased variance.
    """

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        self.is_training = is_training
        self.epsilon = check_number_range("BatchNorm", "epsilon", epsilon, 0.0, 1.0, "(]")
        self.momentum = check_number_range("BatchNorm", "momentum", momentum, 0.0, 1.0)
        if data_format != "NCHW":
            raise ValueError(f"For 'BatchNorm', only data_format 'NCHW' is supported here, but "
                             f"got {data_format!r}.")

    def __call__(self, input_x, scale, bias, mean, variance):
        check_float_tensor("BatchNorm", "input_x", input_x)
        if not self.is_training:
            y = _batch_norm("BatchNorm", input_x, mean, variance, scale, bias, False, False, 0.0,
                            self.epsilon)
            return y, mean, variance, mean, variance
        c = input_x.shape[1]
        stats = {}

        def keep_stats(prim):
            stats["mean"], stats["var"] = prim.batch_mean, prim.batch_var

        y = _batch_norm("BatchNorm", input_x, mean, variance, scale, bias, True, True,
                        1.0 - self.momentum, self.epsilon, on_stats=keep_stats)
        bm = Tensor._wrap(stats["mean"].reshape(c))
        bv = Tensor._wrap(stats["var"].reshape(c))
        return y, bm, bv, bm, bv


class LayerNorm(_PrimitiveOp):
    """`ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta)`
    -> (y, mean, variance) with mean / variance kept as reduced axes of size 1."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon

    def __call__(self, input_x, gamma, beta):
        check_float_tensor("LayerNorm", "input_x", input_x)
        nd = input_x.ndim
        axes = tuple(range(self.begin_norm_axis % nd, nd))
        y = _affine(apply(N.Normalize(axes, self.epsilon), input_x), gamma, beta)
        data = input_x._data
        mean = np.mean(data, axis=axes, keepdims=True)
        var = np.mean(np.square(data - mean), axis=axes, keepdims=True)
        return y, Tensor._wrap(mean), Tensor._wrap(var.astype(data.dtype, copy=False))


class SoftmaxCrossEntropyWithLogits(_PrimitiveOp):
    """`ops.SoftmaxCrossEntropyWithLogits()(logits, labels)` -> (loss (N,), backprop (N, C))
    where backprop = softmax(logits) - labels."""

    def __call__(self, logits, labels):
        check_float_tensor("SoftmaxCrossEntropyWithLogits", "logits", logits)
        loss = apply(L.SoftmaxCrossEntropy(-1), logits, F.cast(labels, logits.dtype))
        return loss, F.stop_gradient(F.softmax(logits, -1) - labels)


class SparseSoftmaxCrossEntropyWithLogits(_PrimitiveOp):
    """`ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)`: the mean
    cross-entropy of (N, C) logits against class indices (N,)."""

    def __init__(self, is_grad=False):
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        return cross_entropy(logits, labels)


class NLLLoss(_PrimitiveOp):
    """`ops.NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight)` ->
    (loss, total_weight)."""

    def __init__(self, reduction="mean", ignore_index=-100):
        check_string("NLLLoss", "reduction", reduction, _REDUCTIONS)
        self.reduction = reduction
        self.ignore_index = ignore_index

    def __call__(self, logits, labels, weight):
        loss = nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        t = labels._data.astype(np.int64)
        valid = t != self.ignore_index
        total = float(np.sum(weight._data[np.where(valid, t, 0)] * valid))
        return loss, Tensor._wrap(np.asarray(total, dtype=logits._data.dtype))


class BinaryCrossEntropy(_PrimitiveOp):
    """`ops.BinaryCrossEntropy(reduction='mean')(logits, labels, weight=None)`."""

    def __init__(self, reduction="mean"):
        check_string("BinaryCrossEntropy", "reduction", reduction, _REDUCTIONS)
        self.reduction = reduction

    def __call__(self, logits, labels, weight=None):
        return binary_cross_entropy(logits, labels, weight, self.reduction)


class BCEWithLogitsLoss(_PrimitiveOp):
    """`ops.BCEWithLogitsLoss(reduction='mean')(logits, label, weight, pos_weight)`."""

    def __init__(self, reduction="mean"):
        check_string("BCEWithLogitsLoss", "reduction", reduction, _REDUCTIONS)
        self.reduction = reduction

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return F.binary_cross_entropy_with_logits(logits, label, weight, pos_weight,
                                                  self.reduction)


class SmoothL1Loss(_PrimitiveOp):
    """`ops.SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)`."""

    def __init__(self, beta=1.0, reduction="none"):
        self.beta, self.reduction = beta, reduction

    def __call__(self, logits, labels):
        return smooth_l1_loss(logits, labels, self.beta, self.reduction)


class KLDivLoss(_PrimitiveOp):
    """`ops.KLDivLoss(reduction='mean')(logits, labels)`."""

    def __init__(self, reduction="mean"):
        self.reduction = reduction

    def __call__(self, logits, labels):
        return kl_div(logits, labels, self.reduction)


__all__ += ["ReLU6", "GeLU", "FastGeLU", "HSwish", "HSigmoid", "Mish", "SeLU", "Softplus",
            "Softsign", "Elu", "PReLU", "Dropout", "Dropout2D", "Dropout3D", "BatchNorm",
            "LayerNorm", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
            "NLLLoss", "BinaryCrossEntropy", "BCEWithLogitsLoss", "SmoothL1Loss", "KLDivLoss"]
