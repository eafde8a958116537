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


def test_a_python_complex_is_a_complex128_tensor_with_torchs_values_and_gradients():
    """`Tensor(1j)` (a Python complex, as MindSpore 2.10 takes it: Complex128, as np.asarray) was
    refused. A spectral head's `mag * (cos(p) + Tensor(1j) * sin(p))`: values and gradients as
    torch's (torch makes the scalar complex64, so float64 reference; float32 tolerances)."""
    mag, p = np.abs(X[..., 0]) + 0.1, X[..., 1]

    def ms_head(m, q):
        z = m * (ops.cos(q) + ms.Tensor(1j) * ops.sin(q))
        return (ops.real(z) * ms.Tensor(COT[..., 0]) + ops.imag(z) * ms.Tensor(COT[..., 1])).sum()

    tm, tq = torch.tensor(mag, requires_grad=True), torch.tensor(p, requires_grad=True)
    tz = tm.double() * (torch.cos(tq.double()) + torch.tensor(1j, dtype=torch.complex128) * torch.sin(tq.double()))
    ref = (tz.real * torch.from_numpy(COT[..., 0]) + tz.imag * torch.from_numpy(COT[..., 1])).sum()
    ref.backward()
    out = ms_head(ms.Tensor(mag), ms.Tensor(p))
    gm, gq = ms.grad(ms_head, grad_position=(0, 1))(ms.Tensor(mag), ms.Tensor(p))
    assert ms.Tensor(1j).dtype == ms.complex128 and ms.Tensor(1j).shape == ()
    np.testing.assert_allclose(out.asnumpy(), ref.item(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gm.asnumpy(), tm.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gq.asnumpy(), tq.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_python_complex_given_a_real_dtype_keeps_its_real_part_as_mindspore():
    """Checked on MindSpore 2.10 (tests/oracle/snippets/complex_scalars.py): Tensor(1.5+1j,
    float32) is 1.5 and Tensor(1j, bool) True, without NumPy's ComplexWarning; a 0-d complex's
    real part stays 0-d (ascontiguousarray had made it shape (1,))."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ms.Tensor(1.5 + 1j, ms.float32).asnumpy() == np.float32(1.5)
        assert ms.Tensor([1j, 2.5], ms.float32).asnumpy().tolist() == [0.0, 2.5]
    assert ms.Tensor(1j, ms.bool_).asnumpy() and not ms.Tensor(0j, ms.bool_).asnumpy()
    assert ops.real(ms.Tensor(1.5 + 2j)).shape == () and ops.imag(ms.Tensor(1.5 + 2j)).asnumpy() == 2.0


_C64 = np.array([[1 + 1j], [2 - 1j]], np.complex64)
# (name, ms_core function of a real float32 q, the same in torch): each passes q through complex
# arithmetic with a Python complex, a complex Tensor or an analytic function of a complex value
HOLOMORPHIC = [
    ("python scalar times", lambda q: ops.imag(q * 1j), lambda q: torch.imag(q * 1j)),
    ("scalar divided by", lambda q: ops.imag((1 + 2j) / q), lambda q: torch.imag((1 + 2j) / q)),
    ("divided by scalar", lambda q: ops.imag(q / (1 + 2j)), lambda q: torch.imag(q / (1 + 2j))),
    ("real plus complex", lambda q: ops.real(ops.cos(q) + ms.Tensor(1j) * ops.sin(q)),
     lambda q: torch.real(torch.cos(q) + torch.tensor(1j, dtype=torch.complex128) * torch.sin(q))),
    ("exp", lambda q: ops.imag(ops.exp(q * 1j)) * 2 + ops.real(ops.exp(q * 1j)),
     lambda q: torch.imag(torch.exp(q * 1j)) * 2 + torch.real(torch.exp(q * 1j))),
    ("sin", lambda q: ops.imag(ops.sin(q * (1 + 1j))), lambda q: torch.imag(torch.sin(q * (1 + 1j)))),
    ("tan", lambda q: ops.imag(ops.tan(q * (1 + 2j))), lambda q: torch.imag(torch.tan(q * (1 + 2j)))),
    ("atan", lambda q: ops.imag(ops.atan(q * (1 + 2j))), lambda q: torch.imag(torch.atan(q * (1 + 2j)))),
    ("sqrt", lambda q: ops.imag(ops.sqrt(q * (2 + 1j))), lambda q: torch.imag(torch.sqrt(q * (2 + 1j)))),
    ("reciprocal", lambda q: ops.imag(ops.reciprocal(q * (1 + 2j))),
     lambda q: torch.imag(torch.reciprocal(q * (1 + 2j)))),
    ("pow", lambda q: ops.imag(ops.pow(q * (1 + 1j), 3)), lambda q: torch.imag(torch.pow(q * (1 + 1j), 3))),
    ("matmul", lambda q: ops.imag(ops.matmul(ops.reshape(q, (1, 2)) * (1 + 2j), ms.Tensor(_C64))),
     lambda q: torch.imag(torch.matmul(q.reshape(1, 2) * (1 + 2j), torch.from_numpy(_C64)))),
    ("float64 operand", lambda q: q * ms.Tensor(np.float64(2.0)),
     lambda q: q * torch.tensor(2.0, dtype=torch.float64)),
]


@pytest.mark.parametrize("name,ms_fn,torch_fn", HOLOMORPHIC, ids=[c[0] for c in HOLOMORPHIC])
def test_gradients_through_complex_values_are_torchs_and_in_the_inputs_dtype(name, ms_fn, torch_fn):
    """torch's convention for complex values: the gradient is dout times the conjugate of the
    derivative (`q * 1j` gave -1 where torch gives 1, `exp(1j * q)` and `tan` had the wrong sign of
    the imaginary part's gradient), and a real float32 input's gradient is real float32 (a real
    input beside a complex one got a complex, or float64, gradient)."""
    q = np.array([0.3, 0.5], np.float32)
    tq = torch.tensor(q, requires_grad=True)
    ref = torch_fn(tq).sum()
    ref.backward()
    g = ms.grad(lambda t: ms_fn(t).sum())(ms.Tensor(q))
    np.testing.assert_allclose(ms_fn(ms.Tensor(q)).sum().asnumpy(), ref.item(), rtol=1e-5, atol=1e-6)
    assert g.dtype == ms.float32
    np.testing.assert_allclose(g.asnumpy(), tq.grad.numpy(), rtol=1e-5, atol=1e-6)
