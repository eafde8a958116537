"""Neural-network functions of MindSpore 2.x's ``ops`` that the torch.nn.functional mappings
need: spatial sampling (grid_sample, affine_grid), similarities and distances, gumbel_softmax,
tanhshrink, and the margin / embedding / likelihood losses. Each has MindSpore's name and
signature and is composed of differentiable ops, so gradients (and gradients of gradients) flow
to every float input.
"""
import numpy as np

from ..common.tensor import Tensor
from . import functional as F
from . import math_func as MF
from .nn_ops import logsigmoid
from .random_ops import rand_like

__all__ = ["grid_sample", "affine_grid", "cosine_similarity", "pdist", "gumbel_softmax", "tanhshrink",
           "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss"]

_GRID_MODES = ("bilinear", "nearest")
_PADDING_MODES = ("zeros", "border", "reflection")


def _unnormalize(coord, size, align_corners):
    """Grid coordinates in [-1, 1] -> pixel coordinates (torch's convention)."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Reflect coordinates into [twice_low / 2, twice_high / 2] (differentiable almost everywhere)."""
    if twice_low == twice_high:
        return F.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = F.abs(coord - low)
    extra = MF.fmod(dist, span)
    flips = F.floor(dist / span)
    even = F.floor_mod(flips, 2) == 0
    return F.where(even, extra + low, span - extra + low)


def _source_coordinates(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = F.clamp(coord, 0.0, size - 1.0)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        coord = F.clamp(coord, 0.0, size - 1.0)
    return coord


def _corner(channels_last, batch, yi, xi, h, w):
    """input[n, yi, xi, :] where (yi, xi) is inside the image, else 0; and the in-bounds mask."""
    inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    values = F.getitem(channels_last, (batch, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)))
    return values, inside


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) at the (x, y) locations of ``grid`` (N, Ho, Wo, 2) in [-1, 1],
    as torch's F.grid_sample: 'bilinear' or 'nearest' interpolation; 'zeros', 'border' or
    'reflection' outside; ``align_corners`` None means False. Differentiable in input and grid.

    Raises:
        ValueError: for another mode, padding_mode, or shapes that do not fit.
    """
    if mode not in _GRID_MODES:
        raise ValueError(f"For 'grid_sample', the 'mode' must be one of {list(_GRID_MODES)}, but got {mode!r}.")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"For 'grid_sample', the 'padding_mode' must be one of {list(_PADDING_MODES)}, "
                         f"but got {padding_mode!r}.")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise ValueError(f"For 'grid_sample', the input must be (N, C, H, W) and the grid (N, Ho, Wo, 2), "
                         f"but got {list(input.shape)} and {list(grid.shape)}.")
    align = bool(align_corners)
    n, _, h, w = input.shape
    grid = F.cast(grid, input.dtype)
    ix = _source_coordinates(grid[..., 0], w, padding_mode, align)
    iy = _source_coordinates(grid[..., 1], h, padding_mode, align)
    channels_last = F.transpose(input, (0, 2, 3, 1))
    batch = np.arange(n).reshape(n, 1, 1)
    if mode == "nearest":
        xi, yi = np.round(ix.asnumpy()).astype(np.int64), np.round(iy.asnumpy()).astype(np.int64)
        values, inside = _corner(channels_last, batch, yi, xi, h, w)
        out = values * Tensor._wrap(inside[..., None].astype(input._data.dtype))
        return F.transpose(out, (0, 3, 1, 2))
    x0 = np.floor(ix.asnumpy()).astype(np.int64)
    y0 = np.floor(iy.asnumpy()).astype(np.int64)
    wx1 = ix - Tensor._wrap(x0.astype(input._data.dtype))
    wy1 = iy - Tensor._wrap(y0.astype(input._data.dtype))
    out = None
    for dy, wy in ((0, 1 - wy1), (1, wy1)):
        for dx, wx in ((0, 1 - wx1), (1, wx1)):
            values, inside = _corner(channels_last, batch, y0 + dy, x0 + dx, h, w)
            weight = wy * wx * Tensor._wrap(inside.astype(input._data.dtype))
            term = values * F.expand_dims(weight, -1)
            out = term if out is None else out + term
    return F.transpose(out, (0, 3, 1, 2))


def _base_coordinates(size, align_corners, dtype):
    steps = np.arange(size, dtype=np.float64)
    if align_corners:
        coords = steps * (2.0 / (size - 1)) - 1 if size > 1 else np.zeros(1)
    else:
        coords = (steps * 2 + 1) / size - 1
    return coords.astype(dtype)


def affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps ``theta`` (N, 2, 3)
    (or (N, 3, 4)) for an output of ``size`` (N, C, H, W) (or (N, C, D, H, W)), as torch's
    F.affine_grid; differentiable in theta."""
    size = tuple(int(s) for s in size)
    if theta.ndim != 3 or (len(size), theta.shape[1:]) not in ((4, (2, 3)), (5, (3, 4))) \
            or theta.shape[0] != size[0]:
        raise ValueError(f"For 'affine_grid', theta must be (N, 2, 3) with a 4-D size or (N, 3, 4) with a "
                         f"5-D size, but got {list(theta.shape)} and {list(size)}.")
    dtype = theta._data.dtype
    spatial = size[2:]
    axes = [_base_coordinates(s, align_corners, dtype) for s in spatial[::-1]]   # x, y (, z)
    mesh = np.meshgrid(*axes, indexing="xy") if len(spatial) == 2 else \
        [m.transpose(2, 0, 1) for m in np.meshgrid(*axes, indexing="xy")]
    base = np.stack(list(mesh) + [np.ones(spatial, dtype=dtype)], axis=-1)      # (..., k + 1)
    flat = Tensor._wrap(base.reshape(1, -1, base.shape[-1]))
    grid = F.matmul(F.broadcast_to(flat, (size[0],) + flat.shape[1:]), F.swapaxes(theta, 1, 2))
    return F.reshape(grid, (size[0],) + spatial + (len(spatial),))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / max(|x1| * |x2|, eps) along ``dim`` (broadcast), as torch's."""
    a, b = F._as_tensor(x1), F._as_tensor(x2)
    dot = F.sum(a * b, dim)
    norms = F.sqrt(F.sum(F.square(a), dim) * F.sum(F.square(b), dim))
    return dot / F.maximum(norms, eps)


def pdist(input, p=2.0):
    """The p-norm distances between every pair of rows i < j of a 2-D input, as a vector."""
    x = F._as_tensor(input)
    rows, cols = np.triu_indices(x.shape[0], 1)
    diff = F.getitem(x, rows) - F.getitem(x, cols)
    if p == 2.0:
        return F.sqrt(F.sum(F.square(diff), -1))
    return F.norm(diff, float(p), -1)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """Samples from the Gumbel-softmax distribution: softmax((logits + g) / tau) along ``dim`` with
    g Gumbel noise; ``hard`` gives one-hot samples whose gradient is the soft sample's."""
    x = F._as_tensor(logits)
    u = rand_like(x)
    gumbel = F.neg(F.log(F.neg(F.log(u * (1 - 1e-10) + 1e-20))))
    soft = F.softmax((x + gumbel) / tau, dim)
    if not hard:
        return soft
    index = np.argmax(soft.asnumpy(), axis=dim)
    one_hot = np.moveaxis(np.eye(x.shape[dim], dtype=x._data.dtype)[index], -1, dim % x.ndim)
    return Tensor._wrap(one_hot) - F.stop_gradient(soft) + soft


def tanhshrink(input):
    """input - tanh(input)."""
    x = F._as_tensor(input)
    return x - F.tanh(x)


# --- losses (MindSpore 2.10's names and signatures; the formulas are torch's) ---------------------

def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), reduced.

    Args:
        input1, input2: float Tensors of one shape (broadcast).
        target: a Tensor of 1 and -1 (which input should rank higher).
        margin: a float.
        reduction: 'mean', 'sum' or 'none'.

    Returns:
        A 0-d Tensor, or the elementwise losses for 'none'.

    Raises:
        ValueError: for another reduction.

    Example:
        >>> ops.margin_ranking_loss(Tensor([1.0]), Tensor([2.0]), Tensor([1.0]))  # 1.0
    """
    loss = F.relu(-target * (input1 - input2) + margin)
    return F._reduce(loss, reduction, "margin_ranking_loss")


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)) (softplus, stable for large values), reduced."""
    return F._reduce(F.softplus(-target * input), reduction, "soft_margin_loss")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets is 1, max(0, margin - inputs) where it is -1 (torch's formula:
    both terms where targets is neither), reduced."""
    zeros = F.zeros_like(inputs)
    loss = F.where(targets != 1, F.relu(margin - inputs), zeros) + F.where(targets != -1, inputs, zeros)
    return F._reduce(loss, reduction, "hinge_embedding_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the cosine
    over the last axis with torch's 1e-12 guard on each squared norm, reduced."""
    dot = F.sum(input1 * input2, -1)
    norms = F.sqrt((F.sum(input1 * input1, -1) + 1e-12) * (F.sum(input2 * input2, -1) + 1e-12))
    cos = dot / norms
    zeros = F.zeros_like(cos)
    loss = F.where(target == 1, 1 - cos, zeros) + F.where(target == -1, F.relu(cos - margin), zeros)
    return F._reduce(loss, reduction, "cosine_embedding_loss")


def _pairwise(a, b, p, eps):
    return F.norm(a - b + eps, p, -1)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the p-norm distance over
    the last axis (eps added to the difference, as torch); ``swap`` takes the smaller of
    d(anchor, negative) and d(positive, negative). Reduced."""
    d_pos = _pairwise(anchor, positive, p, eps)
    d_neg = _pairwise(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise(positive, negative, p, eps))
    return F._reduce(F.relu(margin + d_pos - d_neg), reduction, "triplet_margin_loss")


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 * (log(var) + (x - target)^2 / var) (+ 0.5 * log(2 pi) when ``full``), with var clamped
    to eps in value only (torch clamps without recording it, so the gradient passes unchanged).
    ``var`` may lack x's last axis or have size 1 there."""
    if var.ndim == x.ndim - 1 or (var.ndim == x.ndim and var.shape[-1] == 1 and x.shape[-1] != 1):
        var = var if var.ndim == x.ndim else F.expand_dims(var, -1)
    if F._as_tensor(var)._data.min() < 0:
        raise ValueError("For 'gaussian_nll_loss', 'var' has negative entries.")
    var = var + F.stop_gradient(F.clamp(var, min=eps) - var)
    loss = 0.5 * (F.log(var) + (x - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * float(np.log(2 * np.pi))
    return F._reduce(loss, reduction, "gaussian_nll_loss")


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """-(target * log σ(input) + (1 - target) * log σ(-input)), times ``weight``, averaged over
    the classes (the last axis), then reduced over the batch."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return F._reduce(F.mean(loss, -1), reduction, "multilabel_soft_margin_loss")
