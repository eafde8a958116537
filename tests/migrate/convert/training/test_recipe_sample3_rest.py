"""What the third sample of public training recipes left (bench/recipes.py, "A third sample of
recipes"), each by its mechanism, the converted code run without torch against torch's numbers:

- a 'cuda' GradScaler on a machine without CUDA: torch disables it (scale 1, a warning); the
  converted scaler does the same on a CPU backend;
- a TensorDataset read by index or slice (``xb, yb = train_ds[a:b]``): torch's tuple of tensors;
"""

import warnings

import numpy as np
import pytest

from tests.migrate.convert.helpers import check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def _run_torch(src, name="torch_side"):
    space = {"__name__": name}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(src, name, "exec"), space)
    return space


# ---- a GradScaler torch disables without CUDA --------------------------------------------------------

AMP = """\
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
scaler = torch.cuda.amp.GradScaler()
losses, scales = [], []
xs = torch.linspace(-1.0, 1.0, 24).reshape(4, 2, 3)
for x in xs:
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        loss = net(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    losses.append(loss.item())
    scales.append(scaler.get_scale())
enabled = scaler.is_enabled()
state = scaler.state_dict()
"""


def test_a_cuda_scaler_is_disabled_on_a_cpu_as_torchs(tmp_path):
    want = _run_torch(AMP)
    assert not torch.cuda.is_available() and want["enabled"] is False
    with pytest.warns(UserWarning, match="Disabling"):
        mod, code = load_converted(tmp_path, "amp_loop", AMP)
    assert "torch_grad_scaler(ms.amp.DynamicLossScaler(" in code, code
    assert "torch_scaler_is_enabled(scaler)" in code
    np.testing.assert_allclose(mod.losses, want["losses"], rtol=1e-5, atol=1e-6)
    assert mod.scales == want["scales"] == [1.0] * 4
    assert mod.enabled is False and mod.state == want["state"] == {}
    np.testing.assert_allclose(mod.net[2].weight.asnumpy(), want["net"][2].weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


# ---- a TensorDataset read by index or slice ------------------------------------------------------------

SLICED = """\
import torch
from torch.utils.data import DataLoader, TensorDataset

x = torch.arange(30, dtype=torch.float32).reshape(10, 3) / 7
y = torch.arange(10) % 3
train_ds = TensorDataset(x, y)
xb, yb = train_ds[2:7]
x3, y3 = train_ds[3]
picked = train_ds[torch.tensor([9, 0, 4])]
n = len(train_ds)
batches = [(a.sum().item(), b.tolist()) for a, b in DataLoader(train_ds, batch_size=4)]
plain = TensorDataset(x, y)
"""


def test_a_tensor_dataset_read_by_slice_gives_torchs_tuple(tmp_path):
    want = _run_torch(SLICED)
    mod, code = load_converted(tmp_path, "sliced", SLICED)
    assert "train_ds = TorchTensorDataset(x, y)" in code, code
    # a dataset the file never indexes stays plain MindSpore
    assert "plain = ms.dataset.NumpySlicesDataset(" in code
    for name in ("xb", "yb", "x3", "y3"):
        got, ref = getattr(mod, name), want[name]
        assert isinstance(got, ms.Tensor) and got.shape == tuple(ref.shape), name
        np.testing.assert_allclose(got.asnumpy(), ref.numpy(), rtol=1e-6)
    assert len(mod.picked) == 2
    for got, ref in zip(mod.picked, want["picked"]):
        np.testing.assert_allclose(got.asnumpy(), ref.numpy(), rtol=1e-6)
    assert mod.n == want["n"] == 10
    assert len(mod.batches) == len(want["batches"])
    for (gs, gl), (ws, wl) in zip(mod.batches, want["batches"]):
        assert gl == wl and abs(gs - ws) <= 1e-5 * abs(ws)


def test_an_indexed_tensor_dataset_becomes_the_runtime_class():
    check("""\
        ds = torch.utils.data.TensorDataset(x, y)
        a, b = ds[0:4]
        """, """\
        ds = TorchTensorDataset(x, y)
        a, b = ds[0:4]
        """)


# ---- torch.rand / torch.randn given a generator ----------------------------------------------------------

DRAWS = """\
import torch


def draw(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    a = torch.randn(2, 3, generator=g)
    b = torch.rand((400,), generator=g, dtype=torch.float64)
    return a, b


first, again, other = draw(5), draw(5), draw(6)
"""


def test_rand_and_randn_given_a_generator_repeat_its_draws_as_torchs(tmp_path):
    want = _run_torch(DRAWS)
    mod, code = load_converted(tmp_path, "draws", DRAWS)
    assert "ops.randn(2, 3, seed=torch_seed(g, None))" in code, code
    assert "ops.rand((400,), dtype=ms.float64, seed=torch_seed(g, None))" in code, code
    for side, arr in ((want, lambda t: t.numpy()), (vars(mod), lambda t: t.asnumpy())):
        for x, y in zip(side["first"], side["again"]):  # the same seed repeats every draw
            np.testing.assert_array_equal(arr(x), arr(y))
        for x, y in zip(side["first"], side["other"]):  # another seed draws others
            assert not np.array_equal(arr(x), arr(y))
        a, b = (arr(t) for t in side["first"])
        assert a.shape == (2, 3) and a.dtype == np.float32 and b.shape == (400,) and b.dtype == np.float64
        assert 0.0 <= b.min() and b.max() < 1.0 and abs(b.mean() - 0.5) < 0.05  # U[0, 1), as torch's


# ---- transforms.RandomRotation ----------------------------------------------------------------------------

def test_random_rotation_becomes_mindspores_with_its_centre_and_fill_translated():
    check("""\
        from torchvision import transforms
        from torchvision.transforms import InterpolationMode
        a = transforms.Compose([transforms.RandomRotation(15), transforms.ToTensor()])
        b = transforms.RandomRotation((10, 20), interpolation=InterpolationMode.NEAREST, center=(4, 3.5),
                                      fill=(1, 2, 3))
        c = transforms.RandomRotation(5, fill=[7])
        """, """\
        a = ms.dataset.transforms.Compose([ms.dataset.vision.RandomRotation(15), ms.dataset.vision.ToTensor()])
        b = ms.dataset.vision.RandomRotation((10, 20), center=(3.5, 3.0), fill_value=(3, 2, 1))
        c = ms.dataset.vision.RandomRotation(5, fill_value=7)
        """)


@pytest.mark.parametrize("kwargs, reason", [("interpolation=InterpolationMode.BILINEAR", "interpolation="),
                                            ("expand=True", "expand=True"), ("center=c", "center=c"),
                                            ("fill=f", "fill=f")])
def test_random_rotation_that_mindspore_computes_otherwise_is_marked(kwargs, reason):
    from migrate import convert_source
    res = convert_source("from torchvision import transforms\n"
                         "from torchvision.transforms import InterpolationMode\n"
                         f"t = transforms.RandomRotation(5, {kwargs})\n")
    assert "# migrate: MS902" in res.code and reason in res.code, res.code


ROTATION = """\
from torchvision import transforms

rotate = transforms.RandomRotation((30, 30), center=(4, 3), fill=(3, 5, 9))
"""


def test_a_converted_rotation_rotates_as_torchvision(tmp_path):
    from tests.ms_core.test_dataset_rotation import _ties, _torchvision_rotate
    mod, code = load_converted(tmp_path, "rotation", ROTATION)
    img = np.random.RandomState(3).randint(0, 256, (7, 9, 3)).astype(np.uint8)
    want, sx, sy = _torchvision_rotate(img, 30.0, (4.0, 3.0), (3, 5, 9))
    got = mod.rotate(img)
    differs = (got.astype(np.float64) != want).any(-1)
    assert not (differs & ~_ties(sx, sy)).any()
    assert (want[0, 0] == (3, 5, 9)).all() and (got[0, 0] == (3, 5, 9)).all()  # a corner from outside: the fill


# ---- transforms.Resize --------------------------------------------------------------------------------------

def test_resize_becomes_the_runtimes_resize():
    check("""\
        from torchvision import transforms
        from torchvision.transforms import InterpolationMode
        t = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])
        u = transforms.Resize((24, 40), interpolation=InterpolationMode.BICUBIC, antialias=True)
        """, """\
        t = ms.dataset.transforms.Compose([ResizeTorch(32), ms.dataset.vision.ToTensor()])
        u = ResizeTorch((24, 40), interpolation=ms.dataset.vision.Inter.BICUBIC, antialias=True)
        """)


def _torch_resize(img, size, mode):
    """torch's antialiased interpolation of an (H, W, C) image (torchvision's tensor Resize; its
    PIL Resize computes the same filter)."""
    import torch.nn.functional as F
    t = torch.tensor(img).permute(2, 0, 1)[None]
    out = F.interpolate(t, size=size, mode=mode, antialias=mode != "nearest-exact",
                        align_corners=None if mode == "nearest-exact" else False)
    return out[0].permute(1, 2, 0).numpy()


@pytest.mark.parametrize("shape, size, mode, out_shape", [
    ((32, 32, 3), 16, "bilinear", (16, 16)), ((20, 30, 3), 12, "bilinear", (12, 18)),
    ((30, 20, 1), 12, "bilinear", (18, 12)), ((20, 30, 3), (25, 17), "bilinear", (25, 17)),
    ((32, 32, 3), 48, "bilinear", (48, 48)), ((17, 23, 3), (9, 40), "bicubic", (9, 40)),
    ((32, 32, 3), 13, "bicubic", (13, 13)), ((20, 30, 3), [7], "nearest", (7, 10)),
    ((9, 9, 3), 20, "nearest", (20, 20))])
def test_resize_computes_torchvisions_size_and_pixels(shape, size, mode, out_shape):
    from migrate.runtime.vision import ResizeTorch
    rs = np.random.RandomState(shape[0] * shape[1])
    img = rs.randint(0, 256, shape).astype(np.uint8)
    resize = ResizeTorch(size, interpolation=getattr(ms.dataset.vision.Inter, mode.upper()))
    torch_mode = "nearest-exact" if mode == "nearest" else mode  # PIL's nearest: the pixel under the centre
    got = resize(img)
    assert got.shape == out_shape + shape[2:] and got.dtype == np.uint8
    want = _torch_resize(img, out_shape, torch_mode)
    # uint8: PIL's fixed-point arithmetic (ours) and torch's uint8 kernel round a few pixels apart
    assert np.abs(got.astype(int) - want.astype(int)).max() <= (0 if mode == "nearest" else 1)
    floats = img.astype(np.float64)
    np.testing.assert_allclose(resize(floats), _torch_resize(floats, out_shape, torch_mode), rtol=1e-12, atol=1e-10)


def test_resize_to_the_images_own_size_is_the_identity_and_bad_arguments_are_named():
    from migrate.runtime.vision import ResizeTorch
    img = np.arange(32 * 32 * 3, dtype=np.uint8).reshape(32, 32, 3)
    assert ResizeTorch(32)(img) is img
    assert ResizeTorch(16, max_size=20)(np.zeros((20, 40, 3), np.uint8)).shape == (10, 20, 3)
    with pytest.raises(ValueError, match="max_size"):
        ResizeTorch(16, max_size=16)(img)
    with pytest.raises(ValueError, match="interpolation"):
        ResizeTorch(16, interpolation="lanczos")
    with pytest.raises(ValueError, match="Size"):
        ResizeTorch((1, 2, 3))


# ---- isinstance(m, nn.DataParallel) ------------------------------------------------------------------------

EMA = """\
import torch
import torch.nn as nn


class EMAHelper:
    def __init__(self, mu=0.5):
        self.mu = mu
        self.shadow = {}

    def register(self, module):
        if isinstance(module, nn.DataParallel):
            module = module.module
        for name, param in module.named_parameters():
            self.shadow[name] = param.data.clone()


net = nn.Linear(3, 2)
wrapped = nn.DataParallel(net)
helper = EMAHelper()
helper.register(wrapped)
plain = isinstance(net, (nn.DataParallel, nn.Linear))
"""


def test_no_converted_object_is_a_data_parallel(tmp_path):
    # torch's DataParallel on a CPU is the wrapper whose .module is the network; the conversion's
    # DataParallel(model) is the model itself: isinstance(x, nn.DataParallel) is False there
    want = _run_torch(EMA)
    mod, code = load_converted(tmp_path, "ema_helper", EMA)
    assert "DataParallel" not in code.split("class EMAHelper")[1], code
    assert "isinstance(net, (nn.Dense,))" in code
    assert sorted(mod.helper.shadow) == sorted(want["helper"].shadow) == ["bias", "weight"]
    assert mod.plain is want["plain"] is True
