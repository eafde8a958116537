"""Torch imports that unconverted code still needs are guarded (issue 10 class 0): the converted
module imports where torch is not installed, and the marked code fails only where it runs, with
its marker's reason. Imports under ``try``/``if`` are rewritten like any other (class 6)."""
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.guards import GUARD_NOTE, STUB
from tests.migrate.convert.helpers import without_guards
from tests.migrate.convert.torchless import torch_blocked


def convert(src: str) -> str:
    res = convert_source(textwrap.dedent(src))
    assert res.error is None
    assert convert_source(res.code).code == res.code  # idempotent
    compile(res.code, "<converted>", "exec")
    return res.code


def run_without_torch(code: str) -> dict:
    """Run the module code where torch cannot be imported (call its functions under
    ``torch_blocked()`` too when they may import torch)."""
    ns: dict = {}
    with torch_blocked():
        exec(compile(code, "<converted>", "exec"), ns)
    return ns


SRC = """\
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    def net(pretrained=False):
        m = Net()
        if pretrained:
            m.load_state_dict(torch.fft.hfft(m))
        return m
    """


def test_a_kept_import_is_guarded_and_fails_only_where_reached():
    out = convert(SRC)
    assert textwrap.dedent(f"""\
        if TYPE_CHECKING:  {GUARD_NOTE}
            import torch
        else:
            torch = {STUB}('torch', {{'fft': 'MS901 torch.fft.hfft has no mapping'}})
        """) in out
    assert "from typing import TYPE_CHECKING\n" in out
    assert f"from migrate_runtime import TorchConv2d, {STUB}\n" in out or f"import {STUB}\n" in out
    ns = run_without_torch(out)
    assert type(ns["net"]()).__name__ == "Net"  # builds: the marked branch is not reached
    with pytest.raises(ImportError,
                       match=r"torch\.fft\.hfft\(\): MS901 torch\.fft\.hfft has no mapping \(converted code "
                                          r"does not use torch\)"):
        ns["net"](pretrained=True)
    # where torch is installed too: converted code never imports it
    ns = {}
    exec(compile(out, "<converted>", "exec"), ns)
    assert "torch" not in {type(v).__module__.split(".")[0] for v in ns.values()}
    with pytest.raises(ImportError, match="MS901 torch.fft.hfft has no mapping"):
        ns["net"](pretrained=True)


def test_the_stand_in_behaves_like_a_missing_attribute_for_introspection():
    ns = run_without_torch(convert("import torch\ny = lambda: torch.fft.hfft(1)\n"))
    stub = ns["torch"]
    assert not hasattr(stub, "__wrapped__")  # dunders: AttributeError, so hasattr() works
    held = stub.nn.AlphaDropout  # naming it is not using it: a registry may hold it at import
    for use in (lambda: held(0.5), lambda: bool(held), lambda: list(held), lambda: held[0], lambda: held == 1):
        with pytest.raises(ImportError,
                           match=r"torch\.nn\.AlphaDropout(\(\)|\[\])?: left as torch .*does not use torch"):
            use()
    assert {held: 1}[held] == 1  # hashable, by identity
    with pytest.raises(ImportError):
        ns[STUB]("torch.hub.f", {})()


def test_without_a_kept_use_nothing_is_guarded():
    out = convert("import torch\nimport torch.nn as nn\nr = nn.ReLU()\n")
    assert "try:" not in out and STUB not in out


def test_try_import_fallbacks_whose_names_convert_go_away():
    out = convert("""\
        import os
        try:
            import torch.nn.functional as F
        except ImportError:
            from torch.nn import functional as F
        y = F.relu(x)
        """)
    assert out == "import os\nimport ms_core as ms\nfrom ms_core import ops\ny = ops.relu(x)\n"


def test_try_import_fallbacks_still_used_are_guarded_inside():
    out = convert("""\
        try:
            from torch.hub import download_url_to_file
        except ImportError:
            from torch.utils.model_zoo import _download_url_to_file as download_url_to_file
        def load(url):
            return download_url_to_file(url, "w.pth")
        """)
    # the try body raises the ImportError its handler expects (converted code never imports torch);
    # the fallback import in the handler is guarded there
    assert "try:\n    if TYPE_CHECKING:\n        from torch.hub import download_url_to_file\n    else:\n" \
           "        raise ImportError(\"torch.hub.download_url_to_file: " in out
    assert "except ImportError:\n    if TYPE_CHECKING:" in out \
           and "        from torch.utils.model_zoo import _download_url_to_file as download_url_to_file\n" in out
    ns = run_without_torch(out)
    with pytest.raises(ImportError, match="torch.utils.model_zoo._download_url_to_file\\(\\): MS901"):
        ns["load"]("http://example.invalid/w.pth")


def test_import_under_if_is_rewritten():
    out = convert("""\
        FAST = True
        if FAST:
            import torch.nn.functional as F
        else:
            import torch.nn.functional as F
        y = F.relu(x)
        """)
    assert out == "FAST = True\nimport ms_core as ms\nfrom ms_core import ops\ny = ops.relu(x)\n"
    kept = convert("if FAST:\n    import torch.nn.functional as F  # fast path\ny = F.relu(x)\n")
    assert "if FAST:\n    # fast path\n    pass\n" in kept  # a comment keeps its block


def test_import_under_if_with_a_call_in_the_test_keeps_the_test():
    out = convert("""\
        if check():
            import torch.nn.functional as F
        y = F.relu(x)
        """)
    assert "if check():\n    pass\n" in out


def test_imports_inside_a_function_are_guarded_there():
    out = convert("""\
        import numpy as np
        def spectrum(x):
            import torch
            if x is None:
                return torch.fft.hfft(x)
            return np.abs(x)
        """)
    assert "def spectrum(x):\n    if TYPE_CHECKING:" in out and "\n        import torch\n    else:\n" in out
    ns = run_without_torch(out)
    with torch_blocked():
        assert ns["spectrum"](-3) == 3
        with pytest.raises(ImportError, match="MS901 torch.fft.hfft has no mapping"):
            ns["spectrum"](None)


def test_consecutive_kept_imports_share_one_guard_and_comments_stay():
    out = convert("""\
        # framework
        import torch  # core
        import torchvision
        y = torch.fft.hfft(torchvision.io.read_image(p))
        """)
    assert out.count("if TYPE_CHECKING:") == 1
    assert "# framework\n" in out and "import torch  # core\n" in out


def test_star_import_is_resolved_or_marked_issue13_item8():
    # torch's own modules: the names are known (tests/migrate/convert/imports/test_star_imports.py)
    assert convert("from torch import *\nx = zeros(3)\n") == ("import ms_core as ms\nfrom ms_core import ops\n"
                                                              "x = ops.zeros((3,))\n")
    # a module whose names are not known (private: mappings/torch_names.txt lists public modules):
    # kept, with a marker
    out = convert("from torch._prims import *\nq = make_prim()\n")
    assert out.startswith("# migrate: MS901 star import from torch._prims")


def test_comment_above_a_second_removed_import_is_kept_issue13_item6():
    out = convert("import torch.nn\n# the init helpers\nfrom torch.nn import init\nm = torch.nn.Linear(2, 3)\n")
    assert "# the init helpers\n" in out


def test_import_line_mixing_torch_and_other_modules():
    out = convert("import os, torch  # deps\ny = torch.fft.hfft(os.sep)\n")
    assert "import os  # deps\n" in out
    assert "if TYPE_CHECKING:" in out and "\n    import torch\nelse:\n" in out


def test_a_user_guard_runs_its_handler_as_where_torch_is_absent():
    out = convert("""\
        try:
            import torch
            HAS_TORCH = True
        except ImportError:
            torch = None
            HAS_TORCH = False
        y = torch.fft.hfft(x) if torch else x
        """)
    assert "try:\n    if TYPE_CHECKING:\n        import torch\n    else:\n        raise ImportError('torch: " in out
    assert ("(converted code does not import torch)')\n    HAS_TORCH = True\n"
            "except ImportError:\n    torch = None\n") in out
    assert STUB not in out
    ns = {"x": 3}
    exec(compile(out, "<converted>", "exec"), ns)   # torch is installed here: it is not imported
    assert ns["torch"] is None and ns["HAS_TORCH"] is False and ns["y"] == 3


def test_guards_target_mindspore():
    res = convert_source("import torch\ny = torch.fft.hfft(x)\n", target="mindspore")
    assert "import mindspore as ms\n" in res.code and f"torch = {STUB}('torch'" in res.code
    assert without_guards(res.code) == ("import mindspore as ms\n"
                                        "# migrate: MS901 torch.fft.hfft has no mapping\ny = torch.fft.hfft(x)\n")


def test_comment_above_a_guarded_import_stays_with_its_guard_on_the_next_conversion():
    # found by the property tests once comments among imports were generated (issue 13 item 6)
    src = "import torch.nn as nn\n# c2 note\nfrom torch.jit import _overload\ny_1 = _overload()\n"
    once = convert_source(src).code
    assert "# c2 note\nif TYPE_CHECKING:" in once and "\n    from torch.jit import _overload\n" in once
    assert convert_source(once).code == once


def test_a_comment_above_a_guarded_import_stays_there_on_the_next_conversion():
    # (found by the property test: the second conversion moved it under the target imports)
    code = convert("""\
        import torch.nn.functional as F
        # padding layers
        from torch import FloatTensor
        from torch.nn import Fold
        y = FloatTensor()
        Fold(*args)
        """)
    assert "# padding layers\nif TYPE_CHECKING:" in code and "\n    from torch.nn import Fold" in code, code


def test_the_runtime_import_keeps_its_place_when_converted_again():
    """A converted top import followed by other imports, a torch import inside a function that
    stays (its code is marked), and a runtime helper (m.eval() on an untyped value): the first
    conversion writes the runtime's import after the opening imports, where a second conversion
    (the torch import gone) finds it (monai/bundle/scripts.py changed on a second conversion when
    a stand-in class and a generated block were written into the file)."""
    code = convert('''\
        import json

        from torch.cuda import is_available

        from collections import OrderedDict


        def verify(parser, key):
            device = "cuda:0" if is_available() else "cpu"
            net = parser.get_parsed_content(key).to(device)
            net.eval()
            from torch.utils.cpp_extension import load
            return load(key)
        ''')
    assert code.index("from collections import OrderedDict") < code.index("from migrate_runtime import") \
        < code.index("def verify")
    assert convert_source(code).code == code
    ns = run_without_torch(code)

    class Net:
        def set_train(self, mode):
            self.mode = mode

    net = Net()

    class Parser:
        def get_parsed_content(self, key):
            return net

    with torch_blocked(), pytest.raises(ImportError, match="cpp_extension.load"):
        ns["verify"](Parser(), "network")
    assert net.mode is False  # net.eval() ran as set_train(False) before the marked call
