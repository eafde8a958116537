"""nn.init.* on a plain Tensor (pytorch-tcn initialises a weight_norm'd layer's computed `weight`,
which is no Parameter): the converted initialiser fills a Tensor and a Parameter alike, with
torch's distribution (bounds and moments against torch's own draw of the same shape)."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = ("import torch\nimport torch.nn as nn\n"
       "INIT = dict(xavier_uniform=nn.init.xavier_uniform_, kaiming_normal=nn.init.kaiming_normal_)\n"
       "def direct(t):\n"
       "    return nn.init.xavier_uniform_(t, gain=2.0)\n")
SHAPE = (256, 128)


def _converted():
    code = convert_source(SRC).code
    assert "set_data" not in code, code  # a plain Tensor has no set_data on MindSpore 2.10
    ns = {}
    exec(code, ns)
    return ns


@pytest.mark.parametrize("make", [lambda a: ms.Tensor(a), lambda a: ms.Parameter(ms.Tensor(a), name="w")],
                         ids=["tensor", "parameter"])
@pytest.mark.parametrize("name, kwargs", [("xavier_uniform", {"gain": 1.5}), ("kaiming_normal", {})])
def test_initialiser_value_fills_tensor_and_parameter_like_torch(make, name, kwargs):
    ns = _converted()
    ms.set_seed(0)
    t = make(np.zeros(SHAPE, np.float32))
    out = ns["INIT"][name](t, **kwargs)
    got = t.asnumpy()
    assert out is t and got.dtype == np.float32
    torch.manual_seed(0)
    ref = getattr(torch.nn.init, name + "_")(torch.zeros(SHAPE), **kwargs).numpy()
    # 32768 draws: the standard deviation's relative standard error is under 1%
    np.testing.assert_allclose(got.std(), ref.std(), rtol=0.03)
    assert abs(got.mean()) < 4 * ref.std() / np.sqrt(got.size)
    if name == "xavier_uniform":
        bound = kwargs["gain"] * np.sqrt(6.0 / sum(SHAPE))
        assert np.abs(got).max() <= bound and np.abs(got).max() > 0.99 * bound


def test_direct_call_on_a_plain_tensor():
    ns = _converted()
    t = ms.Tensor(np.zeros(SHAPE, np.float32))
    ns["direct"](t)
    bound = 2.0 * np.sqrt(6.0 / sum(SHAPE))
    np.testing.assert_allclose(t.asnumpy().std(), bound / np.sqrt(3), rtol=0.03)
