"""Torch-signature classes and functions (issue 10 classes 1, 2, 3, 4, 7, B, N, I, C, L):
before/after pairs of the code that uses them, and the generated code itself.

The pairs compare the converted code without its import block (:func:`~tests.migrate.convert.helpers.body`);
the tests at the end look at the import of the runtime (the classes themselves are tested in
tests/migrate/runtime) and at the definitions a file written to stdout inlines.
"""
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.runtime_files import BEGIN, END
from tests.migrate.convert.helpers import HEADER as TORCH_HEADER, check, split_generated

PAIRS = {
    # class 1: layer classes as default arguments, called with torch's keywords
    "default_arguments": ("""\
        def block(c, act_layer=nn.ReLU, norm_layer=nn.BatchNorm2d):
            return nn.Sequential(norm_layer(c, momentum=0.01), act_layer(inplace=True))
        """, """\
        def block(c, act_layer=TorchReLU, norm_layer=TorchBatchNorm2d):
            return nn.SequentialCell(norm_layer(c, momentum=0.01), act_layer(inplace=True))
        """),
    # class 1: assignments, partials, dicts; classes whose calls translate nothing stay plain
    "values": ("""\
        conv_layer = nn.Conv2d
        bn = partial(nn.BatchNorm2d, eps=1e-3)
        acts = dict(relu=nn.ReLU, gelu=nn.GELU)
        plain = [nn.Tanh, nn.Sigmoid, nn.Identity]
        fns = {'relu': F.relu, 'gelu': F.gelu, 'tanh': torch.tanh}
        """, """\
        conv_layer = TorchConv2d
        bn = partial(TorchBatchNorm2d, eps=1e-3)
        acts = dict(relu=TorchReLU, gelu=TorchGELU)
        plain = [nn.Tanh, nn.Sigmoid, nn.Identity]
        fns = {'relu': torch_relu, 'gelu': torch_gelu, 'tanh': ops.tanh}
        """),
    # classes named, not built: isinstance, annotations, type(m) comparisons keep the MindSpore class
    "naming": ("""\
        def kinds(m: nn.Conv2d, layer):
            a = isinstance(m, (nn.Conv2d, nn.BatchNorm2d))
            b = type(m) is nn.Linear
            c = layer == nn.ReLU
            return a, b, c
        """, """\
        def kinds(m: nn.Conv2d, layer):
            a = isinstance(m, (nn.Conv2d, nn.BatchNorm2d))
            b = type(m) is nn.Dense
            c = layer == TorchReLU
            return a, b, c
        """),
    # class 1: classes and functions named by a string only run time knows; literal names and
    # getattr on other objects are not lookups
    "lookups": ("""\
        def build(kind, dims, act, cfg):
            assert kind in ('LSTM', 'GRU') and act in ('relu', 'gelu')
            rnn = getattr(nn, kind)(4, 8, dropout=0.0)
            bn = getattr(nn, f"BatchNorm{dims}d")(8, momentum=0.01)
            fn = getattr(F, act)
            other = getattr(cfg, act)
            return rnn, bn, fn, other
        """, """\
        def build(kind, dims, act, cfg):
            assert kind in ('LSTM', 'GRU') and act in ('relu', 'gelu')
            rnn = torch_nn_getattr(kind)(4, 8, dropout=0.0)
            bn = torch_nn_getattr(f"BatchNorm{dims}d")(8, momentum=0.01)
            fn = torch_functional_getattr(act)
            other = getattr(cfg, act)
            return rnn, bn, fn, other
        """),
    # class B: Identity placeholders built with another layer's arguments (torch and MindSpore 2.10
    # ignore them): the arguments pass through, the torch import can go
    "identity_placeholders": ("""\
        def act(name, **params):
            return nn.Identity(**params) if name is None else nn.Identity(3, scale=2)
        """, """\
        def act(name, **params):
            return nn.Identity(**params) if name is None else nn.Identity(3, scale=2)
        """),
    # class B and 7: arguments known at run time only; an int expression stays static
    "runtime_arguments": ("""\
        def conv(c, k, p, *args, **kw):
            a = nn.Conv2d(c, c, k, **kw)
            b = nn.Linear(*args)
            d = nn.Conv2d(c, c, k, padding=p)
            e = nn.Conv2d(c, c, k, padding=(k - 1) // 2, stride=[2], bias=False)
            return a, b, d, e
        """, """\
        def conv(c, k, p, *args, **kw):
            a = TorchConv2d(c, c, k, **kw)
            b = TorchLinear(*args)
            d = TorchConv2d(c, c, k, padding=p)
            e = nn.Conv2d(c, c, k, stride=(2, 2), pad_mode='pad', padding=(k - 1) // 2, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))
            return a, b, d, e
        """),  # noqa: E501
    # class 2: a subclass gets the torch-signature base; its torch attributes are MindSpore's
    "subclass": ("""\
        class Same(nn.Conv2d):
            def __init__(self, cin, cout, k, stride=1, groups=1, bias=True):
                super().__init__(cin, cout, k, stride, 0, 1, groups, bias)

            def forward(self, x):
                return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

        class BNAct(nn.BatchNorm2d):
            def forward(self, x):
                self.num_batches_tracked += 1
                return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                                    self.training, self.momentum, self.eps)
        """, """\
        class Same(TorchConv2d):
            def __init__(self, cin, cout, k, stride=1, groups=1, bias=True):
                super().__init__(cin, cout, k, stride, 0, 1, groups, bias)

            def construct(self, x):
                return torch_conv2d(x, self.weight, self.bias, self.stride, self.torch_padding, self.dilation, self.group)

        class BNAct(TorchBatchNorm2d):
            def construct(self, x):
                self.torch_num_batches_tracked += 1
                return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta, training=self.training, momentum=self.momentum, eps=self.eps)
        """),  # noqa: E501
    # class N: attributes of narrowed instances, also narrowed by a class held in a variable
    "narrowed": ("""\
        def init(model, norm_layer=nn.BatchNorm2d):
            for m in model.modules():
                if isinstance(m, nn.Conv2d):
                    fan_out = m.out_channels // m.groups
                    pad = m.padding
                elif isinstance(m, nn.LayerNorm):
                    eps = m.eps
                elif isinstance(m, norm_layer):
                    m.weight.data.fill_(1)
        """, """\
        def init(model, norm_layer=TorchBatchNorm2d):
            for _, m in model.cells_and_names():
                if isinstance(m, nn.Conv2d):
                    fan_out = m.out_channels // m.group
                    pad = torch_conv_attr(m, 'padding')
                elif isinstance(m, nn.LayerNorm):
                    eps = m.epsilon
                elif isinstance(m, norm_layer):
                    m.gamma.set_data(initializer(Constant(1), m.gamma.shape, m.gamma.dtype))
        """),
    # class I: init functions as values; a function with no run-time translation is marked
    "init_functions": ("""\
        inits = dict(xavier=nn.init.xavier_uniform_, kaiming=partial(nn.init.kaiming_normal_, mode='fan_out'))
        pool = F.avg_pool2d
        """, """\
        inits = dict(xavier=torch_xavier_uniform_, kaiming=partial(torch_kaiming_normal_, mode='fan_out'))
        pool = torch_avg_pool2d
        """),
    # classes 3, 4, C, L: containers filled later, None entries, parameter paths, iterators
    "containers": ("""\
        class Net(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.body = nn.Sequential()
                self.skips = nn.ModuleList()
                self.blocks = nn.ModuleList(nn.ReLU() for _ in range(n))
                for i in range(n):
                    self.body.add_module(str(i), nn.ReLU())
                    self.skips.append(nn.ReLU() if i else None)

            def forward(self, x):
                w = next(self.parameters())
                return self.body(x) * w.sum()
        """, """\
        class Net(nn.Cell):
            def __init__(self, n):
                super().__init__()
                self.body = TorchSequential()
                self.skips = TorchModuleList()
                self.blocks = TorchModuleList(nn.ReLU() for _ in range(n))
                for i in range(n):
                    self.body.insert_child_to_cell(str(i), nn.ReLU())
                    self.skips.append(nn.ReLU() if i else None)
                torch_param_names(self)

            def construct(self, x):
                w = next(torch_parameters(self))
                return self.body(x) * w.sum()
        """),
    # x_transformers: a ModuleList of names the file may set to None (torch keeps the None entries);
    # a None buffer keeps its name (torch_register_buffer: None stays None)
    "maybe_none_entries": ("""\
        class Block(nn.Module):
            def __init__(self, pre_norm):
                super().__init__()
                pre = nn.LayerNorm(4) if pre_norm else None
                post = nn.LayerNorm(4)
                self.norms = nn.ModuleList([pre, post])
                self.plain = nn.ModuleList([post])
                self.register_buffer('scale', None)
        """, """\
        class Block(nn.Cell):
            def __init__(self, pre_norm):
                super().__init__()
                pre = nn.LayerNorm((4,), epsilon=1e-05) if pre_norm else None
                post = nn.LayerNorm((4,), epsilon=1e-05)
                self.norms = TorchModuleList([pre, post])
                self.plain = nn.CellList([post])
                torch_register_buffer(self, 'scale', None)
        """),
    # MindSpore 2.10's CellDict refuses containers as values; a dict of plain layers stays a CellDict
    "dict_of_containers": ("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.trunk = nn.ModuleDict(dict(h=nn.ModuleList([nn.ReLU()]), act=nn.ReLU()))
                self.heads = nn.ModuleDict()
                self.heads['a'] = nn.Sequential(nn.ReLU())
                self.mix = nn.ModuleDict({'act': nn.ReLU(), 'tanh': nn.Tanh()})
        """, """\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.trunk = TorchModuleDict(dict(h=nn.CellList([nn.ReLU()]), act=nn.ReLU()))
                self.heads = TorchModuleDict()
                self.heads['a'] = nn.SequentialCell(nn.ReLU())
                self.mix = nn.CellDict({'act': nn.ReLU(), 'tanh': nn.Tanh()})
                torch_param_names(self)
        """),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_before_after(name):
    before, expected = PAIRS[name]
    check(textwrap.dedent(before), textwrap.dedent(expected))


def test_plain_uses_need_no_runtime():
    """Direct calls with literal arguments and plain classes need nothing of the runtime."""
    src = TORCH_HEADER + "m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())\nt = nn.Tanh\n"
    res = convert_source(src)
    assert "migrate_runtime" not in res.code and res.runtime == ()


def test_a_function_with_no_runtime_translation_is_marked():
    got = convert_source(TORCH_HEADER + "fn = F.one_hot\n").code
    assert "# migrate: MS901 torch.nn.functional.one_hot" in got


def test_the_runtime_is_imported_after_the_imports():
    """One import of what the file uses, after the target's imports (deterministic)."""
    code = convert_source(TORCH_HEADER + "\n\nact = nn.LeakyReLU\nf = F.relu\n").code
    assert code.splitlines()[:3] == ["import ms_core as ms", "from migrate_runtime import TorchLeakyReLU, torch_relu",
                                     ""]
    generated, rest = split_generated(code)
    assert generated == "from migrate_runtime import TorchLeakyReLU, torch_relu\n"
    assert rest.endswith("act = TorchLeakyReLU\nf = torch_relu\n")
    assert convert_source(code).code == code


def test_a_package_imports_it_relatively():
    code = convert_source(TORCH_HEADER + "act = nn.ReLU\n", runtime="..migrate_runtime").code
    assert "from ..migrate_runtime import TorchReLU\n" in code
    assert convert_source(code, runtime="..migrate_runtime").code == code


def test_names_do_not_collide_with_the_files_own():
    src = TORCH_HEADER + "class TorchReLU:\n    pass\ntorch_relu = 1\nact = nn.ReLU\nf = F.relu\n"
    code = convert_source(src).code
    assert "from migrate_runtime import TorchReLU as TorchReLU_, torch_relu as torch_relu_\n" in code
    assert code.endswith("class TorchReLU:\n    pass\ntorch_relu = 1\nact = TorchReLU_\nf = torch_relu_\n")
    assert convert_source(code).code == code


def test_converting_again_keeps_the_import_and_adds_only_what_is_new():
    # torch.geqrf has no mapping: the torch import stays, so the output is converted again
    src = TORCH_HEADER + "act = nn.ReLU\ny = torch.geqrf(x)\n"
    once = convert_source(src).code
    assert convert_source(once).code == once
    more = convert_source(once + "bn = torch.nn.BatchNorm2d\n").code  # (nn is MindSpore's now)
    generated, rest = split_generated(more)
    assert generated == "from migrate_runtime import TorchBatchNorm2d, TorchMissing, TorchReLU\n"
    assert rest.endswith("act = TorchReLU\n# migrate: MS901 torch.geqrf has no mapping\n"
                         "y = torch.geqrf(x)\nbn = TorchBatchNorm2d\n")
    assert convert_source(more).code == more


def test_target_mindspore_imports_the_same_names():
    code = convert_source(TORCH_HEADER + "act = nn.ReLU\n", target="mindspore").code
    assert code.startswith("import mindspore as ms\nfrom migrate_runtime import TorchReLU\n")


def test_a_file_standing_alone_inlines_what_it_uses_between_markers():
    """Written to stdout (no runtime to import), the file holds the runtime's definitions it
    uses and what they need, under the file's local names; converting it again changes nothing."""
    src = TORCH_HEADER + "c = nn.Conv2d\nu = nn.RNNBase\n"  # (RNNBase has no mapping: torch's nn stays)
    once = convert_source(src, runtime="").code
    assert BEGIN in once and END in once and "migrate_runtime" not in once
    block = once[once.index(BEGIN):once.index(END)]
    assert "from ms_core import nn\n" in once and "u = torch_nn.RNNBase\n" in once  # torch's nn stays as torch_nn
    assert "class TorchConv2d(nn.Conv2d, metaclass=TorchSignature):" in block
    assert "def torch_conv_padding(padding, dims, per_side=True, transpose=False):" in block
    assert "class TorchSignature(type(nn.Cell)):" in block and "class TorchLinear(" not in block
    assert "class TorchMissing:" in block  # the guard of torch's nn
    assert convert_source(once, runtime="").code == once
    namespace = {}
    exec(compile(once, "<stdout>", "exec"), namespace)
    assert namespace["c"](3, 4, 3, padding=(1, 2)).pad_mode == "pad"


def test_lookup_by_a_run_time_name_uses_the_runtime_table():
    """getattr(nn, name) with a name only run time knows: the runtime's lookup over every name
    the tables translate (not only the ones the file spells)."""
    src = TORCH_HEADER + "k = 'GRU'\nrnn = getattr(nn, kind)\nf = getattr(F, act)\n"
    code = convert_source(src).code
    assert "rnn = torch_nn_getattr(kind)\nf = torch_functional_getattr(act)\n" in code
    assert "from migrate_runtime import torch_functional_getattr, torch_nn_getattr\n" in code


def test_forward_hooks_run_on_a_generated_module_list_and_its_children():
    # zoo finding (pytorch-tcn under `migrate check`): the generated TorchModuleList's own
    # `_register(index, cell)` hid ms_core Cell's hook registration of the same name, so every
    # forward hook the checker put on the converted model raised a TypeError
    src = textwrap.dedent("""\
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList()
                for i in range(2):  # torch keeps None entries: a generated list class
                    self.layers.append(nn.Linear(3, 2) if i else None)

            def forward(self, x):
                for layer in self.layers:
                    x = x if layer is None else layer(x)
                return x
        """)
    namespace = {}
    code = convert_source(src).code
    assert "import TorchModuleList" in code
    exec(code, namespace)
    import numpy as np
    import ms_core as ms
    net, seen = namespace["Net"](), []
    for cell in (net, net.layers, net.layers[1]):
        cell.register_forward_hook(lambda c, i, o: seen.append(type(c).__name__))
    out = net(ms.Tensor(np.ones((1, 3), np.float32)))
    assert out.shape == (1, 2) and seen == ["Dense", "Net"]  # a CellList is not called itself


def test_a_cell_subclass_may_define_its_own_register_method():
    import ms_core as ms

    class Registry(ms.nn.Cell):
        def _register(self, name, value):  # the user's, not ms_core's
            return (name, value)

        def construct(self, x):
            return x

    cell = Registry()
    handle = cell.register_forward_hook(lambda c, i, o: None)
    assert cell._register("a", 1) == ("a", 1) and handle is not None


def test_module_list_entries_that_may_be_none_keep_their_index():
    src = TORCH_HEADER + textwrap.dedent(PAIRS["maybe_none_entries"][0])
    namespace = {}
    exec(convert_source(src).code, namespace)
    block = namespace["Block"](False)
    assert len(block.norms) == 2 and block.norms[0] is None and block.scale is None
    assert [name for name, _ in block.parameters_and_names()] == ["norms.1.gamma", "norms.1.beta"]
    assert len(namespace["Block"](True).norms.trainable_params()) == 4
