"""Random ops with MindSpore 2.x signatures, drawn from ms_core's global generator (`ms.set_seed`).

A `seed` argument gives a reproducible draw independent of the global stream, as MindSpore's
per-op seed does; the streams are NumPy's, so values differ from MindSpore's own.
"""
import numpy as np

from .. import _random
from ..common import dtype as mstype
from ..common.tensor import Tensor

__all__ = ["randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "randperm",
           "normal", "uniform", "bernoulli", "multinomial"]


def get_rng_state():
    """`ms.get_rng_state()`: the state of the global generator, as a uint8 Tensor that
    :func:`set_rng_state` restores (not an `ops` function: MindSpore has it at the top level).

    Example:
        >>> s = ms.get_rng_state(); a = ops.rand(2); ms.set_rng_state(s); b = ops.rand(2)  # a == b
    """
    return Tensor(_random.state_bytes())


def set_rng_state(state):
    """`ms.set_rng_state(state)`: restore the global generator to a state :func:`get_rng_state` gave.

    Raises:
        TypeError: ``state`` is not a uint8 Tensor of get_rng_state's length.
    """
    arr = state.asnumpy() if isinstance(state, Tensor) else None
    if arr is None or arr.dtype != np.uint8 or arr.shape != (_random.STATE_BYTES,):
        got = f"{type(state).__name__} {getattr(arr, 'dtype', '')} {getattr(arr, 'shape', '')}".strip()
        raise TypeError(f"For 'set_rng_state', the 'state' must be a uint8 Tensor of shape ({_random.STATE_BYTES},) "
                        f"given by get_rng_state(), but got {got}.")
    _random.set_state_bytes(arr)


def _gen(seed):
    return np.random.default_rng(seed) if seed is not None else _random.generator()


def _size(size, name):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"For '{name}', the 'size' must be non-negative ints, but got {size}.")
    return tuple(int(s) for s in size)


def _float_dtype(dtype, name):
    np_dtype = mstype.to_np(dtype or mstype.float32)
    if np_dtype.kind != "f":
        raise TypeError(f"For '{name}', the 'dtype' must be a float type, but got {dtype}.")
    return np_dtype


def randn(*size, dtype=None, seed=None):
    """Standard normal samples of shape `size`."""
    return Tensor._wrap(_gen(seed).standard_normal(_size(size, "randn")).astype(_float_dtype(dtype, "randn")))


def rand(*size, dtype=None, seed=None):
    """Uniform samples on [0, 1) of shape `size`."""
    return Tensor._wrap(_gen(seed).random(_size(size, "rand")).astype(_float_dtype(dtype, "rand")))


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform on [low, high) of shape `size` (Int64 by default)."""
    if low >= high:
        raise ValueError(f"For 'randint', 'low' must be less than 'high', but got {low} and {high}.")
    out = _gen(seed).integers(low, high, _size((size,), "randint"))
    return Tensor._wrap(out.astype(mstype.to_np(dtype or mstype.int64)))


def randn_like(input, seed=None, *, dtype=None):
    return randn(*input.shape, dtype=dtype or input.dtype, seed=seed)


def rand_like(input, seed=None, *, dtype=None):
    return rand(*input.shape, dtype=dtype or input.dtype, seed=seed)


def randint_like(input, low, high, seed=None, *, dtype=None):
    return randint(low, high, input.shape, seed, dtype=dtype or input.dtype)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of 0..n-1 (MindSpore's default seed is 0: the global stream)."""
    return Tensor._wrap(_gen(seed or None).permutation(int(n)).astype(mstype.to_np(dtype)))


def normal(shape, mean, stddev, seed=None):
    """``mean + stddev * z`` with ``z`` standard normal samples of shape ``shape``, broadcast as
    MindSpore 2.10 does: a shape smaller than mean's repeats the samples across the rest
    (``normal((), mean, std)`` is one sample). Float32 unless a Tensor mean/stddev is float64."""
    m = mean.asnumpy() if isinstance(mean, Tensor) else mean
    s = stddev.asnumpy() if isinstance(stddev, Tensor) else stddev
    z = _gen(seed).standard_normal(_size((shape,), "normal"))
    dtype = np.result_type(*[a.dtype for a in (m, s) if isinstance(a, np.ndarray) and a.dtype.kind == "f"],
                           np.float32)
    return Tensor._wrap(np.asarray(m + s * z).astype(dtype))


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    lo = minval.asnumpy() if isinstance(minval, Tensor) else minval
    hi = maxval.asnumpy() if isinstance(maxval, Tensor) else maxval
    return Tensor._wrap(_gen(seed).uniform(lo, hi, _size((shape,), "uniform")).astype(mstype.to_np(dtype)))


def bernoulli(input, p=0.5, seed=None):
    """1 with probability p (a number or a Tensor broadcast to input's shape), else 0."""
    prob = p.asnumpy() if isinstance(p, Tensor) else p
    draw = _gen(seed).random(input.shape) < prob
    return Tensor._wrap(draw.astype(input.asnumpy().dtype))


def multinomial(input, num_samples, replacement=True, seed=None):
    """Indices drawn from each row's (unnormalised) probabilities."""
    probs = np.atleast_2d(input.asnumpy()).astype(np.float64)
    gen = _gen(seed)
    rows = [gen.choice(probs.shape[1], num_samples, replace=replacement, p=row / row.sum())
            for row in probs]
    out = np.stack(rows).astype(np.int32)   # Int32, as MindSpore 2.10
    return Tensor._wrap(out if input.ndim > 1 else out[0])
