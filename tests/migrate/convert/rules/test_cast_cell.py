"""module.double() / .half() / .bfloat16() -> the generated torch_cast_cell (Parameter.set_dtype on
every floating-point parameter and buffer): the converted network computes in the new dtype with
torch's numbers (float64: rtol 1e-12)."""
import numpy as np
import pytest
import torch

from migrate import convert_source
from tests.migrate.convert.test_fixtures_numeric import copy_weights

SOURCE = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(2, 5)
        self.norm = nn.BatchNorm1d(5)
        self.fc = nn.Linear(5, 1)

    def forward(self, x):
        zero = torch.zeros(x.shape[0], 5, dtype=x.dtype)
        h, c = self.lstm(x, (zero, zero))
        return self.fc(self.norm(h))


def build():
    net = Net()
    net.{method}()
    return net
"""


def test_double_casts_parameters_and_buffers_and_matches_torch_in_float64():
    import ms_core as ms
    code = convert_source(SOURCE.format(method="double")).code
    assert "# migrate: MS9" not in code.replace('(marked "# migrate: MS9xx")', "")
    assert "torch_cast_cell(net, ms.float64)" in code
    t_ns, c_ns = {}, {}
    exec(SOURCE.format(method="double"), t_ns)
    exec(code, c_ns)
    torch.manual_seed(0)
    tnet, cnet = t_ns["build"]().eval(), c_ns["build"]()
    assert all(p.dtype == ms.float64 for p in cnet.get_parameters())
    copy_weights(tnet, cnet)  # set_data keeps each parameter's (float64) dtype
    x = np.random.RandomState(0).randn(4, 2)
    want = tnet(torch.tensor(x)).detach().numpy()
    got = cnet(ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_half_precision_casts():
    import ms_core as ms
    code = convert_source(SOURCE.format(method="half")).code
    assert "torch_cast_cell(net, ms.float16)" in code
    ns = {}
    exec(code, ns)
    assert {p.dtype for p in ns["build"]().get_parameters()} == {ms.float16}
    code = convert_source(SOURCE.format(method="bfloat16")).code
    assert "torch_cast_cell(net, ms.bfloat16)" in code
    exec(code, ns)
    with pytest.raises(TypeError, match="For 'BFloat16', ms_core computes with NumPy"):  # MindSpore has it
        ns["build"]()
