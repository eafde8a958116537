"""What device rules leave behind goes where it does nothing: ``device = None`` in a function that
never reads the name, an ``if`` left holding only the conversion's ``pass`` under a test that
only reads, a ``try`` of imports that can no longer fail. Before/after pairs, the cases that stay
among them, then the converted code run against torch."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, check


def test_a_device_nothing_reads_goes():
    check("""\
        class M(nn.Module):
            def forward(self, img):
                device = img.device

                # patches
                x = img.to(device)
                return x

        def main(args, model):
            if args.accel and torch.cuda.is_available():
                device = torch.device("cuda")
            else:
                device = torch.device("cpu")
            model = model.to(device)
            return model
        """, """\
        class M(nn.Cell):
            def construct(self, img):
                # patches
                x = img
                return x

        def main(args, model):
            return model
        """)


def test_a_device_something_reads_stays():
    check("""\
        def f(x: torch.Tensor, cfg):
            device = x.device
            print(device)
            d = torch.device("cuda"); y = x.to(d)
            dev = x.device
            def inner():
                return dev
            other = x.device
            if cfg:
                other = 1
            return y, inner, other
        """, """\
        def f(x: ms.Tensor, cfg):
            device = None
            print(device)
            d = None; y = torch_to(x, d)
            dev = None
            def inner():
                return dev
            other = None
            if cfg:
                other = 1
            return y, inner, other
        """)  # (a name read, by a nested function too, or bound again keeps its assignment)


def test_a_device_at_module_or_class_level_or_beside_locals_stays():
    check("""\
        DEVICE = torch.device("cpu")
        class Config:
            device = torch.device("cpu")
        def f(x: torch.Tensor):
            device = x.device
            return locals()
        """, """\
        DEVICE = None
        class Config:
            device = None
        def f(x: ms.Tensor):
            device = None
            return locals()
        """)


def test_an_if_left_with_the_conversions_pass_goes_when_its_test_only_reads():
    check("""\
        def f(k, device, model, args, train, loader):
            if isinstance(k, torch.Tensor):
                k = k.cpu()
            if args.model in ["RNN", "LSTM"]:
                model.rnn.flatten_parameters()
            if device.startswith("cuda:"):
                torch.cuda.set_device(device)
            if train:
                pass
            if hasattr(k, "data"):
                k = k.data
            return k
        """, """\
        def f(k, device, model, args, train, loader):
            if device.startswith("cuda:"):
                pass
            if train:
                pass
            if hasattr(k, "data"):
                k = k.data
            return k
        """)  # (a test that calls a method keeps its call; a pass the user wrote stays)


def test_an_if_whose_blocks_the_conversion_made_the_same_is_one_block():
    check("""\
        def train(model, device, x):
            return model(x)
        def main(use_accel, model, x, flag):
            if use_accel:
                # the accelerator
                device = torch.accelerator.current_accelerator()
            elif torch.backends.mps.is_available():
                device = torch.device("mps")  # apple
            else:
                device = torch.device("cpu")
            if flag:
                y = 1
            else:
                y = 1
            if use_accel:
                dev = torch.device("cuda")
            return train(model, device, x), train(model, dev, x), y
        """, """\
        def train(model, device, x):
            return model(x)
        def main(use_accel, model, x, flag):
            # the accelerator
            # apple
            device = None
            if flag:
                y = 1
            else:
                y = 1
            if use_accel:
                dev = None
            return train(model, device, x), train(model, dev, x), y
        """)  # (blocks the user wrote the same stay; without `else` no block need run)


def test_an_import_try_that_cannot_fail_any_more_goes():
    check("""\
        import warnings
        try:
            import torch.nn.functional as F2
        except ImportError:
            F2 = None
            warnings.warn("old torch")
        try:
            from torch.nn import functional as F3
        except ImportError:
            # keep this note
            F3 = None
        y = F2.relu(x) + F3.relu(x)
        """, """\
        try:
            pass
        except ImportError:
            # keep this note
            F3 = None
        y = ops.relu(x) + ops.relu(x)
        """)  # (a handler with a comment stays: its note is the user's)


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_converting_again_changes_nothing(target):
    code = HEADER + ("def f(x: torch.Tensor, k):\n    device = x.device\n"
                     "    if isinstance(k, torch.Tensor):\n        k = k.cpu()\n    return x.to(device) + k\n")
    once = convert_source(code, target).code
    assert "device" not in once and "isinstance" not in once
    assert convert_source(once, target).code == once


def test_the_tidied_function_computes_what_torch_computes():
    torch = pytest.importorskip("torch")
    code = HEADER + """\
def f(x: torch.Tensor, k, accel):
    device = x.device
    if accel and torch.cuda.is_available():
        dev = torch.device("cuda")
    else:
        dev = torch.device("cpu")
    if isinstance(k, torch.Tensor):
        k = k.cpu()
    return (x.to(device) * 2 + k.to(dev)).sum()
"""
    tns, mns = {}, {}
    exec(compile(code, "<torch>", "exec"), tns)
    out = convert_source(code).code
    assert "device" not in out and "dev =" not in out
    exec(compile(out, "<converted>", "exec"), mns)
    import ms_core as ms
    x = np.array([1.5, -2.0, 0.25], np.float32)
    for accel in (True, False):
        want = tns["f"](torch.tensor(x), torch.tensor(x), accel)
        got = mns["f"](ms.Tensor(x), ms.Tensor(x), accel)
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
