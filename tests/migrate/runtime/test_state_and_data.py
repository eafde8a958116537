"""migrate.runtime.autograd, .distributions, .optim, .data, .imports and .guards against torch:
values and gradients (float32: rtol 1e-5 / atol 1e-6), errors as torch raises them."""
import sys
from pathlib import Path

import numpy as np
import pytest

from migrate.runtime.autograd import (
    TorchEnableGrad, TorchSetGradEnabled, torch_checkpoint, torch_is_grad_enabled, torch_no_grad,
)
from migrate.runtime.data import DataLoaderTorch, torch_load_into
from migrate.runtime.distributions import TorchBernoulli, TorchCategorical, TorchNormal, TorchUniform
from migrate.runtime.guards import TorchMissing
from migrate.runtime.imports import torch_functional_getattr, torch_import, torch_import_module, torch_nn_getattr
from migrate.runtime.optim import TorchLBFGS
from tests.optest import check_op

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(4)


def _r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# --- autograd ------------------------------------------------------------------------------

def test_checkpoint_is_the_call_with_torchs_argument_checks():
    def block(x, w, scale=1.0):
        return x * w * scale
    check_op(lambda x, w: torch_checkpoint(block, x, w, scale=2.0, use_reentrant=False),
             lambda x, w: torch.utils.checkpoint.checkpoint(block, x, w, scale=2.0, use_reentrant=False),
             [_r(3), _r(3)])
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        torch_checkpoint(block, ms.Tensor(_r(3)), ms.Tensor(_r(3)), scale=2.0)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        torch.utils.checkpoint.checkpoint(block, torch.ones(3), torch.ones(3), scale=2.0)


def test_grad_mode_as_torch():
    states = []
    assert torch_is_grad_enabled()
    with TorchSetGradEnabled(False):
        states.append(torch_is_grad_enabled())
        with TorchEnableGrad():
            states.append(torch_is_grad_enabled())
        states.append(torch_is_grad_enabled())
    states.append(torch_is_grad_enabled())
    want = []
    with torch.set_grad_enabled(False):
        want.append(torch.is_grad_enabled())
        with torch.enable_grad():
            want.append(torch.is_grad_enabled())
        want.append(torch.is_grad_enabled())
    want.append(torch.is_grad_enabled())
    assert states == want == [False, True, False, True]

    @TorchSetGradEnabled(False)
    def inside():
        return torch_is_grad_enabled()
    assert inside() is False and torch_is_grad_enabled()


def test_no_grad_records_no_gradient():
    w = ms.Tensor(_r(3))

    def f(x):
        with TorchSetGradEnabled(False):
            frozen = x * w
        return (frozen * x).sum()
    x = _r(3)
    got = ms.grad(f)(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    with torch.no_grad():
        frozen = tx * torch.tensor(w.asnumpy())
    (frozen * tx).sum().backward()
    _close(got, tx.grad)


def test_torch_no_grad_as_torchs_context_and_decorator():
    """torch_no_grad: the mode is off inside only (building it or decorating with it changes
    nothing), nested in enable_grad as torch's; what it computes is a constant for ms.grad."""
    def states(no_grad, enable_grad, is_enabled):
        out = []

        @no_grad()
        def inside():
            return is_enabled()
        out.append(is_enabled())  # after decorating
        with no_grad():
            out.append(is_enabled())
            with enable_grad():
                out.append(is_enabled())
            out.append(is_enabled())
        out += [is_enabled(), inside(), is_enabled()]
        return out
    got = states(torch_no_grad, TorchEnableGrad, torch_is_grad_enabled)
    assert got == states(torch.no_grad, torch.enable_grad, torch.is_grad_enabled) == \
        [True, False, True, False, True, False, True]
    w = _r(3)

    @torch_no_grad()
    def frozen_of(x):
        return x * ms.Tensor(w)

    def f(x):
        return (frozen_of(x) * x).sum()
    x = _r(3)
    tx = torch.tensor(x, requires_grad=True)
    with torch.no_grad():
        frozen = tx * torch.tensor(w)
    (frozen * tx).sum().backward()
    _close(ms.grad(f)(ms.Tensor(x)), tx.grad)


# --- distributions -------------------------------------------------------------------------

def test_categorical_matches_torch():
    logits, raw, action = _r(4, 5), RNG.uniform(0.1, 3, (4, 5)).astype(np.float32), np.array([0, 4, 2, 2])
    for kw in ("logits", "probs"):
        value = logits if kw == "logits" else raw
        check_op(lambda v: TorchCategorical(**{kw: v}).log_prob(ms.Tensor(action)),
                 lambda v: torch.distributions.Categorical(**{kw: v}).log_prob(torch.tensor(action)), [value])
        check_op(lambda v: TorchCategorical(**{kw: v}).entropy(),
                 lambda v: torch.distributions.Categorical(**{kw: v}).entropy(), [value])
    sample = TorchCategorical(logits=ms.Tensor(logits)).sample((6,))
    assert sample.shape == (6, 4) and sample.dtype == ms.int64
    with pytest.raises(ValueError, match="exactly one of 'probs' or 'logits' must be given"):
        TorchCategorical()


def test_normal_and_uniform_match_torch():
    loc, scale, value = _r(3, 2), RNG.uniform(0.5, 2, (2,)).astype(np.float32), _r(3, 2)
    for method in ("log_prob", "cdf"):
        check_op(lambda a, b, v: getattr(TorchNormal(a, b), method)(v),
                 lambda a, b, v: getattr(torch.distributions.Normal(a, b), method)(v), [loc, scale, value])
    check_op(lambda a, b: TorchNormal(a, b).entropy(), lambda a, b: torch.distributions.Normal(a, b).entropy(),
             [loc, scale])
    low, high = np.zeros((2,), np.float32), np.full((2,), 3.0, np.float32)
    inside = RNG.uniform(0, 3, (4, 2)).astype(np.float32)
    for method in ("log_prob", "cdf"):
        check_op(lambda a, b, v: getattr(TorchUniform(a, b), method)(v),
                 lambda a, b, v: getattr(torch.distributions.Uniform(a, b), method)(v), [low, high, inside])
    check_op(lambda a, b, p: TorchUniform(a, b).icdf(p), lambda a, b, p: torch.distributions.Uniform(a, b).icdf(p),
             [low, high, RNG.uniform(0, 1, (2,)).astype(np.float32)])
    with pytest.raises(ValueError, match="the value must be within \\[low, high\\)"):
        TorchUniform(ms.Tensor(low), ms.Tensor(high)).log_prob(ms.Tensor(np.full((2,), 5.0, np.float32)))
    draws = TorchNormal(ms.Tensor(loc), ms.Tensor(scale)).rsample((4,))
    assert draws.shape == (4, 3, 2) and draws.dtype == ms.float32


def test_bernoulli_matches_torch():
    probs, value = RNG.uniform(0.05, 0.95, (3, 4)).astype(np.float32), (RNG.random((3, 4)) > 0.5).astype(np.float32)
    for kw in ("probs", "logits"):
        params = probs if kw == "probs" else np.log(probs / (1 - probs)).astype(np.float32)
        check_op(lambda p: TorchBernoulli(**{kw: p}).log_prob(ms.Tensor(value)),
                 lambda p: torch.distributions.Bernoulli(**{kw: p}).log_prob(torch.tensor(value)), [params])
        check_op(lambda p: TorchBernoulli(**{kw: p}).entropy(),
                 lambda p: torch.distributions.Bernoulli(**{kw: p}).entropy(), [params])
    with pytest.raises(ValueError, match="the value must be 0 or 1"):
        TorchBernoulli(probs=ms.Tensor(probs)).log_prob(ms.Tensor(np.full((3, 4), 0.5, np.float32)))


# --- optim ---------------------------------------------------------------------------------

def test_lbfgs_follows_torchs_steps():
    a, b = _r(6, 3), _r(6)
    w0 = np.zeros(3, np.float32)
    tw = torch.tensor(w0, requires_grad=True)
    t_opt = torch.optim.LBFGS([tw], lr=0.5, max_iter=5, history_size=3)

    def t_closure():
        t_opt.zero_grad()
        loss = ((torch.tensor(a) @ tw - torch.tensor(b)) ** 2).mean()
        loss.backward()
        return loss
    mw = ms.Parameter(ms.Tensor(w0), name="w")
    m_opt = TorchLBFGS([mw], lr=0.5, max_iter=5, history_size=3)
    loss_fn = ms.value_and_grad(lambda: ((ms.ops.matmul(ms.Tensor(a), mw) - ms.Tensor(b)) ** 2).mean(),
                                None, m_opt.parameters)
    for _ in range(3):
        _close(m_opt.step(loss_fn), t_opt.step(t_closure))
        _close(mw, tw)
    with pytest.raises(ValueError, match="line_search_fn 'strong_wolfe' is not supported here"):
        TorchLBFGS([mw], line_search_fn="strong_wolfe")


# --- data ----------------------------------------------------------------------------------

def test_data_loader_batches_a_map_style_dataset_as_torch():
    data = [(np.full((2,), i, np.float32), np.int64(i % 3)) for i in range(7)]
    want = [(x.numpy(), y.numpy()) for x, y in torch.utils.data.DataLoader(data, batch_size=3, drop_last=True)]
    got = [(x.asnumpy(), y.asnumpy()) for x, y in
           DataLoaderTorch(data, batch_size=3, drop_last=True).create_tuple_iterator()]
    assert len(got) == len(want) == 2
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)
    # a collate_fn gets the list of samples, as torch's (tests/migrate/runtime/test_data_recipes.py)
    got = list(DataLoaderTorch(data, batch_size=3, collate_fn=list))
    want = list(torch.utils.data.DataLoader(data, batch_size=3, collate_fn=list))
    assert [len(b) for b in got] == [len(b) for b in want] == [3, 3, 1]
    assert all(gx is wx for gb, wb in zip(got, want) for (gx, _), (wx, _) in zip(gb, wb))


def test_load_into_fills_the_network():
    net, other = ms.nn.Dense(2, 3), ms.nn.Dense(2, 3)
    assert torch_load_into(other, {p.name: p for p in net.get_parameters()}) is other
    _close(other.weight, net.weight.asnumpy())
    with pytest.raises(ValueError, match="For 'load', the checkpoint has no value for the parameters"):
        torch_load_into(ms.nn.Dense(2, 3), {})


# --- imports and lookups by name -----------------------------------------------------------

def test_getattr_of_torch_modules_by_a_run_time_name():
    lstm = torch_nn_getattr("LSTM")(4, 8, dropout=0.0)
    assert isinstance(lstm, ms.nn.LSTM)
    x = _r(4, 3, 2, 2)
    bn, t_bn = torch_nn_getattr("BatchNorm2d")(3, momentum=0.3), torch.nn.BatchNorm2d(3, momentum=0.3)
    bn.set_train(True)
    bn(ms.Tensor(x))
    t_bn(torch.tensor(x))  # torch's momentum weighs the batch: the running mean moves by 0.3 of it
    _close(bn.moving_mean, t_bn.running_mean)
    check_op(lambda x: torch_functional_getattr("gelu")(x), lambda x: torch.nn.functional.gelu(x), [_r(4)])
    with pytest.raises(AttributeError, match="For 'getattr\\(torch.nn, name\\)', 'NoSuchLayer' has no MindSpore"):
        torch_nn_getattr("NoSuchLayer")


def test_a_name_the_target_lacks_is_read_as_none_and_refused_clearly(monkeypatch):
    """The lookup tables read the target's own names when the runtime is imported: one the target
    lacks (as MindSpore 2.10 lacks nn.Softplus, which the runtime's SoftplusTorch now stands for)
    must not stop the import, and its lookup says so."""
    from migrate.runtime import generated
    assert "getattr(nn, 'Softsign', None)" in Path(generated.__file__).read_text()
    assert generated.TORCH_NN["Softsign"] is ms.nn.Softsign  # ms_core has it
    monkeypatch.setitem(generated.TORCH_NN, "Softsign", None)  # a target without it
    with pytest.raises(AttributeError, match="'Softsign' has no MindSpore translation for ms_core"):
        torch_nn_getattr("Softsign")


def test_einops_imported_by_name():
    module = torch_import_module("einops")
    x = ms.Tensor(_r(2, 3))
    assert module.rearrange(x, "a b -> b a").shape == (3, 2)
    layers = torch_import("einops.layers.torch", fromlist=["Rearrange"])
    assert layers.Rearrange("a b -> b a")(x).shape == (3, 2)
    assert torch_import("einops.layers.torch").layers.torch is layers
    assert torch_import_module("json") is sys.modules["json"]


# --- guards --------------------------------------------------------------------------------

def test_missing_torch_fails_where_it_is_used():
    torch_stub = TorchMissing("torch", {"hub": "MS901 torch.hub.load has no mapping"})
    load = torch_stub.hub.load  # naming is not using
    registry = {"layer": torch_stub.nn.Module}
    with pytest.raises(ImportError, match="torch.hub.load\\(\\): MS901 torch.hub.load has no mapping"):
        load("repo")
    with pytest.raises(ImportError, match="torch.nn.Module\\(\\): left as torch by the migration"):
        registry["layer"]()
    for use in (bool, iter, lambda s: s[0], lambda s: s == 1):
        with pytest.raises(ImportError, match="converted code does not use torch"):
            use(torch_stub)

    class Net(torch_stub.nn.Module):  # a base class: defined; building one raises
        pass
    with pytest.raises(ImportError, match="torch.nn.Module\\(\\)"):
        Net()
