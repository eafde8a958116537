"""Random numbers a forward draws outside dropout layers are given to the converted model: the
same values, in the same order, in both modes and in the training steps; a converted model that
asks for other draws (another shape, another probability) is not given them and fails."""
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source
from migrate.check import check
from migrate.check.harness import make_inputs, prepare
from migrate.check.randomness import (Draw, MsDrawReplay, RandomDraws, TorchDrawReplay,
                                      explicit_attention_dropout)

FIXTURE = Path(__file__).parents[2] / "fixtures" / "check" / "random_forward.py"


@pytest.mark.parametrize("expr,shape,drawn", [
    ("Noisy()", "6,8", "Tensor.bernoulli_ at random_forward.py:14 (x2), "
                       "torch.randn_like at random_forward.py:38 (x1)"),
    ("Attn()", "2,5,16", "F.scaled_dot_product_attention(dropout_p=0.2) at random_forward.py:54 (x1)"),
    ("MHA()", "2,5,16", ""),  # need_weights: torch drops the weights with F.dropout itself
    ("Encoder()", "5,2,16", "F.scaled_dot_product_attention(dropout_p=0.2) at "
                            "random_forward.py:79 (x2)"),
])
def test_healthy_conversions_with_random_draws_pass_training_mode_and_steps(expr, shape, drawn):
    t, m, _, _ = prepare(str(FIXTURE), expr, convert=convert_source)
    r = check(t, m, make_inputs([shape], None, None, 0), mode="both", train_steps=2)
    assert r.passed, r.culprit
    assert r.phase("train").random_draws == drawn and r.phase("train").draw_notes == []
    assert r.train.passed and len(r.train.torch_losses) == 2


def test_a_wrong_drop_path_probability_is_not_replayed_and_fails_at_its_block(tmp_path):
    code = convert_source(FIXTURE.read_text()).code
    good = "ops.bernoulli(ops.zeros((x.shape[0],) + (1,) * (x.ndim - 1), x.dtype), keep)"
    assert good in code
    bad = tmp_path / "random_forward_ms.py"  # the drop rate where the keep probability belongs
    bad.write_text(code.replace(good, good.replace("keep)", "1 - keep)")))
    t, _, _, _ = prepare(str(FIXTURE), "Noisy()", convert=convert_source)
    _, m, _, _ = prepare(str(FIXTURE), "Noisy()", str(bad))
    r = check(t, m, make_inputs(["6,8"], None, None, 0), mode="both")
    assert r.phase("eval").outputs.passed
    assert not r.passed and r.culprit.kind == "train" and r.culprit.layer == "blocks.0"
    assert "drew with probability 0.7, ops.bernoulli asks for 0.3" in r.culprit.message


def test_a_missing_reparameterisation_noise_fails():
    """The converted model that forgets the noise cannot be made equal by the replay."""
    import torch
    import ms_core
    torch.manual_seed(0)

    class Torch(torch.nn.Module):
        def forward(self, x):
            return x + torch.randn_like(x)

    class Ms(ms_core.nn.Cell):
        def construct(self, x):
            return x * 1.0
    r = check(Torch(), Ms(), [np.zeros((3, 4), np.float32)], mode="eval")
    assert not r.passed
    assert "1 torch draw(s) not asked for by the converted model, from torch.randn_like" in \
        " ".join(r.phase("eval").notes)


def test_draws_are_recorded_only_from_the_models_code_and_replayed_in_order():
    import torch

    import ms_core
    with RandomDraws() as rd:
        a = torch.rand(2, 3)
        b = torch.empty(4).bernoulli_(0.25)
        torch.nn.init.uniform_(torch.empty(5))  # torch's own code: not the model's draw
    assert [d.name for d in rd.draws] == ["torch.rand", "Tensor.bernoulli_"]
    assert np.array_equal(rd.draws[0].value, a.numpy()) and float(rd.draws[1].p) == 0.25
    notes = []
    with MsDrawReplay(rd.draws, notes):
        ma = ms_core.ops.rand(2, 3)
        mb = ms_core.ops.bernoulli(ms_core.ops.zeros(4, ms_core.float32), 0.25)
    assert notes == [] and np.array_equal(ma.asnumpy(), a.numpy())
    assert np.array_equal(mb.asnumpy(), b.numpy()) and mb.dtype == ms_core.float32
    with TorchDrawReplay(rd.draws):  # in float64, cast
        a64 = torch.rand(2, 3, dtype=torch.float64)
    np.testing.assert_array_equal(a64.numpy(), a.numpy().astype(np.float64))
    assert not np.array_equal(torch.rand(2, 3).numpy(), a.numpy())  # unpatched after


def test_a_replayed_draw_keeps_torchs_own_graph():
    import torch
    mean = torch.zeros(3, requires_grad=True)
    torch.normal(mean, 1.0).sum().backward()
    own = mean.grad.clone()  # torch's own derivative of normal() in its mean
    mean.grad = None
    draws = [Draw("torch.normal", "x:1", np.array([1.0, 2.0, 3.0], np.float32))]
    with TorchDrawReplay(draws):
        out = torch.normal(mean, 1.0)
    assert out.requires_grad
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), [1, 2, 3])
    np.testing.assert_array_equal(mean.grad.numpy(), own.numpy())


def test_fused_attention_as_its_math_equals_torchs_kernel_without_dropout():
    import torch
    import torch.nn.functional as TF
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4) for _ in range(3))
    mask = torch.rand(5, 5) > 0.3
    mask.fill_diagonal_(True)
    ref = TF.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    with explicit_attention_dropout():
        with torch.random.fork_rng():
            out = TF.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=1e-12)
        causal = TF.scaled_dot_product_attention(q, k, v, dropout_p=1e-12, is_causal=True)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(causal, TF.scaled_dot_product_attention(q, k, v, is_causal=True),
                               rtol=1e-5, atol=1e-6)


def test_a_torch_mask_fits_the_shape_the_ms_layer_asks_for():
    from migrate.check.run import fit_mask
    rng = np.random.default_rng(0)
    mask = rng.random((4, 6)) > 0.5
    notes = []
    # channel dropout of a 4-D input: a channel is kept when all its elements were
    four = rng.random((2, 3, 2, 2)) > 0.2
    np.testing.assert_array_equal(fit_mask(four, (2, 3, 1, 1), "d", 0, notes), four.all(axis=(2, 3), keepdims=True))
    # Dropout2d given a 2-D input: each element its own channel, in the same order
    np.testing.assert_array_equal(fit_mask(mask, (1, 24, 1, 1), "d", 0, notes).reshape(4, 6), mask)
    # attention weights (N, H, L, S) asked as (N*H, L, S)
    att = rng.random((2, 3, 4, 5)) > 0.5
    np.testing.assert_array_equal(fit_mask(att, (6, 4, 5), "a", 0, notes), att.reshape(6, 4, 5))
    assert notes == []
    # the same number of elements in another arrangement is not guessed: nothing dropped, noted
    assert fit_mask(mask, (6, 4), "d", 1, notes).all()
    assert notes == ["d#1: torch mask [4, 6] does not fit [6, 4]"]
