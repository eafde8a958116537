"""Numerical comparison of two tensors, and a two-sample Kolmogorov–Smirnov test (pure NumPy).

`compare(ms_value, torch_value, rtol, atol)` is the one place where "how different are these two
arrays" is decided for the checker: every row of every report is a :class:`TensorStats`.
The reference side is always torch (the `b` of ``np.allclose(a, b)``): the pass rule is
``|a - b| <= atol + rtol * |b|`` element-wise, as NumPy's.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

# Below this magnitude a relative error is meaningless; used as the floor of the denominator
# of the symmetric relative error, so that 0 vs 0 is 0 and 0 vs 1e-30 is not 1.
_TINY = 1e-30
_MAX_POSITIONS = 5  # NaN/Inf positions listed per tensor (the count is always exact)


@dataclass
class TensorStats:
    """How far the converted model's tensor (`ms`) is from the reference (`torch`).

    Attributes:
        shape: the reference shape (the ms shape is in `note` when they differ).
        torch_mean, torch_std, ms_mean, ms_std: moments over the finite elements.
        max_abs: max |ms - torch|.
        max_rel: max |ms - torch| / max(|ms|, |torch|, 1e-30) (symmetric, zero-safe).
        mean_abs: mean |ms - torch| over all elements (not only the mismatched ones).
        cosine: cosine similarity of the flattened tensors (1.0 when both are all zeros).
        worst_index: the element furthest outside the tolerance (or with the largest abs error),
            with `worst_torch` / `worst_ms` its two values.
        nan_torch, nan_ms, inf_torch, inf_ms: counts; `nonfinite_positions` the first few
            positions where the two disagree about NaN/Inf.
        passed: np.allclose(ms, torch, rtol, atol) with NaN == NaN at the same position.
        min_rtol: the smallest rtol that passes at the given atol (inf if none does).
        min_atol: the smallest atol that passes at rtol=0 (= max_abs over finite elements).
        mismatched: how many elements fail the tolerance.
        note: shape/dtype mismatch or other remarks.
        explained: why a difference beyond the tolerance is accepted: '' (it is not, or there
            is none), 'float64' (ms is within NOISE_FACTOR of torch float32's own distance to
            torch float64), 'forward' (a gradient that torch's own backward reproduces on the
            converted model's forward values: float32 rounding in the forward, e.g. a ReLU at a
            value within rounding of 0), 'drift' (training state that a torch run started from
            the converted model's first gradients reaches as well).
        ms_to_f64, torch_to_f64: max |ms - torch float64| and max |torch float32 - torch
            float64| when a float64 reference was computed (None otherwise).
    """

    shape: list
    numel: int = 0
    torch_mean: float = 0.0
    torch_std: float = 0.0
    ms_mean: float = 0.0
    ms_std: float = 0.0
    max_abs: float = 0.0
    max_rel: float = 0.0
    mean_abs: float = 0.0
    cosine: float = 1.0
    worst_index: list = field(default_factory=list)
    worst_torch: float = 0.0
    worst_ms: float = 0.0
    nan_torch: int = 0
    nan_ms: int = 0
    inf_torch: int = 0
    inf_ms: int = 0
    nonfinite_positions: list = field(default_factory=list)
    passed: bool = True
    min_rtol: float = 0.0
    min_atol: float = 0.0
    mismatched: int = 0
    rtol: float = 0.0
    atol: float = 0.0
    note: str = ""
    explained: str = ""
    ms_to_f64: float | None = None
    torch_to_f64: float | None = None

    def to_dict(self) -> dict:
        """JSON-ready form (non-finite floats become strings 'inf' / 'nan')."""
        return {k: _jsonable(v) for k, v in asdict(self).items()}


def _jsonable(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    return v


def as_array(x) -> np.ndarray:
    """A NumPy array from a torch tensor, an ms_core Tensor, an array or a number."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch.Tensor
        return x.detach().cpu().numpy()
    if hasattr(x, "asnumpy"):  # ms_core / MindSpore Tensor
        return x.asnumpy()
    return np.asarray(x)


def _moments(x: np.ndarray) -> tuple[float, float]:
    if x.size == 0:
        return float("nan"), float("nan")
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        x = x[np.isfinite(x)]
        if x.size == 0:
            return float("nan"), float("nan")
    m = float(x.mean(dtype=np.float64))
    return m, float(x.std(dtype=np.float64))


def compare(ms_value, torch_value, rtol: float = 1e-4, atol: float = 1e-5) -> TensorStats:
    """Compare the converted model's tensor against the reference.

    Args:
        ms_value: the converted model's value (ms_core Tensor, array, or number).
        torch_value: the reference value (torch tensor, array, or number).
        rtol, atol: the tolerance, as in ``np.allclose(ms, torch, rtol, atol)``.

    Returns:
        A :class:`TensorStats`; a shape mismatch fails with a note and infinite errors.

    Example:
        >>> compare(np.array([1.0, 2.0]), np.array([1.0, 2.001]), 1e-4, 1e-5).passed
        False
    """
    a = np.asarray(as_array(ms_value))
    b = np.asarray(as_array(torch_value))
    st = TensorStats(shape=list(b.shape), numel=int(b.size), rtol=rtol, atol=atol)
    a, b = _comparable_dtypes(st, a, b)
    if a.shape != b.shape:
        if a.size != 1 or b.size != 1:
            return _shape_mismatch(st, a, b)
        a = a.reshape(b.shape)
    if b.size == 0:
        st.torch_mean = st.torch_std = st.ms_mean = st.ms_std = float("nan")
        return st
    # Work in the wider of the two float dtypes (at least float32): the statistics are reported
    # to 3 digits, so float32 differences are ample, and float64 would double the cost on big
    # gradient tensors. Every pass counts here (gradients of every parameter are compared).
    wt = np.result_type(a.dtype, b.dtype, np.float32)
    af = np.ravel(a.astype(wt, copy=False))
    bf = np.ravel(b.astype(wt, copy=False))
    if af.size >= _FAST_MIN and _fast_pass(st, af, bf, af.size, wt, atol, b.shape):
        return st
    sa, sb = float(af.sum(dtype=wt)), float(bf.sum(dtype=wt))  # pairwise sums
    # NaN/Inf anywhere make a sum non-finite: the cheap test first, the exact one if needed.
    all_finite = (math.isfinite(sa) and math.isfinite(sb)) or \
        (bool(np.isfinite(af).all()) and bool(np.isfinite(bf).all()))
    if all_finite:
        af_, bf_, bad_nonfinite = af, bf, None
    else:
        af_, bf_, bad_nonfinite = _finite_parts(st, af, bf, b.shape, wt)
    diff, babs = _errors(st, af_, bf_, bad_nonfinite is not None, wt)
    flat = _tolerance_verdict(st, diff, babs, bad_nonfinite, rtol, atol, wt)
    idx = np.unravel_index(flat, b.shape) if b.ndim else ()
    st.worst_index = [int(i) for i in idx]
    st.worst_torch = float(bf[flat])
    st.worst_ms = float(af[flat])
    # BLAS dot products (one pass, no temporaries). Their float32 rounding cannot push the
    # cosine of equal tensors off 1: (|a|² + |b|² - |a-b|²) / (2|a||b|) >= 1 - O(eps²) by AM-GM.
    saa, sbb = float(np.dot(af_, af_)), float(np.dot(bf_, bf_))
    if all_finite:  # moments from the same sums
        st.ms_mean, st.torch_mean = sa / af.size, sb / af.size
        st.ms_std = _std(af, saa, st.ms_mean)
        st.torch_std = _std(bf, sbb, st.torch_mean)
    st.cosine = float("nan") if bad_nonfinite is not None else \
        _cosine(saa, sbb, float(np.dot(diff, diff)))
    return st


def _comparable_dtypes(st, a, b):
    """Booleans as int8, integers as float64 (the dtype difference noted when one side is float
    and the other not, or the two floats differ)."""
    if a.dtype.kind == "b":
        a = a.astype(np.int8)
    if b.dtype.kind == "b":
        b = b.astype(np.int8)
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        if (a.dtype.kind == "f") != (b.dtype.kind == "f"):
            st.note = f"dtype: ms {a.dtype} vs torch {b.dtype}"
        a = a.astype(np.float64) if a.dtype.kind not in "fc" else a
        b = b.astype(np.float64) if b.dtype.kind not in "fc" else b
    elif a.dtype != b.dtype:
        st.note = f"dtype: ms {a.dtype} vs torch {b.dtype}"
    return a, b


def _shape_mismatch(st, a, b) -> TensorStats:
    st.torch_mean, st.torch_std = _moments(b)
    st.ms_mean, st.ms_std = _moments(a)
    st.note = f"shape mismatch: ms {list(a.shape)} vs torch {list(b.shape)}"
    st.passed = False
    st.max_abs = st.max_rel = st.mean_abs = st.min_atol = st.min_rtol = float("inf")
    st.cosine = float("nan")
    st.mismatched = max(a.size, b.size)
    return st


def _finite_parts(st, af, bf, shape, wt):
    """Tensors holding NaN/Inf: count them, find where the two sides disagree about them
    (NaN == NaN and the same infinity agree), and zero them out of the finite statistics.
    Returns (finite ms part, finite torch part, mask of disagreeing non-finite positions, or
    None when they all agree)."""
    st.torch_mean, st.torch_std = _moments(bf)
    st.ms_mean, st.ms_std = _moments(af)
    fa, fb = np.isfinite(af), np.isfinite(bf)
    st.nan_torch, st.nan_ms = int(np.isnan(bf).sum()), int(np.isnan(af).sum())
    st.inf_torch, st.inf_ms = int(np.isinf(bf).sum()), int(np.isinf(af).sum())
    both = fa & fb
    same_nonfinite = (~fa & ~fb) & ((np.isnan(af) & np.isnan(bf)) | (af == bf))
    bad_nonfinite = ~both & ~same_nonfinite
    nbad = int(bad_nonfinite.sum())
    if nbad:
        pos = np.argwhere(bad_nonfinite.reshape(shape))[:_MAX_POSITIONS]
        st.nonfinite_positions = [[int(i) for i in p] for p in pos]
    finite_a, finite_b = np.where(both, af, 0).astype(wt), np.where(both, bf, 0).astype(wt)
    return finite_a, finite_b, (bad_nonfinite if nbad else None)


def _errors(st, af_, bf_, nonfinite_differ, wt):
    """max abs, mean abs and max (symmetric, zero-safe) relative error; infinite when the two
    sides disagree about NaN/Inf. Returns (|ms - torch|, |torch|)."""
    n = af_.size
    diff = af_ - bf_
    np.abs(diff, out=diff)
    max_abs = float(diff.max())
    st.max_abs = max_abs if not nonfinite_differ else float("inf")
    st.mean_abs = float(diff.sum(dtype=wt)) / n if not nonfinite_differ else float("inf")
    st.min_atol = st.max_abs
    babs = np.abs(bf_)
    if nonfinite_differ:
        st.max_rel = float("inf")
    elif max_abs == 0.0:
        st.max_rel = 0.0
    else:
        mag = np.abs(af_)
        np.maximum(mag, babs, out=mag)
        np.maximum(mag, wt.type(1e-30), out=mag)
        np.divide(diff, mag, out=mag)
        st.max_rel = float(mag.max())
        del mag
    return diff, babs


def _tolerance_verdict(st, diff, babs, bad_nonfinite, rtol, atol, wt) -> int:
    """The pass rule ``|ms - torch| <= atol + rtol * |torch|`` element-wise (NaN/Inf must agree):
    `passed`, `mismatched`, the smallest passing rtol. Returns the flat index of the worst
    element: the one furthest outside the tolerance (in tolerances)."""
    nbad_nf = int(bad_nonfinite.sum()) if bad_nonfinite is not None else 0
    if st.max_abs <= atol and not nbad_nf:
        # Everything within atol alone (the common case): passed, nothing mismatched.
        st.passed, st.mismatched, st.min_rtol = True, 0, 0.0
        return int(np.argmax(diff))
    allowed = babs * wt.type(rtol)
    allowed += wt.type(atol)
    st.mismatched = int(np.count_nonzero(diff > allowed)) + nbad_nf
    st.passed = st.mismatched == 0
    # The smallest rtol at this atol: every element needs diff - atol <= rtol * |b|.
    need = diff - wt.type(atol)
    pos_need = need > 0
    if nbad_nf or (pos_need & (babs == 0)).any():
        st.min_rtol = float("inf")
    elif pos_need.any():
        st.min_rtol = float((need[pos_need] / babs[pos_need]).max())
    if nbad_nf:
        return int(np.flatnonzero(bad_nonfinite)[0])
    np.maximum(allowed, wt.type(1e-30), out=allowed)
    np.divide(diff, allowed, out=allowed)
    return int(np.argmax(allowed))


def _cosine(saa, sbb, sdd) -> float:
    """Cosine similarity from |a|², |b|² and |a - b|² (1.0 when both are all zeros)."""
    na, nb = math.sqrt(saa), math.sqrt(sbb)
    if na == 0.0 and nb == 0.0:
        return 1.0
    if na == 0.0 or nb == 0.0:
        return 0.0
    return max(-1.0, min(1.0, (saa + sbb - sdd) / (2.0 * na * nb)))


_CHUNK = 1 << 16
_FAST_MIN = 1 << 12  # below this, NumPy's per-call cost dominates either path


def _fast_pass(st, af, bf, n, wt, atol, shape) -> bool:
    """All-finite tensors within atol (the common case), in cache-sized chunks: no large
    temporaries (each would cost its page faults again on every gradient tensor), every sum
    taken while its chunk is in cache. Fills `st` and returns True; returns False (nothing
    decided) when some element is beyond atol or not finite."""
    m = min(n, _CHUNK)
    d, mag, ones = np.empty(m, wt), np.empty(m, wt), np.ones(m, wt)
    max_abs, arg, sdiff, max_rel, saa, sbb, sdd = -1.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0
    sa = sb = 0.0
    for s0 in range(0, n, _CHUNK):
        a_c, b_c = af[s0:s0 + _CHUNK], bf[s0:s0 + _CHUNK]
        k = a_c.size
        dc = d[:k]
        np.subtract(a_c, b_c, out=dc)
        np.abs(dc, out=dc)
        i = int(dc.argmax())
        v = float(dc[i])
        if v > atol:
            return False
        # sums as BLAS dot products with ones: twice as fast as NumPy's pairwise sum, and
        # accurate far beyond the 3 digits reported (each chunk's sum is added in float64)
        ca, cb = float(np.dot(a_c, ones[:k])), float(np.dot(b_c, ones[:k]))
        if not (math.isfinite(ca) and math.isfinite(cb)):  # NaN/Inf: the exact path
            return False
        sa += ca
        sb += cb
        if v > max_abs:
            max_abs, arg = v, s0 + i
        sdiff += float(np.dot(dc, ones[:k]))
        saa += float(np.dot(a_c, a_c))
        sbb += float(np.dot(b_c, b_c))
        if v > 0.0:
            sdd += float(np.dot(dc, dc))
            mc = mag[:k]
            np.add(a_c, b_c, out=mc)
            np.abs(mc, out=mc)
            np.add(mc, dc, out=mc)  # |a + b| + |a - b| = 2 max(|a|, |b|)
            with np.errstate(invalid="ignore"):
                np.divide(dc, mc, out=mc)  # 0/0 where both are 0: NaN, which fmax skips
            max_rel = max(max_rel, 2.0 * float(np.fmax.reduce(mc)))
    st.max_abs = st.min_atol = max_abs
    st.mean_abs = sdiff / n
    st.max_rel = max_rel
    st.passed, st.mismatched, st.min_rtol = True, 0, 0.0
    idx = np.unravel_index(arg, shape) if len(shape) else ()
    st.worst_index = [int(i) for i in idx]
    st.worst_torch, st.worst_ms = float(bf[arg]), float(af[arg])
    st.ms_mean, st.torch_mean = sa / n, sb / n
    st.ms_std = _std(af, saa, st.ms_mean)
    st.torch_std = _std(bf, sbb, st.torch_mean)
    st.cosine = _cosine(saa, sbb, sdd)
    return True


def _std(x, sxx, mean):
    var = sxx / x.size - mean * mean
    if var < 1e-3 * mean * mean:  # cancellation: a tensor close to a constant (e.g. ones)
        return float(x.std(dtype=np.float64))
    return math.sqrt(var)


def quick_pass(ms_value, torch_value, rtol, atol) -> bool:
    """np.allclose-like yes/no in one pass (used where only the verdict matters)."""
    a = np.asarray(as_array(ms_value))
    b = np.asarray(as_array(torch_value))
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)) or
                    np.allclose(a, b, rtol, atol, equal_nan=True))


# How far beyond torch float32's own error (against torch float64) the converted model may be
# and still count as float32 rounding: the two sides round differently (NumPy's pairwise sums and
# OpenBLAS GEMMs against oneDNN/MKL), so either may be the more accurate one by a few times; a
# conversion fault is orders of magnitude beyond (see tests/migrate/check/test_noise_floor.py).
NOISE_FACTOR = 4.0


def float64_explains(st, ms_value, torch_value, f64_value, factor=NOISE_FACTOR) -> TensorStats:
    """Accept an ms value that failed the tolerance when it is no further from torch's float64
    result than `factor` times torch float32's own distance to it, in max and in mean absolute
    error: on deep, ill-conditioned networks float32 alone moves values past any fixed tolerance.

    Args:
        st: the comparison of the ms value against torch float32 (updated and returned).
        ms_value, torch_value, f64_value: the ms value, torch's float32 and float64 values (the
            same structure; nested outputs are compared leaf by leaf, concatenated).
        factor: the allowed ratio of the two errors.

    Returns:
        `st` with `ms_to_f64` and `torch_to_f64` set, and, if it failed and the ms error is
        within the factor, `passed`, `explained='float64'` and a note giving both figures.

    Example:
        >>> f64 = np.linspace(-1, 1, 5); t32 = f64 + 1e-3; ms = f64 - 1.5e-3
        >>> float64_explains(compare(ms, t32), ms, t32, f64).passed
        True
    """
    a, t, r = _flat_float(ms_value), _flat_float(torch_value), _flat_float(f64_value)
    if a is None or t is None or r is None or not (a.shape == t.shape == r.shape) or not a.size:
        return st
    with np.errstate(invalid="ignore"):
        e_ms, e_t = np.abs(a - r), np.abs(t - r)
    if not (np.isfinite(e_ms).all() and np.isfinite(e_t).all()):
        return st
    st.ms_to_f64, st.torch_to_f64 = float(e_ms.max()), float(e_t.max())
    if st.passed:
        return st
    if st.torch_to_f64 > 0 and st.ms_to_f64 <= factor * st.torch_to_f64 and \
            float(e_ms.mean()) <= factor * float(e_t.mean()):
        st.passed, st.explained = True, "float64"
        st.note = ((st.note + "; ") if st.note else "") + (
            f"float32 noise: ms is {st.ms_to_f64:.3g} from torch float64, torch float32 "
            f"{st.torch_to_f64:.3g} (within {factor:g}x)")
    return st


def drift_explains(st, ms_value, torch_value, shadow_value, factor=NOISE_FACTOR) -> TensorStats:
    """Accept an ms value that failed the tolerance when it is no further from torch's than
    `factor` times the distance of `shadow_value` (a torch run that differs from torch's only by
    an accepted float32 difference, grown) from it, in max and in mean absolute error.

    Returns:
        `st`, passed with `explained='drift'` and a note giving both figures when accepted.

    Example:
        >>> t = np.ones(4); ms = t + 1e-3; shadow = t - 2e-3
        >>> drift_explains(compare(ms, t), ms, t, shadow).passed
        True
    """
    a, t, h = _flat_float(ms_value), _flat_float(torch_value), _flat_float(shadow_value)
    if st.passed or a is None or t is None or h is None or not (a.shape == t.shape == h.shape) \
            or not a.size:
        return st
    with np.errstate(invalid="ignore"):
        e_ms, e_sh = np.abs(a - t), np.abs(h - t)
    if not (np.isfinite(e_ms).all() and np.isfinite(e_sh).all()) or not e_sh.max() > 0:
        return st
    if e_ms.max() <= factor * e_sh.max() and e_ms.mean() <= factor * e_sh.mean():
        st.passed, st.explained = True, "drift"
        st.note = ((st.note + "; ") if st.note else "") + (
            f"float32 drift: torch started from ms_core's first gradients ends "
            f"{e_sh.max():.3g} from torch, ms_core {e_ms.max():.3g} (within {factor:g}x)")
    return st


def _leaves(value) -> list:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if value is None or isinstance(value, (str, bytes)):
        return []
    return [value]


def _flat_float(value):
    """All floating-point leaves of a (nested) value, flattened and concatenated, as float64."""
    leaves = _leaves(value)
    arrays = []
    for leaf in leaves:
        arr = np.asarray(as_array(leaf))
        if arr.dtype.kind != "f":
            continue
        arrays.append(arr.astype(np.float64).ravel())
    if not arrays:
        return None
    return np.concatenate(arrays) if len(arrays) > 1 else arrays[0]


# --- two-sample Kolmogorov–Smirnov ------------------------------------------------------------

@dataclass
class KSResult:
    """Two-sample KS test of torch's vs the converted model's initial values of one parameter.

    `statistic` is sup |F_torch - F_ms|; `pvalue` the asymptotic two-sided p-value; `differs`
    is pvalue < alpha, or (where KS has little power: small tensors) one side constant and the
    other not, or, with 16+ values, standard deviations more than 4x apart; `reason` says which.
    """

    statistic: float
    pvalue: float
    n_torch: int
    n_ms: int
    differs: bool
    torch_mean: float = 0.0
    torch_std: float = 0.0
    ms_mean: float = 0.0
    ms_std: float = 0.0
    reason: str = ""

    def to_dict(self) -> dict:
        return {k: _jsonable(v) for k, v in asdict(self).items()}


def kolmogorov_sf(lam: float) -> float:
    """P(K > lam) for the Kolmogorov distribution: 2 Σ_{k≥1} (-1)^{k-1} exp(-2 k² lam²)."""
    if lam <= 0.0:
        return 1.0
    if lam < 0.2:
        # The alternating series converges slowly here; the value is 1 to double precision
        # (the complementary series sqrt(2π)/lam Σ exp(-(2k-1)²π²/(8 lam²)) is < 1e-50).
        return 1.0
    if lam < 1.0:
        # Complementary form converges fast for small lam: P(K <= lam).
        s = 0.0
        for k in range(1, 30):
            s += math.exp(-((2 * k - 1) ** 2) * math.pi ** 2 / (8.0 * lam * lam))
        cdf = math.sqrt(2.0 * math.pi) / lam * s
        return min(max(1.0 - cdf, 0.0), 1.0)
    s = 0.0
    for k in range(1, 101):
        term = math.exp(-2.0 * k * k * lam * lam)
        s += term if k % 2 else -term
        if term < 1e-300:
            break
    return min(max(2.0 * s, 0.0), 1.0)


def ks_2samp(x, y, alpha: float = 1e-3) -> KSResult:
    """Two-sample Kolmogorov–Smirnov test with the asymptotic p-value (no SciPy).

    Args:
        x: the reference sample (torch's initial values), any shape (flattened).
        y: the other sample (the converted model's initial values).
        alpha: significance level for `differs`.

    Returns:
        A :class:`KSResult`. The p-value is the limiting Kolmogorov distribution at
        (√ne + 0.12 + 0.11/√ne)·D with ne = n·m/(n+m) (Stephens' correction); it agrees with
        `scipy.stats.ks_2samp(method='asymp')` to a few percent of the p-value.

    Example:
        >>> ks_2samp(np.zeros(100), np.ones(100)).differs
        True
    """
    a = np.sort(np.asarray(as_array(x), dtype=np.float64).ravel())
    b = np.sort(np.asarray(as_array(y), dtype=np.float64).ravel())
    n, m = a.size, b.size
    res = KSResult(0.0, 1.0, n, m, False)
    if n == 0 or m == 0:
        return res
    res.torch_mean, res.torch_std = float(a.mean()), float(a.std())
    res.ms_mean, res.ms_std = float(b.mean()), float(b.std())
    pooled = np.concatenate([a, b])
    # ECDFs evaluated at every pooled point, right-continuous: ties count on both sides at once.
    cdf_a = np.searchsorted(a, pooled, side="right") / n
    cdf_b = np.searchsorted(b, pooled, side="right") / m
    d = float(np.max(np.abs(cdf_a - cdf_b)))
    en = math.sqrt(n * m / (n + m))
    res.statistic = d
    # Stephens' small-sample correction of the limiting distribution's argument.
    res.pvalue = kolmogorov_sf((en + 0.12 + 0.11 / en) * d)
    if res.pvalue < alpha:
        res.differs, res.reason = True, f"KS p={res.pvalue:.2g} < {alpha:g}"
    elif (a[0] == a[-1]) != (b[0] == b[-1]) and min(n, m) >= 4:
        # e.g. zeros vs a random init: certain, whatever the size (KS needs ~20 values)
        res.differs, res.reason = True, "one side is constant, the other is not"
    elif min(n, m) >= 16 and min(res.torch_std, res.ms_std) > 0 and \
            max(res.torch_std, res.ms_std) > 4 * min(res.torch_std, res.ms_std):
        res.differs, res.reason = True, (f"standard deviations {res.torch_std:.3g} (torch) and "
                                         f"{res.ms_std:.3g} (ms) are more than 4x apart")
    return res
