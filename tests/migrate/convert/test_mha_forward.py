"""F.multi_head_attention_forward (openai/CLIP's AttentionPool2d calls it directly) becomes the
generated torch_multi_head_attention_forward, with torch's signature: outputs, attention weights
and gradients against torch over its options."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_zoo_idioms import _load

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch
import torch.nn.functional as F

def attend(q, k, v, w_in, b_in, w_out, b_out, bias_k=None, bias_v=None, add_zero_attn=False,
           key_padding_mask=None, attn_mask=None, need_weights=True, average=True, separate=False):
    E = q.shape[-1]
    if separate:
        return F.multi_head_attention_forward(
            q, k, v, E, 2, None, b_in, bias_k, bias_v, add_zero_attn, 0.0, w_out, b_out,
            training=False, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=True, q_proj_weight=w_in[:E],
            k_proj_weight=w_in[E:2 * E], v_proj_weight=w_in[2 * E:], average_attn_weights=average)
    return F.multi_head_attention_forward(
        q, k, v, E, 2, w_in, b_in, bias_k, bias_v, add_zero_attn, 0.0, w_out, b_out,
        training=False, key_padding_mask=key_padding_mask, need_weights=need_weights,
        attn_mask=attn_mask, average_attn_weights=average)
"""

L, S, N, E, OUT = 3, 5, 2, 8, 6
RNG = np.random.default_rng(0)


def _arrays():
    a = {"q": RNG.standard_normal((L, N, E)), "k": RNG.standard_normal((S, N, E)),
         "v": RNG.standard_normal((S, N, E)), "w_in": RNG.standard_normal((3 * E, E)) * 0.3,
         "b_in": RNG.standard_normal(3 * E) * 0.1, "w_out": RNG.standard_normal((OUT, E)) * 0.3,
         "b_out": RNG.standard_normal(OUT) * 0.1}
    return {k: v.astype(np.float32) for k, v in a.items()}


def _options():
    causal = np.triu(np.ones((L, S), bool), 1)
    float_mask = np.where(causal, -np.inf, 0.0).astype(np.float32)
    kpm = np.zeros((N, S), bool)
    kpm[1, -2:] = True
    bias = RNG.standard_normal((1, 1, E)).astype(np.float32)
    return {
        "plain": {},
        "separate": {"separate": True},
        "bool_mask": {"attn_mask": causal},
        "float_mask_3d": {"attn_mask": np.repeat(float_mask[None], N * 2, 0)},
        "key_padding": {"key_padding_mask": kpm, "attn_mask": float_mask},
        "bias_kv_zero_attn": {"bias_k": bias, "bias_v": bias * 0.5, "add_zero_attn": True,
                              "key_padding_mask": kpm},
        "no_weights": {"need_weights": False},
        "per_head_weights": {"average": False},
    }


def _to(lib, value):
    if not isinstance(value, np.ndarray):
        return value
    return torch.tensor(value, requires_grad=value.dtype == np.float32) if lib == "torch" else ms.Tensor(value)


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    tmp = tmp_path_factory.mktemp("mha")
    cmod = _load(tmp, "mha_ms", res.code)
    tmod = __import__("types").ModuleType("mha_torch")
    exec(SRC, tmod.__dict__)
    return cmod, tmod


@pytest.mark.parametrize("name", list(_options()))
def test_matches_torch(mods, name):
    cmod, tmod = mods
    arrays, opts = _arrays(), _options()[name]
    t_args = {k: _to("torch", v) for k, v in {**arrays, **opts}.items()}
    t_out, t_w = tmod.attend(**t_args)
    m_out, m_w = cmod.attend(**{k: _to("ms", v) for k, v in {**arrays, **opts}.items()})
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert (m_w is None) == (t_w is None)
    if t_w is not None:
        np.testing.assert_allclose(m_w.asnumpy(), t_w.detach().numpy(), rtol=1e-5, atol=1e-6)
    # gradients of sum(output * c) w.r.t. the query and the projection weights
    c = RNG.standard_normal(t_out.shape).astype(np.float32)
    (t_out * torch.tensor(c)).sum().backward()
    names = ["q", "w_in", "w_out"]

    def loss(q, w_in, w_out):
        args = {k: _to("ms", v) for k, v in {**arrays, **opts}.items()}
        args.update(q=q, w_in=w_in, w_out=w_out)
        return (cmod.attend(**args)[0] * ms.Tensor(c)).sum()
    grads = ms.grad(loss, grad_position=(0, 1, 2))(*[ms.Tensor(arrays[n]) for n in names])
    for n, g in zip(names, grads):
        # float32 sums over heads and positions: rtol 1e-4 for the accumulated products
        np.testing.assert_allclose(g.asnumpy(), t_args[n].grad.numpy(), rtol=1e-4, atol=1e-5)


def test_unbatched_matches_torch(mods):
    cmod, tmod = mods
    arrays = _arrays()
    for k in ("q", "k", "v"):
        arrays[k] = arrays[k][:, 0]
    t_out, t_w = tmod.attend(**{k: torch.tensor(v) for k, v in arrays.items()})
    m_out, m_w = cmod.attend(**{k: ms.Tensor(v) for k, v in arrays.items()})
    assert m_out.shape == tuple(t_out.shape) and m_w.shape == tuple(t_w.shape)
    np.testing.assert_allclose(m_out.asnumpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_w.asnumpy(), t_w.numpy(), rtol=1e-5, atol=1e-6)


def test_call_becomes_the_generated_function():
    res = convert_source(SRC)
    assert "torch_multi_head_attention_forward(" in res.code
    assert "from migrate_runtime import torch_multi_head_attention_forward\n" in res.code
    assert "F.multi_head_attention_forward" not in res.code
