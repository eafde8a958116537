"""Tensor methods, module methods and statement rules (no_grad, devices, forward, loops):
before/after pairs (the converted code after the import block, compared whole)."""
import re
import numpy as np
import pytest

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import after, check


def in_forward(expr: str) -> str:
    """Convert ``y = expr`` inside a Cell's forward(self, x, mask) and return what y is bound to."""
    out = after(f"""
        class M(nn.Module):
            def forward(self, x, mask):
                y = {expr}
                return y
    """)
    head = "class M(nn.Cell):\n    def construct(self, x, mask):\n        y = "
    assert out.startswith(head) and out.endswith("\n        return y\n"), out
    return out[len(head):-len("\n        return y\n")]


TENSOR = [
    ("x.view(-1, 4)", "ops.reshape(x, (-1, 4))"),
    ("x.view(shape)", "ops.reshape(x, shape)"),
    ("x.view(x.size(0), -1)", "ops.reshape(x, (x.shape[0], -1))"),
    ("x.size()", "x.shape"),
    ("x.size(-1)", "x.shape[-1]"),
    ("x.permute(0, 2, 1)", "ops.transpose(x, (0, 2, 1))"),
    ("x.transpose(1, 2)", "ops.swapaxes(x, 1, 2)"),
    ("x.contiguous()", "x"),
    ("x.unsqueeze(1)", "ops.unsqueeze(x, 1)"),
    ("x.squeeze(dim=1)", "x.squeeze(1)"),
    ("x.flatten()", "x.flatten()"),
    ("x.flatten(1)", "x.flatten(1)"),
    ("x.chunk(2, dim=1)", "ops.chunk(x, 2, axis=1)"),
    ("x.split(3, 1)", "ops.split(x, 3, 1)"),
    ("x.sum(dim=1, keepdim=True)", "ops.sum(x, 1, True)"),
    ("x.sum(keepdim=True)", "ops.sum(x, None, True)"),
    ("x.mean(1)", "ops.mean(x, 1)"),
    ("x.max(dim=1)", "ops.max(x, 1)"),
    ("x.max()", "ops.amax(x)"),
    ("x.argmax(1)", "ops.argmax(x, 1)"),
    ("x.detach()", "ops.stop_gradient(x)"),
    ("x.numpy()", "x.asnumpy()"),
    ("x.float()", "x.astype(ms.float32)"),
    ("x.long()", "x.astype(ms.int64)"),
    ("x.half()", "x.astype(ms.float16)"),
    ("x.masked_fill(mask, 0.0)", "ops.masked_fill(x, mask, 0.0)"),
    ("x.expand(3, 4)", "ops.broadcast_to(x, (3, 4))"),
    ("x.dim()", "x.ndim"),
    ("x.numel()", "x.size"),
    ("x.item()", "x.item()"),
    ("x.cuda()", "x"),
    ("x.cpu()", "x"),
    ("x.to(device)", "x"),
    ("x.to(torch.float16)", "x.astype(ms.float16)"),
    ("x.to(dtype=torch.float64)", "x.astype(ms.float64)"),
    ("self.fc(x).view(-1)", "ops.reshape(self.fc(x), (-1,))"),
    ("torch.zeros(2, 3).sum(0)", "ops.sum(ops.zeros((2, 3)), 0)"),
]


@pytest.mark.parametrize("before,after", TENSOR, ids=[b for b, _ in TENSOR])
def test_tensor_method(before, after):
    assert in_forward(before) == after


@pytest.mark.parametrize("before", ["s.split(',')", "d.transpose(1, 2)", "o.sum(1)",
                                     "o.float()", "o.mean(1)", "o.flatten()", "o.squeeze(1)"])
def test_tensor_method_on_unknown_receiver_is_untouched(before):
    """Ambiguous method names are only rewritten on receivers known to be tensors."""
    check(f"def f(s, d, o):\n    return {before}\n", f"def f(s, d, o):\n    return {before}\n")


@pytest.mark.parametrize("before,after", [
    ("o.size()", "torch_size(o)"), ("o.size(0)", "torch_size(o, 0)"), ("o.size(dim=-1)", "torch_size(o, -1)"),
    ("o.size()[-2:]", "torch_size(o)[-2:]"), ("[*o.size()]", "[*torch_size(o)]"),
    ("o.size(1, 2)", "o.size(1, 2)"), ("o.size(k=1)", "o.size(k=1)"), ("self.size()", "self.size()"),
])
def test_size_on_an_unknown_receiver_is_decided_at_run_time(before, after):
    """MS250: MindSpore's Tensor.size is an int; `o.size()` goes through the generated
    torch_size (a tensor's shape, any other object's own size()); calls that are not torch's
    signature, and self's own method, stay."""
    code = convert_source(f"import torch\ndef f(self, o):\n    return {before}\n").code
    assert f"    return {after}\n" in code, code
    ns = {}
    exec(code, ns)

    class Sized:
        def size(self, dim=None):
            return ("own", dim)

    if "torch_size" in after:
        assert ns["torch_size"](ms.Tensor(np.zeros((2, 3, 4), np.float32))) == (2, 3, 4)
        assert ns["torch_size"](ms.Tensor(np.zeros((2, 3, 4), np.float32)), -1) == 4
        assert ns["torch_size"](Sized()) == ("own", None) and ns["torch_size"](Sized(), 1) == ("own", 1)


def test_train_and_eval_on_an_unknown_receiver_are_decided_at_run_time():
    """MS253: `model = GPT(cfg)` with GPT from another file, then `model.eval()` in a callback:
    a Cell gets set_train (it has no train/eval); another object keeps its own method."""
    src = ("import torch\nfrom .model import GPT\nmodel = GPT()\n"
           "def cb(m, other):\n    model.eval()\n    m.train(False)\n    other.train()\n    return m\n")
    code = convert_source(src).code
    assert "    torch_eval(model)\n    torch_train(m, False)\n    torch_train(other)\n" in code, code
    assert "from migrate_runtime import torch_eval, torch_train\n" in code
    import migrate.runtime as helpers_module
    helpers = vars(helpers_module.values)
    cell = ms.nn.Dense(2, 2)
    cell.set_train(True)
    assert helpers["torch_eval"](cell) is cell and cell.training is False
    assert helpers["torch_train"](cell) is cell and cell.training is True
    helpers["torch_train"](cell, False)
    assert cell.training is False

    class Own:
        def train(self, mode=True):
            return ("own", mode)

        def eval(self):
            return "own eval"

    assert helpers["torch_train"](Own()) == ("own", True) and helpers["torch_eval"](Own()) == "own eval"


def test_tensor_method_without_torch_import_is_untouched():
    src = "def f(x):\n    return x.view(-1).contiguous()\n"
    assert convert_source(src).code == src


def test_annotated_tensor_parameter_is_a_tensor():
    check("def f(x: torch.Tensor, n: int):\n    return x.sum(1), x.size(0)\n",
          "def f(x: ms.Tensor, n: int):\n    return ops.sum(x, 1), x.shape[0]\n")


def test_in_place_tensor_method_is_written_back_with_copy():
    check("""\
        class M(nn.Module):
            def forward(self, x):
                x.add_(1)
                x.cauchy_()
                return x
        """, """\
        class M(nn.Cell):
            def construct(self, x):
                x.copy_(x.copy().add(1))
                # migrate: MS905 in-place tensor method cauchy_() has no mapping: MindSpore 2.10's in-place methods leave the tensor unchanged on CPU; write x.copy_(x.copy().cauchy(...))
                x.cauchy_()
                return x
        """)  # noqa: E501


def test_module_methods_on_self_and_model_names():
    check("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("scale", torch.ones(2))
                self.add_module("extra", nn.ReLU())

            def forward(self, x):
                return self.extra(x)

            def twice(self, x):
                return self.forward(self.forward(x))

        def run(data):
            model = Net()
            model.train()
            model.eval()
            params = list(model.parameters())
            named = dict(model.named_parameters())
            kids = list(model.named_children())
            sd = model.state_dict()
            model.load_state_dict(sd)
            return [m for m in model.modules()]
        """, """\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                torch_register_buffer(self, "scale", ops.ones((2,)))
                self.insert_child_to_cell("extra", nn.ReLU())
                torch_param_names(self)

            def construct(self, x):
                return self.extra(x)

            def twice(self, x):
                return self.construct(self.construct(x))

        def run(data):
            model = Net()
            model.set_train(True)
            model.set_train(False)
            params = list(torch_parameters(model))
            named = dict(torch_named_parameters(model))
            kids = list(model.name_cells().items())
            sd = model.parameters_dict()
            ms.hub.load_state_dict(model, sd)
            return [m for m in (c for _, c in model.cells_and_names())]
        """)


def test_train_eval_on_unknown_objects_keep_their_own_method_at_run_time():
    """An unknown `job` may be a Cell (no train/eval) or another object: decided at run time
    (see test_train_and_eval_on_an_unknown_receiver_are_decided_at_run_time)."""
    code = convert_source("import torch\ndef f(job):\n    job.train()\n    job.eval()\n").code
    assert "def f(job):\n    torch_train(job)\n    torch_eval(job)\n" in code, code


def test_no_grad_block_and_decorator_become_mindspores_grad_mode():
    res = check("""\
        @torch.no_grad()
        def evaluate(model, x):
            # before
            with torch.no_grad():
                y = model(x)
            with torch.no_grad(), open("f") as fh:
                fh.write(str(y))
            return y

        @torch.no_grad
        def bare(x):
            return x
        """, """\
        @torch_no_grad()
        def evaluate(model, x):
            # before
            with torch_no_grad():
                y = model(x)
            with torch_no_grad(), open("f") as fh:
                fh.write(str(y))
            return y

        @torch_no_grad()
        def bare(x):
            return x
        """)
    assert not re.search(r"^\s*import torch\b", res.code, re.M)
    assert [c.rule for c in res.changes if c.rule == "MS106"] == ["MS106"]


def test_device_code_removed():
    # x.to(device) -> x; .cpu() / .cuda() are torch's alone (tensors and modules): dropped
    check("""\
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        def f(model, x):
            return model(x.to(device)).cpu(), x.cuda()
        """, """\
        device = None
        def f(model, x):
            return model(x), x
        """)


def test_isinstance_narrowing_renames_norm_parameters():
    check("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm2d(4)
                self.ln = nn.LayerNorm(4)
                self.emb = nn.Embedding(10, 4)
                for m in self.modules():
                    if isinstance(m, nn.BatchNorm2d):
                        m.running_mean.zero_()
                    elif isinstance(m, (nn.Conv2d, nn.Linear)):
                        nn.init.zeros_(m.bias)
                nn.init.ones_(self.ln.weight)
                nn.init.normal_(self.emb.weight, std=0.02)
        """, """\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm2d(4, momentum=0.9)
                self.ln = nn.LayerNorm((4,), epsilon=1e-05, begin_norm_axis=-1, begin_params_axis=-1)
                self.emb = nn.Embedding(10, 4, embedding_table=Normal(sigma=1.0))
                for _, m in self.cells_and_names():
                    if isinstance(m, nn.BatchNorm2d):
                        m.moving_mean.set_data(initializer(Zero(), m.moving_mean.shape, m.moving_mean.dtype))
                    elif isinstance(m, (nn.Conv2d, nn.Dense)):
                        m.bias.set_data(initializer(Zero(), m.bias.shape, m.bias.dtype))
                self.ln.gamma.set_data(initializer(One(), self.ln.gamma.shape, self.ln.gamma.dtype))
                self.emb.embedding_table.set_data(initializer(Normal(mean=0.0, sigma=0.02), self.emb.embedding_table.shape, self.emb.embedding_table.dtype))
        """)  # noqa: E501


def test_a_local_assigned_a_layer_knows_its_class():
    # vit_pytorch's LeViT: `out_batch_norm = nn.BatchNorm2d(d); nn.init.zeros_(out_batch_norm.weight)`;
    # a name assigned something else afterwards is not the layer any more
    check("""\
        def block(c):
            bn = nn.BatchNorm2d(c)
            nn.init.zeros_(bn.weight)
            emb = nn.Embedding(10, c)
            w = emb.weight
            bn = make(c)
            return bn.weight, w
        """, """\
        def block(c):
            bn = nn.BatchNorm2d(c, momentum=0.9)
            bn.gamma.set_data(initializer(Zero(), bn.gamma.shape, bn.gamma.dtype))
            emb = nn.Embedding(10, c, embedding_table=Normal(sigma=1.0))
            w = emb.embedding_table
            bn = make(c)
            return bn.weight, w
        """)
    code = convert_source("import torch.nn as nn\n"
                          "def block(c):\n    bn = nn.BatchNorm2d(c)\n    nn.init.zeros_(bn.weight)\n"
                          "    return bn\n").code
    namespace = {}
    exec(code, namespace)
    np.testing.assert_array_equal(namespace["block"](3).gamma.asnumpy(), np.zeros(3, np.float32))


def test_int_literals_for_torch_flags_are_bools():
    # torch takes any truthy value (vit_pytorch's RegionViT: nn.Linear(dim, dim * mult, 1));
    # MindSpore's validators take a bool only
    check("""\
        a = nn.Linear(4, 2, 1)
        b = nn.Linear(4, 2, bias=0)
        """, """\
        a = nn.Dense(4, 2, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(4)))
        b = nn.Dense(4, 2, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(4)))
        """)  # noqa: E501
    namespace = {}
    exec(convert_source("import torch.nn as nn\nfc = nn.Linear(4, 2, 1)\n").code, namespace)
    assert namespace["fc"].has_bias is True and namespace["fc"].bias.shape == (2,)


def test_dropout_rate_given_as_an_int_builds():
    # x_transformers: nn.Dropout(emb_dropout) with emb_dropout = 0; MindSpore 2.10 refuses keep_prob=1
    namespace = {}
    exec(convert_source("import torch.nn as nn\nrate = 0\ndrop = nn.Dropout(rate)\n").code, namespace)
    assert namespace["drop"].keep_prob == 1.0 and isinstance(namespace["drop"].keep_prob, float)


def test_weight_data_init_methods():
    check("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self.fc.weight.data.normal_(0, 0.01)
                self.fc.bias.data.zero_()
        """, """\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(2, 2, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))
                self.fc.weight.set_data(initializer(Normal(mean=0, sigma=0.01), self.fc.weight.shape, self.fc.weight.dtype))
                self.fc.bias.set_data(initializer(Zero(), self.fc.bias.shape, self.fc.bias.dtype))
        """)  # noqa: E501


def test_backward_and_step_are_rewritten_not_dropped():
    check("""\
        def step(model, opt, x):
            loss = torch.sum(model(x))
            loss.backward()
            opt.step()
        """, """\
        def step(model, opt, x):
            def forward_fn():
                loss = ops.sum(model(x))
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
            loss, grads = grad_fn()
            opt(grads)
        """)


def test_subclass_of_a_class_from_another_file_with_forward():
    res = convert_source("import torch\nfrom .blocks import ConvBN\n\nclass Head(ConvBN):\n"
                         "    def forward(self, x):\n        return x.view(-1)\n\nclass Plain(Base):\n"
                         "    def run(self, x):\n        return x\n")
    assert res.code == ("import ms_core as ms\nfrom ms_core import ops\nfrom .blocks import ConvBN\n\n"
                        "class Head(ConvBN):\n    def construct(self, x):\n        return ops.reshape(x, (-1,))\n\n"
                        "class Plain(Base):\n    def run(self, x):\n        return x\n")
    assert [(c.rule, c.label, c.note) for c in res.changes if c.rule == "MS101"] == [
        ("MS101", "approximate", "Head assumed to be an nn.Module subclass (defines forward; its base is "
                                 "defined elsewhere)")]


def test_super_forward_and_hooks():
    check("""\
        class A(nn.Linear):
            def forward(self, x):
                return super().forward(x) * 2

        def watch(net, fn):
            net.register_forward_hook(fn)
            net.register_full_backward_hook(fn)
        """, """\
        class A(TorchLinear):
            def construct(self, x):
                return super().construct(x) * 2

        def watch(net, fn):
            net.register_forward_hook(fn)
            net.register_backward_hook(fn)
        """)


def test_add_module_on_a_sequential_runs_it():
    # a Sequential filled after construction (or subclassed) is a TorchSequential: it runs every
    # child it registers; children added to attached containers get path names (MS186)
    check("""\
        class T(nn.Sequential):
            def __init__(self):
                super().__init__()
                self.add_module("relu", nn.ReLU())

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential()
                self.features.add_module("t", T())
                self.add_module("head", nn.ReLU())
        """, """\
        class T(TorchSequential):
            def __init__(self):
                super().__init__()
                self.insert_child_to_cell("relu", nn.ReLU())
                torch_param_names(self)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.features = TorchSequential()
                self.features.insert_child_to_cell("t", T())
                self.insert_child_to_cell("head", nn.ReLU())
                torch_param_names(self)
        """)


def test_run_time_helpers_convert_once():
    """Converting the output again changes nothing: the generated helpers' own calls are not
    rewritten, and a `torch.load`ed model (typed as a tensor) gets torch_eval at once."""
    src = ("import torch\nmodel = torch.load('m.pt')\nmodel.eval()\n"
           "def f(o, m):\n    m.train()\n    return o.size(0)\n")
    once = convert_source(src).code
    assert "torch_eval(model)" in once and "torch_train(m)" in once, once
    assert convert_source(once).code == once


DEVICE_VALUES = '''\
from typing import Optional, Union

import torch

Device = Union[str, torch.device, None]
Dtype = Union[torch.dtype, None]


def describe(device: Optional[torch.device] = None, dtype: Optional[torch.dtype] = None):
    dev = torch.device("cpu") if device is None else device
    return isinstance(dev, torch.device), isinstance(dtype, torch.dtype), isinstance(torch.float32, torch.dtype)
'''


def test_device_and_dtype_classes_as_values():
    """kornia's core: Device = Union[str, torch.device, None] at import, isinstance checks on
    devices and dtypes. torch.device as a value is type(None) (MS162; a converted device is None),
    torch.dtype the target's dtype class: the converted module imports and answers as torch does
    (on MindSpore 2.10 too when it is available)."""
    import subprocess
    import torch
    from migrate import convert_source
    from tests.oracle.test_oracle import ORACLE, REPO
    res = convert_source(DEVICE_VALUES)
    assert "# migrate" not in res.code and "torch" not in res.code, res.code
    assert convert_source(res.code).code == res.code
    tns, mns = {}, {}
    exec(DEVICE_VALUES, tns)
    exec(res.code, mns)
    assert (tns["describe"](torch.device("cpu"), torch.float16) == mns["describe"](None, mns["ms"].float16)
            == (True,) * 3)
    assert tns["describe"](None, None) == mns["describe"](None, None) == (True, False, True)
    if ORACLE is not None:
        code = convert_source(DEVICE_VALUES, target="mindspore").code
        proc = subprocess.run([ORACLE, "-c", code + "\nprint(describe(None, ms.float16), describe())"],
                              capture_output=True, text=True, timeout=300,
                              env={"PYTHONPATH": str(REPO), "GLOG_v": "3", "PATH": "/usr/bin:/bin"})
        assert proc.returncode == 0 and proc.stdout.split()[-6:] == ["(True,", "True,", "True)", "(True,", "False,",
                                                                       "True)"], proc.stderr[-2000:]
