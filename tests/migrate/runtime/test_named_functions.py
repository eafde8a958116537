"""The named runtime functions converted code calls where a rule's translation would otherwise be a
lambda called in place (torch_diag, torch_view_as_complex, torch_linalg_svd / torch_svd,
torch_bernoulli, torch_float_scale), against torch: values and, where differentiable, gradients
(float32: rtol 1e-5 / atol 1e-6; the SVD's factors compared as torch's up to their signs)."""
import numpy as np
import pytest

from migrate.runtime import torch_bernoulli, torch_diag, torch_linalg_svd, torch_svd, torch_view_as_complex
from migrate.runtime.arguments import torch_float_scale
from tests.optest import check_op

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(7)


def _r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape,k", [((4,), 0), ((3,), 1), ((3, 3), 0), ((3, 4), -1)])
def test_diag(shape, k):
    check_op(lambda x: torch_diag(x, k), lambda x: torch.diag(x, k), [_r(*shape)])


def test_view_as_complex():
    x = _r(2, 3, 2)
    got = torch_view_as_complex(ms.Tensor(x)).asnumpy()
    want = torch.view_as_complex(torch.tensor(x)).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _same_up_to_sign(got, want):
    """Columns of SVD factors are defined up to a sign each."""
    signs = np.sign(np.sum(got * want, axis=-2, keepdims=True))
    np.testing.assert_allclose(got * signs, want, rtol=1e-4, atol=1e-5)  # float32 SVD: iterative


@pytest.mark.parametrize("full", [True, False])
def test_linalg_svd(full):
    a = _r(4, 3)
    u, s, vh = (t.asnumpy() for t in torch_linalg_svd(ms.Tensor(a), full_matrices=full))
    tu, ts, tvh = (t.numpy() for t in torch.linalg.svd(torch.tensor(a), full_matrices=full))
    assert u.shape == tu.shape and vh.shape == tvh.shape
    np.testing.assert_allclose(s, ts, rtol=1e-5, atol=1e-5)
    _same_up_to_sign(u[:, :3], tu[:, :3])
    _same_up_to_sign(vh.T, tvh.T)


def test_svd():
    a = _r(4, 3)
    u, s, v = (t.asnumpy() for t in torch_svd(ms.Tensor(a)))
    tu, ts, tv = (t.numpy() for t in torch.svd(torch.tensor(a)))
    assert u.shape == tu.shape and v.shape == tv.shape
    np.testing.assert_allclose(s, ts, rtol=1e-5, atol=1e-5)
    _same_up_to_sign(u, tu)
    _same_up_to_sign(v, tv)


@pytest.mark.parametrize("p", [None, 0.0, 1.0])
def test_bernoulli_draws_with_torchs_probabilities(p):
    """Certain draws (probabilities 0 and 1) are the same on both sides; in between, the rate."""
    probs = np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]], np.float32)
    got = torch_bernoulli(ms.Tensor(probs), p).asnumpy()
    want = torch.bernoulli(torch.tensor(probs), p) if p is not None else torch.bernoulli(torch.tensor(probs))
    np.testing.assert_array_equal(got, want.numpy())
    half = torch_bernoulli(ms.Tensor(np.full((200, 50), 0.25, np.float32))).asnumpy()
    assert half.shape == (200, 50) and set(np.unique(half)) <= {0.0, 1.0}
    assert abs(half.mean() - 0.25) < 0.02  # 10,000 draws: 5 standard deviations


def test_bernoulli_refuses_a_generator():
    with pytest.raises(ValueError, match="For 'bernoulli' \\(torch signature\\), generator other than None"):
        torch_bernoulli(ms.Tensor(np.ones(2, np.float32)), generator=object())


@pytest.mark.parametrize("scale,want", [(2, 2.0), (1.5, 1.5), ((2, 3), (2.0, 3.0)), ([1, 2.5], (1.0, 2.5)),
                                        (None, None)])
def test_float_scale(scale, want):
    got = torch_float_scale(scale)
    assert got == want and type(got) is type(want)
    if scale is not None:  # what torch's Upsample computes with the scale MindSpore is given
        x = torch.tensor(_r(1, 1, 4, 4))
        ref = torch.nn.Upsample(scale_factor=tuple(scale) if isinstance(scale, list) else scale)(x)
        np.testing.assert_array_equal(torch.nn.Upsample(scale_factor=got)(x).numpy(), ref.numpy())
