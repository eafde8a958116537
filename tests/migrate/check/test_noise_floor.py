"""The float32 noise floor: a difference beyond the tolerance passes when float32 rounding explains
it (against torch float64, or a torch run that differs only by an accepted difference), and only
then."""
import numpy as np
import pytest

from migrate.check.compare import NOISE_FACTOR, compare, drift_explains, float64_explains


def test_within_the_factor_of_torchs_own_float32_error_passes_with_both_figures():
    f64 = np.linspace(-1, 1, 50)
    t32 = f64 + 1e-3  # torch float32's own rounding error
    ms_close = f64 - 3e-3  # fails rtol 1e-4 against torch float32, within 4x of torch's error
    st = float64_explains(compare(ms_close, t32), ms_close, t32, f64)
    assert st.passed and st.explained == "float64"
    assert (st.ms_to_f64, st.torch_to_f64) == pytest.approx((3e-3, 1e-3))
    assert "ms is 0.003 from torch float64, torch float32 0.001" in st.note
    ms_far = f64 + (NOISE_FACTOR + 1) * 1e-3  # beyond the factor: a real difference
    st = float64_explains(compare(ms_far, t32), ms_far, t32, f64)
    assert not st.passed and st.explained == "" and st.ms_to_f64 == pytest.approx(5e-3)


def test_the_mean_error_must_be_within_the_factor_too():
    """A fault in many elements whose max stays under torch's worst single element still fails."""
    f64 = np.zeros(1000)
    t32 = f64.copy()
    t32[0] = 1e-2  # torch's error: one element
    ms = f64 + 5e-3  # every element off by half of it
    st = float64_explains(compare(ms, t32), ms, t32, f64)
    assert not st.passed


def test_no_floor_when_torch_float32_is_exact_and_passing_stats_keep_their_figures():
    x = np.arange(4.0)
    st = float64_explains(compare(x + 1, x), x + 1, x, x)
    assert not st.passed and st.torch_to_f64 == 0.0
    st = float64_explains(compare(x, x), x, x + 1e-7, x)
    assert st.passed and st.explained == "" and st.torch_to_f64 == pytest.approx(1e-7)


def test_nested_outputs_are_judged_over_all_their_leaves():
    f64 = (np.ones(3), [np.zeros(2)])
    t32 = (np.ones(3) + 1e-3, [np.zeros(2) + 1e-3])
    ms = (np.ones(3) - 1e-3, [np.zeros(2) - 2e-3])
    st = float64_explains(compare(np.ones(3) - 1e-3, np.ones(3) + 1e-3), ms, t32, f64)
    assert st.passed and st.ms_to_f64 == pytest.approx(2e-3)


def test_drift_within_the_factor_of_a_shadow_run_passes():
    t = np.linspace(0, 1, 20)
    shadow = t + 2e-3  # torch started from the converted model's first gradients
    ms = t - 3e-3
    st = drift_explains(compare(ms, t), ms, t, shadow)
    assert st.passed and st.explained == "drift" and "ends 0.002 from torch" in st.note
    far = t + 0.1
    assert not drift_explains(compare(far, t), far, t, shadow).passed


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_the_checkers_torch_optimizers_are_torch_optim(kind):
    """TorchSGD/TorchAdam (torch.optim's arithmetic without its import of torch._dynamo) take
    the same steps as torch.optim, bit for bit."""
    import torch

    from migrate.check.optimizers import TorchAdam, TorchSGD
    torch.manual_seed(0)
    a, b = torch.nn.Linear(5, 3), torch.nn.Linear(5, 3)
    b.load_state_dict(a.state_dict())
    mine = TorchSGD(list(a.parameters()), lr=0.1, momentum=0.9) if kind == "sgd" else \
        TorchAdam(list(a.parameters()), lr=0.01)
    ref = torch.optim.SGD(b.parameters(), lr=0.1, momentum=0.9) if kind == "sgd" else \
        torch.optim.Adam(b.parameters(), lr=0.01)
    x = torch.randn(4, 5)
    for _ in range(3):
        for model, opt in ((a, mine), (b, ref)):
            opt.zero_grad(set_to_none=True)
            (model(x) ** 2).mean().backward()
            opt.step()
    assert torch.equal(a.weight, b.weight) and torch.equal(a.bias, b.bias)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_float_copy_never_shares_storage_with_the_checked_model(dtype):
    """The reference copy runs in training mode (BatchNorm updates its running statistics): in the
    model's own dtype too (the torch-backward-on-ms-forward run), the original must not move."""
    import torch

    from migrate.check.reference import float_copy
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    twin = float_copy(model, getattr(torch, dtype)).train()
    twin(torch.randn(5, 3, dtype=getattr(torch, dtype)))
    with torch.no_grad():
        next(twin.parameters()).add_(1.0)
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k]), k
    assert float(twin[1].num_batches_tracked) == 1 and not torch.equal(twin[1].running_mean,
                                                                        before["1.running_mean"])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_model_cast_in_place_comes_back_exactly_as_it_was(dtype):
    """cast_in_place (the float64 reference without a deep copy): inside, the model computes in
    `dtype` as a float64 deep copy does (tied weights tied, BatchNorm updating its statistics, a
    tensor attribute cast); outside, every tensor, gradient, attribute and mode is the original
    object with the original values."""
    import torch

    from migrate.check.reference import cast_in_place, float_copy
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                torch.nn.Linear(4, 4))
    model[2].scale = torch.full((4,), 0.5)  # a plain tensor attribute
    model.eval()
    x = torch.randn(5, 3)
    model(x).sum().backward()
    tensors = {k: (v, v.clone()) for k, v in model.state_dict(keep_vars=True).items()}
    grads = {n: (p.grad, p.grad.clone()) for n, p in model.named_parameters()}
    scale = model[2].scale
    twin = float_copy(model, dt).train()
    expected = twin(x.to(dt))
    with cast_in_place(model, dt) as m:
        m.train()
        m[2].cache = torch.ones(1)  # assigned during the run: gone after it
        out = m(x.to(dt))
        assert out.dtype == dt and m[2].scale.dtype == dt and m[1].running_mean.dtype == dt
        assert float(m[1].num_batches_tracked) == 1
        m.zero_grad(set_to_none=True)
        out.sum().backward()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)  # the same arithmetic
    assert not model.training and not hasattr(model[2], "cache") and model[2].scale is scale
    for k, v in model.state_dict(keep_vars=True).items():
        assert v is tensors[k][0] and torch.equal(v, tensors[k][1]), k
    for n, p in model.named_parameters():
        assert p.grad is grads[n][0] and torch.equal(p.grad, grads[n][1]), n


def test_cast_in_place_keeps_tied_weights_tied_and_restores_after_an_error():
    """A weight shared by two layers is cast once (still shared inside); an exception in the run
    leaves the model as it was."""
    import torch

    from migrate.check.reference import cast_in_place
    emb, head = torch.nn.Embedding(6, 4), torch.nn.Linear(4, 6, bias=False)
    head.weight = emb.weight
    model = torch.nn.ModuleDict({"emb": emb, "head": head})
    storage = emb.weight.data_ptr()
    with pytest.raises(RuntimeError, match="boom"):
        with cast_in_place(model, torch.float64) as m:
            assert m["head"].weight is m["emb"].weight and m["emb"].weight.dtype == torch.float64
            raise RuntimeError("boom")
    assert emb.weight.data_ptr() == storage and emb.weight.dtype == torch.float32 and head.weight is emb.weight
