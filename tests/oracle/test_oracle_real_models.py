"""Oracle: a sample of real third-party models, converted with --target mindspore, builds on real
MindSpore 2.10, computes what the --target ms_core conversion computes on ms_core with the same
(torch's) weights, and survives a checkpoint round trip (issue 10).

No third-party code lives in the repository: the sources are read from a cache given by
MIGRATE_ZOO_SRC (the layout bench/realworld.py and bench/zoo_real.toml use: PyPI archives
unpacked under their archive names, GitHub snapshots as gh_<owner>+<repo>/; vit_pytorch's original
needs einops, which bench/realworld.py unpacks there as einops-0.8.1-py3-none-any/). The test skips
when that cache or real MindSpore (MS_ORACLE_PYTHON) is missing.

For each model, three child processes:

1. torch (this interpreter): the original builds with a fixed seed in eval mode and runs; the
   --target ms_core conversion builds and the checker's weight map copies torch's values into
   it; every ms_core parameter (by path) and the torch outputs are saved.
2. ms_core and 3. MindSpore, each with torch impossible to import: the matching conversion
   builds; every ``Parameter.name`` must be unique and its path (one of its paths for a weight
   shared by two layers, e.g. nanoGPT's tied embedding); the saved values are loaded by
   path (the two frameworks must list the same parameters); forward in inference mode;
   ``save_checkpoint`` -> a model built afresh with another seed -> ``load_param_into_net``
   with nothing left unloaded on either side -> the same outputs, exactly.

The outputs agree with torch within the benchmark's tolerance (relative max error 1e-4) on both
sides, and MindSpore's with ms_core's within the same bound.
"""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from migrate.convert.project import convert_tree

from .test_oracle import ORACLE, REPO

ZOO = os.environ.get("MIGRATE_ZOO_SRC")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)"),
              pytest.mark.skipif(not ZOO or not os.path.isdir(ZOO),
                                 reason="no cache of real sources (set MIGRATE_ZOO_SRC)")]
# relative max error against the reference (as bench/realworld.py): float32 through deep networks
TOLERANCE = 1e-4

# (id, source directory in the cache, files staged (relative to it; a directory = its .py files),
#  empty __init__.py files added, module, constructor expression, input: ("float", shape) or
#  ("tokens", high, shape))
SAMPLE = [
    ("cifar_resnet18", "gh_kuangliu+pytorch-cifar", ["models/resnet.py"], ["models/__init__.py"],
     "models.resnet", "ResNet18()", ("float", (2, 3, 32, 32))),
    ("cifar_densenet121", "gh_kuangliu+pytorch-cifar", ["models/densenet.py"], ["models/__init__.py"],
     "models.densenet", "DenseNet121()", ("float", (2, 3, 32, 32))),
    ("resnest50", "resnest-0.0.5-py3-none-any",
     ["resnest/torch/resnet.py", "resnest/torch/splat.py", "resnest/torch/resnest.py"],
     ["resnest/__init__.py", "resnest/torch/__init__.py"],
     "resnest.torch.resnest", "resnest50()", ("float", (1, 3, 64, 64))),
    ("geffnet_mixnet_s", "geffnet-1.0.2-py3-none-any", ["geffnet"], [],
     "geffnet.gen_efficientnet", "mixnet_s()", ("float", (2, 3, 64, 64))),
    ("geffnet_efficientnet_b0", "geffnet-1.0.2-py3-none-any", ["geffnet"], [],
     "geffnet.gen_efficientnet", "efficientnet_b0()", ("float", (2, 3, 64, 64))),
    ("nanogpt", "gh_karpathy+nanoGPT", ["model.py"], [], "model",
     "GPT(GPTConfig(block_size=16, vocab_size=64, n_layer=2, n_head=2, n_embd=32, dropout=0.0, bias=True))",
     ("tokens", 64, (2, 16))),
    ("pretrainedmodels_se_resnext", "pretrainedmodels-0.7.4", ["pretrainedmodels/models/senet.py"],
     ["pretrainedmodels/__init__.py", "pretrainedmodels/models/__init__.py"], "pretrainedmodels.models.senet",
     "SENet(SEResNeXtBottleneck, [1, 1, 1, 1], groups=32, reduction=16, dropout_p=None, inplanes=64, "
     "input_3x3=False, downsample_kernel_size=1, downsample_padding=0, num_classes=10)",
     ("float", (1, 3, 224, 224))),
    # pytorchcv 0.0.67: containers iterating self._modules (-> a Cell's _cells), built by add_module
    ("pytorchcv_peleenet", "pytorchcv-0.0.67-py2.py3-none-any",
     ["pytorchcv/models/peleenet.py", "pytorchcv/models/common.py"],
     ["pytorchcv/__init__.py", "pytorchcv/models/__init__.py"], "pytorchcv.models.peleenet",
     "peleenet(pretrained=False)", ("float", (1, 3, 224, 224))),
    # openai/CLIP: attention pooling through F.multi_head_attention_forward (a generated function)
    ("clip_modified_resnet", "gh_openai+CLIP", ["clip/model.py"], ["clip/__init__.py"], "clip.model",
     "ModifiedResNet((1, 1, 1, 1), 32, 2, input_resolution=64, width=16)", ("float", (1, 3, 64, 64))),
    # einops patterns and layers (generated code on both targets)
    ("vit_pytorch_vit", "vit_pytorch-1.7.0-py3-none-any", ["vit_pytorch/vit.py"], ["vit_pytorch/__init__.py"],
     "vit_pytorch.vit", "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, "
     "dim_head=16)", ("float", (2, 3, 32, 32))),
    ("vit_pytorch_max_vit", "vit_pytorch-1.7.0-py3-none-any", ["vit_pytorch/max_vit.py"],
     ["vit_pytorch/__init__.py"], "vit_pytorch.max_vit",
     "MaxViT(num_classes=10, dim=16, depth=(1, 1), dim_head=8, window_size=4, dropout=0.)", ("float", (2, 3, 32, 32))),
]
# what the original (torch) side of a sample imports besides torch: a directory of the cache put on
# the torch driver's path only (the converted code must not need it)
TORCH_NEEDS = {"vit_pytorch_vit": "einops-0.8.1-py3-none-any", "vit_pytorch_max_vit": "einops-0.8.1-py3-none-any"}

BLOCK_TORCH = textwrap.dedent("""
    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "torchvision", "functorch"):
                raise ImportError(f"import of '{name}' blocked: converted code must not need torch")
            return None
    sys.meta_path.insert(0, NoTorch())
""")

# torch + the --target ms_core conversion: torch's outputs and the weights by ms parameter path
TORCH_DRIVER = textwrap.dedent("""
    import importlib, sys
    import numpy as np
    import torch
    from migrate.check.weights import transfer
    src, converted, module, ctor, io_path, out_path = sys.argv[1:7]
    torch.manual_seed(0)
    sys.path.insert(0, src)
    model = eval(ctor, vars(importlib.import_module(module))).eval()
    x = np.load(io_path)["x"]
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    out = out[0] if isinstance(out, (tuple, list)) else out
    top = module.split(".")[0]
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        del sys.modules[name]  # the converted package has the same name
    sys.path[0] = converted
    cell = eval(ctor, vars(importlib.import_module(module)))
    report = transfer(model, cell, strict=True)
    attrs = [e.ms_name for e in report.entries if e.action == "tensor-attribute"]
    assert not attrs, f"Tensor attributes are not carried to MindSpore by this test: {attrs}"
    weights = {name: p.asnumpy() for name, p in cell.parameters_and_names()}
    np.savez(out_path, torch_out=out.detach().numpy(), **{"w/" + k: v for k, v in weights.items()})
""")

# ms_core or MindSpore: names, weights by path, forward, checkpoint round trip
MS_DRIVER = textwrap.dedent("""
    import importlib, sys
    import numpy as np
    converted, module, ctor, io_path, weights_path, out_path, ms_name, ckpt = sys.argv[1:9]
    {block}
    ms = importlib.import_module(ms_name)
    sys.path.insert(0, converted)
    namespace = vars(importlib.import_module(module))

    def build(seed):
        ms.set_seed(seed)
        cell = eval(ctor, namespace)
        cell.set_train(False)
        return cell

    def forward(cell, x):
        out = cell(x)
        return (out[0] if isinstance(out, (tuple, list)) else out).asnumpy()

    cell = build(0)
    params = dict(cell.parameters_and_names())
    paths = {{}}  # every path of each parameter (a tied weight has several)
    for prefix, sub in cell.cells_and_names():
        for local, p in sub._params.items():
            paths.setdefault(id(p), []).append(f"{{prefix}}.{{local}}" if prefix else local)
    wrong = [(path, p.name) for path, p in params.items() if p.name not in paths[id(p)]]
    assert not wrong, f"Parameter.name is not a path: {{wrong[:5]}} ({{len(wrong)}} of {{len(params)}})"
    names = [p.name for p in params.values()]
    assert len(set(names)) == len(names), sorted(n for n in set(names) if names.count(n) > 1)
    saved = np.load(weights_path)
    weights = {{k[2:]: saved[k] for k in saved.files if k.startswith("w/")}}
    assert sorted(params) == sorted(weights), sorted(set(params) ^ set(weights))[:10]
    for name, p in params.items():
        p.set_data(ms.Tensor(weights[name]))
    x = ms.Tensor(np.load(io_path)["x"])
    out = forward(cell, x)
    ms.save_checkpoint(cell, ckpt)
    fresh = build(1)
    not_loaded, unused = ms.load_param_into_net(fresh, ms.load_checkpoint(ckpt))
    assert not not_loaded and not unused, (not_loaded[:5], unused[:5])
    np.savez(out_path, out=out, again=forward(fresh, x))
""")


def _stage(src_root: Path, files, inits, dest: Path) -> None:
    for rel in files:
        path = src_root / rel
        for p in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            target = dest / p.relative_to(src_root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, target)
    for rel in inits:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text("")


def _run(python, script: Path, args, paths=()):
    proc = subprocess.run([python, str(script), *map(str, args)], capture_output=True, text=True, timeout=1200,
                          env={"PYTHONPATH": os.pathsep.join([*map(str, paths), str(REPO)]), "GLOG_v": "3",
                               "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, f"{script.name} ({python}):\n{proc.stderr[-4000:]}"


def _rel_err(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.mark.time_limit(1500)  # a child of up to 1200 s
@pytest.mark.parametrize("case", SAMPLE, ids=[c[0] for c in SAMPLE])
def test_real_model_on_mindspore_matches_ms_core_and_torch(case, tmp_path):
    name, source, files, inits, module, ctor, inp = case
    src_root = Path(ZOO) / source
    if not src_root.is_dir():
        pytest.skip(f"{source} is not in MIGRATE_ZOO_SRC={ZOO}")
    needs = [Path(ZOO) / TORCH_NEEDS[name]] if name in TORCH_NEEDS else []
    if not all(p.is_dir() for p in needs):
        pytest.skip(f"{TORCH_NEEDS[name]} (for the original) is not in MIGRATE_ZOO_SRC={ZOO}")
    _stage(src_root, files, inits, tmp_path / "src")
    for target in ("ms_core", "mindspore"):
        reports = convert_tree(tmp_path / "src", tmp_path / target, target=target)
        failed = [r for r in reports if getattr(r, "error", None)]
        assert not failed, failed
    rng = np.random.default_rng(0)
    x = (rng.integers(0, inp[1], size=inp[2]).astype(np.int64) if inp[0] == "tokens"
         else rng.standard_normal(inp[1]).astype(np.float32))
    np.savez(tmp_path / "io.npz", x=x)
    (tmp_path / "torch_driver.py").write_text(TORCH_DRIVER)
    (tmp_path / "ms_driver.py").write_text(MS_DRIVER.format(block=BLOCK_TORCH))
    _run(sys.executable, tmp_path / "torch_driver.py",
         [tmp_path / "src", tmp_path / "ms_core", module, ctor, tmp_path / "io.npz", tmp_path / "weights.npz"],
         needs)
    results = {}
    for target, python in (("ms_core", sys.executable), ("mindspore", ORACLE)):
        _run(python, tmp_path / "ms_driver.py",
             [tmp_path / target, module, ctor, tmp_path / "io.npz", tmp_path / "weights.npz",
              tmp_path / f"{target}_out.npz", target, tmp_path / f"{target}.ckpt"])
        results[target] = np.load(tmp_path / f"{target}_out.npz")
        np.testing.assert_array_equal(results[target]["again"], results[target]["out"])
    torch_out = np.load(tmp_path / "weights.npz")["torch_out"]
    assert _rel_err(results["ms_core"]["out"], torch_out) <= TOLERANCE
    assert _rel_err(results["mindspore"]["out"], torch_out) <= TOLERANCE
    assert _rel_err(results["mindspore"]["out"], results["ms_core"]["out"]) <= TOLERANCE
