"""nn.Module methods, converted to Cell methods and run against torch: the same module source
built on both sides, torch's weights copied into the converted cell, then what each method
returns (names, counts, values, outputs with hooks) compared."""
import textwrap

import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source
from migrate.check.weights import transfer
from tests.migrate.convert.helpers import HEADER

SOURCE = """\
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.register_buffer("scale", torch.ones(3) * 2.0)
        self.register_parameter("shift", nn.Parameter(torch.zeros(3) + 0.5))
        self.register_parameter("unused", None)
        self.add_module("act", nn.Tanh())

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale + self.shift


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(self.block(x))
"""
X = np.random.RandomState(0).randn(5, 4).astype(np.float32)


def both(extra: str):
    """torch and converted namespaces of SOURCE + extra; the converted code must carry no marker."""
    src = HEADER + SOURCE + textwrap.dedent(extra)
    res = convert_source(src)
    assert res.error is None and "# migrate: MS9" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(src, "<torch>", "exec"), t_ns)
    exec(compile(res.code, "<converted>", "exec"), m_ns)
    return t_ns, m_ns, res.code


def built(extra: str):
    """(torch Net, converted Net with torch's weights, torch ns, converted ns)."""
    t_ns, m_ns, code = both(extra)
    torch.manual_seed(0)
    tnet, mnet = t_ns["Net"](), m_ns["Net"]()
    report = transfer(tnet, mnet)
    assert report.ok, report.problems()
    return tnet, mnet, t_ns, m_ns


def test_registered_parameters_buffers_and_children_run_as_torch():
    tnet, mnet, _, _ = built("")
    tnet.eval()
    np.testing.assert_allclose(mnet(ms.Tensor(X)).asnumpy(), tnet(torch.tensor(X)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert mnet.block.unused is None and tnet.block.unused is None


def test_listing_methods_name_the_same_things():
    _, _, t_ns, m_ns = built("""\
        def listing(net: nn.Module):
            return ([n for n, _ in net.named_parameters()], len(list(net.parameters())),
                    [n for n, _ in net.named_modules()], len(list(net.modules())),
                    [n for n, _ in net.named_children()], len(list(net.children())),
                    len(list(net.block.buffers())), sorted(net.state_dict().keys()),
                    [(n, tuple(b.shape)) for n, b in net.named_buffers()])
        """)
    t = t_ns["listing"](t_ns["Net"]())
    m = m_ns["listing"](m_ns["Net"]())
    assert m[:6] == t[:6]
    assert m[6] == t[6] == 1  # block.scale
    # state_dict: parameters only on MindSpore (the buffer is a Parameter too)
    assert m[7] == sorted(set(t[7]))
    assert m[8] == t[8] == [("block.scale", (3,))], (m[8], t[8])


def test_apply_get_submodule_train_eval_and_forward():
    tnet, mnet, t_ns, m_ns = built("""\
        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.1)

        def use(net: nn.Module, x):
            net.apply(init)
            fc = net.get_submodule("block.fc")
            net.train()
            training = fc.training
            net.eval()
            return net.forward(x), training, fc.training, net.cpu() is net
        """)
    t_out, t_train, t_eval, t_same = t_ns["use"](tnet, torch.tensor(X))
    m_out, m_train, m_eval, m_same = m_ns["use"](mnet, ms.Tensor(X))
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert (m_train, m_eval, m_same) == (t_train, t_eval, t_same) == (True, False, True)


def test_load_state_dict_round_trip():
    tnet, mnet, t_ns, m_ns = built("""\
        def copy_into(src, dst):
            dst.load_state_dict(src.state_dict())
            return dst
        """)
    other = m_ns["Net"]()
    m_ns["copy_into"](mnet, other)
    np.testing.assert_allclose(other(ms.Tensor(X)).asnumpy(), mnet(ms.Tensor(X)).asnumpy())


def test_forward_hooks_and_full_backward_hook():
    tnet, mnet, t_ns, m_ns = built("""\
        def hooked(net, seen):
            net.head.register_forward_pre_hook(lambda m, inp: (inp[0] * 2,))
            net.head.register_forward_hook(lambda m, inp, out: out + 1)
            net.block.register_full_backward_hook(lambda m, gin, gout: seen.append(gout[0]))
            return net
        """)
    t_seen, m_seen = [], []
    t_ns["hooked"](tnet, t_seen)
    m_ns["hooked"](mnet, m_seen)
    tx = torch.tensor(X, requires_grad=True)
    t_out = tnet(tx)
    (t_out * 3).sum().backward()
    m_out = mnet(ms.Tensor(X))
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    m_grad = ms.grad(lambda x: (mnet(x) * 3).sum())(ms.Tensor(X))
    np.testing.assert_allclose(m_grad.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_seen[-1].asnumpy(), t_seen[-1].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", ["net.to(torch.float64)", "net.to('cpu', torch.float64)",
                                  "net.to(device='cpu', dtype=torch.float64)"])
def test_casting_a_module_casts_its_parameters_as_torch_does(call):
    """module.to(dtype) -> torch_to(module, ...): the floating-point parameters are cast in
    place and the module itself returned; outputs and parameter values then match torch's."""
    code = convert_source(HEADER + SOURCE + f"net = Net()\nm = {call}\n").code
    assert "torch_to(net, " in code and "# migrate" not in code, code
    assert convert_source(code).code == code
    ns = {}
    exec(code, ns)
    cell, tns = ns["net"], {"torch": torch, "nn": torch.nn}
    exec(SOURCE + f"net = Net()\nm = {call}\n", tns)
    assert ns["m"] is cell and tns["m"] is tns["net"]
    transfer(tns["net"], cell)
    params = dict(cell.parameters_and_names())
    for name, p in tns["net"].named_parameters():
        assert p.dtype == torch.float64 and params[name.replace("weight", "weight")].dtype == ms.float64
    ref = tns["net"](torch.from_numpy(X.astype(np.float64))).detach().numpy()
    out = cell(ms.Tensor(X.astype(np.float64))).asnumpy()
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", ["net.zero_grad()", "net.zero_grad(set_to_none=False)"])
def test_zero_grad_of_a_module_is_removed(call):
    # value_and_grad returns fresh gradients: there is nothing to clear (torch returns None)
    code = convert_source(HEADER + SOURCE + f"net = Net()\n{call}\nr = {call}\n").code
    assert "zero_grad" not in code and "# migrate" not in code
    assert code.rstrip().endswith("net = Net()\nr = None"), code
    assert convert_source(code).code == code


@pytest.mark.parametrize("call", ["net.cuda()", "net.cuda(0)", "net.cpu()", "net.to('cpu')",
                                  "net.to(device=torch.device('cpu'))", "net.to('cuda', non_blocking=True)",
                                  "net.to(torch.device('cuda'))", "net.to(device=dev)",
                                  "net.to(dev, non_blocking=True)",
                                  "net.to(device)"])
def test_device_moves_of_a_module_are_dropped(call):
    code = convert_source(HEADER + SOURCE + f"device = 'cpu'\nnet = Net()\nm = {call}\n").code
    assert code.rstrip().endswith("m = net"), code


def test_a_module_cast_by_to_in_forward_is_cast_at_run_time():
    # kornia's SIFTDescriptor: self.pk = self.pk.to(input.dtype).to(input.device)
    code = convert_source(HEADER + "class P(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                          "        self.pk = nn.Conv2d(1, 1, 3, bias=False)\n\n    def forward(self, x):\n"
                          "        self.pk = self.pk.to(x.dtype).to(x.device)\n        return self.pk(x)\n").code
    assert "self.pk = torch_to(self.pk, x.dtype)\n" in code and "# migrate" not in code, code


def test_a_module_moved_to_a_torch_device_name_is_not_taken_for_a_cast():
    # device = torch.device(...) names a device, not a tensor whose dtype .to() would take
    # (imagenet/main.py: marked as module.to(dtype) and kept, then removed by a second conversion)
    src = HEADER + SOURCE + "device = torch.device('cpu')\nnet = Net()\nnet.to(device)\n"
    code = convert_source(src).code
    assert code.rstrip().endswith("\nnet = Net()") and "# migrate:" not in code, code  # (net.to(device): nothing)
    assert convert_source(code).code == code
