"""Names that reach a file by ``import *`` (issue 10 class 5): from torch's own modules, and
from a module of the same package (the package-level table)."""
import textwrap
from pathlib import Path

from migrate.convert.guards import STUB
from migrate.convert.star_imports import package_exports
from tests.migrate.convert.helpers import without_guards
from tests.migrate.convert.torchless import torch_blocked


def convert(src: str, **kw) -> str:
    from migrate.convert.walker import Converter
    res = Converter(**kw).convert(textwrap.dedent(src))
    assert res.error is None
    assert Converter(**kw).convert(res.code).code == res.code
    return res.code


def test_torch_nn_star_names_convert_and_the_import_goes():
    out = convert("""\
        from torch.nn import *
        class Net(Module):
            def __init__(self):
                super().__init__()
                self.act = ReLU()
            def forward(self, x):
                return functional.relu(self.act(x))
        """)
    assert "from torch" not in out and "class Net(nn.Cell):" in out
    assert "self.act = nn.ReLU()" in out and "return ops.relu(self.act(x))" in out


def test_names_the_file_binds_are_not_the_star_imports():
    out = convert("""\
        from torch import *
        def max(a, b):
            return a if a > b else b
        def f(zeros):
            return zeros(3), max(1, 2), ones(2)
        """)
    assert "def max(a, b)" in out and "return zeros(3), max(1, 2), ops.ones((2,))" in out
    assert "from torch" not in out


def test_a_star_import_still_needed_stays_guarded_for_the_names_still_used():
    out = convert("from torch.nn import *\nr = ReLU()\np = Fold(4, 2)\n")
    assert "\n    from torch.nn import *\nelse:" in out
    assert f"    Fold = {STUB}('torch.nn.Fold'" in out
    assert "r = nn.ReLU()" in out
    ns: dict = {}
    with torch_blocked():
        try:
            exec(compile(out, "<converted>", "exec"), ns)
        except ImportError as exc:  # the marked line runs at import here: it fails with its reason
            assert "MindSpore 2.10 has no nn.Fold" in str(exc)
        else:
            raise AssertionError("the marked line should have failed")


def test_inherited_names_convert_and_the_ones_still_used_get_their_own_guard():
    out = convert("""\
        from .layers import *
        class Block(nn.Module):
            def forward(self, x):
                return F.relu(torch.fft.hfft(x))
        """, inherited={"nn": "torch.nn", "F": "torch.nn.functional", "torch": "torch"})
    assert without_guards(out) == textwrap.dedent("""\
        from .layers import *
        import ms_core as ms
        from ms_core import nn, ops
        class Block(nn.Cell):
            def construct(self, x):
                # migrate: MS901 torch.fft.hfft has no mapping
                return ops.relu(torch.fft.hfft(x))
        """)
    assert "\n    import torch\nelse:" in out


def test_a_file_without_the_word_torch_still_converts_its_inherited_names():
    out = convert("from .layers import *\nclass B(nn.Module):\n    pass\n", inherited={"nn": "torch.nn"})
    assert "class B(nn.Cell):" in out


def test_package_exports_follow_all_private_names_chains_and_try_bodies(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "base.py").write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as _F\n"
        "try:\n    from torch.hub import load_state_dict_from_url as load\n"
        "except ImportError:\n    from torch.utils.model_zoo import load_url as load\n"
        "def torch():\n    pass\n")
    (pkg / "public.py").write_text("import torch.nn as nn\nimport torch\n__all__ = ['nn']\n")
    (pkg / "mid.py").write_text("from .base import *\nfrom torch.nn import *\n")
    (pkg / "sub" / "leaf.py").write_text("from ..mid import *\nfrom pkg.public import *\nx = nn.ReLU()\n")
    (pkg / "user.py").write_text("from .public import *\n")
    files = [str(p) for p in sorted(pkg.rglob("*.py"))]
    table = package_exports(pkg, files)
    leaf = table[str(pkg / "sub" / "leaf.py")]
    assert leaf["nn"] == "torch.nn" and leaf["load"] == "torch.hub.load_state_dict_from_url"
    assert "torch" not in leaf and "_F" not in leaf  # rebound by a def; private
    assert leaf["Linear"] == "torch.nn.Linear"       # torch.nn's own, through mid
    assert table[str(pkg / "user.py")] == {"nn": "torch.nn"}  # __all__
    assert str(pkg / "base.py") not in table
