"""Gaps found by a third sample of public training recipes (bench/recipes.py, "A third sample of
recipes"), each fixed by its mechanism: before/after pairs, and the converted code run without
torch against torch's numbers.

- a tensor method that the tables map only as the torch function (``x.cumprod(dim=0)``) is that
  function with the tensor as ``input``; each target of ``a = self.a = tensor`` holds a tensor;
- a GradScaler's state_dict / load_state_dict are torch's, not a Cell's;
- ``norm = clip_grad_norm_(...)``: the clipped grads and torch's total norm;
- hand-written updates: a no_grad block that also zeroes the network's grads; tensors trained by
  hand without a module (``w.requires_grad_()``, ``w -= w.grad * lr``).
"""

import numpy as np
import pytest

from migrate.convert.tensor_methods import FUNCTION_METHODS
from tests.migrate.convert.helpers import check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")




def _run_torch(src, name="torch_side"):
    space = {"__name__": name}
    exec(compile(src, name, "exec"), space)
    return space


# ---- tensor methods known only as functions --------------------------------------------------------

def test_the_method_list_is_torchs():
    for name in FUNCTION_METHODS:
        assert callable(getattr(torch, name, None)) and callable(getattr(torch.Tensor, name, None)), name


def test_a_method_mapped_only_as_a_function_goes_through_the_function():
    check("""\
        betas = torch.linspace(0.1, 0.5, 4)
        alphas = 1.0 - betas
        a = alphas.cumprod(dim=0)
        b = alphas.logcumsumexp(0)
        c = a.cumprod(0).cumprod(0)
        """, """\
        betas = ops.linspace(0.1, 0.5, 4)
        alphas = 1.0 - betas
        a = ops.cumprod(alphas, dim=0)
        b = ops.logcumsumexp(alphas, 0)
        c = ops.cumprod(ops.cumprod(a, 0), 0)
        """)


def test_an_untyped_receiver_keeps_its_method():
    # a NumPy array has cumprod too: only a receiver known to be a tensor is translated
    check("""\
        def f(arr):
            return arr.cumprod(0)
        """, """\
        def f(arr):
            return arr.cumprod(0)
        """)


SCHEDULE = """\
import numpy as np
import torch


class Schedule:
    def __init__(self, n):
        betas = self.betas = torch.from_numpy(np.linspace(1e-4, 0.2, n)).float()
        alphas = 1.0 - betas
        self.alphas_cumprod = alphas.cumprod(dim=0)
        prev = torch.cat([torch.ones(1), self.alphas_cumprod[:-1]], dim=0)
        self.posterior = betas * (1.0 - prev) / (1.0 - self.alphas_cumprod)


s = Schedule(6)
alphas_cumprod, posterior = s.alphas_cumprod, s.posterior
"""


def test_a_diffusion_schedule_by_methods_matches_torch(tmp_path):
    want = _run_torch(SCHEDULE)
    mod, code = load_converted(tmp_path, "schedule", SCHEDULE)
    assert "ops.cumprod(alphas, dim=0)" in code
    for name in ("alphas_cumprod", "posterior"):
        np.testing.assert_allclose(getattr(mod, name).asnumpy(), want[name].numpy(), rtol=1e-5, atol=1e-6)


# ---- a loss scaler's state --------------------------------------------------------------------------

SCALER = """\
import torch
import torch.nn as nn

net = nn.Linear(3, 2)
net.load_state_dict({"weight": torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]), "bias": torch.tensor([0.1, -0.1])})
opt = torch.optim.SGD(net.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
batches = [torch.ones(4, 3), 2 * torch.ones(4, 3), torch.full((4, 3), float("inf")), 3 * torch.ones(4, 3)]
for x in batches:
    loss = net(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
state = scaler.state_dict()
fresh = torch.amp.GradScaler("cpu")
fresh.load_state_dict(state)
again = fresh.state_dict()
"""


def test_a_scalers_state_dict_is_torchs_not_a_cells(tmp_path):
    want = _run_torch(SCALER)
    mod, code = load_converted(tmp_path, "scaler_state", SCALER)
    assert "torch_scaler_state_dict(scaler)" in code and "torch_scaler_load_state_dict(fresh, state)" in code
    assert "parameters_dict" not in code
    # torch: 8 -> 16 after two finite steps, 8 after the overflow, one finite step since
    assert want["state"]["scale"] == 8.0 and want["state"]["_growth_tracker"] == 1
    for got in (mod.state, mod.again):
        assert got == want["state"], got
    np.testing.assert_allclose(mod.net.weight.asnumpy(), want["net"].weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_disabled_scaler_has_torchs_empty_state(tmp_path):
    src = ("import torch\n"
           "scaler = torch.cuda.amp.GradScaler(enabled=False)\n"
           "state = scaler.state_dict()\n"
           "scaler.load_state_dict({'scale': 2.0})\n")
    want = _run_torch(src)
    mod, _ = load_converted(tmp_path, "scaler_off", src)
    assert want["state"] == {} and mod.state == {}


def test_an_empty_state_into_an_enabled_scaler_raises_as_torchs():
    from migrate.runtime.optim import torch_scaler_load_state_dict
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        torch_scaler_load_state_dict(ms.amp.DynamicLossScaler(8.0, 2, 2), {})
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        torch.amp.GradScaler("cpu").load_state_dict({})


# ---- the total norm of a clipping, used ---------------------------------------------------------------

CLIPPED = """\
import torch
import torch.nn as nn

net = nn.Linear(3, 2)
net.load_state_dict({"weight": torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5]]), "bias": torch.tensor([0.3, -0.2])})
opt = torch.optim.SGD(net.parameters(), lr=0.05)
norms, logged = [], []
for step in range(3):
    x = torch.full((4, 3), float(step + 1))
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if step == 1:
        logged.append(torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5, norm_type=1.0).item())
    else:
        norm = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
        norms.append(float(norm))
    opt.step()
"""


def test_a_clipping_whose_norm_is_used_clips_by_torchs_formula(tmp_path):
    want = _run_torch(CLIPPED)
    mod, code = load_converted(tmp_path, "clipped", CLIPPED)
    assert "grads, norm = torch_clip_grad_norm(grads, max_norm=1.0)" in code or \
        "grads, norm = torch_clip_grad_norm(grads, 1.0)" in code, code
    assert "grads, grad_norm = torch_clip_grad_norm(grads, 0.5, 1.0)" in code, code
    assert "logged.append(grad_norm.item())" in code, code
    assert min(want["norms"]) > 1.0 and want["logged"][0] > 0.5  # every step clips
    np.testing.assert_allclose(mod.norms, want["norms"], rtol=1e-5)
    np.testing.assert_allclose(mod.logged, want["logged"], rtol=1e-5)
    np.testing.assert_allclose(mod.net.weight.asnumpy(), want["net"].weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mod.net.bias.asnumpy(), want["net"].bias.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_torch_clip_grad_norm_is_torchs_for_every_norm_type():
    from migrate.runtime.optim import torch_clip_grad_norm
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    for norm_type, max_norm in ((2.0, 1.0), (1.0, 2.0), (float("inf"), 0.5), (3.0, 100.0)):
        params = [torch.nn.Parameter(torch.zeros(a.shape)) for a in arrays]
        for p, a in zip(params, arrays):
            p.grad = torch.tensor(a)
        want = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        got, total = torch_clip_grad_norm(tuple(ms.Tensor(a) for a in arrays), max_norm, norm_type)
        np.testing.assert_allclose(total.asnumpy(), want.numpy(), rtol=1e-5)
        for g, p in zip(got, params):
            np.testing.assert_allclose(g.asnumpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


# ---- a hand-written update whose no_grad block also clears the gradients ------------------------------

HAND_SGD = """\
import torch
from torch import nn
import torch.nn.functional as F

model = nn.Linear(4, 3)
model.load_state_dict({"weight": torch.tensor([[0.1, 0.2, -0.3, 0.4], [-0.5, 0.1, 0.2, 0.0], [0.3, -0.2, 0.1, 0.2]]),
                       "bias": torch.tensor([0.0, 0.1, -0.1])})
lr = 0.5
x_train = torch.tensor([[float((3 * i + j) % 5) / 4 for j in range(4)] for i in range(10)])
y_train = torch.tensor([i % 3 for i in range(10)])
losses = []


def fit(epochs=2, bs=4):
    n = len(x_train)
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb = x_train[i * bs:i * bs + bs]
            yb = y_train[i * bs:i * bs + bs]
            loss = F.cross_entropy(model(xb), yb)
            losses.append(float(loss))
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit()
"""


def test_a_hand_update_block_that_also_zeroes_the_grads_trains_as_torch(tmp_path):
    want = _run_torch(HAND_SGD)
    mod, code = load_converted(tmp_path, "hand_sgd", HAND_SGD)
    assert "for p, p_grad in zip(model.trainable_params(), grads):" in code, code
    assert "zero_grad" not in code and "no_grad" not in code, code
    assert len(want["losses"]) == 6
    np.testing.assert_allclose(mod.losses, want["losses"], rtol=1e-5)
    np.testing.assert_allclose(mod.model.weight.asnumpy(), want["model"].weight.detach().numpy(), rtol=1e-5,
                               atol=1e-6)


# ---- tensors trained by hand, without a module --------------------------------------------------------

LEAVES = """\
import torch
import torch.nn.functional as F

x_train = torch.tensor([[float((3 * i + j) % 5) / 4 for j in range(4)] for i in range(12)])
y_train = torch.arange(12) % 3
weights = torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.2, -0.1], [0.3, 0.1, 0.0], [-0.2, 0.1, 0.2]])
weights.requires_grad_()
bias = torch.zeros(3, requires_grad=True)


def model(xb):
    return xb @ weights + bias


lr = 0.5
losses = []
for epoch in range(2):
    for i in range(3):
        xb = x_train[i * 4:i * 4 + 4]
        yb = y_train[i * 4:i * 4 + 4]
        loss = F.cross_entropy(model(xb), yb)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
"""


def test_tensors_trained_by_hand_become_parameters_and_train_as_torch(tmp_path):
    want = _run_torch(LEAVES)
    mod, code = load_converted(tmp_path, "leaves", LEAVES)
    assert 'weights = ms.Parameter(weights, name="weights")' in code, code
    assert 'bias = ms.Parameter(ops.zeros((3,)), name="bias")' in code, code
    assert "grad_fn = ms.value_and_grad(forward_fn, None, [weights, bias])" in code, code
    assert "weights.set_data(weights - (weights_grad * lr))" in code and "zero_" not in code, code
    np.testing.assert_allclose(mod.losses, want["losses"], rtol=1e-5)
    for name in ("weights", "bias"):
        np.testing.assert_allclose(getattr(mod, name).asnumpy(), want[name].detach().numpy(), rtol=1e-5, atol=1e-6)



# ---- a torch.Generator given to multinomial ----------------------------------------------------------

SAMPLING = """\
import torch

probs = torch.tensor([[0.0, 0.5, 0.5, 0.0], [0.2, 0.0, 0.0, 0.8]])


def sample(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    ix = torch.multinomial(probs, 3, replacement=True, generator=g)
    more = torch.multinomial(probs, 40, replacement=True, generator=g)
    return ix, more


a, b, c = sample(42), sample(42), sample(7)
"""


def test_a_generator_seeds_the_random_calls_given_it_as_torchs_repeats_them(tmp_path):
    want = _run_torch(SAMPLING)
    mod, code = load_converted(tmp_path, "sampling", SAMPLING)
    assert "ops.multinomial(probs, 3, replacement=True, seed=torch_seed(g, None))" in code, code
    for side, arr in ((want, lambda t: t.numpy()), (vars(mod), lambda t: t.asnumpy())):
        a, b, c = side["a"], side["b"], side["c"]
        for x, y in zip(a, b):  # the same seed repeats every draw
            np.testing.assert_array_equal(arr(x), arr(y))
        assert not np.array_equal(arr(a[1]), arr(c[1]))  # another seed draws others
        ix = arr(a[0])
        assert ix.shape == (2, 3) and set(ix[0]) <= {1, 2} and set(ix[1]) <= {0, 3}  # never a zero probability
