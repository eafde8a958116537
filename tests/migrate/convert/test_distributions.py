"""torch.distributions.Categorical / Normal -> the generated TorchCategorical / TorchNormal:
values and gradients against torch.distributions (float32: rtol 1e-5 / atol 1e-6), sample shapes,
dtypes and frequencies (tests/fixtures/functions/distributions.py)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import FIXTURE_ROOT, fixture_pair

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "distributions.py"
RNG = np.random.default_rng(3)
SCORES = RNG.standard_normal((4, 5)).astype(np.float32)
RAW = RNG.uniform(0.1, 3.0, (4, 5)).astype(np.float32)
ACTION = np.array([0, 4, 2, 2], np.int64)
LOC = RNG.standard_normal((3, 2)).astype(np.float32)
SCALE = RNG.uniform(0.5, 2.0, (2,)).astype(np.float32)
VALUE = RNG.standard_normal((3, 2)).astype(np.float32)


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    return fixture_pair(PATH, tmp_path_factory.mktemp("dist"), "TorchCategorical(logits=scores)")


def _close(got, want):
    assert got.asnumpy().dtype == want.detach().numpy().dtype
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_categorical_values_match_torch(sides):
    t, m = sides
    want = t.categorical_terms(torch.tensor(SCORES), torch.tensor(RAW), torch.tensor(ACTION))
    got = m.categorical_terms(ms.Tensor(SCORES), ms.Tensor(RAW), ms.Tensor(ACTION))
    for g, w in zip(got, want):
        _close(g, w)


def test_categorical_gradients_match_torch(sides):
    t, m = sides
    ts, tp = torch.tensor(SCORES, requires_grad=True), torch.tensor(RAW, requires_grad=True)
    t.categorical_loss(ts, tp, torch.tensor(ACTION)).backward()
    grad_fn = ms.grad(lambda s, p: m.categorical_loss(s, p, ms.Tensor(ACTION)), (0, 1))
    gs, gp = grad_fn(ms.Tensor(SCORES), ms.Tensor(RAW))
    _close(gs, ts.grad)
    _close(gp, tp.grad)  # through torch's normalisation of probs (MindSpore's Categorical has none)


def test_normal_values_and_gradients_match_torch(sides):
    t, m = sides
    want = t.normal_terms(torch.tensor(LOC), torch.tensor(SCALE), torch.tensor(VALUE))
    got = m.normal_terms(ms.Tensor(LOC), ms.Tensor(SCALE), ms.Tensor(VALUE))
    for g, w in zip(got, want):
        _close(g, w)
    tl, tsc = torch.tensor(LOC, requires_grad=True), torch.tensor(SCALE, requires_grad=True)
    t.normal_loss(tl, tsc, torch.tensor(VALUE)).backward()
    gl, gsc = ms.grad(lambda a, b: m.normal_loss(a, b, ms.Tensor(VALUE)), (0, 1))(ms.Tensor(LOC), ms.Tensor(SCALE))
    _close(gl, tl.grad)
    _close(gsc, tsc.grad)  # reduced over the broadcast axis, as torch's


def test_categorical_sample_frequencies(sides):
    # 20,000 draws per row: each frequency's standard error is at most sqrt(0.25 / 20000) = 0.0035;
    # 5 standard errors (0.018) bound a false failure below 1e-5 per cell
    _, m = sides
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]], np.float32)
    draws = m.categorical_samples(ms.Tensor(probs), 20000)
    assert draws.shape == (20000, 2) and draws.asnumpy().dtype == np.int64
    freq = np.stack([np.bincount(draws.asnumpy()[:, r], minlength=3) / 20000 for r in range(2)])
    np.testing.assert_allclose(freq, probs, atol=0.018)


def test_normal_sample_moments(sides):
    # 20,000 draws: the mean's standard error is scale/141 (<= 0.015), the std's about scale/200
    _, m = sides
    draws = m.normal_samples(ms.Tensor(np.array([1.0, -2.0], np.float32)),
                             ms.Tensor(np.array([0.5, 2.0], np.float32)), 20000)
    assert draws.shape == (20000, 2) and draws.asnumpy().dtype == np.float32
    np.testing.assert_allclose(draws.asnumpy().mean(0), [1.0, -2.0], atol=0.075)
    np.testing.assert_allclose(draws.asnumpy().std(0), [0.5, 2.0], rtol=0.03)


LOW = RNG.uniform(-2.0, 0.0, (3, 2)).astype(np.float32)
HIGH = RNG.uniform(0.5, 3.0, (2,)).astype(np.float32)
U_VALUE = np.array([[-3.0, 0.1], [0.2, 2.9], [0.0, 5.0]], np.float32)  # some outside [low, high)
PROBS = RNG.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
LOGITS = RNG.standard_normal((3, 4)).astype(np.float32)
B_VALUE = (RNG.uniform(0, 1, (3, 4)) < 0.5).astype(np.float32)


def test_uniform_values_and_gradients_match_torch(sides):
    t, m = sides
    want = t.uniform_terms(torch.tensor(LOW), torch.tensor(HIGH), torch.tensor(U_VALUE))
    got = m.uniform_terms(ms.Tensor(LOW), ms.Tensor(HIGH), ms.Tensor(U_VALUE))
    for g, w in zip(got, want):
        _close(g, w)
    tl, th = torch.tensor(LOW, requires_grad=True), torch.tensor(HIGH, requires_grad=True)
    t.uniform_loss(tl, th, torch.tensor(U_VALUE)).backward()
    gl, gh = ms.grad(lambda a, b: m.uniform_loss(a, b, ms.Tensor(U_VALUE)), (0, 1))(ms.Tensor(LOW), ms.Tensor(HIGH))
    _close(gl, tl.grad)
    _close(gh, th.grad)  # reduced over the broadcast axis, as torch's


def test_support_is_checked_as_torch(sides):
    t, m = sides
    with pytest.raises(ValueError, match="within the support"):
        t.uniform_checks(torch.tensor(LOW), torch.tensor(HIGH), torch.tensor(U_VALUE))
    with pytest.raises(ValueError, match="For 'Uniform', the value must be within"):
        m.uniform_checks(ms.Tensor(LOW), ms.Tensor(HIGH), ms.Tensor(U_VALUE))


def test_bernoulli_values_and_gradients_match_torch(sides):
    t, m = sides
    want = t.bernoulli_terms(torch.tensor(PROBS), torch.tensor(LOGITS), torch.tensor(B_VALUE))
    got = m.bernoulli_terms(ms.Tensor(PROBS), ms.Tensor(LOGITS), ms.Tensor(B_VALUE))
    for g, w in zip(got, want):
        _close(g, w)
    tp, tl = torch.tensor(PROBS, requires_grad=True), torch.tensor(LOGITS, requires_grad=True)
    t.bernoulli_loss(tp, tl, torch.tensor(B_VALUE)).backward()
    grad_fn = ms.grad(lambda a, b: m.bernoulli_loss(a, b, ms.Tensor(B_VALUE)), (0, 1))
    gp, gl = grad_fn(ms.Tensor(PROBS), ms.Tensor(LOGITS))
    _close(gp, tp.grad)
    _close(gl, tl.grad)


def test_uniform_and_bernoulli_sample_moments(sides):
    # 20,000 draws: U's mean has standard error (high - low) / sqrt(12 * 20000) <= 0.006 (5 errors:
    # 0.03); a Bernoulli frequency's is at most sqrt(0.25 / 20000) = 0.0035 (5 errors: 0.018)
    _, m = sides
    u = m.uniform_samples(ms.Tensor(np.array([0.0, -1.0], np.float32)),
                          ms.Tensor(np.array([2.0, 1.0], np.float32)), 20000)
    assert u.shape == (20000, 2) and u.asnumpy().dtype == np.float32
    assert (u.asnumpy() >= [0.0, -1.0]).all() and (u.asnumpy() < [2.0, 1.0]).all()
    np.testing.assert_allclose(u.asnumpy().mean(0), [1.0, 0.0], atol=0.03)
    b = m.bernoulli_samples(ms.Tensor(np.array([0.2, 0.7], np.float32)), 20000)
    assert b.shape == (20000, 2) and b.asnumpy().dtype == np.float32 and set(np.unique(b.asnumpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(b.asnumpy().mean(0), [0.2, 0.7], atol=0.018)
