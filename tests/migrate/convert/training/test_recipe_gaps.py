"""What real training scripts do beside the step, converted by meaning (before/after pairs, and the
converted code run without torch against torch's numbers):

- parameters() / buffers() / named_*() answer torch's question (frozen parameters are
  parameters, running statistics and registered buffers are buffers), and given to an optimizer
  parameters() is what it can update; a module's requires_grad_(flag) leaves its buffers frozen;
- scatter_(dim, index, value=v) and a number given as src;
- transforms.Normalize given the data's statistics as tensors;
- SummaryWriter's scalars kept in plain files; DataParallel on one process is the module itself.
"""
import csv

import numpy as np
import pytest

from tests.migrate.convert.helpers import check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")




# ---- parameters() and buffers() by meaning ------------------------------------------------------

def test_parameters_by_meaning_outside_an_optimizer_and_what_it_can_update_inside():
    check("""\
        class Net(nn.Module):
            pass
        model = Net()
        ema = copy.deepcopy(model)
        ema.requires_grad_(False)
        n = sum(p.numel() for p in model.parameters())
        opt = torch.optim.AdamW([{"params": [p for n, p in model.named_parameters() if "bias" in n]},
                                 {"params": model.head.parameters(), "lr": 0.1}], lr=0.01)
        for e, p in zip(ema.parameters(), model.parameters()):
            e.requires_grad = p.requires_grad
        for b in model.buffers():
            print(b)
        """, """\
        class Net(nn.Cell):
            pass
        model = Net()
        ema = copy.deepcopy(model)
        torch_requires_grad(ema, False)
        n = sum(p.size for p in torch_parameters(model))
        opt = ms.experimental.optim.AdamW([{"params": [p for n, p in ((n, p) for n, p in model.parameters_and_names() if p.requires_grad) if "bias" in n]},
                                 {"params": model.head.trainable_params(), "lr": 0.1}], lr=0.01)
        for e, p in zip(torch_parameters(ema), torch_parameters(model)):
            e.requires_grad = p.requires_grad
        for b in torch_buffers(model):
            print(b)
        """)  # noqa: E501


def test_an_iterator_of_parameters_is_not_wrapped_again():
    check("p = next(model.parameters())\nb = next(model.buffers())\n",
          "p = next(torch_parameters(model))\nb = next(torch_buffers(model))\n")


FROZEN_EMA = """\
import copy
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.register_buffer("scale", torch.full((4,), 2.0))

    def forward(self, x):
        return self.bn(self.fc(x)) * self.scale


def make():
    model = Net()
    ema = copy.deepcopy(model)
    ema.requires_grad_(False)
    return model, ema


def update(ema, model, decay):
    with torch.no_grad():
        for e, p in zip(ema.parameters(), model.parameters()):
            e.mul_(decay).add_(p, alpha=1 - decay)
        for e, b in zip(ema.buffers(), model.buffers()):
            e.copy_(b)


def counts(model):
    return (len(list(model.parameters())), sum(p.requires_grad for p in model.parameters()),
            len([b for b in model.buffers() if b.is_floating_point()]))
"""


def test_a_frozen_ema_with_batchnorm_and_a_buffer_moves_and_pairs_as_torch(tmp_path):
    mod, _ = load_converted(tmp_path, "frozen_ema", FROZEN_EMA)
    namespace = {}
    exec(compile(FROZEN_EMA, "frozen_ema_torch", "exec"), namespace)  # noqa: S102 (the torch original)
    t_model, t_ema = namespace["make"]()
    m_model, m_ema = mod.make()
    assert mod.counts(m_ema) == (4, 0, 3) and mod.counts(m_model) == (4, 4, 3)
    assert namespace["counts"](t_ema)[:2] == (4, 0)
    rng = np.random.default_rng(0)
    for tp, mp in zip(t_model.parameters(), mod.torch_parameters(m_model)):
        v = rng.standard_normal(tuple(tp.shape)).astype(np.float32)
        with torch.no_grad():
            tp.copy_(torch.tensor(v))
        mp.set_data(ms.Tensor(v))
    t_ema.load_state_dict(t_model.state_dict())
    for e, p in zip(m_ema.get_parameters(), m_model.get_parameters()):
        e.set_data(p.copy())
    t_model.train()
    m_model.set_train(True)
    for step in range(4):  # the model moves (a plain SGD step on its parameters), the EMA follows
        x = rng.standard_normal((5, 3)).astype(np.float32)
        t_model(torch.tensor(x))
        m_model(ms.Tensor(x))
        with torch.no_grad():
            for tp in t_model.parameters():
                tp.mul_(0.9).add_(0.05 * (step + 1))
        for mp in mod.torch_parameters(m_model):
            mp.set_data(mp * 0.9 + 0.05 * (step + 1))
        namespace["update"](t_ema, t_model, 0.75)
        mod.update(m_ema, m_model, 0.75)
        for e, te in zip(mod.torch_parameters(m_ema), t_ema.parameters()):
            np.testing.assert_allclose(e.asnumpy(), te.numpy(), rtol=1e-5, atol=1e-6)
        t_buffers = [b for b in t_ema.buffers() if b.is_floating_point()]
        for e, te in zip(mod.torch_buffers(m_ema), t_buffers):
            np.testing.assert_allclose(e.asnumpy(), te.numpy(), rtol=1e-5, atol=1e-6)
    assert not any(p.requires_grad for p in m_ema.get_parameters())


# ---- scatter with a value ----------------------------------------------------------------------

SCATTER = """\
import torch


def smooth_targets(pred: torch.Tensor, gold, smoothing):
    one_hot = torch.full_like(pred, fill_value=smoothing / (pred.size(1) - 1))
    one_hot.scatter_(dim=1, index=gold.unsqueeze(1), value=1.0 - smoothing)
    return one_hot


def marks(x: torch.Tensor, index):
    y = x.scatter(1, index, -2.5)
    x.scatter_(0, index, 7)
    return x, y
"""


def test_scatter_with_a_value_fills_as_torch(tmp_path):
    mod, code = load_converted(tmp_path, "scatter_value", SCATTER)
    assert "value=1.0" not in code
    namespace = {}
    exec(compile(SCATTER, "scatter_torch", "exec"), namespace)  # noqa: S102 (the torch original)
    rng = np.random.default_rng(1)
    pred = rng.standard_normal((4, 5)).astype(np.float32)
    gold = np.array([0, 3, 4, 1])
    want = namespace["smooth_targets"](torch.tensor(pred), torch.tensor(gold), 0.1)
    got = mod.smooth_targets(ms.Tensor(pred), ms.Tensor(gold), 0.1)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-6, atol=1e-7)
    index = np.array([[1, 0], [2, 1]])
    x = rng.standard_normal((3, 3)).astype(np.float32)
    tx, ty = namespace["marks"](torch.tensor(x), torch.tensor(index))
    mx, my = mod.marks(ms.Tensor(x), ms.Tensor(index))
    np.testing.assert_array_equal(my.asnumpy(), ty.numpy())
    np.testing.assert_array_equal(mx.asnumpy(), tx.numpy())


# ---- Normalize given tensors -------------------------------------------------------------------

def test_normalize_given_the_datas_statistics_as_tensors(tmp_path):
    mod, code = load_converted(tmp_path, "normalize_stats", """\
import torch
from torchvision import transforms


def pipeline(data):
    mean, std = data.mean(dim=[0, 2, 3]), data.std(dim=[0, 2, 3])
    return transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
""")
    assert "torch_channel_values(mean)" in code
    rng = np.random.default_rng(2)
    data = rng.uniform(size=(6, 3, 4, 4)).astype(np.float32)
    image = rng.integers(0, 256, size=(4, 4, 3), dtype=np.uint8)
    got = mod.pipeline(ms.Tensor(data))(image)
    t = torch.tensor(data)
    mean, std = t.mean(dim=[0, 2, 3]), t.std(dim=[0, 2, 3])
    want = (torch.tensor(image).permute(2, 0, 1).float() / 255 - mean[:, None, None]) / std[:, None, None]
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


# ---- SummaryWriter -----------------------------------------------------------------------------

def test_summary_writer_keeps_the_scalars_a_script_logs(tmp_path):
    mod, code = load_converted(tmp_path, "writer", f"""\
import torch
from torch.utils.tensorboard import SummaryWriter


def log():
    writer = SummaryWriter(log_dir={str(tmp_path / "runs")!r})
    for step in range(3):
        writer.add_scalar("Loss/train", torch.tensor(0.5 * step), step)
        writer.add_scalars("Loss", {{"test": 1.0 + step}}, step)
    writer.flush()
    writer.close()
    return writer
""")
    assert "TorchSummaryWriter(" in code and "SummaryWriter(" not in code.replace("TorchSummaryWriter(", "")
    writer = mod.log()
    with open(tmp_path / "runs" / "scalars.csv") as f:
        rows = [r[:3] for r in csv.reader(f)]
    assert rows == [["Loss/train", "0", "0.0"], ["Loss/test", "0", "1.0"], ["Loss/train", "1", "0.5"],
                    ["Loss/test", "1", "2.0"], ["Loss/train", "2", "1.0"], ["Loss/test", "2", "3.0"]]
    with pytest.raises(NotImplementedError, match="'add_image' has no plain-file form"):
        writer.add_image("x", np.zeros((3, 2, 2)))


# ---- DataParallel ------------------------------------------------------------------------------

def test_data_parallel_on_one_process_is_the_module_and_its_module_attribute_the_network(tmp_path):
    check("""\
        model = nn.DataParallel(Net(), device_ids=[0, 1]).cuda()
        print(model.module.fc.weight)
        torch.save(model.module.state_dict(), "net.pt")
        other = nn.Linear(2, 2)
        other.module = 1
        """, """\
        model = Net()
        print(model.fc.weight)
        ms.save_checkpoint(model, "net.pt")
        other = nn.Dense(2, 2, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))
        other.module = 1
        """)  # noqa: E501


# ---- a torchvision dataset read by index -------------------------------------------------------

def test_a_torchvision_dataset_read_by_index_gives_torchvisions_samples(tmp_path):
    from tests.migrate.convert.vision.files import write_mnist
    images, labels = write_mnist(tmp_path, "FashionMNIST")["t10k"]
    mod, code = load_converted(tmp_path, "by_index", f"""\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import ToTensor

test_data = datasets.FashionMNIST(root={str(tmp_path)!r}, train=False, download=True, transform=ToTensor())
loader = DataLoader(test_data, batch_size=4)


def first():
    x, y = test_data[0][0], test_data[0][1]
    return x, y, len(test_data), test_data.classes[y], test_data.targets, test_data.data


def batches():
    return [(x, y) for x, y in loader]
""")
    assert "TorchVisionSamples(FashionMNISTTorch(" in code and "# migrate:" not in code
    x, y, n, name, targets, data = mod.first()
    assert isinstance(x, ms.Tensor) and x.shape == (1, 28, 28) and x.dtype == ms.float32
    np.testing.assert_allclose(x.asnumpy()[0], images[0] / np.float32(255), rtol=1e-6)
    fashion = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
    assert (y, n, name) == (int(labels[0]), len(labels), fashion[labels[0]])
    np.testing.assert_array_equal(targets.asnumpy(), labels.astype(np.int64))
    np.testing.assert_array_equal(data.asnumpy(), images)
    got = mod.batches()
    assert [tuple(b[0].shape) for b in got] == [(4, 1, 28, 28), (3, 1, 28, 28)]
    np.testing.assert_allclose(np.concatenate([b[0].asnumpy() for b in got])[:, 0], images / np.float32(255),
                               rtol=1e-6)
    np.testing.assert_array_equal(np.concatenate([b[1].asnumpy() for b in got]), labels)


LAYER_PARAMETERS = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)
        self.fc.bias.requires_grad_(False)

    def listing(self):
        fc = [tuple(p.shape) for p in self.fc.parameters()]
        bn = [tuple(p.shape) for p in self.bn.parameters()]
        return fc, [p.requires_grad for p in self.fc.parameters()], bn
"""


def test_a_layer_with_parameters_only_lists_them_with_get_parameters_as_torch(tmp_path):
    mod, code = load_converted(tmp_path, "layer_parameters", LAYER_PARAMETERS)
    assert "self.fc.get_parameters()" in code and "torch_parameters(self.bn)" in code
    namespace = {}
    exec(compile(LAYER_PARAMETERS, "layer_parameters_torch", "exec"), namespace)  # noqa: S102 (the original)
    assert mod.Net().listing() == namespace["Net"]().listing() == ([(2, 3), (2,)], [True, False], [(2,), (2,)])
