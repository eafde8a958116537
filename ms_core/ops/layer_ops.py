"""Functional ops behind the activation, normalisation, shuffle and loss layers that have no
primitive of their own (MindSpore 2.10 names and signatures): `ops.celu`, `ops.threshold`,
`ops.softmin`, `ops.glu`, `ops.rrelu`, `ops.channel_shuffle`, `ops.lrn`, `ops.lp_pool1d/2d`,
`ops.bidense`, and the margin / embedding / likelihood losses.

Every op is a composition of ms_core ops, so its backward is made of differentiable ops and
grad(grad(...)) works. The formulas are torch's (MindSpore 2.10 computes the same, checked on the
CPU kernels); where MindSpore 2.10 differs from torch it is said in the docstring.
"""
import math

import numpy as np

from .._checkparam import check_float_tensor, check_int, check_number
from ..common.tensor import Tensor
from . import conv_ops as CO
from . import functional as F
from . import nn_ops as NF
from . import random_ops as R

__all__ = ["celu", "threshold", "softmin", "glu", "rrelu", "channel_shuffle", "lrn", "lp_pool1d",
           "lp_pool2d", "bidense", "cosine_embedding_loss", "margin_ranking_loss",
           "soft_margin_loss", "triplet_margin_loss", "hinge_embedding_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "gaussian_nll_loss"]


def _reduce(loss, reduction, name):
    return F._reduce(loss, reduction, name)


# --- activations ------------------------------------------------------------------------------

def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Example:
        >>> y = ops.celu(x, alpha=0.5)
    """
    check_float_tensor("celu", "x", x)
    alpha = float(check_number("celu", "alpha", alpha))
    if alpha == 0:
        raise ValueError("For 'celu', the 'alpha' must not be 0.")
    return F.relu(x) + F.minimum(F.exp(x / alpha) - 1.0, 0.0) * alpha


def threshold(input, thr, value):
    """x where x > thr, else `value` (torch's Threshold(threshold, value))."""
    check_float_tensor("threshold", "input", input)
    return F.where(input > thr, input, F.full_like(input, value))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along `axis`."""
    x = x if dtype is None else F.cast(x, dtype)
    return F.softmax(F.neg(x), axis)


def glu(x, axis=-1):
    """a * sigmoid(b) where (a, b) are the two halves of x along `axis` (of even length)."""
    check_float_tensor("glu", "x", x)
    ax = axis % x.ndim if -x.ndim <= axis < x.ndim else axis
    if not isinstance(ax, int) or not 0 <= ax < x.ndim:
        raise ValueError(f"For 'glu', the 'axis' must be in range [{-x.ndim}, {x.ndim}), but got "
                         f"{axis}.")
    if x.shape[ax] % 2:
        raise ValueError(f"For 'glu', the dimension {ax} of the input must be even, but got shape "
                         f"{list(x.shape)}.")
    a, b = F.split(x, x.shape[ax] // 2, ax)
    return a * F.sigmoid(b)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """x for x >= 0, a * x otherwise with a ~ U(lower, upper) drawn per element on every call.

    MindSpore-vs-torch: MindSpore 2.10 draws the slopes in inference mode too; torch's RReLU uses
    the fixed slope (lower + upper) / 2 there.
    """
    check_float_tensor("rrelu", "input", input)
    if lower > upper:
        raise ValueError(f"For 'rrelu', the 'lower' must not be greater than 'upper', but got "
                         f"lower={lower}, upper={upper}.")
    slopes = R.uniform(input.shape, Tensor(float(lower)), Tensor(float(upper)), dtype=input.dtype)
    return F.where(input >= 0, input, input * slopes)


# --- shuffles and normalisation ---------------------------------------------------------------

def channel_shuffle(x, groups):
    """(N, g*c, ...) -> (N, c*g, ...): the channels of the g groups interleaved."""
    groups = check_int("channel_shuffle", "groups", groups, 1)
    if x.ndim < 3 or x.shape[1] % groups:
        raise ValueError(f"For 'channel_shuffle', the input must have at least 3 dimensions and a "
                         f"channel count divisible by 'groups' {groups}, but got shape "
                         f"{list(x.shape)}.")
    n, c = x.shape[:2]
    rest = tuple(x.shape[2:])
    y = F.reshape(x, (n, groups, c // groups) + rest)
    perm = (0, 2, 1) + tuple(range(3, y.ndim))
    return F.reshape(F.transpose(y, perm), (n, c) + rest)


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels, MindSpore's (TensorFlow's) form:
    x / (bias + alpha * sum_{c' in [c - r, c + r]} x_c'^2) ^ beta.

    torch's LocalResponseNorm(size=2r+1, alpha, beta, k) is lrn(r, k, alpha / size, beta).
    """
    check_float_tensor("lrn", "x", x)
    depth_radius = check_int("lrn", "depth_radius", depth_radius, 0)
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'lrn', the 'norm_region' must be 'ACROSS_CHANNELS', but got "
                         f"{norm_region!r}.")
    if x.ndim != 4:
        # MindSpore 2.10's LRN takes (N, C, H, W) only (checked); torch's takes any rank >= 3
        raise ValueError(f"For primitive[LRN], the rank of input must be equal to 4, but got "
                         f"{x.ndim}.")
    n, c = x.shape[:2]
    band = np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]) <= depth_radius
    sq = F.reshape(x * x, (n, c, -1))
    window = F.reshape(F.matmul(Tensor._wrap(band.astype(x._data.dtype)), sq), x.shape)
    return x / F.pow(window * float(alpha) + float(bias), float(beta))


def _lp(avg, norm_type, area):
    """torch's (sign(s) * relu(|s|)) * area) ^ (1 / p) of the window means s."""
    return F.pow(F.sign(avg) * F.relu(F.abs(avg)) * float(area), 1.0 / float(norm_type))


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over each window of x^p) ^ (1/p), stride defaults to the kernel.

    Example:
        >>> y = ops.lp_pool2d(x, 2, 3, 2)
    """
    k = CO.int_tuple("lp_pool2d", "kernel_size", kernel_size)
    s = k if stride is None else CO.int_tuple("lp_pool2d", "stride", stride)
    avg = CO.avg_pool2d(F.pow(x, float(norm_type)), k, s, 0, ceil_mode)
    return _lp(avg, norm_type, k[0] * k[1])


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of (N, C, L) or (C, L), as lp_pool2d along L."""
    (k,) = CO.int_tuple("lp_pool1d", "kernel_size", kernel_size, 1)
    (s,) = (k,) if stride is None else CO.int_tuple("lp_pool1d", "stride", stride, 1)
    avg = CO.avg_pool1d(F.pow(x, float(norm_type)), k, s, 0, ceil_mode)
    return _lp(avg, norm_type, k)


def bidense(input1, input2, weight, bias=None):
    """y_o = x1 W_o x2^T + b_o with weight (out, in1, in2), torch's Bilinear."""
    check_float_tensor("bidense", "input1", input1)
    lead = tuple(input1.shape[:-1])
    x1 = F.reshape(input1, (-1, input1.shape[-1]))
    x2 = F.reshape(input2, (-1, input2.shape[-1]))
    o, i1, i2 = weight.shape
    t = F.matmul(x1, F.reshape(F.transpose(weight, (1, 0, 2)), (i1, o * i2)))   # (B, out*in2)
    y = F.sum(F.reshape(t, (-1, o, i2)) * F.expand_dims(x2, 1), 2)
    if bias is not None:
        y = y + bias
    return F.reshape(y, lead + (o,))


# --- losses -----------------------------------------------------------------------------------

_EPS = 1e-12   # torch's cosine_embedding_loss epsilon


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.

    Example:
        >>> loss = ops.cosine_embedding_loss(a, b, y, margin=0.2)
    """
    name = "cosine_embedding_loss"
    check_float_tensor(name, "input1", input1)
    prod = F.sum(input1 * input2, -1)
    mag = F.sqrt((F.sum(input1 * input1, -1) + _EPS) * (F.sum(input2 * input2, -1) + _EPS))
    cos = prod / mag
    y = F.cast(target, cos.dtype)
    loss = F.where(y == 1, 1.0 - cos, F.zeros_like(cos)) + \
        F.where(y == -1, F.relu(cos - float(margin)), F.zeros_like(cos))
    return _reduce(loss, reduction, name)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (x1 - x2) + margin)."""
    name = "margin_ranking_loss"
    check_float_tensor(name, "input1", input1)
    y = F.cast(target, input1.dtype)
    return _reduce(F.relu(F.neg(y) * (input1 - input2) + float(margin)), reduction, name)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * x)), computed stably."""
    name = "soft_margin_loss"
    check_float_tensor(name, "input", input)
    z = F.neg(F.cast(target, input.dtype) * input)
    return _reduce(NF.softplus(z), reduction, name)


def _pairwise_distance(x1, x2, p, eps):
    """||x1 - x2 + eps||_p over the last axis (torch's pairwise_distance)."""
    d = x1 - x2 + eps
    if p == 2:
        return F.sqrt(F.sum(d * d, -1))
    if p == 1:
        return F.sum(F.abs(d), -1)
    return F.pow(F.sum(F.pow(F.abs(d), float(p)), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0), d the p-norm distance (`swap`: d(a, n) replaced by
    min(d(a, n), d(p, n)))."""
    name = "triplet_margin_loss"
    check_float_tensor(name, "anchor", anchor)
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(F.relu(d_pos - d_neg + float(margin)), reduction, name)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """x where target is 1, max(0, margin - x) where it is -1 (torch's two where-terms)."""
    name = "hinge_embedding_loss"
    check_float_tensor(name, "inputs", inputs)
    zeros = F.zeros_like(inputs)
    y = targets if isinstance(targets, Tensor) else Tensor(targets)
    loss = F.where(y != 1, F.relu(float(margin) - inputs), zeros) + F.where(y != -1, inputs, zeros)
    return _reduce(loss, reduction, name)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Per sample: sum over classes j != y of max(0, margin - x_y + x_j)^p * w_y / C."""
    name = "multi_margin_loss"
    check_float_tensor(name, "input", input)
    if p not in (1, 2):
        raise ValueError(f"For '{name}', the 'p' must be 1 or 2, but got {p}.")
    x = input if input.ndim == 2 else F.expand_dims(input, 0)
    idx = np.asarray(target._data if isinstance(target, Tensor) else target).reshape(-1)
    n, c = x.shape
    onehot = Tensor._wrap(np.eye(c, dtype=x._data.dtype)[idx])
    x_y = F.sum(x * onehot, 1, True)
    z = F.relu(x - x_y + float(margin)) * (1.0 - onehot)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * F.expand_dims(F.gather(weight, Tensor._wrap(idx), 0), 1)
    loss = F.sum(z, 1) / float(c)
    return _reduce(loss if input.ndim == 2 else F.squeeze(loss, 0), reduction, name)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """-mean_c (y log sigmoid(x) + (1 - y) log sigmoid(-x)) per sample, class weights optional."""
    name = "multilabel_soft_margin_loss"
    check_float_tensor(name, "input", input)
    y = F.cast(target, input.dtype)
    loss = F.neg(y * NF.logsigmoid(input) + (1.0 - y) * NF.logsigmoid(F.neg(input)))
    if weight is not None:
        loss = loss * weight
    return _reduce(F.mean(loss, -1), reduction, name)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) with `full`).

    As torch, the clamp of `var` at `eps` is not differentiated (the gradient reaches var as if
    unclamped), and a var with one dimension less, or a last dimension of 1, broadcasts.
    """
    name = "gaussian_nll_loss"
    check_float_tensor(name, "x", x)
    if var.ndim == x.ndim - 1 and var.shape == x.shape[:-1]:
        var = F.expand_dims(var, -1)
    elif var.shape != x.shape and not (var.shape[:-1] == x.shape[:-1] and var.shape[-1] == 1):
        raise ValueError(f"For '{name}', the 'var' must have the input's shape {list(x.shape)}, "
                         f"one dimension less, or a last dimension of 1, but got "
                         f"{list(var.shape)}.")
    if np.any(var._data < 0):
        raise ValueError(f"For '{name}', the 'var' must be non-negative.")
    var = var + F.stop_gradient(F.maximum(var, float(eps)) - var)
    d = x - target
    loss = (F.log(var) + d * d / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, name)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):
    """exp(x) - t x (log_input) or x - t log(x + eps); `full` adds Stirling's t log t - t +
    0.5 log(2 pi t) where t > 1."""
    name = "poisson_nll_loss"
    check_float_tensor(name, "input", input)
    t = F.cast(target, input.dtype)
    if log_input:
        loss = F.exp(input) - t * input
    else:
        loss = input - t * F.log(input + float(eps))
    if full:
        big = t > 1
        safe = F.where(big, t, F.ones_like(t))
        stirling = safe * F.log(safe) - safe + F.log(safe * (2 * math.pi)) * 0.5
        loss = loss + F.where(big, stirling, F.zeros_like(t))
    return _reduce(loss, reduction, name)
