"""The runtime as a converted tree gets it (migrate.convert.runtime_files): a copy fixed to the
conversion's target that imports without this project or torch, a name that never takes a user's
file, one copy per import root, and the definitions a single file inlines."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrate.convert.runtime_files import (
    RUNTIME_NAME, for_target, import_module_text, inline_parts, is_written_runtime, package_dirs,
    runtime_files, runtime_homes, runtime_name, write_runtime,
)

REPO = Path(__file__).resolve().parents[3]


def _python(cwd, code):
    """Run ``code`` where only the written copy and ms_core (not this project, not torch) import."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(cwd)}
    prelude = "import sys\nsys.modules['torch'] = None\nsys.modules['migrate'] = None\n"
    out = subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_the_copy_is_fixed_to_its_target(target):
    files = runtime_files(target)
    assert set(files) >= {"__init__.py", "backend.py", "generated.py", "index.py", "arguments.py"}
    assert f"import {target} as ms" in files["backend.py"] and "environ" not in files["backend.py"]
    assert "TARGET ==" not in files["generated.py"] and files["generated.py"].count("class TorchLayerNorm(") == 1
    assert ("torch_layer_norm(input" in files["generated.py"]) == (target == "mindspore")
    assert files["__init__.py"].startswith('"""Run-time help of code converted from PyTorch by ms-migrate')
    for text in files.values():
        compile(text, "<runtime>", "exec")


def test_branches_resolve_for_either_target():
    code = ('from .backend import TARGET, ms\n\n\nif TARGET == "mindspore":\n    def f():\n        return 1\n'
            'else:\n    def f():\n        return 2\n')
    assert for_target(code, "ms_core") == "from .backend import ms\n\n\ndef f():\n    return 2\n"
    assert for_target(code, "mindspore") == "from .backend import ms\n\n\ndef f():\n    return 1\n"


# the branches parsed alone give what the whole module's parse gives: comments before, between,
# inside and after the branches (indented ones after the last block are that block's), elif
# chains, a decorated statement next, a branch that is the last statement
_BRANCH_CASES = [
    'from .backend import TARGET, ms\n\n# about f\nif TARGET == "mindspore":  # why\n    # first\n'
    '    def f():\n        return 1\n\n    # between\n    g = 2\n    # indented after\n\n'
    '# else comment\nelse:\n    def f():\n        return 2\n    # owned by the block\n\n'
    '# the next one\'s\n@ms.jit\ndef h():\n    return 3\n',
    'import os\n\n\nclass A:\n    x = 1\n\n\nif TARGET == "mindspore":\n    y = 1\nelif TARGET == "ms_core":\n'
    '    y = 2\n    if y:\n        z = 3\n        # deep\nelse:\n    y = 3\n# last\n',
    'def f():\n    pass\n\n\nif TARGET == "ms_core":\n    a = 1\n\nb = TARGET\n\nif TARGET == "mindspore":\n'
    '    c = 1\nelse:\n    c = 2\n',
]


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
@pytest.mark.parametrize("case", range(len(_BRANCH_CASES)))
def test_branches_alone_equal_the_whole_module(case, target):
    from migrate.convert.runtime_files import _branches_alone, _whole_module
    code = _BRANCH_CASES[case]
    alone = _branches_alone(code, target)
    if case == 2 and target == "mindspore":
        assert alone is None  # `if` without else that leaves nothing: the whole module decides
    else:
        assert alone is not None and alone == _whole_module(code, target)


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_the_runtimes_branches_alone_equal_the_whole_module(target):
    from migrate.convert.runtime_files import SOURCE, _branches_alone, _whole_module
    sources = [p.read_text(encoding="utf-8") for p in sorted(SOURCE.glob("*.py"))]
    with_branches = [code for code in sources if "TARGET ==" in code]
    assert len(with_branches) >= 2
    for code in with_branches:
        alone = _branches_alone(code, target)
        assert alone is not None and alone == _whole_module(code, target)


def test_a_written_copy_runs_without_this_project_or_torch(tmp_path):
    write_runtime(tmp_path, "ms_core")
    assert is_written_runtime(tmp_path / RUNTIME_NAME)
    out = _python(tmp_path, "from migrate_runtime import TorchConv2d, torch_size, TorchSequential\n"
                            "import ms_core as ms, numpy as np\n"
                            "m = TorchSequential(TorchConv2d(3, 4, 3, padding=(1, 2)))\n"
                            "print(torch_size(m(ms.Tensor(np.ones((1, 3, 5, 5), np.float32)))))\n")
    assert out.strip() == "(1, 4, 5, 7)"
    assert write_runtime(tmp_path, "ms_core") == []  # the same text again: nothing is written


def test_a_users_file_keeps_its_name(tmp_path):
    (tmp_path / "migrate_runtime.py").write_text("USER = 1\n")
    assert runtime_name(tmp_path) == "migrate_runtime_2"
    (tmp_path / "sub" / "migrate_runtime").mkdir(parents=True)
    (tmp_path / "sub" / "migrate_runtime" / "__init__.py").write_text("")
    assert runtime_name(tmp_path / "sub") == "migrate_runtime_2"
    with pytest.raises(FileExistsError, match="is not a runtime written by migrate"):
        write_runtime(tmp_path / "sub", "ms_core")
    write_runtime(tmp_path / "other", "ms_core")
    assert runtime_name(tmp_path / "other") == "migrate_runtime"  # a copy of ours keeps its name
    assert runtime_name(tmp_path / "other", taken={"migrate_runtime.py"}) == "migrate_runtime_2"


def test_one_copy_per_import_root(tmp_path):
    files = {"train.py": "import utils.helpers\nfrom models import net\n", "models/__init__.py": "",
             "models/net.py": "from .blocks import b\n", "models/blocks/__init__.py": "", "models/blocks/b.py": "",
             "utils/helpers.py": "import os\n", "tools/plot.py": "import json\n", "ns/x.py": "from . import y\n",
             "ns/y.py": "", "examples/mnist/main.py": "import torch\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    sources = [str(tmp_path / rel) for rel in files]
    assert package_dirs(tmp_path, sources) == {Path(p) for p in ("models", "models/blocks", "ns", "utils")}
    homes = {str(Path(k).relative_to(tmp_path)): (str(d), depth) for k, (d, depth) in
             runtime_homes(tmp_path, sources).items()}
    assert homes == {"train.py": (".", None), "models/__init__.py": ("models", 0), "models/net.py": ("models", 0),
                     "models/blocks/__init__.py": ("models", 1), "models/blocks/b.py": ("models", 1),
                     "utils/helpers.py": ("utils", 0), "tools/plot.py": ("tools", None),
                     "ns/x.py": ("ns", 0), "ns/y.py": ("ns", 0), "examples/mnist/main.py": ("examples/mnist", None)}
    assert import_module_text("migrate_runtime", None) == "migrate_runtime"
    assert import_module_text("migrate_runtime", 1) == "..migrate_runtime"


def test_inlined_definitions_bring_what_they_need_in_order():
    imports, defs, backend = inline_parts({"TorchConv2d", "torch_size"}, "ms_core")
    names = [n for n, _ in defs]
    assert imports == ["import inspect", "import math"] and backend == {"init", "nn"}
    assert names.index("TorchSignature") < names.index("TorchConv2d") and "torch_conv_padding" in names
    assert "torch_size" in names and "TorchLinear" not in names
    _, defs, _ = inline_parts({"torch_import_module"}, "ms_core")
    source = dict(defs)["torch_replaced_modules"]
    assert "REPLACED_MODULES" in dict(defs) and "from .generated" not in source  # the block's own name now


def test_inlined_definitions_keep_one_order_whatever_names_reach_them():
    """A second conversion may reach the same definitions through other names (the first
    conversion's output names a helper the first one reached only through a class); the block
    it writes is the same, in the same order."""
    _, through_classes, _ = inline_parts({"TorchUnfold", "torch_convert_sync_batchnorm"}, "ms_core")
    from migrate.runtime.index import EXPORTS
    exported = sorted({n for n, _ in through_classes} & set(EXPORTS))
    assert len(exported) > 2
    _, through_every_name, _ = inline_parts(set(exported), "ms_core")
    assert through_every_name == through_classes


def test_a_directory_whose_files_import_their_siblings_by_name_runs_as_scripts(tmp_path):
    """pytorch/examples' fast_neural_style: `neural_style/` holds an `__init__.py`, but its
    files import each other by bare name (`from transformer_net import TransformerNet`), as
    scripts run from that directory do; its files import the runtime copy beside them by name.
    A directory that also imports relatively stays a package."""
    files = {"style/__init__.py": "", "style/run.py": "import utils\nfrom net import Net\n",
             "style/net.py": "import torch\n", "style/utils.py": "",
             "pkg/__init__.py": "", "pkg/a.py": "from .b import x\nimport b\n", "pkg/b.py": "x = 1\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    sources = [str(tmp_path / rel) for rel in files]
    assert package_dirs(tmp_path, sources) == {Path("pkg")}
    homes = {str(Path(k).relative_to(tmp_path)): (str(d), depth) for k, (d, depth) in
             runtime_homes(tmp_path, sources).items()}
    assert homes["style/run.py"] == homes["style/net.py"] == ("style", None)
    assert homes["pkg/a.py"] == ("pkg", 0)


def test_a_script_directory_with_an_init_imports_its_converted_siblings(tmp_path):
    import subprocess
    import sys

    from migrate.convert.project import convert_tree

    src = tmp_path / "style"
    src.mkdir()
    (src / "__init__.py").write_text("")
    (src / "net.py").write_text("import torch.nn as nn\n\n\nclass Net(nn.Module):\n"
                                "    def __init__(self, k):\n        super().__init__()\n"
                                "        self.conv = nn.Conv2d(3, 4, k)\n\n"
                                "    def forward(self, x):\n        return self.conv(x).size()\n")
    (src / "run.py").write_text("import torch\nfrom net import Net\n\nprint(tuple(Net(3)(torch.ones(1, 3, 8, 8))))\n")
    out = tmp_path / "out"
    convert_tree(src, out)
    assert "from migrate_runtime import" in (out / "net.py").read_text()
    proc = subprocess.run([sys.executable, "run.py"], cwd=out, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[3])})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "(1, 4, 6, 6)"



def test_a_package_that_imports_itself_by_its_own_name_stays_a_package(tmp_path):
    """rotary-embedding-torch, graph-transformer-pytorch: ``pkg/__init__.py`` imports
    ``from pkg.pkg import f`` beside ``pkg/pkg.py``: the package's own absolute import, not a
    sibling's by bare name. Converted as a source of its own (the directory is the root), its
    files import the runtime copy relatively and the package imports from anywhere, beside
    another converted package that imports it."""
    import subprocess
    import sys

    from migrate.convert.project import convert_tree

    src = tmp_path / "src"
    for name in ("rope", "graphs"):
        (src / name).mkdir(parents=True)
        (src / name / "__init__.py").write_text(f"from {name}.{name} import make\n")
    (src / "rope" / "rope.py").write_text("import torch\n\n\ndef make(x, n):\n    return x.repeat(n, 1)\n")
    (src / "graphs" / "graphs.py").write_text("import torch\nfrom rope import make as rope\n\n\n"
                                              "def make(n):\n    return rope(torch.ones(2), n).shape\n")
    root = src / "rope"
    assert package_dirs(root, [str(p) for p in root.glob("*.py")]) == {Path(".")}
    out = tmp_path / "out"
    for name in ("rope", "graphs"):
        convert_tree(src / name, out / name)
    assert "from .migrate_runtime import torch_repeat" in (out / "rope" / "rope.py").read_text()
    code = "import graphs\nprint(tuple(graphs.make(3)))\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin",
                               "PYTHONPATH": f"{out}:{Path(__file__).resolve().parents[3]}"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "(3, 2)"
