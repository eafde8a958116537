"""torch's private norm bases named in isinstance/issubclass (timm's convert_splitbn_model and
convert_sync_batchnorm): the tuple of the MindSpore classes of their torch subclasses; the
converted walk picks the layers torch picks."""
import numpy as np

from migrate import convert_source
from tests.migrate.convert.helpers import check

SRC = """\
import torch
import torch.nn as nn
from torch.nn.modules.batchnorm import _BatchNorm


class BN(nn.BatchNorm2d):
    pass


def make():
    return nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.BatchNorm1d(4), nn.BatchNorm3d(4),
                         nn.InstanceNorm2d(4), nn.LayerNorm(4), nn.GroupNorm(2, 4), BN(4))


def picked(model):
    out = []
    for m in model:
        out.append((isinstance(m, _BatchNorm), isinstance(m, torch.nn.modules.instancenorm._InstanceNorm),
                    issubclass(type(m), torch.nn.modules.batchnorm._NormBase)))
    return out
"""


def test_private_bases_in_isinstance_become_tuples():
    check("y = isinstance(m, torch.nn.modules.instancenorm._InstanceNorm)\n",
          "y = isinstance(m, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d))\n")
    check("y = isinstance(m, (nn.LayerNorm, torch.nn.modules.batchnorm._BatchNorm))\n",
          "y = isinstance(m, (nn.LayerNorm, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)))\n")


def test_the_converted_walk_picks_the_layers_torch_picks():
    res = convert_source(SRC)
    assert "# migrate:" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(SRC, "torch_bases", "exec"), t_ns)
    exec(compile(res.code, "ms_bases", "exec"), m_ns)
    expected = t_ns["picked"](t_ns["make"]())
    assert m_ns["picked"](m_ns["make"]()) == expected
    assert np.array(expected).any(axis=0).all()  # each check is true for some layer and
    assert not np.array(expected).all(axis=0).any()  # false for another
