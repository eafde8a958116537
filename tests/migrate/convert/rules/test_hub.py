"""Pretrained torch weights through converted code: model_zoo.load_url /
load_state_dict_from_url + load_state_dict run on ms_core with torch not importable and give
torch's outputs (fixture tests/fixtures/convert/pretrained_hub.py)."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

FIXTURE = FIXTURE_ROOT / "convert" / "pretrained_hub.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
# run the converted module where `import torch` fails, as a user without torch would
_RUNNER = r"""
import json, sys
import numpy as np
for name in ("torch", "torchvision", "functorch"):
    sys.modules[name] = None
sys.path.insert(0, sys.argv[1])
import converted_hub as m
import ms_core as ms
args = json.loads(sys.argv[2])
net = getattr(m, args["fn"])(*args["args"])
x = np.load(args["x"])
np.save(args["out"], net(ms.Tensor(x)).asnumpy())
np.savez(args["params"], **{n: p.asnumpy() for n, p in net.parameters_and_names()})
"""


def _torch_side(tmp_path, legacy):
    spec = __import__("importlib.util").util.spec_from_file_location("pretrained_hub_t", FIXTURE)
    mod = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    ref = mod.TinyNet()
    with torch.no_grad():  # non-trivial BatchNorm statistics and affine values
        ref.bn.running_mean.uniform_(-1, 1)
        ref.bn.running_var.uniform_(0.5, 2)
        ref.bn.weight.uniform_(0.5, 1.5)
        ref.norm.bias.uniform_(-1, 1)
    ref.eval()
    raw = tmp_path / "raw.pth"
    torch.save(ref.state_dict(), raw, _use_new_zipfile_serialization=not legacy)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()[:8]
    served = tmp_path / "served"
    served.mkdir()
    path = served / f"tiny-{digest}.pth"
    raw.rename(path)
    return mod, ref, path


def _run_converted(tmp_path, fn, args, x):
    code = convert_source(FIXTURE.read_text()).code
    (tmp_path / "converted_hub.py").write_text(code)
    np.save(tmp_path / "x.npy", x)
    env = dict(os.environ, PYTHONPATH=ROOT, TORCH_HOME=str(tmp_path / "cache"))
    spec = {"fn": fn, "args": args, "x": str(tmp_path / "x.npy"), "out": str(tmp_path / "y.npy"),
            "params": str(tmp_path / "params.npz")}
    proc = subprocess.run([sys.executable, "-c", _RUNNER, str(tmp_path), json.dumps(spec)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return np.load(tmp_path / "y.npy"), dict(np.load(tmp_path / "params.npz")), proc.stderr


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_load_url_then_load_state_dict_gives_torch_outputs_without_torch(tmp_path, legacy):
    _, ref, path = _torch_side(tmp_path, legacy)
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    got, _, log = _run_converted(tmp_path, "tiny", [path.as_uri()], x)
    want = ref(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert "Downloading" in log
    assert (tmp_path / "cache" / "hub" / "checkpoints" / path.name).is_file()  # torch's cache layout


def test_edited_state_dict_with_strict_false_keeps_torch_keys(tmp_path):
    _, ref, path = _torch_side(tmp_path, legacy=False)
    x = np.random.default_rng(2).standard_normal((2, 3, 6, 6)).astype(np.float32)
    got, params, _ = _run_converted(tmp_path, "tiny_features", [path.as_uri(), str(tmp_path / "models")], x)
    assert got.shape == (2, 7)  # the new 7-class head keeps its own initial values
    assert (tmp_path / "models" / path.name).is_file()
    sd = ref.state_dict()
    renamed = {"bn.gamma": "bn.weight", "bn.beta": "bn.bias", "bn.moving_mean": "bn.running_mean",
               "bn.moving_variance": "bn.running_var", "norm.gamma": "norm.weight",
               "norm.beta": "norm.bias", "conv.weight": "conv.weight", "conv.bias": "conv.bias"}
    assert set(params) == set(renamed) | {"fc.weight", "fc.bias"}
    for ms_name, torch_name in renamed.items():
        np.testing.assert_array_equal(params[ms_name], sd[torch_name].numpy())


def test_hash_mismatch_raises_like_torch(tmp_path):
    _, _, path = _torch_side(tmp_path, legacy=False)
    bad = path.with_name("tiny-00000000.pth")
    path.rename(bad)
    with pytest.raises(AssertionError, match="invalid hash value"):
        _run_converted(tmp_path, "tiny_features", [bad.as_uri(), str(tmp_path / "m")],
                       np.zeros((1, 3, 6, 6), np.float32))
    assert not (tmp_path / "m" / bad.name).exists()  # nothing half-downloaded is left


def test_conversion_is_marked_for_mindspore_and_translated_for_ms_core():
    src = FIXTURE.read_text()
    ms_core_code = convert_source(src).code
    assert "ms.hub.load_state_dict(model, ms.hub.load_state_dict_from_url(pretrained))" in ms_core_code
    assert "ms.hub.load_state_dict(model, state_dict, strict=False)" in ms_core_code
    assert 'map_location="cpu",' in ms_core_code and "check_hash=True)" in ms_core_code
    mindspore_code = convert_source(src, target="mindspore").code
    assert "# migrate: MS901" in mindspore_code and "cannot read a torch checkpoint" in mindspore_code
    assert "ms.hub.load" not in mindspore_code


def test_a_file_that_keeps_torch_converts_again_to_itself():
    """ms.hub.load_state_dict(model, sd) is the target's function, not a torch method, also when a
    marked line keeps `import torch` in the file."""
    src = FIXTURE.read_text() + "\n\ndef householder(x):\n    return torch.geqrf(x)\n"
    once = convert_source(src).code
    assert "# migrate: MS901 torch.geqrf" in once and "ms.hub.load_state_dict(model, state_dict" in once
    assert convert_source(once).code == once


ROUND_TRIP = '''import torch
import torch.nn as nn


def round_trip(path):
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    torch.save(net.state_dict(), path)
    other = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    other.load_state_dict(torch.load(path, map_location="cpu"))
    return net, other


def from_torch(path):
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    net.load_state_dict(torch.load(path))
    return net
'''


def test_torch_load_reads_converted_and_torch_checkpoints(tmp_path):
    """torch.save + torch.load in converted code (ms.save_checkpoint writes 'w.pt.ckpt') and
    torch.load of a file torch wrote: both load, the latter with torch's values."""
    res = convert_source(ROUND_TRIP)
    assert "# migrate" not in res.code and "ms.hub.load(path)" in res.code
    assert "ms.load_checkpoint(path)" in convert_source(ROUND_TRIP, target="mindspore").code
    cns, tns = {}, {}
    exec(res.code, cns)
    exec(ROUND_TRIP, tns)
    net, other = cns["round_trip"](str(tmp_path / "w.pt"))
    for (_, a), (_, b) in zip(net.parameters_and_names(), other.parameters_and_names()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    ref, _ = tns["round_trip"](str(tmp_path / "t.pt"))
    got = cns["from_torch"](str(tmp_path / "t.pt"))
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    import ms_core as ms
    np.testing.assert_allclose(got(ms.Tensor(x)).asnumpy(), ref.eval()(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
