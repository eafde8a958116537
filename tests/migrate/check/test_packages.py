"""`migrate check` on models inside packages: relative and absolute self-imports, a converted copy
cached by content, the torch and converted modules side by side under the same names, argv and
`__main__` blocks, a package `__init__.py` that fails, loose files with sibling modules, and
`migrate weights` with the same addressing."""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import ms_core
from cli import _converter, main
from migrate import convert_source
from migrate.check.expression import ConvertedExpression, convert_expression, reads_torch, reads_torch_imports
from migrate.check.harness import UsageError, prepare
from migrate.check.weights import transfer
from migrate.check.loader import from_module, locate, source_files, split_model_spec

PACKAGES = Path(__file__).parents[2] / "fixtures" / "check_packages"
TINY = PACKAGES / "cnnzoo" / "nets" / "tiny.py"


class CountingConverter:
    """convert_source with a cache key, counting the files it converts."""

    cache_key = "test-converter"

    def __init__(self):
        self.calls = 0

    def __call__(self, code):
        self.calls += 1
        return convert_source(code)


def test_locate_walks_up_the_init_files():
    src = locate(str(TINY))
    assert (src.root, src.module, src.package) == (str(PACKAGES), "cnnzoo.nets.tiny", "cnnzoo")
    loose = locate(str(PACKAGES / "loose_net" / "net.py"))
    assert (loose.root, loose.module, loose.package) == (str(PACKAGES / "loose_net"), "net", None)
    assert split_model_spec("cnnzoo.nets.tiny:TinyNet(width=4)") == ("cnnzoo.nets.tiny",
                                                                      "TinyNet(width=4)")
    assert split_model_spec("Net(**{'a': 1})") is None  # an expression, not module:expr
    assert split_model_spec("model.py:Net()") is None  # a file, the weights command's form


def test_model_inside_a_package_checks_by_its_file(tmp_path, capsys):
    """tiny.py imports `..layers` (relative), `cnnzoo.nets.heads` (absolute), reads head.json
    next to it, parses sys.argv at import (pytest's argv would make argparse exit) and has a
    __main__ block that raises."""
    report = tmp_path / "r.json"
    assert main(["check", str(TINY), "--model", "TinyNet()", "--input-shape", "2,3,8,8",
                 "--train-steps", "2", "--cache", str(tmp_path / "cache"), "--report",
                 str(report), "-q"]) == 0
    data = json.loads(report.read_text())
    assert data["passed"] and data["train"]["steps"] == 2
    sources = {r["name"]: r["ms_source"] for r in data["phases"][0]["layers"]}
    assert sources["head"].split(":")[0].endswith("cnnzoo/nets/heads.py (converted)")
    assert sources["head.fc"].split(":")[0].endswith("cnnzoo/nets/heads.py (converted)")


def test_module_spec_and_root_address_the_same_model(tmp_path):
    assert main(["check", "--model", "cnnzoo.nets.tiny:WideNet()", "--root", str(PACKAGES),
                 "--input-shape", "2,3,8,8", "--mode", "eval", "--cache",
                 str(tmp_path / "c"), "-q"]) == 0
    assert main(["check", "--model", "cnnzoo.nets.nothing:Net()", "--root", str(PACKAGES),
                 "--input-shape", "2,3,8,8", "--no-cache", "-q"]) == 2
    assert main(["check", "--model", "TinyNet()", "--input-shape", "2,3,8,8", "-q"]) == 2


def test_both_sides_import_under_the_same_names_without_colliding(tmp_path):
    t, m, notes, _ = prepare(str(TINY), "TinyNet()", convert=CountingConverter(),
                             cache=str(tmp_path))
    assert notes == []
    assert type(t).__module__ == type(m).__module__ == "cnnzoo.nets.tiny"
    assert isinstance(t.head, torch.nn.Module) and isinstance(m.head, ms_core.nn.Cell)
    assert t.stem[0].out_channels == 8  # ARGS.width: argparse saw no arguments
    # the torch package stays registered, as an import leaves it; the converted one does not
    assert sys.modules["cnnzoo.nets.tiny"].TinyNet is type(t)
    assert sys.modules["cnnzoo.nets.heads"].Head is type(t.head)


def test_the_package_is_converted_once_and_cached_by_content(tmp_path):
    pkg = tmp_path / "src"
    shutil.copytree(PACKAGES / "cnnzoo", pkg / "cnnzoo")
    convert, cache = CountingConverter(), str(tmp_path / "cache")
    prepare(str(pkg / "cnnzoo" / "nets" / "tiny.py"), "TinyNet()", convert=convert, cache=cache)
    n_py = sum(1 for f in source_files(locate(str(pkg / "cnnzoo" / "layers.py")))
               if f.endswith(".py"))
    assert convert.calls == n_py == 5  # the whole package, once
    prepare(None, "cnnzoo.nets.tiny:WideNet()", convert=convert, cache=cache, root=str(pkg))
    assert convert.calls == n_py  # a second model of the same package: nothing converted
    layers = pkg / "cnnzoo" / "layers.py"
    layers.write_text(layers.read_text().replace("nn.ReLU(inplace=True)", "nn.ReLU6()"))
    t, m, _, _ = prepare(str(pkg / "cnnzoo" / "nets" / "tiny.py"), "TinyNet()",
                         convert=convert, cache=cache)
    assert convert.calls == 2 * n_py  # a file changed: converted again
    assert type(m.stem[2]).__name__ == "ReLU6" and type(t.stem[2]).__name__ == "ReLU6"


def test_a_failing_package_init_is_skipped_with_a_note(tmp_path):
    t, m, notes, _ = prepare(str(PACKAGES / "brokeninit" / "net.py"), "Net()",
                             convert=CountingConverter(), cache=str(tmp_path))
    assert isinstance(m, ms_core.nn.Cell)
    assert len(notes) == 2 and all("brokeninit" in n and "a_module_that_is_not_installed" in n
                                   and "__init__.py skipped" in n for n in notes)


def test_a_loose_file_converts_itself_and_the_siblings_it_imports(tmp_path):
    net = PACKAGES / "loose_net" / "net.py"
    assert source_files(locate(str(net))) == ["helpers.py", "net.py"]  # not unrelated.py
    convert = CountingConverter()
    t, m, notes, display = prepare(str(net), "Net()", convert=convert, cache=str(tmp_path))
    assert convert.calls == 2 and notes == []
    assert isinstance(m.body, ms_core.nn.Cell)  # the converted helpers, not the torch ones


def test_import_errors_name_the_module_and_the_line(tmp_path):
    pkg = tmp_path / "src" / "badpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "net.py").write_text("import torch\nfrom .missing import Block\n")
    with pytest.raises(UsageError, match=r"importing badpkg.net \(torch\) failed: "
                                         r"ModuleNotFoundError.*badpkg/net.py:2"):
        prepare(str(pkg / "net.py"), "Net()", convert=CountingConverter(), cache=str(tmp_path))


def test_weights_command_takes_the_same_addressing(tmp_path):
    t, _, _, _ = prepare(str(TINY), "TinyNet()", convert=CountingConverter(), cache=str(tmp_path))
    pth = tmp_path / "tiny.pth"
    torch.save(t.state_dict(), pth)
    out = tmp_path / "tiny.ckpt"
    assert main(["weights", str(pth), "-o", str(out), "--model", "cnnzoo.nets.tiny:TinyNet()",
                 "--root", str(PACKAGES), "--cache", str(tmp_path / "c")]) == 0
    from migrate.check.weights import load_ms_checkpoint
    ckpt = load_ms_checkpoint(str(out))
    assert "stem.1.gamma" in ckpt and "head.fc.weight" in ckpt
    assert main(["weights", str(pth), "-o", str(tmp_path / "b.ckpt"), "--source", str(TINY),
                 "--model", "TinyNet()", "--no-cache"]) == 0


def test_a_package_is_converted_with_its_star_import_table(capsys):
    """starpkg's modules get torch names from siblings by `import *` (blocks.py uses `torch`
    without importing it): converted file by file without the package's table, the converted
    package failed to import (NameError, exit 2); converted as `migrate convert DIR` does, the
    model checks."""
    model = Path(__file__).parents[2] / "fixtures" / "imports" / "packages" / "starpkg" / "model.py"
    assert main(["check", str(model), "--model", "Net()", "--input-shape", "2,3,8,8",
                 "--no-cache", "-q"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_a_model_in_a_namespace_package_checks_by_its_dotted_name(tmp_path):
    """`nsmodels` and `nsmodels/blocks` have no __init__.py (PEP 420): Python imports
    `nsmodels.net` from the root, and so does the check."""
    src = from_module("nsmodels.net", str(PACKAGES))
    assert (src.module, src.package) == ("nsmodels.net", "nsmodels")
    assert sorted(f for f in source_files(src) if f.endswith(".py")) == [
        "nsmodels/blocks/conv.py", "nsmodels/net.py"]
    assert main(["check", "--model", "nsmodels.net:Net()", "--root", str(PACKAGES),
                 "--input-shape", "2,3,8,8", "--cache", str(tmp_path / "c"), "-q"]) == 0


def test_a_torch_package_the_model_imports_is_converted_with_it(tmp_path):
    """usespkg imports smoothlib, a torch package beside it under the root: both are converted
    and import each other converted (the converted side never reaches torch's smoothlib);
    packages under the root that it does not import (cnnzoo) are not converted."""
    src = from_module("usespkg.net", str(PACKAGES))
    files = [f for f in source_files(src) if f.endswith(".py")]
    assert files == ["smoothlib/__init__.py", "smoothlib/filters.py", "usespkg/__init__.py", "usespkg/net.py"]
    t, m, notes, _ = prepare(None, "usespkg.net:Net()", convert=CountingConverter(), cache=str(tmp_path),
                             root=str(PACKAGES))
    assert notes == [] and isinstance(m.smooth, ms_core.nn.Cell) and isinstance(t.smooth, torch.nn.Module)
    assert main(["check", "--model", "usespkg.net:Net()", "--root", str(PACKAGES), "--input-shape", "2,2,16",
                 "--cache", str(tmp_path / "c"), "-q"]) == 0


def test_a_module_class_whose_base_is_two_files_away_checks_as_converted_by_convert(tmp_path):
    """The checker converts a package as `migrate convert DIR` does: BaseLoss (a file without
    torch imports) derives from a module class of another file, so its forward is construct;
    without that the converted model calls the Cell's empty construct."""
    root = Path(__file__).parents[2] / "fixtures" / "imports" / "packages"
    report = tmp_path / "r.json"
    assert main(["check", "--root", str(root), "--model", "basespkg.losses.metric:TwiceLoss()",
                 "--input-shape", "3,6", "--no-cache", "--report", str(report), "-q"]) == 0
    assert json.loads(report.read_text())["phases"][0]["outputs"]["passed"]


LAYER_CLASSES = ("Net(nn.Conv2d, conv_bias=True, norm_op=nn.BatchNorm2d, norm_op_kwargs={'eps': 1e-3, "
                 "'momentum': 0.2}, nonlin=nn.LeakyReLU, nonlin_kwargs={'negative_slope': 0.1, 'inplace': True})")


def test_an_expression_is_converted_as_the_end_of_its_module():
    """Class values become what the converter makes of them (the runtime's torch-signature
    classes), with the imports they need; an expression the conversion leaves alone is unchanged."""
    header = "import torch\nfrom torch import nn\n"
    done = convert_expression(header, "Net(nn.Conv2d, nonlin=nn.LeakyReLU, kw={'inplace': True})", convert_source)
    assert done == ConvertedExpression("Net(TorchConv2d, nonlin=TorchLeakyReLU, kw={'inplace': True})",
                                       ("from migrate_runtime import TorchConv2d, TorchLeakyReLU",),
                                       ("TorchConv2d", "TorchLeakyReLU"))
    assert convert_expression(header, "Net(3, width=4)", convert_source) == ConvertedExpression("Net(3, width=4)")
    assert convert_expression("x = (\n", "Net()", convert_source) == ConvertedExpression("Net()")  # no parse


def test_an_expression_is_converted_only_when_it_reads_torchs_names():
    """The torch module's namespace says whether the expression reads torch (a module, a class or
    function of one); the package's own classes and literals convert to themselves."""
    class Net:  # a class of the user's package
        pass
    namespace = {"nn": torch.nn, "torch": torch, "Net": Net, "width": 4, "F": torch.nn.functional}
    assert reads_torch("Net(nn.Conv2d, width)", namespace) and reads_torch("Net(torch.zeros(2))", namespace)
    assert reads_torch("Net(act=F.relu)", {"F": torch.nn.functional.relu})  # a function bound by name
    assert not reads_torch("Net(3, width=width)", namespace) and not reads_torch("Net(x)", namespace)
    # the same question from the module's text (a caller that has not imported it)
    text = "import torch\nfrom torch import nn as tnn\nfrom .blocks import Net\n"
    assert reads_torch_imports("Net(tnn.Conv2d)", text) and reads_torch_imports("Net(torch.zeros(2))", text)
    assert not reads_torch_imports("Net(3, nn=4)", text)
    assert reads_torch_imports("Net(3)", "from .layers import *\n")  # names it cannot see: converted


def test_a_model_expression_naming_torch_classes_builds_their_conversion(tmp_path):
    """layerzoo's Net takes its conv, norm and activation classes and their keyword dicts from
    the caller. Evaluated as written on the converted side, `nn.Conv2d` is the target's Conv2d,
    which the package calls with torch's `bias=` (TypeError); converted, it is the runtime's
    torch-signature class, and the check (outputs, layers, gradients, 2 training steps, BatchNorm
    momentum 0.2 included) passes against torch."""
    t, m, notes, _ = prepare(None, f"layerzoo.blocks:{LAYER_CLASSES}", convert=_converter("ms_core"),
                             root=str(PACKAGES))
    assert m.blocks[0].conv.bias is not None and m.blocks[1].act.negative_slope == 0.1
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    transfer(t, m)
    t.eval()
    m.set_train(False)
    np.testing.assert_allclose(m(ms_core.Tensor(x)).asnumpy(), t(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    report = tmp_path / "r.json"
    assert main(["check", "--model", f"layerzoo.blocks:{LAYER_CLASSES}", "--root", str(PACKAGES),
                 "--input-shape", "2,1,8,8", "--mode", "both", "--train-steps", "2", "--no-cache",
                 "--report", str(report), "-q"]) == 0
    assert json.loads(report.read_text())["passed"]


def test_a_block_named_after_a_dropout_is_not_replayed_as_one(tmp_path):
    """layerzoo's ConvDropoutNormAct holds a convolution (and keeps its dropout probability as
    `p`): only dropout layers get torch's masks in training mode, a block named after one runs
    its own forward (it was replaced by the mask replay: its input passed through unchanged)."""
    report = tmp_path / "r.json"
    assert main(["check", "--model", "layerzoo.blocks:DropNet()", "--root", str(PACKAGES), "--input-shape",
                 "2,1,8,8", "--mode", "train", "--train-steps", "1", "--no-cache", "--report", str(report),
                 "-q"]) == 0
    assert json.loads(report.read_text())["passed"]
