"""migrate.runtime.functional against torch: forward values and gradients (float32: rtol 1e-5 /
atol 1e-6 unless a reason is given)."""
import numpy as np
import pytest

from migrate.runtime.functional import (
    torch_activation_fn, torch_batch_stats_norm, torch_einsum, torch_foreach, torch_istft, torch_layer_norm,
    torch_linspace, torch_local_response_norm, torch_max, torch_min, torch_multi_head_attention_forward,
    torch_sdpa, torch_sparse_coo_tensor, torch_stft, torch_unfold_windows,
)
from tests.optest import check_op

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")
F = torch.nn.functional

RNG = np.random.default_rng(2)


def _r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_layer_norm():
    check_op(lambda x, w, b: torch_layer_norm(x, (3, 4), w, b, 1e-5),
             lambda x, w, b: F.layer_norm(x, (3, 4), w, b, 1e-5), [_r(2, 3, 4), _r(3, 4), _r(3, 4)])
    check_op(lambda x: torch_layer_norm(x, 4), lambda x: F.layer_norm(x, (4,)), [_r(5, 4)])


@pytest.mark.parametrize("dim,size,step", [(1, 3, 2), (-1, 2, 1), (0, 2, 2)])
def test_unfold_windows(dim, size, step):
    check_op(lambda x: torch_unfold_windows(x, dim, size, step), lambda x: x.unfold(dim, size, step), [_r(4, 7, 5)])


def test_unfold_windows_that_do_not_fit():
    with pytest.raises(ValueError, match="windows of size 9 every 1 do not fit dimension 1 of size 7"):
        torch_unfold_windows(ms.Tensor(_r(4, 7)), 1, 9, 1)


def test_batch_stats_norm():
    check_op(lambda x, w, b: torch_batch_stats_norm(x, w, b, True, 1e-5),
             lambda x, w, b: F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5), [_r(4, 3, 5), _r(3), _r(3)])
    with pytest.raises(ValueError, match="running_mean and running_var must be given when training is False"):
        torch_batch_stats_norm(ms.Tensor(_r(2, 3)))


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("i,i->", [(4,), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
])
def test_einsum(equation, shapes):
    check_op(lambda *xs: torch_einsum(equation, *xs), lambda *xs: torch.einsum(equation, *xs), [_r(*s) for s in shapes])


def test_einsum_counts_its_operands():
    with pytest.raises(ValueError, match="the equation 'ij,jk->ik' names 2 operands, but got 1"):
        torch_einsum("ij,jk->ik", ms.Tensor(_r(2, 2)))


@pytest.mark.parametrize("batched,mask", [(True, False), (False, False), (True, True)])
def test_multi_head_attention_forward(batched, mask):
    e, heads, length = 4, 2, 3
    shape = (length, 2, e) if batched else (length, e)
    arrays = [_r(*shape), _r(*shape), _r(*shape), _r(3 * e, e), _r(3 * e), _r(e, e), _r(e)]
    attn = np.triu(np.full((length, length), -1e9, np.float32), 1) if mask else None

    def ms_fn(q, k, v, w, b, ow, ob):
        out, weights = torch_multi_head_attention_forward(
            q, k, v, e, heads, w, b, None, None, False, 0.0, ow, ob, training=False,
            attn_mask=None if attn is None else ms.Tensor(attn))
        return out, weights

    def torch_fn(q, k, v, w, b, ow, ob):
        return F.multi_head_attention_forward(q, k, v, e, heads, w, b, None, None, False, 0.0, ow, ob,
                                              training=False, attn_mask=None if attn is None else torch.tensor(attn))
    check_op(ms_fn, torch_fn, arrays)


def test_local_response_norm():
    check_op(lambda x: torch_local_response_norm(x, 3, 1e-2, 0.75, 2.0),
             lambda x: F.local_response_norm(x, 3, 1e-2, 0.75, 2.0), [_r(2, 5, 4, 3)])
    with pytest.raises(ValueError, match="the input must have 3 or more dimensions, but got 2"):
        torch_local_response_norm(ms.Tensor(_r(2, 5)), 3)


@pytest.mark.parametrize("dtype", [None, "float64", "int32", "float16"])
def test_linspace(dtype):
    got = torch_linspace(-1.5, 7.25, 9, dtype=None if dtype is None else getattr(ms, dtype))
    want = torch.linspace(-1.5, 7.25, 9, dtype=None if dtype is None else getattr(torch, dtype))
    assert str(got.asnumpy().dtype) == str(want.numpy().dtype)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5 if dtype != "float16" else 1e-3)


@pytest.mark.parametrize("kind", ["causal", "bool", "float", "scale"])
def test_sdpa(kind):
    q, k, v = _r(2, 3, 4), _r(2, 5, 4), _r(2, 5, 4)
    bool_mask = RNG.random((3, 5)) > 0.3
    bool_mask[:, 0] = True  # every query keeps a key
    float_mask = _r(3, 5)
    options = {"causal": dict(is_causal=True), "scale": dict(scale=0.3), "bool": {}, "float": {}}[kind]

    def mask(lib):
        if kind == "bool":
            return lib.tensor(bool_mask) if lib is torch else ms.Tensor(bool_mask)
        if kind == "float":
            return lib.tensor(float_mask) if lib is torch else ms.Tensor(float_mask)
        return None
    check_op(lambda a, b, c: torch_sdpa(a, b, c, attn_mask=mask(ms), **options),
             lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask(torch), **options), [q, k, v])


def test_foreach_out_of_place_and_in_place():
    xs, ys = [_r(3), _r(2, 2)], [_r(3), _r(2, 2)]
    got = torch_foreach("addcmul", [ms.Tensor(x) for x in xs], [ms.Tensor(y) for y in ys],
                        [ms.Tensor(y) for y in ys], value=0.5)
    want = torch._foreach_addcmul([torch.tensor(x) for x in xs], [torch.tensor(y) for y in ys],
                                  [torch.tensor(y) for y in ys], value=0.5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    m, t = [ms.Tensor(x) for x in xs], [torch.tensor(x) for x in xs]
    assert torch_foreach("mul_", m, [2.0, 3.0]) is None
    torch._foreach_mul_(t, [2.0, 3.0])
    for g, w in zip(m, t):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    lerp = torch_foreach("lerp", [ms.Tensor(x) for x in xs], [ms.Tensor(y) for y in ys], weight=0.25)
    for g, w in zip(lerp, torch._foreach_lerp([torch.tensor(x) for x in xs], [torch.tensor(y) for y in ys], 0.25)):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_activation_by_name():
    from torch.nn.modules.transformer import _get_activation_fn
    for name in ("relu", "gelu"):
        check_op(torch_activation_fn(name), _get_activation_fn(name), [_r(3, 4)])
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        torch_activation_fn("tanh")


def test_sparse_coo_tensor_is_its_dense_tensor():
    indices = np.array([[0, 1, 1, 2], [2, 0, 0, 1]], np.int64)  # (1, 0) twice: the values add up
    values = _r(4)
    check_op(lambda v: torch_sparse_coo_tensor(ms.Tensor(indices), v, (3, 3)),
             lambda v: torch.sparse_coo_tensor(torch.tensor(indices), v, (3, 3)).to_dense(), [values])
    got = torch_sparse_coo_tensor(indices, values)
    want = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values)).to_dense()
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)


# (n_fft, hop_length, win_length, center, normalized): a hop dividing n_fft or not, a window
# shorter than the frame, torch's default hop
STFT_CASES = [(32, 8, 32, True, True), (32, 10, 24, True, False), (16, None, 16, False, False)]


@pytest.mark.parametrize("n_fft,hop,win,center,normalized", STFT_CASES)
def test_stft(n_fft, hop, win, center, normalized):
    window = RNG.uniform(0.5, 1.0, win).astype(np.float32)
    check_op(lambda x, w: ms.ops.view_as_real(torch_stft(x, n_fft, hop, win, w, center=center, normalized=normalized,
                                                         return_complex=True)),
             lambda x, w: torch.view_as_real(torch.stft(x, n_fft, hop, win, w, center=center, normalized=normalized,
                                                        return_complex=True)),
             [_r(2, 150), window], rtol=1e-4, atol=1e-5)  # sums of n_fft products: float32 rounding
    single = torch_stft(ms.Tensor(_r(150)), n_fft, hop, win, ms.Tensor(window), center=center, return_complex=False)
    assert single.shape == tuple(torch.stft(torch.zeros(150), n_fft, hop, win, torch.ones(win), center=center,
                                            return_complex=True).shape) + (2,)


@pytest.mark.parametrize("length", [None, 150, 140, 170])
def test_istft_inverts_stft(length):
    n_fft, hop = 32, 8
    window = np.hanning(n_fft + 1)[:-1].astype(np.float32) + 0.1  # nonzero overlap-add everywhere
    check_op(lambda x, w: torch_istft(torch_stft(x, n_fft, hop, window=w, normalized=True, return_complex=True) * 0.5,
                                      n_fft, hop, window=w, normalized=True, length=length),
             lambda x, w: torch.istft(torch.stft(x, n_fft, hop, window=w, normalized=True, return_complex=True) * 0.5,
                                      n_fft, hop, window=w, normalized=True, length=length),
             [_r(2, 150), window], grad_idx=[0],  # the round trip cancels the window: its gradient is rounding noise
             rtol=1e-4, atol=1e-5)  # float32 rounding through two transforms


def test_istft_refuses_a_window_whose_overlap_add_vanishes():
    z = torch_stft(ms.Tensor(_r(64)), 16, 16, window=ms.Tensor(np.zeros(16, np.float32)), return_complex=True)
    with pytest.raises(ValueError, match="NOLA condition"):
        torch_istft(z, 16, 16, window=ms.Tensor(np.zeros(16, np.float32)))


@pytest.mark.parametrize("name,ours", [("max", torch_max), ("min", torch_min)])
def test_max_and_min_as_values_take_each_torch_form(name, ours):
    reference = getattr(torch, name)
    check_op(lambda x: ours(x), lambda x: reference(x), [_r(3, 4)])
    check_op(lambda x, y: ours(x, y), lambda x, y: reference(x, y), [_r(3, 4), _r(3, 4)])
    check_op(lambda x: ours(x, 1, True)[0], lambda x: reference(x, 1, True)[0], [_r(3, 4)])
    x = _r(3, 4)
    got, expected = ours(ms.Tensor(x), dim=0), reference(torch.from_numpy(x), dim=0)
    np.testing.assert_array_equal(got.values.asnumpy(), expected.values.numpy())
    np.testing.assert_array_equal(got.indices.asnumpy(), expected.indices.numpy())


def test_stft_names_a_pad_mode_it_does_not_know():
    with pytest.raises(ValueError, match=r"'pad_mode' must be one of \['reflect', 'constant', 'replicate', "
                                         r"'circular'\], but got 'mirror'"):
        torch_stft(ms.Tensor(_r(64)), 16, pad_mode="mirror", return_complex=True)
