"""Initializers (`ms_core.common.initializer`), as in `mindspore.common.initializer`.

Every random draw comes from the global generator (`ms.set_seed`), so a seeded script initialises
the same weights on every run. Values are drawn in float64 and cast once to the target dtype.

MindSpore vs PyTorch, in short:
  - `Normal(sigma=0.01)` and `Uniform(scale=0.07)` take a standard deviation / a symmetric bound,
    where torch's `normal_(mean, std)` / `uniform_(a, b)` take the interval;
  - `HeUniform` / `HeNormal` default to `negative_slope=0, nonlinearity='leaky_relu'`
    (gain sqrt(2)), like torch's `kaiming_uniform_` / `kaiming_normal_` defaults;
  - fans follow torch's `_calculate_fan_in_and_fan_out`: fan_in = shape[1] * receptive field,
    fan_out = shape[0] * receptive field; fewer than 2 dimensions is an error in both.
"""
import copy
import math
import numbers

import numpy as np

from . import dtype as mstype
from .tensor import Tensor
from .._checkparam import check_number
from .. import _random
from .._registry import ops

__all__ = ["Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform",
           "HeNormal", "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity",
           "Orthogonal", "Dirac", "VarianceScaling", "Sparse"]

_ALIASES = {}


def _register(*aliases):
    """Class decorator: register the lower-cased class name and `aliases` for `initializer(str)`."""
    def deco(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _ALIASES.setdefault(name, cls)
        return cls
    return deco


def _register_alias(name, cls):
    _ALIASES[name.lower()] = cls


class Initializer:
    """Base class of initializers: `__call__(arr)` fills a NumPy array in place.

    Subclass it MindSpore's way, overriding `_initialize(self, arr)` and writing into `arr`
    (`arr[:] = ...`). `initializer(init, shape, dtype)` binds a shape and dtype; `init_data()`
    then draws the Tensor.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self.shape = None
        self.dtype = mstype.float32

    def _initialize(self, arr):
        raise NotImplementedError(f"For '{type(self).__name__}', override _initialize(self, arr).")

    def _fill(self, arr):
        self._initialize(arr)

    def __call__(self, arr):
        self._fill(arr)
        return arr

    def init_data(self, slice_index=None, shape=None):
        """Draw the values as a Tensor of the bound shape and dtype."""
        if self.shape is None:
            raise ValueError(f"For '{type(self).__name__}', the shape is unknown; use "
                             f"initializer({type(self).__name__}(), shape, dtype).")
        arr = np.zeros(self.shape, dtype=np.float64)
        self._fill(arr)
        return Tensor._wrap(arr.astype(mstype.to_np(self.dtype)))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _gen():
    return _random.generator()


# --- fans and gains ----------------------------------------------------------------------------
def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out) as MindSpore and torch compute them.

    Dense weight (out, in): (in, out). Conv weight (out, in/group, *kernel): each times the
    receptive field prod(kernel). Shapes with fewer than 2 dimensions raise ValueError, as in both
    MindSpore and torch (a bias has no fan of its own; layers derive its bound from the weight).
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for tensor with fewer than 2 "
                         f"dimensions, but got dimensions {len(shape)}.")
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode, cls_name="HeUniform"):
    if not isinstance(mode, str) or mode.lower() not in ("fan_in", "fan_out"):
        raise ValueError(f"For '{cls_name}', the 'mode' must be 'fan_in' or 'fan_out', but got "
                         f"{mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode.lower() == "fan_in" else fan_out


_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain of a nonlinearity, as torch's / MindSpore's `calculate_gain`.

    linear / conv* / sigmoid: 1; tanh: 5/3; relu: sqrt(2); leaky_relu: sqrt(2 / (1 + slope²))
    with slope `param` (default 0.01); selu: 3/4.

    Raises:
        ValueError: unknown nonlinearity, or a non-number slope for leaky_relu.
    """
    if nonlinearity in _LINEAR_FNS:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "selu":
        return 3.0 / 4
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, numbers.Real):
            slope = param
        else:
            raise ValueError(f"For 'calculate_gain', the 'negative_slope' must be an int or float "
                             f"when 'nonlinearity' is 'leaky_relu', but got {param!r}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"For 'calculate_gain', the 'nonlinearity' must be one of "
                     f"{list(_LINEAR_FNS) + ['tanh', 'relu', 'leaky_relu', 'selu']}, but got "
                     f"{nonlinearity!r}.")


_calculate_gain = calculate_gain


# --- constants ---------------------------------------------------------------------------------
@_register("zeros", "zero")
class Zero(Initializer):
    """All zeros."""

    def _initialize(self, arr):
        arr[...] = 0


@_register("ones", "one")
class One(Initializer):
    """All ones."""

    def _initialize(self, arr):
        arr[...] = 1


class Constant(Initializer):  # no string alias, as in MindSpore (it needs a value)
    """Every element equal to `value` (a number, or an array broadcastable to the shape)."""

    def __init__(self, value):
        super().__init__(value=value)
        if isinstance(value, bool) or not isinstance(value, (numbers.Number, np.ndarray)):
            raise TypeError(f"For 'Constant', the 'value' must be a number or numpy.ndarray, but "
                            f"got {type(value).__name__}.")
        self.value = value

    def _initialize(self, arr):
        arr[...] = self.value


# --- random --------------------------------------------------------------------------------------
@_register()
class Normal(Initializer):
    """N(mean, sigma²). MindSpore's default is sigma=0.01 (torch's `normal_` default std is 1)."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = check_number("Normal", "sigma", sigma, 0, finite=True)
        self.mean = check_number("Normal", "mean", mean, finite=True)

    def _initialize(self, arr):
        arr[...] = _gen().normal(self.mean, self.sigma, arr.shape)


@_register()
class Uniform(Initializer):
    """U(-scale, scale). MindSpore's default is scale=0.07 (torch's `uniform_` default is U(0, 1))."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = check_number("Uniform", "scale", scale, 0, finite=True)

    def _initialize(self, arr):
        arr[...] = _gen().uniform(-self.scale, self.scale, arr.shape)


def _std_normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _truncated_standard_normal(gen, lo, hi, n):
    """n draws of N(0, 1) restricted to [lo, hi] (standardised bounds), by rejection."""
    mass = _std_normal_cdf(hi) - _std_normal_cdf(lo)
    out = np.empty(n, dtype=np.float64)
    filled = 0
    if mass >= 0.05:
        # Plain rejection from N(0, 1): at least 5% acceptance.
        while filled < n:
            need = n - filled
            draw = gen.standard_normal(int(need / mass * 1.1) + 16)
            draw = draw[(draw >= lo) & (draw <= hi)][:need]
            out[filled:filled + len(draw)] = draw
            filled += len(draw)
        return out
    # Narrow or far-tail interval: uniform proposals on [lo, hi'] accepted with probability
    # pdf(x) / max pdf on the interval. hi' cuts the far tail where the density ratio is < e^-40.
    flip = hi <= 0  # work on the positive side; mirror at the end
    if flip:
        lo, hi = -hi, -lo
    peak = max(lo, 0.0)  # lo is finite here: an infinite lo would leave mass >= 0.05
    hi_eff = min(hi, math.sqrt(peak * peak + 80.0))
    lo_eff = lo
    while filled < n:
        need = n - filled
        x = gen.uniform(lo_eff, hi_eff, 4 * need + 16)
        keep = gen.random(x.shape) < np.exp(-(x * x - peak * peak) / 2.0)
        x = x[keep][:need]
        out[filled:filled + len(x)] = x
        filled += len(x)
    return -out if flip else out


@_register()
class TruncatedNormal(Initializer):
    """N(mean, sigma²) restricted to [a, b] (bounds in absolute values, like torch's
    `trunc_normal_(mean, std, a, b)`); out-of-range draws are re-drawn.

    MindSpore 2.x signature and defaults: sigma=0.01, mean=0.0, a=-2.0, b=2.0 — note that with the
    default sigma the ±2 bounds are 200 standard deviations away, so the default is in effect an
    untruncated N(0, 0.01²) (MindSpore 2.0's docs describe "within 2 standard deviations"; the
    2.x implementation and this one take `a`, `b` as values).
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = check_number("TruncatedNormal", "sigma", sigma, 0, inc="(]", finite=True)
        self.mean = check_number("TruncatedNormal", "mean", mean, finite=True)
        for name, v in (("a", a), ("b", b)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(v):
                raise TypeError(f"For 'TruncatedNormal', the '{name}' must be a float, but got {v!r}.")
        if not a < b:
            raise ValueError(f"For 'TruncatedNormal', the 'a' must be less than 'b', but got a={a}, "
                             f"b={b}.")
        self.a, self.b = a, b

    def _initialize(self, arr):
        lo, hi = (self.a - self.mean) / self.sigma, (self.b - self.mean) / self.sigma
        z = _truncated_standard_normal(_gen(), lo, hi, arr.size)
        arr[...] = np.clip(self.mean + self.sigma * z, self.a, self.b).reshape(arr.shape)


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)) (torch's `xavier_uniform_`)."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = check_number("XavierUniform", "gain", gain, 0, finite=True)

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        arr[...] = _gen().uniform(-bound, bound, arr.shape)


@_register("xavier_normal")
class XavierNormal(Initializer):
    """N(0, std²), std = gain * sqrt(2 / (fan_in + fan_out)) (torch's `xavier_normal_`)."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = check_number("XavierNormal", "gain", gain, 0, finite=True)

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        std = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        arr[...] = _gen().normal(0.0, std, arr.shape)


class _HeBase(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        name = type(self).__name__
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if isinstance(negative_slope, bool) or not isinstance(negative_slope, numbers.Real):
            raise TypeError(f"For '{name}', the 'negative_slope' must be an int or float, but got "
                            f"{type(negative_slope).__name__}.")
        if not isinstance(mode, str) or mode.lower() not in ("fan_in", "fan_out"):
            raise ValueError(f"For '{name}', the 'mode' must be 'fan_in' or 'fan_out', but got "
                             f"{mode!r}.")
        calculate_gain(nonlinearity, negative_slope)  # validates early, not at draw time
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _std(self, shape):
        fan = _calculate_correct_fan(shape, self.mode, type(self).__name__)
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_register("he_uniform")
class HeUniform(_HeBase):
    """Kaiming uniform: U(-bound, bound), bound = gain * sqrt(3 / fan_mode), gain from
    `nonlinearity` and `negative_slope` (torch's `kaiming_uniform_(a=negative_slope, mode,
    nonlinearity)`; `HeUniform(math.sqrt(5))` is torch's default Linear/Conv weight init)."""

    def _initialize(self, arr):
        bound = math.sqrt(3.0) * self._std(arr.shape)
        arr[...] = _gen().uniform(-bound, bound, arr.shape)


@_register("he_normal")
class HeNormal(_HeBase):
    """Kaiming normal: N(0, std²), std = gain / sqrt(fan_mode) (torch's `kaiming_normal_`)."""

    def _initialize(self, arr):
        arr[...] = _gen().normal(0.0, self._std(arr.shape), arr.shape)


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (`np.eye(rows, cols)`)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"For 'Identity' initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {arr.ndim}.")
        arr[...] = np.eye(*arr.shape)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`; trailing dimensions are flattened."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = check_number("Orthogonal", "gain", gain, finite=True)

    def _initialize(self, arr):
        if arr.ndim < 2:
            raise ValueError(f"For 'Orthogonal' initializer, the dimension of the initialized "
                             f"tensor should be no less than 2, but got {arr.ndim}.")
        rows = arr.shape[0]
        cols = arr.size // rows
        flat = _gen().standard_normal((rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))  # makes the decomposition unique (uniform over O(n))
        if rows < cols:
            q = q.T
        arr[...] = (self.gain * q).reshape(arr.shape)


@_register()
class Dirac(Initializer):
    """Dirac delta for 3-, 4- or 5-D conv weights: convolution is identity (per group)."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"For 'Dirac', the 'groups' must be a positive int, but got {groups!r}.")
        self.groups = groups

    def _initialize(self, arr):
        if arr.ndim not in (3, 4, 5):
            raise ValueError(f"For 'Dirac' initializer, only tensors of dimension 3, 4 or 5 are "
                             f"supported, but got {arr.ndim}.")
        if arr.shape[0] % self.groups:
            raise ValueError(f"For 'Dirac' initializer, the first dimension {arr.shape[0]} must be "
                             f"divisible by groups {self.groups}.")
        arr[...] = 0
        per_group = arr.shape[0] // self.groups
        centre = tuple(s // 2 for s in arr.shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, arr.shape[1])):
                arr[(g * per_group + d, d) + centre] = 1


@_register()
class VarianceScaling(Initializer):
    """Variance scale / n with n = fan_in, fan_out or their mean: 'untruncated_normal' draws
    N(0, scale / n), 'uniform' draws U(±sqrt(3 scale / n)).

    'truncated_normal' (the default) draws the *uniform* distribution, as MindSpore 2.10 does:
    its implementation compares the argument with 'truncated_norm', which never matches, and falls
    through to the uniform branch. ms_core reproduces that so converted models initialise alike;
    the variance (scale / n) is the same either way.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        check_number("VarianceScaling", "scale", scale, 0, inc="(]", finite=True)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', the 'mode' must be 'fan_in', 'fan_out' or "
                             f"'fan_avg', but got {mode!r}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"For 'VarianceScaling', the 'distribution' must be 'uniform', "
                             f"'truncated_normal' or 'untruncated_normal', but got {distribution!r}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "untruncated_normal":
            arr[...] = _gen().normal(0.0, math.sqrt(scale), arr.shape)
        else:
            limit = math.sqrt(3.0 * scale)
            arr[...] = _gen().uniform(-limit, limit, arr.shape)


@_register()
class Sparse(Initializer):
    """2-D: N(0, sigma²) with ceil(sparsity * rows) entries of every column set to zero."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        check_number("Sparse", "sparsity", sparsity, 0, finite=True)
        if sparsity > 1:
            raise ValueError(f"For 'Sparse', the 'sparsity' must be in [0, 1], but got {sparsity}.")
        self.sparsity = sparsity
        self.sigma = check_number("Sparse", "sigma", sigma, 0, finite=True)

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"For 'Sparse' initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {arr.ndim}.")
        rows, cols = arr.shape
        data = _gen().normal(0.0, self.sigma, arr.shape)
        zeros = int(math.ceil(self.sparsity * rows))
        for c in range(cols):
            data[_gen().permutation(rows)[:zeros], c] = 0.0
        arr[...] = data


def _normalize_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For 'initializer', the 'shape' must be an int, tuple or list of ints, but "
                        f"got {type(shape).__name__}.")
    for v in shape:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
            raise ValueError(f"For 'initializer', the argument 'shape' is invalid, the value of "
                             f"'shape' must be positive integer, but got {list(shape)}.")
    return tuple(int(v) for v in shape)


def initializer(init, shape=None, dtype=mstype.float32):
    """Create a Tensor of `shape` and `dtype` initialised by `init`, as MindSpore's `initializer`.

    MindSpore returns a lazily initialised Tensor; here the values are drawn at once (from the
    global generator, so `ms.set_seed` makes them reproducible). `.init_data()` on the result
    returns the Tensor itself, so code written for either form works.

    Args:
        init: an Initializer, an alias string ('normal', 'zeros', 'he_uniform', 'xavier_uniform',
            'truncatednormal', ...; case-insensitive), a number (Constant), a Tensor (copied,
            keeping its dtype, as MindSpore returns it unchanged) or a numpy array (cast to dtype).
        shape: int, or tuple/list of positive ints.
        dtype: a MindSpore dtype.

    Raises:
        TypeError: `init` of another type.
        ValueError: unknown alias, a missing or non-positive shape, or a Tensor whose shape
            differs from `shape`.

    Example:
        >>> initializer("ones", (2, 3), ms.float32)
        Tensor(shape=[2, 3], dtype=Float32, value=
        [[ 1.00000000e+00,  1.00000000e+00,  1.00000000e+00],
         [ 1.00000000e+00,  1.00000000e+00,  1.00000000e+00]])
    """
    shape = _normalize_shape(shape)
    if isinstance(init, (Tensor, np.ndarray)):
        arr = init._data if isinstance(init, Tensor) else init
        if shape is not None and tuple(arr.shape) != shape:
            raise ValueError(f"For 'initializer', the shape of the 'init' argument should be same as "
                             f"the argument 'shape', but got the 'init' shape {list(arr.shape)} and "
                             f"the 'shape' {list(shape)}.")
        if isinstance(init, Tensor):
            return Tensor._wrap(arr.copy())
        return Tensor._wrap(arr.astype(mstype.to_np(dtype), copy=True))
    if isinstance(init, str):
        key = init.lower()
        if key not in _ALIASES:
            raise ValueError(f"For 'initializer', the 'init' string must be one of "
                             f"{sorted(_ALIASES)}, but got {init!r}.")
        init = _ALIASES[key]()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', the type of the 'init' argument should be 'Tensor', "
                        f"'number', 'string' or 'initializer', but got {type(init).__name__}.")
    if shape is None:
        shape = init.shape
    if shape is None:
        raise ValueError(f"For 'initializer', the 'shape' must be given to initialise with "
                         f"{type(init).__name__}, e.g. initializer({type(init).__name__}(), (3, 4)).")
    # Draw from a copy bound to this shape/dtype: the caller's Initializer object stays unbound.
    bound = copy.copy(init)
    bound.shape = shape
    bound.dtype = dtype
    return bound.init_data()


ops.register("initializer", initializer)  # for Tensor(shape=, init=), which loads before this module
