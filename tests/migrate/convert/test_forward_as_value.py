"""A module's ``forward`` read or replaced as a value, not called: ``original = module.forward`` and
``module.forward = wrapper`` (torchnlp's weight drop, tracing and caching wrappers). A Cell's call runs
its ``construct`` (an instance attribute too: MindSpore 2.10 PyNative honours it, as torch's call
honours an instance's forward), so the value is ``construct``; an assignment to ``forward`` on a Cell
would change nothing, silently."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import after, both_sides

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch
from torch import nn


def scaled(module, factor):
    original = module.forward

    def forward(*args, **kwargs):
        return original(*args, **kwargs) * factor

    module.forward = forward
    return module


def shifted(module, shift):
    original = getattr(module, "forward")

    def forward(x):
        return original(x) + shift

    setattr(module, "forward", forward)


class Wrapped(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.inner = module
        shifted(module, 0.5)
        self.forward = module.forward


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = scaled(nn.Linear(3, 2), 3.0)
        self.out = Wrapped(nn.Linear(2, 2))

    def forward(self, x):
        return self.out(self.fc(x))
"""


def test_a_replaced_forward_runs_as_torch_runs_it():
    """Net's sub-layers have their forward replaced (an attribute, setattr, a wrapper taking the
    inner module's): the converted Net computes torch's values, and its gradients."""
    code = convert_source(SRC).code
    for written in ("original = module.construct", "module.construct = forward", 'getattr(module, "construct")',
                    'setattr(module, "construct", forward)', "self.construct = module.construct"):
        assert written in code, code
    tns, cns = both_sides(SRC, "module.construct = forward")
    torch.manual_seed(0)
    ref = tns["Net"]()
    net = cns["Net"]()
    for name, layer in (("fc", ref.fc), ("out", ref.out.inner)):
        target = net.fc if name == "fc" else net.out.inner
        target.weight.set_data(ms.Tensor(layer.weight.detach().numpy()))
        target.bias.set_data(ms.Tensor(layer.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    xt = torch.from_numpy(x).requires_grad_()
    want = ref(xt)
    want.sum().backward()
    got = net(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    grad = ms.grad(lambda t: net(t).sum())(ms.Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_the_forward_of_a_plain_class_keeps_its_name():
    """A file whose plain class defines forward: an untyped receiver's forward may be that class's
    (as for a call of it), and stays; a known module's is construct."""
    assert after("""\
        class Step:
            def forward(self, x):
                return x


        def hook(step, net):
            original = step.forward
            net = nn.Linear(2, 2)
            fn = net.forward
            return original, fn
        """) == """\
class Step:
    def forward(self, x):
        return x


def hook(step, net):
    original = step.forward
    net = nn.Dense(2, 2, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))
    fn = net.construct
    return original, fn
"""


def test_a_parameter_removed_for_a_computed_tensor_is_marked():
    """torchnlp's weight drop removes an LSTM's weight_hh_l0 from its parameters and sets a computed
    tensor under that name before each forward; torch's RNN layers read it (their flat-weights list),
    MindSpore's read their ParameterTuples, so the converted LSTM computes with the removed parameter:
    marked (MS921), never silent; converting again keeps it once."""
    src = """\
import torch
from torch import nn


def drop_weights(module, names, p):
    for name in names:
        raw = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_raw", nn.Parameter(raw))
"""
    code = convert_source(src).code
    assert "# migrate: MS921 del module._parameters[name]: a tensor set in the parameter's place" in code, code
    assert "del module._params[name]" in code
    assert convert_source(code).code == code
