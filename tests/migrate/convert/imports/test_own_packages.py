"""A package whose name is one the converter resolves as torch's (torchvision, torchaudio,
torchtext) imports itself absolutely (`from torchvision.models._api import Weights` inside
torchvision): converting that package, its own names are its code, imported from the converted
copy, never marked as torch's (they were marked MS901 and the package did not import)."""
import importlib
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source
from migrate.convert.project import convert_tree
from tests.migrate.convert.test_fixtures_numeric import copy_weights
from tests.migrate.convert.torchless import imported_tree

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

# torchtext: a name the converter resolves (imports.ROOTS) that the test's torch blocker leaves
# importable, so the converted copy can be imported under it
FILES = {
    "torchtext/__init__.py": "",
    "torchtext/models/__init__.py": "from torchtext.models.net import Net\n",
    "torchtext/models/blocks.py": """
        import torch.nn as nn


        class Block(nn.Linear):
            def __init__(self, width):
                super().__init__(width, width)
        """,
    "torchtext/models/net.py": """
        import torch.nn as nn

        import torchtext.models.blocks as B
        from torchtext.models.blocks import Block


        class Net(nn.Module):
            def __init__(self, width=4):
                super().__init__()
                self.first = Block(width)
                self.second = B.Block(width)

            def forward(self, x):
                return self.second(self.first(x).relu())
        """,
}


def write(root):
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip())


def test_a_file_converted_alone_marks_them_and_one_of_the_package_does_not():
    code = "import torch.nn as nn\nfrom torchtext.models.blocks import Block\nb = Block(4)\n"
    assert "MS901" in convert_source(code).code
    out = convert_source(code, own={"torchtext"}).code
    assert "MS901" not in out and "from torchtext.models.blocks import Block\nb = Block(4)\n" in out


def test_the_package_converted_keeps_its_own_imports_imports_and_matches(tmp_path):
    src = tmp_path / "src"
    write(src)
    out = tmp_path / "out"
    assert not [r.error for r in convert_tree(src / "torchtext", out / "torchtext") if r.error]
    net = (out / "torchtext" / "models" / "net.py").read_text()
    assert "MS9" not in net
    assert "import torchtext.models.blocks as B\nfrom torchtext.models.blocks import Block\n" in net
    again = tmp_path / "again"
    convert_tree(out / "torchtext", again / "torchtext")
    assert (again / "torchtext" / "models" / "net.py").read_text() == net

    sys.path.insert(0, str(src))
    try:
        tnet = importlib.import_module("torchtext.models.net").Net().eval()
    finally:
        sys.path.remove(str(src))
        for key in [k for k in sys.modules if k.split(".")[0] == "torchtext"]:
            del sys.modules[key]
    with imported_tree(out, "torchtext.models.net") as module:
        cell = module.Net()
    cell.set_train(False)
    assert copy_weights(tnet, cell) == set()
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    with torch.no_grad():
        ref = tnet(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_several_sources_in_one_run_import_each_other_converted(tmp_path):
    """`migrate convert usespkg smoothlib -o OUT`: a package and the torch package it imports,
    each into OUT/<name>; the converted usespkg builds on the converted smoothlib, without torch,
    and gives torch's numbers."""
    from cli import main
    fixtures = Path(__file__).parents[3] / "fixtures" / "check_packages"
    out = tmp_path / "out"
    assert main(["convert", str(fixtures / "usespkg"), str(fixtures / "smoothlib"), "-o", str(out), "-q"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["smoothlib", "usespkg"]
    sys.path.insert(0, str(fixtures))
    try:
        tnet = importlib.import_module("usespkg.net").Net().eval()
    finally:
        sys.path.remove(str(fixtures))
        for key in [k for k in sys.modules if k.split(".")[0] in ("usespkg", "smoothlib")]:
            del sys.modules[key]
    sys.path.insert(0, str(out))  # smoothlib, converted, beside usespkg
    try:
        with imported_tree(out, "usespkg.net") as module:
            cell = module.Net()
            assert type(cell.smooth).__module__ == "smoothlib.filters"
    finally:
        sys.path.remove(str(out))
        for key in [k for k in sys.modules if k.split(".")[0] == "smoothlib"]:
            del sys.modules[key]
    cell.set_train(False)
    assert copy_weights(tnet, cell) == set()
    x = np.random.RandomState(1).randn(2, 2, 16).astype(np.float32)
    with torch.no_grad():
        ref = tnet(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_user_code_building_models_from_an_installed_torch_library(tmp_path, monkeypatch):
    """`migrate convert train.py --library torchtext -o OUT`: the library is located without
    importing it, converted into OUT/torchtext, and the script's imports of it reach the converted
    copy (alone, the script's use of the library is marked MS901)."""
    from cli import main
    site = tmp_path / "site"
    write(site)
    monkeypatch.syspath_prepend(str(site))
    script = tmp_path / "train.py"
    script.write_text("import torch\nfrom torchtext.models import Net\n\nmodel = Net(4)\n"
                      "y = model(torch.ones(2, 4))\n")
    alone = tmp_path / "alone"
    main(["convert", str(script), "-o", str(alone / "train.py"), "-q"])
    assert "MS901" in (alone / "train.py").read_text()
    out = tmp_path / "out"
    assert "torchtext" not in sys.modules
    assert main(["convert", str(script), "--library", "torchtext", "-o", str(out), "-q"]) == 0
    assert "torchtext" not in sys.modules  # located, not imported
    converted = (out / "train.py").read_text()
    assert "MS9" not in converted and "from torchtext.models import Net\n" in converted
    assert (out / "torchtext" / "models" / "net.py").is_file()
    monkeypatch.syspath_prepend(str(out))
    with imported_tree(out, "train") as module:
        assert isinstance(module.model, ms.nn.Cell)
        np.testing.assert_array_equal(module.y.shape, (2, 4))
    for key in [k for k in sys.modules if k.split(".")[0] == "torchtext"]:
        del sys.modules[key]
    assert main(["convert", str(script), "--library", "no_such_library_here", "-o", str(out), "-q"]) == 2
