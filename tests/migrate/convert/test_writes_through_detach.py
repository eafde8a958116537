"""An in-place method on ``x.detach()`` writes ``x`` (torch's detach shares the memory): EMA updates,
guided-diffusion's ``zero_module``/``scale_module``. Converted as the same write on ``x.data``."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SOURCE = (
    "import torch\nfrom torch import nn\n\n\n"
    "def zero_module(module):\n    for p in module.parameters():\n        p.detach().zero_()\n    return module\n\n\n"
    "def scale_module(module, scale):\n    for p in module.parameters():\n        p.detach().mul_(scale)\n"
    "    return module\n\n\n"
    "def update_ema(target_params, source_params, rate=0.99):\n"
    "    for targ, src in zip(target_params, source_params):\n"
    "        targ.detach().mul_(rate).add_(src, alpha=1 - rate)\n\n\n"
    "def leaf(x):\n    return x.detach().requires_grad_(True)\n")


def _converted():
    res = convert_source(SOURCE)
    assert res.error is None, res.error
    return res.code


def test_the_write_goes_to_the_tensor_not_to_a_copy():
    code = _converted()
    assert "ops.stop_gradient(p).zero_()" not in code and "MS905" not in code, code
    assert "p.assign_value(initializer(Zero(), p.shape, p.dtype).init_data())" in code
    assert "p.data.copy_(p.data.copy().mul(scale))" in code
    assert "targ.data.copy_(targ.data.copy().mul(rate).add(src, alpha=1 - rate))" in code
    assert "return ops.stop_gradient(x)" in code   # requires_grad_ on a detached copy: a new leaf
    assert convert_source(code).code == code       # converting again changes nothing


def _weights(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(2).astype(np.float32)


def _torch_net(seed):
    net = torch.nn.Linear(3, 2)
    w, b = _weights(seed)
    with torch.no_grad():
        net.weight.copy_(torch.from_numpy(w))
        net.bias.copy_(torch.from_numpy(b))
    return net


def _ms_net(seed):
    net = ms.nn.Dense(3, 2)
    w, b = _weights(seed)
    net.weight.set_data(ms.Tensor(w))
    net.bias.set_data(ms.Tensor(b))
    return net


def test_ema_scale_and_zero_match_torch():
    namespace = {}
    exec(compile(_converted(), "converted_detach.py", "exec"), namespace)
    t_ema, t_src, t_zero = _torch_net(0), _torch_net(1), _torch_net(2)
    m_ema, m_src, m_zero = _ms_net(0), _ms_net(1), _ms_net(2)
    exec(compile(SOURCE, "torch_detach.py", "exec"), torch_ns := {})
    torch_ns["update_ema"](t_ema.parameters(), t_src.parameters(), rate=0.9)
    torch_ns["scale_module"](t_src, 0.5)
    torch_ns["zero_module"](t_zero)
    namespace["update_ema"](m_ema.trainable_params(), m_src.trainable_params(), rate=0.9)
    namespace["scale_module"](m_src, 0.5)
    namespace["zero_module"](m_zero)
    for t_net, m_net in ((t_ema, m_ema), (t_src, m_src), (t_zero, m_zero)):
        for t_p, m_p in zip(t_net.parameters(), m_net.trainable_params()):
            np.testing.assert_allclose(m_p.asnumpy(), t_p.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert not np.any(m_zero.weight.asnumpy())
