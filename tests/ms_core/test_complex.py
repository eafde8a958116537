"""Complex tensors (rotary embeddings: torch.polar, view_as_complex, complex multiply,
view_as_real): forward and gradients against torch, one line each."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import ops

torch = pytest.importorskip("torch")

_rs = np.random.RandomState(0)
X = _rs.randn(2, 3, 4, 2).astype(np.float32)
THETA = _rs.randn(3, 4).astype(np.float32)
COT = _rs.randn(2, 3, 4, 2).astype(np.float32)


def _ms_rotary(x, theta):
    z = ops.Complex()(x[..., 0], x[..., 1])
    return (ops.view_as_real(z * ops.polar(ops.ones_like(theta), theta)) * ms.Tensor(COT)).sum()


def _torch_rotary(x, theta):
    z = torch.view_as_complex(x)
    return (torch.view_as_real(z * torch.polar(torch.ones_like(theta), theta)) * torch.from_numpy(COT)).sum()


def test_rotary_forward_and_gradients_match_torch():
    tx, tt = torch.tensor(X, requires_grad=True), torch.tensor(THETA, requires_grad=True)
    ref = _torch_rotary(tx, tt)
    ref.backward()
    out = _ms_rotary(ms.Tensor(X), ms.Tensor(THETA))
    gx, gt = ms.grad(_ms_rotary, grad_position=(0, 1))(ms.Tensor(X), ms.Tensor(THETA))
    np.testing.assert_allclose(out.asnumpy(), ref.item(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gt.asnumpy(), tt.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert gx.dtype == ms.float32 and gt.dtype == ms.float32


def test_complex_dtypes_parts_and_conj_match_torch():
    z = ops.polar(ms.Tensor(np.abs(X[..., 0])), ms.Tensor(X[..., 1]))
    tz = torch.polar(torch.tensor(np.abs(X[..., 0])), torch.tensor(X[..., 1]))
    assert z.dtype == ms.complex64 and tz.dtype == torch.complex64
    np.testing.assert_allclose(ops.view_as_real(z).asnumpy(), torch.view_as_real(tz).numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ops.real(z).asnumpy(), tz.real.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ops.imag(z).asnumpy(), tz.imag.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ops.conj(z).asnumpy(), tz.conj().resolve_conj().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(z.reshape(2, 12).asnumpy(), tz.reshape(2, 12).numpy(), rtol=1e-6, atol=1e-6)


def test_complex_errors_are_mindspore_style():
    with pytest.raises(TypeError, match="For 'view_as_real', the input must be a complex tensor"):
        ops.view_as_real(ms.Tensor(X))
    with pytest.raises(TypeError, match="For 'polar'"):
        ops.polar(ms.Tensor(X), ms.Tensor(X.astype(np.float64)))


def test_real_imag_and_conj_are_tensor_methods_as_in_mindspore():
    """MindSpore 2.10's Tensor.real / imag / conj are methods (torch's real and imag are
    attributes; checked on MindSpore 2.10: t.real() of a complex64 tensor is float32)."""
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    t, ref = ms.Tensor(z), torch.from_numpy(z)
    assert t.real().dtype == ms.float32
    np.testing.assert_array_equal(t.real().asnumpy(), ref.real.numpy())
    np.testing.assert_array_equal(t.imag().asnumpy(), ref.imag.numpy())
    np.testing.assert_array_equal(t.conj().asnumpy(), ref.conj().resolve_conj().numpy())


def test_elementwise_functions_keep_a_complex_input_complex():
    """ops.exp(1j * p) (a phase rotation): the float functions computed integers as float32 and
    cast a complex input too, dropping its imaginary part; MindSpore 2.10's keep it complex."""
    z = np.array([0.5 + 1.0j, -1.0 + 0.25j], np.complex64)
    for name in ("exp", "log", "sqrt"):
        got = getattr(ops, name)(ms.Tensor(z))
        assert got.dtype == ms.complex64
        np.testing.assert_allclose(got.asnumpy(), getattr(np, name)(z), rtol=1e-6)
