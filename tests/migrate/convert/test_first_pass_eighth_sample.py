"""Classes the eighth first-pass sample met (bench/README.md "An eighth sample"): PyPI packages nobody here had
converted (image-restoration networks, typed transformer encoders and decoders, ...). Each test is a fixture of
our own: a small package converted as a tree, imported without torch and run against torch with the same
weights."""
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from migrate.convert.project import convert_tree
from migrate.convert.runtime_files import package_dirs, runtime_homes
from tests.migrate.convert.test_fixtures_numeric import copy_weights
from tests.migrate.convert.torchless import imported_tree

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def _write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _torch_import(src: Path, module: str):
    """``module`` imported from the torch tree ``src``; its package is removed from sys.modules after."""
    top = module.split(".")[0]
    sys.path.insert(0, str(src))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(src))
        for name in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
            del sys.modules[name]


# curated-transformers: `class TransformerEncoder(Generic[ConfigT], EncoderModule[ConfigT])` defines forward, and
# EncoderModule derives, in another file, from `Generic[ConfigT], TransformerModule[ConfigT]`, itself
# `(Generic[ConfigT], Module)`. A base written `Base[T]` is the class Base: these are Cells, forward is construct
GENERIC_FILES = {
    "gen_models/__init__.py": "",
    "gen_models/module.py": '''from typing import Generic, TypeVar

from torch.nn import Module

ConfigT = TypeVar("ConfigT")


class TransformerModule(Generic[ConfigT], Module):
    pass


class EncoderModule(Generic[ConfigT], TransformerModule[ConfigT]):
    def forward(self, x):
        raise NotImplementedError
''',
    "gen_models/transformer.py": '''from typing import Generic

from torch import nn

from .module import ConfigT, EncoderModule


class TransformerEncoder(Generic[ConfigT], EncoderModule[ConfigT]):
    layers: nn.ModuleList

    def forward(self, x):
        for layer in self.layers:
            x = layer(x).relu()
        return x
''',
    "gen_models/encoder.py": '''from dataclasses import dataclass

from torch import nn

from .transformer import TransformerEncoder


@dataclass
class Config:
    width: int = 4


class Encoder(TransformerEncoder[Config]):
    def __init__(self, config: Config):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(config.width, config.width) for _ in range(2)])
''',
}


def test_a_class_deriving_from_a_generic_module_base_is_a_cell(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    _write(src, GENERIC_FILES)
    assert not [r.error for r in convert_tree(src, out) if r.error]
    code = (out / "gen_models" / "transformer.py").read_text()
    assert "def construct(self, x):" in code and "def forward" not in code, code
    assert "def construct(self, x):" in (out / "gen_models" / "module.py").read_text()
    torch.manual_seed(0)
    reference = _torch_import(src, "gen_models.encoder").Encoder(_torch_import(src, "gen_models.encoder").Config())
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    with torch.no_grad():
        want = reference(torch.from_numpy(x)).numpy()
    with imported_tree(out, "gen_models.encoder") as mod:
        cell = mod.Encoder(mod.Config())
        assert copy_weights(reference, cell) == set()
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


# spandrel: each architecture's package imports its network from a directory without an __init__.py
# (`from .__arch.RRDB import RRDBNet` in ESRGAN/__init__.py): a namespace subpackage, imported as
# spandrel.architectures.ESRGAN.__arch.RRDB. Its converted files reach the runtime copy of their top-level package
# relatively; `from migrate_runtime import ...` found nothing (ModuleNotFoundError)
NAMESPACE_FILES = {
    "sr_pkg/__init__.py": "from .arch import Net\n",
    "sr_pkg/arch/__init__.py": "from .__impl.net import Net\n",
    "sr_pkg/arch/__impl/net.py": '''from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3, padding=1)
        self.k = self.conv.kernel_size[0]

    def forward(self, x):
        return self.conv(x) * self.k
''',
    "tools/plot.py": "import json\n",
}


def test_a_directory_a_package_imports_relatively_is_a_namespace_subpackage(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    _write(src, NAMESPACE_FILES)
    sources = [str(src / rel) for rel in NAMESPACE_FILES]
    assert package_dirs(src, sources) == {Path("sr_pkg"), Path("sr_pkg/arch"), Path("sr_pkg/arch/__impl")}
    assert runtime_homes(src, sources)[str(src / "sr_pkg/arch/__impl/net.py")] == (Path("sr_pkg"), 2)
    assert runtime_homes(src, sources)[str(src / "tools/plot.py")] == (Path("tools"), None)
    assert not [r.error for r in convert_tree(src, out) if r.error]
    code = (out / "sr_pkg" / "arch" / "__impl" / "net.py").read_text()
    assert "from ...migrate_runtime import" in code, code
    torch.manual_seed(0)
    reference = _torch_import(src, "sr_pkg").Net()
    x = np.random.default_rng(1).standard_normal((1, 2, 5)).astype(np.float32)
    with torch.no_grad():
        want = reference(torch.from_numpy(x)).numpy()
    with imported_tree(out, "sr_pkg") as mod:
        cell = mod.Net()
        assert cell.k == 3
        assert copy_weights(reference, cell) == set()
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


# alias-free-torch: a Kaiser-windowed sinc low-pass filter (torch.kaiser_window, with torch.i0 for its 2-D form),
# built in __init__ and applied by a convolution. torch.kaiser_window, torch.i0 / torch.special.i0 / Tensor.i0
# and torch.special.i1 had no mapping (MS901): MindSpore's ops.kaiser_window, ops.bessel_i0, ops.bessel_i1
KAISER_FILTER = '''
import math


def kaiser_sinc_filter1d(cutoff, half_width, kernel_size):
    delta_f = 4 * half_width
    A = 2.285 * (kernel_size // 2 - 1) * math.pi * delta_f + 7.95
    beta = 0.1102 * (A - 8.7)
    window = torch.kaiser_window(kernel_size, beta=beta, periodic=False)
    time = torch.arange(-kernel_size // 2, kernel_size // 2) + 0.5
    kernel = 2 * cutoff * window * torch.sinc(2 * cutoff * time)
    return (kernel / kernel.sum()).view(1, 1, kernel_size)


def kaiser_radial(beta, size):
    r = torch.linspace(-1.0, 1.0, size)
    radius = torch.sqrt((r[:, None] ** 2 + r[None, :] ** 2).clamp(max=1.0))
    return torch.i0(beta * torch.sqrt(1 - radius ** 2)) / torch.special.i0(torch.tensor(beta))


class LowPass(nn.Module):
    def __init__(self, kernel_size=12):
        super().__init__()
        self.register_buffer("filter", kaiser_sinc_filter1d(0.25, 0.3, kernel_size))
        self.pad = kernel_size // 2 - 1

    def forward(self, x):
        x = F.pad(x, (self.pad, self.pad + 1), mode="replicate")
        return F.conv1d(x, self.filter.expand(x.shape[1], -1, -1), groups=x.shape[1]) + x.i0().mean() * 0


def bessel_terms(x):
    return torch.special.i1(x) - x.i0()
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_kaiser_windows_and_bessel_functions_are_torchs(target):
    from tests.migrate.convert.test_first_pass_fourth_sample import run_both
    out, namespace, torch_namespace = run_both(KAISER_FILTER, target)
    assert "ops.kaiser_window(kernel_size, False, beta, dtype=ms.float32)" in out and "MS901" not in out, out
    assert "ops.bessel_i0(" in out and "ops.bessel_i1(x)" in out
    np.testing.assert_allclose(namespace["kaiser_sinc_filter1d"](0.25, 0.3, 12).asnumpy(),
                               torch_namespace["kaiser_sinc_filter1d"](0.25, 0.3, 12).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(namespace["kaiser_radial"](6.0, 9).asnumpy(),
                               torch_namespace["kaiser_radial"](6.0, 9).numpy(), rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(2).standard_normal((2, 3, 16)).astype(np.float32)
    with torch.no_grad():
        want = torch_namespace["LowPass"]()(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(namespace["LowPass"]()(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(namespace["bessel_terms"](ms.Tensor(x * 3)).asnumpy(),
                               torch_namespace["bessel_terms"](torch.from_numpy(x * 3)).numpy(), rtol=1e-5, atol=1e-6)
