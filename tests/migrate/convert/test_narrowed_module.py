"""A name an ``isinstance`` test narrows to module classes is a module inside it (spandrel's
``sequential(*args)`` flattens ``nn.Sequential`` arguments through ``module.children()``, which
stayed a torch method: ESRGAN and DnCNN failed)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def test_children_of_a_narrowed_name():
    check("""\
        def flat(*args):
            out = []
            for module in args:
                if isinstance(module, nn.Sequential):
                    out.extend(module.children())
                elif isinstance(module, nn.Module):
                    out.append(module)
            return out
        """, """\
        def flat(*args):
            out = []
            for module in args:
                if isinstance(module, nn.SequentialCell):
                    out.extend(module.cells())
                elif isinstance(module, nn.Cell):
                    out.append(module)
            return out
        """)


_FLAT = '''\
import torch.nn as nn


def sequential(*args):
    modules = []
    for module in args:
        if isinstance(module, nn.Sequential):
            for submodule in module.children():
                modules.append(submodule)
        elif isinstance(module, nn.Module):
            modules.append(module)
    return nn.Sequential(*modules)


def build():
    return sequential(nn.Linear(4, 8), nn.Sequential(nn.ReLU(), nn.Linear(8, 3)), nn.Tanh())
'''


def test_flattened_sequential_computes_what_torch_computes(tmp_path):
    mod, _ = load_converted(tmp_path, "narrowed_module_flat", _FLAT)
    ns = {}
    exec(compile(_FLAT, "torch_flat", "exec"), ns)
    tnet, net = ns["build"](), mod.build()
    assert len(list(tnet.children())) == len(list(net.cells())) == 4
    for p, q in zip(tnet.parameters(), net.trainable_params()):
        q.set_data(ms.Tensor(p.detach().numpy().copy()))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), tnet(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
