"""Single-file fixtures of the import and scope classes (issue 10 classes 0, 5, 6, 8, A):
tests/fixtures/imports/NAME.py (a torch model file) and expected/NAME.out.py (its conversion,
reviewed and committed). The converted file imports where torch cannot be imported, builds, and
gives torch's outputs with torch's weights; converting it again changes nothing.

To accept new output on purpose: ``MIGRATE_UPDATE_GOLDEN=1 python -m pytest <this file>``.
"""
import importlib.util
import os

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT
from tests.migrate.convert.test_fixtures_numeric import copy_weights
from tests.migrate.convert.torchless import torch_blocked

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HERE = FIXTURE_ROOT / "imports"
FIXTURES = sorted(HERE.glob("*.py"))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_golden_and_idempotent(path):
    out = convert_source(path.read_text())
    assert out.error is None
    golden = HERE / "expected" / f"{path.stem}.out.py"
    if os.environ.get("MIGRATE_UPDATE_GOLDEN"):
        golden.write_text(out.code)
    assert out.code == golden.read_text()
    assert convert_source(out.code).code == out.code


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_converted_fixture_imports_without_torch_and_matches(path, tmp_path):
    tmod = load(path, f"torch_{path.stem}")
    converted = tmp_path / f"ms_{path.stem}.py"
    converted.write_text(convert_source(path.read_text()).code)
    with torch_blocked():
        cmod = load(converted, f"ms_{path.stem}")
        cell = cmod.make_model()
    torch.manual_seed(0)
    tmodel = tmod.make_model().eval()
    cell.set_train(False)
    assert copy_weights(tmodel, cell) == set()
    x = np.random.RandomState(0).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    out = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
