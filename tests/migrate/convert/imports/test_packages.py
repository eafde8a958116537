"""Multi-file package fixtures (tests/fixtures/imports/packages/NAME, expected output in
packages_expected/NAME): a whole package converted as a directory imports where torch cannot
be imported, builds, gives torch's outputs with torch's weights, and fails only in the marked
code it reaches; converting the output again changes nothing.

To accept new output on purpose: ``MIGRATE_UPDATE_GOLDEN=1 python -m pytest <this file>``.
"""
import importlib
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from migrate.convert.project import convert_tree
from migrate.convert.runtime_files import RUNTIME_NAME, is_written_runtime
from tests.migrate.convert.helpers import FIXTURE_ROOT
from tests.migrate.convert.test_fixtures_numeric import copy_weights
from tests.migrate.convert.torchless import imported_tree

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PACKAGES = FIXTURE_ROOT / "imports" / "packages"
EXPECTED = FIXTURE_ROOT / "imports" / "packages_expected"
NAMES = sorted(p.name for p in PACKAGES.iterdir() if (p / "__init__.py").exists())


def torch_package(name: str):
    """The original package, imported with torch (then forgotten by sys.modules)."""
    sys.path.insert(0, str(PACKAGES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(PACKAGES))
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def convert(src: Path, out: Path) -> dict[str, str]:
    """The converted package's own files (the runtime copy written into it is checked apart: it is
    migrate/runtime, tested in tests/migrate/runtime)."""
    reports = convert_tree(src, out)
    assert not [r for r in reports if r.error], [r.error for r in reports if r.error]
    copies = [d for d in out.rglob(RUNTIME_NAME + "*") if is_written_runtime(d)]
    assert [d.parent for d in copies] in ([], [out])  # one copy, inside the package
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.py"))
            if not any(d in p.parents for d in copies)}


@pytest.mark.parametrize("name", NAMES)
def test_package_golden_and_idempotent(name, tmp_path):
    files = convert(PACKAGES / name, tmp_path / "once" / name)
    expected = EXPECTED / name
    if os.environ.get("MIGRATE_UPDATE_GOLDEN"):
        shutil.rmtree(expected, ignore_errors=True)
        for rel, text in files.items():
            (expected / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected / rel).write_text(text)
    assert files == {str(p.relative_to(expected)): p.read_text() for p in sorted(expected.rglob("*.py"))}
    assert convert(tmp_path / "once" / name, tmp_path / "twice" / name) == files


@pytest.mark.parametrize("name", NAMES)
def test_package_imports_without_torch_builds_and_matches(name, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))  # ms.hub's download cache
    tpkg = torch_package(name)
    torch.manual_seed(0)
    tmodel = tpkg.make_model().eval()
    convert(PACKAGES / name, tmp_path / name)
    with imported_tree(tmp_path, name) as cpkg:
        cell = cpkg.make_model()
        with pytest.raises(OSError, match="example.invalid|Name or service|resolution"):
            cpkg.make_model(pretrained=True)  # the translated download: fails only when reached
    cell.set_train(False)
    assert copy_weights(tmodel, cell) == set()
    x = np.random.RandomState(0).randn(*tpkg.INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
