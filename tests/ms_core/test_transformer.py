"""MultiheadAttention and Transformer layers against torch with copied weights: outputs, the
gradients of every input and of every parameter, masks (bool and float), batch_first,
norm_first, unbatched inputs, kdim/vdim, add_bias_kv/add_zero_attn; eval mode (no dropout).

torch -> ms_core names: linear1/linear2 -> dense1/dense2, LayerNorm weight/bias -> gamma/beta.
Tolerance: rtol 1e-4 / atol 1e-5. Single layers pass the per-op 1e-5 / 1e-6 too; the stacks
(2-layer encoder + final LayerNorm, full Transformer) differ from torch by up to 2.5e-5 absolute
in some parameter gradients (float32 rounding accumulated over ~20 matmuls / softmaxes /
LayerNorms, summed in a different order).
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn

TOL = dict(rtol=1e-4, atol=1e-5)


def ms_name(torch_name, tmodel):
    """The ms_core parameter name of a torch parameter."""
    base, _, leaf = torch_name.rpartition(".")
    mod = tmodel.get_submodule(base) if base else tmodel
    if isinstance(mod, torch.nn.LayerNorm):
        leaf = {"weight": "gamma", "bias": "beta"}[leaf]
    parts = [{"linear1": "dense1", "linear2": "dense2"}.get(p, p) for p in base.split(".")] \
        if base else []
    return ".".join(parts + [leaf])


def copy_weights(tmodel, cell):
    params = dict(cell.parameters_and_names())
    names = {}
    for tname, tp in tmodel.named_parameters():
        mname = ms_name(tname, tmodel)
        assert mname in params, f"no ms_core parameter {mname} for torch {tname}"
        assert tuple(params[mname].shape) == tuple(tp.shape), (tname, params[mname].shape, tp.shape)
        params[mname].set_data(ms.Tensor(tp.detach().numpy().copy()))
        names[tname] = mname
    assert set(names.values()) == set(params), set(params) - set(names.values())
    return names


def compare(tmodel, cell, inputs, call_t, call_m, out_index=None):
    """Forward and grads (inputs + all parameters) of sum(out * cot) on both sides."""
    names = copy_weights(tmodel, cell)
    tmodel.eval()
    cell.set_train(False)
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    t_out = call_t(tmodel, *t_in)
    if out_index is not None:
        t_out = t_out[out_index]
    cot = np.random.default_rng(1).standard_normal(tuple(t_out.shape)).astype(np.float32)
    (t_out * torch.tensor(cot)).sum().backward()

    m_in = [ms.Tensor(a) for a in inputs]
    fidx = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]
    params = [p for p in cell.trainable_params()]

    def loss(*xs):
        out = call_m(cell, *xs)
        if out_index is not None:
            out = out[out_index]
        return (out * ms.Tensor(cot)).sum()

    m_out = call_m(cell, *m_in)
    if out_index is not None:
        m_out = m_out[out_index]
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), err_msg="forward", **TOL)
    g_in, g_p = ms.grad(loss, grad_position=tuple(fidx), weights=params)(*m_in)
    g_in = g_in if isinstance(g_in, tuple) else (g_in,)
    for i, g in zip(fidx, g_in):
        tg = t_in[i].grad  # None: the output does not depend on this input (value -> weights)
        tg = np.zeros(inputs[i].shape, np.float32) if tg is None else tg.numpy()
        np.testing.assert_allclose(g.asnumpy(), tg, err_msg=f"grad input {i}", **TOL)
    by_ms = {m: t for t, m in names.items()}
    tparams = dict(tmodel.named_parameters())
    for p, g in zip(params, g_p):
        tg = tparams[by_ms[p.name]].grad
        tg = np.zeros(p.shape, np.float32) if tg is None else tg.numpy()
        np.testing.assert_allclose(g.asnumpy(), tg, err_msg=f"grad {p.name}", **TOL)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def init_torch(m, seed=0):
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, p in m.named_parameters():
            # LayerNorm scales around 1, everything else around 0
            p.copy_(torch.randn_like(p) * 0.3 + (1.0 if "norm" in name and "weight" in name else 0.0))
    return m


# --- MultiheadAttention ----------------------------------------------------------------------

L, S, N, E, H = 4, 5, 3, 8, 2


def causal_bool(tgt_len, src_len):
    return np.triu(np.ones((tgt_len, src_len), bool), 1)


MHA_CASES = {
    "self": (dict(), lambda: [rand(L, N, E)], lambda m, x: m(x, x, x)),
    "cross": (dict(), lambda: [rand(L, N, E), rand(S, N, E, seed=1), rand(S, N, E, seed=2)],
              lambda m, q, k, v: m(q, k, v)),
    "batch_first": (dict(batch_first=True),
                    lambda: [rand(N, L, E), rand(N, S, E, seed=1), rand(N, S, E, seed=2)],
                    lambda m, q, k, v: m(q, k, v)),
    "no_bias": (dict(bias=False), lambda: [rand(L, N, E)], lambda m, x: m(x, x, x)),
    "kdim_vdim": (dict(kdim=5, vdim=3),
                  lambda: [rand(L, N, E), rand(S, N, 5, seed=1), rand(S, N, 3, seed=2)],
                  lambda m, q, k, v: m(q, k, v)),
    "bias_kv_zero_attn": (dict(add_bias_kv=True, add_zero_attn=True),
                          lambda: [rand(L, N, E), rand(S, N, E, seed=1),
                                   np.array([[False] * (S - 1) + [True]] * N)],
                          lambda m, q, kv, kpm: m(q, kv, kv, key_padding_mask=kpm)),
    "per_head_weights": (dict(), lambda: [rand(L, N, E)],
                         lambda m, x: m(x, x, x, average_attn_weights=False)),
    "unbatched": (dict(), lambda: [rand(L, E), rand(S, E, seed=1)],
                  lambda m, q, kv: m(q, kv, kv)),
    "bool_masks": (dict(), lambda: [rand(L, N, E), causal_bool(L, L),
                                    np.array([[False, False, False, True]] * N)],
                   lambda m, x, am, kpm: m(x, x, x, attn_mask=am, key_padding_mask=kpm)),
    "float_masks": (dict(), lambda: [rand(L, N, E), rand(L, L, seed=3), rand(N, L, seed=4)],
                    lambda m, x, am, kpm: m(x, x, x, attn_mask=am, key_padding_mask=kpm)),
    "mixed_masks": (dict(), lambda: [rand(L, N, E), rand(N * H, L, L, seed=3),
                                     np.array([[False, True, False, False]] * N)],
                    lambda m, x, am, kpm: m(x, x, x, attn_mask=am, key_padding_mask=kpm)),
}


def _ms_kwargs(kw):
    kw = dict(kw)
    if "bias" in kw:
        kw["has_bias"] = kw.pop("bias")
    return kw


@pytest.mark.parametrize("case", list(MHA_CASES))
@pytest.mark.parametrize("which", [0, 1])
def test_multihead_attention_matches_torch(case, which):
    kw, make, call = MHA_CASES[case]
    tm = init_torch(torch.nn.MultiheadAttention(E, H, **kw))
    cell = nn.MultiheadAttention(E, H, **_ms_kwargs(kw))
    compare(tm, cell, make(), call, call, out_index=which)


def test_multihead_attention_need_weights_false_returns_1_tuple():
    cell = nn.MultiheadAttention(E, H)
    x = ms.Tensor(rand(L, N, E))
    out = cell(x, x, x, need_weights=False)
    assert isinstance(out, tuple) and len(out) == 1 and out[0].shape == (L, N, E)


def test_multihead_attention_names_shapes_as_mindspore():
    cell = nn.MultiheadAttention(E, H)
    assert [(n, tuple(p.shape)) for n, p in cell.parameters_and_names()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    cell = nn.MultiheadAttention(E, H, kdim=5, vdim=3, add_bias_kv=True, has_bias=False)
    assert {n: tuple(p.shape) for n, p in cell.parameters_and_names()} == {
        "q_proj_weight": (8, 8), "k_proj_weight": (8, 5), "v_proj_weight": (8, 3),
        "out_proj.weight": (8, 8), "bias_k": (1, 1, 8), "bias_v": (1, 1, 8)}
    assert cell.in_proj_weight is None
    np.testing.assert_array_equal(nn.MultiheadAttention(E, H).in_proj_bias.asnumpy(), 0)


def test_multihead_attention_validation():
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(10, 3)
    cell = nn.MultiheadAttention(E, H)
    x = ms.Tensor(rand(L, N, E))
    with pytest.raises(ValueError, match="attn_mask"):
        cell(x, x, x, attn_mask=ms.Tensor(np.zeros((3, 3), np.float32)))
    with pytest.raises(ValueError, match="key_padding_mask"):
        cell(x, x, x, key_padding_mask=ms.Tensor(np.zeros((N, L), np.int32)))


# --- Transformer layers ------------------------------------------------------------------------

D, FF = 8, 16


def _enc_layer(lib, **kw):
    return lib.TransformerEncoderLayer(D, H, FF, dropout=0.1, **kw)


LAYER_KWARGS = [dict(), dict(batch_first=True), dict(norm_first=True),
                dict(activation="gelu", layer_norm_eps=1e-3)]


@pytest.mark.parametrize("kw", LAYER_KWARGS, ids=lambda k: "-".join(k) or "default")
def test_encoder_layer_matches_torch(kw):
    tm = init_torch(_enc_layer(torch.nn, **kw))
    cell = _enc_layer(nn, **kw)
    shape = (N, L, D) if kw.get("batch_first") else (L, N, D)
    kpm = np.array([[False, False, True, False]] * N)
    compare(tm, cell, [rand(*shape), causal_bool(L, L), kpm],
            lambda m, x, am, kpm: m(x, src_mask=am, src_key_padding_mask=kpm),
            lambda m, x, am, kpm: m(x, src_mask=am, src_key_padding_mask=kpm))


def test_encoder_layer_torch_callable_activation():
    tm = init_torch(torch.nn.TransformerEncoderLayer(D, H, FF, activation=torch.nn.functional.gelu))
    cell = nn.TransformerEncoderLayer(D, H, FF, activation=ms.ops.gelu)
    compare(tm, cell, [rand(L, N, D)], lambda m, x: m(x), lambda m, x: m(x))


@pytest.mark.parametrize("kw", LAYER_KWARGS[:3], ids=lambda k: "-".join(k) or "default")
def test_decoder_layer_matches_torch(kw):
    tm = init_torch(torch.nn.TransformerDecoderLayer(D, H, FF, **kw))
    cell = nn.TransformerDecoderLayer(D, H, FF, **kw)
    bf = kw.get("batch_first")
    tgt = rand(*((N, L, D) if bf else (L, N, D)))
    mem = rand(*((N, S, D) if bf else (S, N, D)), seed=5)
    mkpm = np.array([[False] * (S - 1) + [True]] * N)
    compare(tm, cell, [tgt, mem, causal_bool(L, L), mkpm],
            lambda m, t, mm, am, k: m(t, mm, tgt_mask=am, memory_key_padding_mask=k),
            lambda m, t, mm, am, k: m(t, mm, tgt_mask=am, memory_key_padding_mask=k))


def test_encoder_stack_matches_torch():
    tm = init_torch(torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, H, FF), 2,
                                                norm=torch.nn.LayerNorm(D),
                                                enable_nested_tensor=False))
    cell = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF), 2, norm=nn.LayerNorm((D,)))
    kpm = np.array([[False, False, False, True]] * N)
    compare(tm, cell, [rand(L, N, D), kpm],
            lambda m, x, k: m(x, src_key_padding_mask=k),
            lambda m, x, k: m(x, src_key_padding_mask=k))


def test_decoder_stack_matches_torch():
    tm = init_torch(torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(D, H, FF, batch_first=True), 2))
    cell = nn.TransformerDecoder(nn.TransformerDecoderLayer(D, H, FF, batch_first=True), 2)
    compare(tm, cell, [rand(N, L, D), rand(N, S, D, seed=2), rand(L, L, seed=3)],
            lambda m, t, mm, am: m(t, mm, tgt_mask=am),
            lambda m, t, mm, am: m(t, mm, tgt_mask=am))


def test_full_transformer_matches_torch():
    tm = init_torch(torch.nn.Transformer(D, H, 1, 2, FF, batch_first=True))
    cell = nn.Transformer(D, H, 1, 2, FF, batch_first=True)
    compare(tm, cell, [rand(N, S, D), rand(N, L, D, seed=2), causal_bool(L, L)],
            lambda m, s, t, am: m(s, t, tgt_mask=am),
            lambda m, s, t, am: m(s, t, tgt_mask=am))


def test_unbatched_encoder_layer():
    tm = init_torch(torch.nn.TransformerEncoderLayer(D, H, FF))
    cell = nn.TransformerEncoderLayer(D, H, FF)
    compare(tm, cell, [rand(L, D)], lambda m, x: m(x), lambda m, x: m(x))


def test_layer_names_as_mindspore():
    names = [n for n, _ in nn.TransformerDecoderLayer(D, H, FF).parameters_and_names()]
    assert names == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias",
        "multihead_attn.out_proj.weight", "multihead_attn.out_proj.bias", "dense1.weight",
        "dense1.bias", "dense2.weight", "dense2.bias", "norm1.gamma", "norm1.beta",
        "norm2.gamma", "norm2.beta", "norm3.gamma", "norm3.beta"]
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF), 2)
    assert [p.name for p in enc.get_parameters()][-1] == "layers.1.norm2.beta"
    # layers start equal (MindSpore deep-copies one fresh layer)
    np.testing.assert_array_equal(enc.layers[0].dense1.weight.asnumpy(),
                                  enc.layers[1].dense1.weight.asnumpy())
    assert enc.layers[0].dense1.weight is not enc.layers[1].dense1.weight


def test_dropout_only_in_training():
    cell = nn.TransformerEncoderLayer(D, H, FF, dropout=0.5)
    x = ms.Tensor(rand(L, N, D))
    a, b = cell(x).asnumpy(), cell(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    cell.set_train(True)
    ms.set_seed(0)
    c = cell(x).asnumpy()
    assert not np.allclose(a, c)
    mha = nn.MultiheadAttention(D, H, dropout=0.5).set_train(True)
    w = mha(x, x, x)[1].asnumpy()
    assert not np.allclose(w.sum(-1), 1.0)


def test_activation_validation():
    with pytest.raises(ValueError, match="relu/gelu"):
        nn.TransformerEncoderLayer(D, H, FF, activation="tanh")
    with pytest.raises(ValueError, match="str, callable or Cell"):
        nn.TransformerEncoderLayer(D, H, FF, activation=3)


def test_attention_double_backward():
    from ms_core.nn.layer.transformer import multi_head_attention_forward
    from tests.optest import check_double_backward
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, 1, 4))
    kv = rng.standard_normal((3, 1, 4))
    w_in = rng.standard_normal((12, 4)) * 0.5
    w_out = rng.standard_normal((4, 4)) * 0.5
    mask = ms.Tensor(np.array([[0.0, -1.0, 0.5], [0.2, 0.0, -0.3]]))

    def f(q, kv, w_in, w_out):
        out, w = multi_head_attention_forward(q, kv, kv, 2, w_in, None, None, None, False, 0.0,
                                              w_out, None, training=False, attn_mask=mask)
        return (out * out).sum() + (w * w).sum()

    check_double_backward(f, [q, kv, w_in, w_out])


def test_initializers_as_mindspore():
    ms.set_seed(0)
    e = 64
    cell = nn.MultiheadAttention(e, 4, add_bias_kv=True)
    w = cell.in_proj_weight.asnumpy()
    bound = np.sqrt(6.0 / (e + 3 * e))  # XavierUniform over (3E, E)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    np.testing.assert_array_equal(cell.in_proj_bias.asnumpy(), 0)
    b = cell.out_proj.bias.asnumpy()
    assert np.abs(b).max() <= 1 / np.sqrt(e) and np.abs(b).std() > 0
    wo = cell.out_proj.weight.asnumpy()  # HeUniform(sqrt(5)) = U(±1/sqrt(fan_in))
    assert np.abs(wo).max() <= 1 / np.sqrt(e) and np.abs(wo).max() > 0.9 / np.sqrt(e)
    assert cell.bias_k.shape == (1, 1, e) and cell.bias_k.asnumpy().std() > 0
    layer = nn.TransformerEncoderLayer(e, 4, 128)
    assert np.abs(layer.dense2.bias.asnumpy()).max() <= 1 / np.sqrt(128)
    np.testing.assert_array_equal(layer.norm1.gamma.asnumpy(), 1)
    assert layer.norm1.epsilon == 1e-5
