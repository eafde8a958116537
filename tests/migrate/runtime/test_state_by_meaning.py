"""migrate.runtime.state: torch's parameters() / buffers() on a Cell by meaning -- frozen
parameters are parameters, running statistics and registered buffers are buffers -- so a model EMA
written over parameters() and buffers() moves and pairs as torch's (values against torch over
several steps, float32 rtol 1e-5 / atol 1e-6)."""
import copy

import numpy as np
import pytest

from migrate.runtime.state import (
    torch_buffers,
    torch_named_buffers,
    torch_named_parameters,
    torch_parameters,
    torch_register_buffer,
)

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(3)
        self.fixed = torch.nn.BatchNorm2d(3, affine=False)
        self.head = torch.nn.Linear(3, 2)
        self.register_buffer("scale", torch.full((2,), 0.5))

    def forward(self, x):
        x = self.fixed(torch.relu(self.bn(self.conv(x)))).mean((2, 3))
        return self.head(x) * self.scale


class MNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = ms.nn.Conv2d(2, 3, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn = ms.nn.BatchNorm2d(3, momentum=0.9)
        self.fixed = ms.nn.BatchNorm2d(3, momentum=0.9, affine=False)
        self.head = ms.nn.Dense(3, 2)
        torch_register_buffer(self, "scale", ms.ops.full((2,), 0.5))

    def construct(self, x):
        x = self.fixed(ms.ops.relu(self.bn(self.conv(x)))).mean((2, 3))
        return self.head(x) * self.scale


def _pair():
    t, m = TNet(), MNet()
    rng = np.random.default_rng(0)
    for (_, p), (_, q) in zip(t.named_parameters(), torch_named_parameters(m)):
        v = rng.standard_normal(tuple(p.shape)).astype(np.float32)
        with torch.no_grad():
            p.copy_(torch.tensor(v))
        q.set_data(ms.Tensor(v))
    return t, m


def test_parameters_and_buffers_are_torchs():
    t, m = _pair()
    m.head.weight.requires_grad = False         # frozen: still a parameter
    t.head.weight.requires_grad_(False)
    assert [n for n, _ in torch_named_parameters(m)] == ["conv.weight", "bn.gamma", "bn.beta", "head.weight",
                                                         "head.bias"]
    assert len(list(torch_parameters(m))) == len(list(t.parameters())) == 5
    assert [n for n, _ in torch_named_buffers(m)] == ["scale", "bn.moving_mean", "bn.moving_variance",
                                                      "fixed.moving_mean", "fixed.moving_variance"]
    # torch's buffers, less the step counters MindSpore does not keep
    assert sorted(n for n, _ in t.named_buffers() if not n.endswith("num_batches_tracked")) == \
        ["bn.running_mean", "bn.running_var", "fixed.running_mean", "fixed.running_var", "scale"]
    assert sum(p.size for p in torch_parameters(m)) == sum(p.numel() for p in t.parameters())
    assert len(list(torch_buffers(m))) == 5
    assert [n for n, _ in torch_named_parameters(m, prefix="model", recurse=False)] == []


def test_a_frozen_ema_over_parameters_and_buffers_moves_and_pairs_as_torch():
    t, m = _pair()
    t_ema, m_ema = copy.deepcopy(t), copy.deepcopy(m)
    for p in t_ema.parameters():
        p.requires_grad_(False)
    for p in torch_parameters(m_ema):
        p.requires_grad = False
    assert len(list(torch_parameters(m_ema))) == 5 and not m_ema.trainable_params()
    topt = torch.optim.SGD(t.parameters(), lr=0.1)
    mopt = ms.experimental.optim.SGD(m.trainable_params(), lr=0.1)
    grad_fn = ms.value_and_grad(lambda x: (m(x) ** 2).mean(), None, mopt.parameters)
    t.train()
    m.set_train(True)
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = rng.standard_normal((4, 2, 5, 5)).astype(np.float32)
        topt.zero_grad()
        (t(torch.tensor(x)) ** 2).mean().backward()
        topt.step()
        mopt(grad_fn(ms.Tensor(x))[1])
        with torch.no_grad():
            for e, p in zip(t_ema.parameters(), t.parameters()):
                e.mul_(0.8).add_(p.detach(), alpha=0.2)
            for e, b in zip(t_ema.buffers(), t.buffers()):
                e.copy_(b)
        for e, p in zip(torch_parameters(m_ema), torch_parameters(m)):
            e.set_data(e * 0.8 + p * 0.2)
        for e, b in zip(torch_buffers(m_ema), torch_buffers(m)):
            e.set_data(b.copy())
    t_state = dict(t_ema.named_parameters()) | dict(t_ema.named_buffers())
    pairs = {"conv.weight": "conv.weight", "bn.gamma": "bn.weight", "head.bias": "head.bias",
             "bn.moving_variance": "bn.running_var", "fixed.moving_mean": "fixed.running_mean", "scale": "scale"}
    m_state = dict(torch_named_parameters(m_ema)) | dict(torch_named_buffers(m_ema))
    for ms_name, torch_name in pairs.items():
        np.testing.assert_allclose(m_state[ms_name].asnumpy(), t_state[torch_name].numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(m_state["conv.weight"].asnumpy(), _pair()[1].conv.weight.asnumpy())  # it moved
    x = rng.standard_normal((3, 2, 5, 5)).astype(np.float32)
    t_ema.eval()
    np.testing.assert_allclose(m_ema(ms.Tensor(x)).asnumpy(), t_ema(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_a_registered_none_buffer_and_a_user_class_named_like_a_layer():
    class BatchNorm2d(ms.nn.Cell):   # not the framework's: its Parameters are parameters
        def __init__(self):
            super().__init__()
            self.running_mean = ms.Parameter(ms.ops.zeros(2), name="running_mean")

    cell = BatchNorm2d()
    torch_register_buffer(cell, "mask", None)
    assert cell.mask is None
    assert [n for n, _ in torch_named_parameters(cell)] == ["running_mean"]
    assert list(torch_named_buffers(cell)) == []
