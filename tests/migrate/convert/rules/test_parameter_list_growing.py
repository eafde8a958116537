"""MS408: an empty nn.ParameterList filled by append/extend becomes the generated
TorchParameterList: the Parameters are registered (trainable, named by index like torch's) and
the forward that iterates them gives torch's values."""
import numpy as np
import torch

import ms_core as ms
from tests.migrate.convert.helpers import both_sides

SRC = '''import torch
import torch.nn as nn


class Tokens(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.tokens = nn.ParameterList([])
        for i in range(n):
            self.tokens.append(nn.Parameter(torch.full((2, dim), float(i + 1))))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        for t in self.tokens:
            x = x + t.sum(0)
        return self.proj(x) * self.tokens[-1][0]
'''


def test_growing_parameter_list_is_registered_and_matches_torch():
    tns, cns = both_sides(SRC, 'TorchParameterList()')
    ref, net = tns["Tokens"](3, 4), cns["Tokens"](3, 4)
    names = [n for n, _ in net.parameters_and_names()]
    assert [n for n, _ in ref.named_parameters()] == names  # tokens.0, tokens.1, tokens.2, proj.*
    assert len(net.trainable_params()) == 5
    net.proj.weight.set_data(ms.Tensor(ref.proj.weight.detach().numpy()))
    net.proj.bias.set_data(ms.Tensor(ref.proj.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
