"""``out=None`` written out in a call of a torch function whose entry does not list ``out``
(deepctr-torch's ``torch.mean(inputs, dim=-1, out=None)``; 47 more entries, from torch.cat to
torch.sigmoid): torch's default, which writes nowhere, so nothing to translate. It was "unknown
argument out=" (MS903), and the converted package failed at import. An ``out=`` tensor stays marked."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import both_sides

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch


def squeeze_excite(x):
    z = torch.mean(x, dim=-1, out=None)
    return torch.cat([torch.sigmoid(z, out=None), z], 1, out=None)
"""


def test_out_none_is_torch_default():
    tns, cns = both_sides(SRC, "ops.mean(x, axis=-1)")
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    want = tns["squeeze_excite"](torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cns["squeeze_excite"](ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_an_out_tensor_stays_marked():
    code = convert_source("import torch\n\n\ndef f(x, o):\n    return torch.mean(x, dim=-1, out=o)\n").code
    assert "# migrate: MS903 torch.mean: unknown argument out=" in code, code
