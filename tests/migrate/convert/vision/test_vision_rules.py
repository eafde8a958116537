"""Before/after pairs of the torchvision rules (MS260-MS264, mappings/vision.toml): datasets to
the generated torchvision-signature functions, transforms to ms.dataset ops, DataLoaders over
them, what stays marked and why."""
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import after, check

PAIRS = {
    "transforms": ('''
        from torchvision import datasets, transforms
        t = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,), inplace=True)])
        ''', '''
        t = ms.dataset.transforms.Compose([ms.dataset.vision.ToTensor(), ms.dataset.vision.Normalize((0.5,), (0.5,), is_hwc=False)])
        '''),  # noqa: E501
    "aliased module, loader over a name": ('''
        import torchvision.datasets as dset
        ds = dset.MNIST(root="x", download=True)
        loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True)
        ''', '''
        ds = MNISTTorch(root="x", download=True)
        loader = ds.shuffle(ds.get_dataset_size()).batch(4)
        '''),
    "class imported, call in place": ('''
        from torchvision.datasets import FashionMNIST
        from torch.utils.data import DataLoader
        loader = DataLoader(FashionMNIST("x", train=False), batch_size=4)
        ''', '''
        loader = DataLoaderTorch(FashionMNISTTorch("x", train=False), batch_size=4)
        '''),
    "name bound to a marked dataset too": ('''
        from torchvision import datasets
        if flag:
            ds = datasets.CIFAR10("x")
        else:
            ds = datasets.ImageFolder("y")
        loader = torch.utils.data.DataLoader(ds, batch_size=4)
        ''', '''
        if flag:
            ds = CIFAR10Torch("x")
        else:
            # migrate: MS901 ImageFolder decodes image files (PIL in torchvision); use ms.dataset.ImageFolderDataset(root, decode=True) with MindSpore's vision ops by hand: its class order and decoded pixels are MindSpore's
            ds = datasets.ImageFolder("y")
        loader = DataLoaderTorch(ds, batch_size=4)
        '''),  # noqa: E501
    "lambda": ('''
        import torchvision.transforms as T
        t = T.Lambda(lambda x: torch.flatten(x))
        ''', '''
        t = LambdaTorch(lambda x: ops.flatten(x, start_dim=0))
        '''),
    "fake data": ('''
        from torchvision import datasets, transforms
        ds = datasets.FakeData(size=8, image_size=(3, 4, 4), transform=transforms.ToTensor())
        ''', '''
        ds = FakeDataTorch(size=8, image_size=(3, 4, 4), transform=ms.dataset.vision.ToTensor())
        '''),
    "data_parallel": ('''
        def f(main, x, a, b, kw):
            return nn.parallel.data_parallel(main, x, range(2)), nn.parallel.data_parallel(main, (a, b), None, module_kwargs=kw)
        ''',  # noqa: E501
        '''
        def f(main, x, a, b, kw):
            return main(x), main(a, b, **kw)
        '''),
    "a user's own MNIST is not torchvision's": ('''
        class MNIST:
            pass
        ds = MNIST()
        ''', '''
        class MNIST:
            pass
        ds = MNIST()
        '''),
}


@pytest.mark.parametrize("name", PAIRS)
def test_pair(name):
    before, expected = PAIRS[name]
    check(before, expected.lstrip("\n"))


@pytest.mark.parametrize("code, reason", [
    ("import torchvision.transforms as T\nt = T.RandomRotation(10, expand=True)\n", "canvas is another size"),
    ("import torchvision.transforms as T\nt = T.CenterCrop(64)\n", "CenterCrop places the crop differently"),
    ("from torchvision import datasets\nd = datasets.LSUN('x', classes=['bedroom_train'])\n", "LSUN reads an LMDB"),
    ("from torchvision import datasets\nd = datasets.MNIST('x')\nfirst = d[0]\nr = d.raw_folder\n",
     "read as torchvision's object (.raw_folder)"),
])
def test_what_stays_marked_says_why(code, reason):
    out = after(code)
    assert ("# migrate: MS901" in out or "# migrate: MS902" in out) and reason in out, out


@pytest.mark.parametrize("read", ["y = d.targets", "first = d[0]", "n = len(d)", "c = d.classes[0]"])
def test_a_dataset_read_as_torchvisions_object_gives_its_samples(read):
    out = after(f"from torchvision import datasets\nd = datasets.MNIST('x')\n{read}\n")
    assert out == f"d = TorchVisionSamples(MNISTTorch('x'))\n{read}\n", out


def test_download_is_noted_in_the_report():
    res = convert_source("from torchvision import datasets\nd = datasets.MNIST('x', download=True)\n")
    notes = " ".join(c.note for c in res.changes)
    assert "MindSpore downloads no dataset" in notes


@pytest.mark.parametrize("target, prefix", [("ms_core", "ms_core"), ("mindspore", "mindspore")])
def test_runtime_functions_use_the_target_and_convert_again_unchanged(target, prefix):
    src = "from torchvision import datasets\nd = datasets.MNIST('x')\n"
    res = convert_source(src, target)
    assert f"import {prefix} as ms" in res.code and "from migrate_runtime import MNISTTorch\n" in res.code
    assert convert_source(res.code, target).code == res.code
    alone = convert_source(src, target, runtime="").code  # inlined: over the target's dataset
    assert "ms.dataset.MnistDataset" in alone and convert_source(alone, target, runtime="").code == alone


DATA_PARALLEL = '''import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Tanh(), nn.Softmax(dim=1))

    def forward(self, x):
        return nn.parallel.data_parallel(self.main, x, None)


def run(x):
    return Net()(torch.tensor(x))


def reference(x):
    return Net().main(torch.tensor(x))
'''


def test_data_parallel_computes_the_module_output_as_torch_on_one_device():
    # torch's data_parallel cannot run without an accelerator ("device type could not be
    # determined"); on one device its code returns module(*inputs[0], **module_kwargs[0]): the
    # reference is that call
    import numpy as np
    from tests.migrate.convert.helpers import both_sides
    tns, cns = both_sides(DATA_PARALLEL, "self.main(x)")
    rs = np.random.RandomState(0)
    x = rs.randn(2, 4).astype(np.float32)
    np.testing.assert_allclose(cns["run"](x).asnumpy(), tns["reference"](x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
