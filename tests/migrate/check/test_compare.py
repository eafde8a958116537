"""Per-tensor statistics and the two-sample KS test of the checker."""
import math

import numpy as np
import pytest

from migrate.check.compare import compare, kolmogorov_sf, ks_2samp, quick_pass

f32 = np.float32


def test_identical_tensors_pass_with_zero_error():
    x = np.arange(6, dtype=f32).reshape(2, 3)
    st = compare(x, x.copy())
    assert st.passed and st.max_abs == 0 and st.max_rel == 0 and st.mean_abs == 0
    assert st.cosine == pytest.approx(1.0) and st.mismatched == 0
    assert st.min_rtol == 0 and st.min_atol == 0


def test_pass_rule_is_numpy_allclose_with_torch_as_reference():
    ref = np.array([1.0, 100.0, 0.0], f32)
    ms = ref + np.array([1e-5, 1e-3, 0.0], f32)
    for rtol, atol in [(1e-4, 1e-5), (1e-6, 1e-6), (1e-5, 1e-3)]:
        assert compare(ms, ref, rtol, atol).passed == np.allclose(ms, ref, rtol, atol)


def test_worst_index_values_and_mean_over_all_elements():
    ref = np.zeros((2, 3), f32)
    ms = ref.copy()
    ms[1, 2] = 0.5
    st = compare(ms, ref)
    assert st.worst_index == [1, 2] and st.worst_ms == 0.5 and st.worst_torch == 0
    assert st.mean_abs == pytest.approx(0.5 / 6)  # over all elements, not only mismatched ones
    assert st.mismatched == 1


def test_relative_error_is_symmetric_and_zero_safe():
    assert compare(np.array([0.0]), np.array([0.0])).max_rel == 0
    assert compare(np.array([1.0]), np.array([0.0])).max_rel == 1.0
    assert compare(np.array([0.0]), np.array([1.0])).max_rel == 1.0
    a = compare(np.array([2.0]), np.array([1.0])).max_rel
    b = compare(np.array([1.0]), np.array([2.0])).max_rel
    assert a == b == 0.5


def test_smallest_passing_tolerances():
    ref = np.array([1.0, 2.0, 4.0], np.float64)
    ms = np.array([1.0 + 1e-3, 2.0, 4.0 + 4e-3], np.float64)
    st = compare(ms, ref, rtol=0.0, atol=1e-4)
    assert st.min_atol == pytest.approx(4e-3)
    assert compare(ms, ref, 0.0, st.min_atol).passed
    assert compare(ms, ref, st.min_rtol * 1.0000001, 1e-4).passed
    assert not compare(ms, ref, st.min_rtol * 0.99, 1e-4).passed
    # an error on a zero reference can only pass through atol
    assert compare(np.array([1e-3]), np.array([0.0]), 1e-4, 1e-5).min_rtol == math.inf


def test_nan_and_inf_positions():
    ref = np.array([1.0, np.nan, np.inf, 3.0], f32)
    same = ref.copy()
    st = compare(same, ref)
    assert st.passed and st.nan_torch == 1 and st.inf_torch == 1 and not st.nonfinite_positions
    bad = np.array([1.0, 2.0, np.inf, np.nan], f32)
    st = compare(bad, ref)
    assert not st.passed and st.nonfinite_positions == [[1], [3]]
    assert st.nan_ms == 1 and st.max_abs == math.inf and math.isnan(st.cosine)


@pytest.mark.parametrize("n", [5000, 300_000])  # one chunk of the fast path, and several
def test_nan_and_inf_in_large_tensors_take_the_exact_path(n):
    """A tensor big enough for the chunked fast path: NaN/Inf where both sides agree pass and
    are counted; where they disagree the comparison fails with their positions."""
    rng = np.random.default_rng(1)
    ref = rng.standard_normal(n).astype(f32)
    ref[[7, n - 3]] = [np.nan, np.inf]
    st = compare(ref.copy(), ref)
    assert st.passed and st.nan_torch == 1 and st.inf_torch == 1 and st.max_abs == 0
    bad = ref.copy()
    bad[n // 2] = np.inf
    st = compare(bad, ref)
    assert not st.passed and st.nonfinite_positions == [[n // 2]] and st.inf_ms == 2


def test_shape_mismatch_fails_with_a_note():
    st = compare(np.zeros((3, 2)), np.zeros((2, 3)))
    assert not st.passed and "shape mismatch" in st.note and st.max_abs == math.inf


def test_cosine_and_moments():
    ref = np.array([1.0, 0.0], f32)
    st = compare(np.array([0.0, 1.0], f32), ref)
    assert st.cosine == pytest.approx(0.0)
    st = compare(np.array([-1.0, 0.0], f32), ref)
    assert st.cosine == pytest.approx(-1.0)
    x = np.random.default_rng(0).standard_normal(1000).astype(f32)
    st = compare(x * 2, x)
    assert st.torch_mean == pytest.approx(float(x.mean()), abs=1e-6)
    assert st.ms_std == pytest.approx(float((x * 2).std()), rel=1e-5)


def test_integer_and_scalar_inputs():
    assert compare(np.int64(3), np.int64(3)).passed
    assert not compare(np.array([1, 2]), np.array([1, 3])).passed
    assert compare(np.float32(2.0), np.array(2.0, np.float32)).shape == []


def test_json_form_has_no_bare_infinities():
    import json
    st = compare(np.array([np.inf], f32), np.array([1.0], f32))
    json.dumps(st.to_dict(), allow_nan=False)


def test_quick_pass_agrees_with_compare():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(50).astype(f32)
    for eps in (0.0, 1e-7, 1e-3):
        y = x + f32(eps)
        assert quick_pass(y, x, 1e-4, 1e-5) == compare(y, x, 1e-4, 1e-5).passed


# --- Kolmogorov–Smirnov -------------------------------------------------------------------------

def test_ks_identical_distribution_not_flagged():
    rng = np.random.default_rng(0)
    r = ks_2samp(rng.uniform(-1, 1, 500), rng.uniform(-1, 1, 600))
    assert not r.differs and r.pvalue > 0.01


def test_ks_flags_normal_vs_uniform_init():
    rng = np.random.default_rng(0)
    bound = 1 / math.sqrt(16)
    r = ks_2samp(rng.uniform(-bound, bound, 256), rng.normal(0, 0.01, 256))
    assert r.differs and r.statistic > 0.5


def test_ks_constant_tensors():
    assert not ks_2samp(np.zeros(10), np.zeros(10)).differs
    assert ks_2samp(np.zeros(100), np.ones(100)).differs


def test_small_tensors_zero_vs_random_and_scale():
    rng = np.random.default_rng(0)
    r = ks_2samp(rng.uniform(-0.3, 0.3, 8), np.zeros(8))  # a bias: KS alone has no power here
    assert r.differs and "constant" in r.reason
    r = ks_2samp(rng.uniform(-0.3, 0.3, 32), rng.normal(0, 0.01, 32))
    assert r.differs
    # same distribution, small samples: not flagged
    for seed in range(20):
        g = np.random.default_rng(seed)
        assert not ks_2samp(g.uniform(-1, 1, 16), g.uniform(-1, 1, 16)).differs


def test_kolmogorov_sf_known_values():
    # P(K > 1.36) ≈ 0.0495 and P(K > 1.63) ≈ 0.0098 (the classic 5% / 1% critical values)
    assert kolmogorov_sf(1.358) == pytest.approx(0.05, abs=5e-4)
    assert kolmogorov_sf(1.628) == pytest.approx(0.01, abs=2e-4)
    assert kolmogorov_sf(0.0) == 1.0 and kolmogorov_sf(0.1) == 1.0
    # the two series agree where they meet
    assert kolmogorov_sf(0.999999) == pytest.approx(kolmogorov_sf(1.000001), abs=1e-5)


def test_ks_against_scipy_when_available():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    for n, m, shift in [(50, 60, 0.0), (200, 300, 0.2), (1000, 1000, 0.05)]:
        x, y = rng.normal(size=n), rng.normal(shift, size=m)
        ours, ref = ks_2samp(x, y), stats.ks_2samp(x, y, method="asymp")
        assert ours.statistic == pytest.approx(ref.statistic, abs=1e-12)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=0.05, abs=2e-3)


def test_docstring_examples_run():
    import doctest

    from migrate.check import api, compare, weights
    from migrate.check import harness, report, run  # noqa: F401  (import cleanly)
    for m in (compare, weights, api):
        assert doctest.testmod(m).failed == 0, m.__name__


def test_chunked_fast_path_agrees_with_the_whole_array_path(monkeypatch):
    from migrate.check import compare as cc
    rng = np.random.default_rng(5)
    a = rng.standard_normal((600, 700)).astype(f32)
    b = a + rng.uniform(-1e-6, 1e-6, a.shape).astype(f32)
    chunked = cc.compare(a, b)
    monkeypatch.setattr(cc, "_FAST_MIN", 1 << 40)  # the whole-array path
    whole = cc.compare(a, b)
    assert chunked.passed and whole.passed
    for key in ("max_abs", "mean_abs", "max_rel", "torch_mean", "ms_std", "cosine"):
        assert getattr(chunked, key) == pytest.approx(getattr(whole, key), rel=1e-4, abs=1e-9), key
    assert chunked.worst_index == whole.worst_index
    # beyond atol somewhere: the chunked path steps aside and the full statistics are computed
    b[599, 699] += 1.0
    st = cc.compare(a, b)
    assert not st.passed and st.worst_index == [599, 699] and st.mismatched == 1
