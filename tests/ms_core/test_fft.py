"""ops.fft / ifft / fft2 / ifft2 / fftn / ifftn / rfft / irfft, and abs / real / imag of their complex
results: forward and input gradients against torch.fft, one line each; second derivatives
against finite differences."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import ops
from tests.optest import check_double_backward, check_op

torch = pytest.importorskip("torch")

X = np.random.RandomState(0).randn(2, 3, 4, 5).astype(np.float32)
TOL = dict(rtol=1e-5, atol=1e-5)  # sums of up to 60 float32 terms


def _as_real(fn):
    return lambda t: ops.view_as_real(fn(t))


def _torch_as_real(fn):
    return lambda t: torch.view_as_real(fn(t).resolve_conj())


@pytest.mark.parametrize("name,kwargs", [
    ("fft", {}), ("fft", dict(n=7, dim=1)), ("fft", dict(n=3, norm="ortho")), ("ifft", dict(norm="forward")),
    ("fft2", {}), ("fft2", dict(s=(3, 8))), ("ifft2", dict(dim=(0, 2))), ("fftn", {}),
    ("fftn", dict(s=(6, 3), dim=(2, 3), norm="ortho")), ("fftn", dict(s=(5, 6))), ("ifftn", dict(dim=(1, 2, 3))),
    ("rfft", {}), ("rfft", dict(n=6, dim=2, norm="forward")),
])
def test_transform_matches_torch(name, kwargs):
    check_op(_as_real(lambda t: getattr(ops, name)(t, **kwargs)),
             _torch_as_real(lambda t: getattr(torch.fft, name)(t, **kwargs)), [X], **TOL)


def test_complex_input_and_inverse_chain_match_torch():
    check_op(_as_real(lambda t: ops.ifft(ops.fft2(t), n=6, dim=2)),
             _torch_as_real(lambda t: torch.fft.ifft(torch.fft.fft2(t), n=6, dim=2)), [X], **TOL)


def test_amplitude_abs_real_imag_match_torch():
    check_op(lambda t: ops.abs(ops.fftn(t, dim=(1, 2, 3))) + ops.real(ops.fft2(t)) * ops.imag(ops.fft2(t)),
             lambda t: (torch.fft.fftn(t, dim=(1, 2, 3)).abs()
                        + torch.real(torch.fft.fft2(t)) * torch.imag(torch.fft.fft2(t))),
             [X], **TOL)


def test_abs_of_complex_gradient_is_z_over_modulus():
    z = ops.Complex()(ms.Tensor(np.array([0.0, 3.0], np.float32)), ms.Tensor(np.array([0.0, 4.0], np.float32)))
    np.testing.assert_allclose(ms.grad(lambda t: ops.abs(t).sum())(z).asnumpy(), [0, 0.6 + 0.8j], rtol=1e-6)


def test_second_derivatives_match_finite_differences():
    check_double_backward(lambda t: ops.abs(ops.fftn(t, s=(3, 6), dim=(1, 2))) ** 2, [X[0, :2]])


def test_bad_norm_is_refused_as_mindspore_does():
    with pytest.raises(ValueError, match="For 'fft2', the 'norm' must be one of"):
        ops.fft2(ms.Tensor(X), norm="unitary")


@pytest.mark.parametrize("kwargs", [{}, dict(n=8), dict(n=7), dict(n=12, norm="ortho"), dict(n=3, norm="forward"),
                                    dict(dim=2)])
def test_irfft_of_a_spectrum_matches_torch(kwargs):
    """irfft of a complex spectrum (built in the graph from the real input, so its gradient flows
    back to it), at the default length, cropped, zero-padded and odd lengths, every norm."""
    def spectrum(ops_or_torch, t):
        return ops_or_torch.complex(t, t * 0.5 + 1.0) if ops_or_torch is torch else ops.Complex()(t, t * 0.5 + 1.0)
    check_op(lambda t: ops.irfft(spectrum(ops, t), **kwargs),
             lambda t: torch.fft.irfft(spectrum(torch, t), **kwargs), [X], **TOL)


def test_irfft_inverts_rfft_and_takes_a_real_input():
    check_op(lambda t: ops.irfft(ops.rfft(t), X.shape[-1]) + ops.irfft(t, 3, dim=1),
             lambda t: torch.fft.irfft(torch.fft.rfft(t), X.shape[-1]) + torch.fft.irfft(t, 3, dim=1), [X], **TOL)
    with pytest.raises(ValueError, match="For 'irfft', the output length 'n' must be positive, but got 0"):
        ops.irfft(ms.Tensor(X[..., :1]))


def test_a_complex_tensor_with_a_python_float_stays_complex():
    """z * 0.5, 0.5 * z, z + 1.0, 1.0 - z, z / 2.0 keep the imaginary part (as torch and MindSpore
    do), gradients included."""
    def f(lib, t):
        z = torch.complex(t, 2 * t) if lib is torch else ops.Complex()(t, 2 * t)
        return torch.view_as_real(z * 0.5 + 1.0 - (1.0 - z) / 2.0 * 0.25) if lib is torch \
            else ops.view_as_real(z * 0.5 + 1.0 - (1.0 - z) / 2.0 * 0.25)
    check_op(lambda t: f(ops, t), lambda t: f(torch, t), [X], **TOL)
