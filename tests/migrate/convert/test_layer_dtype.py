"""A layer's dtype= (None, float32, float64, float16, a variable) -> parameters created in that
dtype (Dense/MultiheadAttention dtype=; Embedding's table cast after it is built, as MindSpore
2.10 keeps it float32): parameter dtypes and outputs against torch with the same weights
(tests/fixtures/functions/layer_dtype.py; float64 end to end: rtol 1e-12; float32: rtol 1e-5 / atol 1e-6)."""
import numpy as np
import pytest

from migrate.check.weights import transfer
from tests.migrate.convert.helpers import FIXTURE_ROOT, fixture_pair

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "layer_dtype.py"
IDS = np.array([[1, 3], [6, 0], [2, 2]], np.int64)


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    return fixture_pair(PATH, tmp_path_factory.mktemp("dtype"))


def _dtypes_agree(tnet, cell):
    want = [str(p.dtype).replace("torch.", "") for p in tnet.parameters()]
    got = [np.dtype(p.asnumpy().dtype).name for p in cell.trainable_params()]
    assert got == want


@pytest.mark.parametrize("dtype", [None, "float32", "float64", "float16"])
def test_parameters_take_the_layers_dtype(sides, dtype):
    t, m = sides
    tnet = t.Block(None if dtype is None else getattr(torch, dtype))
    cell = m.Block(None if dtype is None else getattr(ms, dtype))
    _dtypes_agree(tnet, cell)


# (float64 layers, then .float(): float32 outputs, one float32 rounding apart at most)
@pytest.mark.parametrize("dtype,rtol,atol", [("float32", 1e-5, 1e-6), ("float64", 1e-6, 1e-7)])
def test_outputs_match_torch(sides, dtype, rtol, atol):
    t, m = sides
    torch.manual_seed(0)
    tnet, cell = t.Block(getattr(torch, dtype)).eval(), m.Block(getattr(ms, dtype))
    transfer(tnet, cell, strict=True)
    want = tnet(torch.tensor(IDS)).detach().numpy()
    got = cell(ms.Tensor(IDS)).asnumpy()
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_literal_float64_layers(sides):
    t, m = sides
    torch.manual_seed(0)
    tnet, cell = t.Wide(), m.Wide()
    _dtypes_agree(tnet, cell)
    transfer(tnet, cell, strict=True)
    want, got = tnet(torch.tensor(IDS)).detach().numpy(), cell(ms.Tensor(IDS)).asnumpy()
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
