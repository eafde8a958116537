"""Torch-signature classes and functions (issue 10 classes 1, 2, 3, 4, 7, B, N, I, C, L):
before/after pairs of the code that uses them, and the generated code itself.

The pairs compare the converted code without its import block and without the generated block
(:func:`~tests.migrate.convert.helpers.body`); the tests at the end look at the block.
"""
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.torch_signature import HEADER
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
        fns = {'relu': _torch_relu, 'gelu': _torch_gelu, 'tanh': ops.tanh}
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
            rnn = _torch_nn_getattr(kind)(4, 8, dropout=0.0)
            bn = _torch_nn_getattr(f"BatchNorm{dims}d")(8, momentum=0.01)
            fn = _torch_functional_getattr(act)
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
                return _torch_conv2d(x, self.weight, self.bias, self.stride, self.torch_padding, self.dilation, self.group)

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
                    pad = _torch_conv_attr(m, 'padding')
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
        inits = dict(xavier=_torch_xavier_uniform_, kaiming=partial(_torch_kaiming_normal_, mode='fan_out'))
        pool = _torch_avg_pool2d
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
                _torch_param_names(self)

            def construct(self, x):
                w = next(iter(self.trainable_params()))
                return self.body(x) * w.sum()
        """),
    # x_transformers: a ModuleList of names the file may set to None (torch keeps the None entries);
    # a None buffer is a None attribute
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
                pre = nn.LayerNorm((4,), epsilon=1e-05, begin_norm_axis=-1, begin_params_axis=-1) if pre_norm else None
                post = nn.LayerNorm((4,), epsilon=1e-05, begin_norm_axis=-1, begin_params_axis=-1)
                self.norms = TorchModuleList([pre, post])
                self.plain = nn.CellList([post])
                setattr(self, 'scale', None)
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
                _torch_param_names(self)
        """),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_before_after(name):
    before, expected = PAIRS[name]
    check(textwrap.dedent(before), textwrap.dedent(expected))


def test_plain_uses_need_no_generated_code():
    """Direct calls with literal arguments and plain classes generate nothing."""
    src = TORCH_HEADER + "m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())\nt = nn.Tanh\n"
    assert HEADER not in convert_source(src).code


def test_a_function_with_no_runtime_translation_is_marked():
    got = convert_source(TORCH_HEADER + "fn = F.one_hot\n").code
    assert "# migrate: MS901 torch.nn.functional.one_hot" in got


GENERATED = '''\
class _TorchSignature(type(nn.Cell)):
    """Metaclass of the torch-signature classes: one of them and its MindSpore class are the same
    class in torch, so an instance of either passes isinstance/issubclass with either, and the
    classes compare equal (also the ones another converted file generates). Their __name__ is
    torch's (BatchNorm2d, Linear): code dispatches on it (norm_layer.__name__.lower())."""
'''


def test_generated_block_after_the_imports():
    """One block after the imports, with a header, holding what the file uses (deterministic)."""
    code = convert_source(TORCH_HEADER + "\n\nact = nn.LeakyReLU\nf = F.relu\n").code
    lines = code.splitlines()
    assert lines[:3] == ["import ms_core as ms", "from ms_core import nn, ops", ""]
    generated, rest = split_generated(code)
    assert generated.lstrip("\n").startswith(f"{HEADER}\n{GENERATED}")
    assert '''
class TorchLeakyReLU(nn.LeakyReLU, metaclass=_TorchSignature):
    """torch.nn.LeakyReLU's signature over nn.LeakyReLU: torch's arguments are translated when it is built."""

    _torch_base = nn.LeakyReLU

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(alpha=negative_slope)

    negative_slope = property(lambda self: self.alpha, lambda self, value: setattr(self, 'alpha', value))


def _torch_relu(input, inplace=False):
    """torch.nn.functional.relu's signature over its MindSpore translation."""
    return ops.relu(input)
''' in generated
    assert rest.endswith("act = TorchLeakyReLU\nf = _torch_relu\n")
    assert convert_source(TORCH_HEADER + "\n\nact = nn.LeakyReLU\nf = F.relu\n").code == code


def test_generated_class_translates_with_the_table_and_its_rule():
    """TorchConv2d's __init__ is the conv2d rule's translation of torch's arguments at run time:
    unsupported values raise, padding goes through the same helper as the static rule."""
    generated, _ = split_generated(convert_source(TORCH_HEADER + "c = nn.Conv2d\n").code)
    assert '''    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
            groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError("For 'Conv2d' (torch signature), padding_mode other than 'zeros' is not supported: only zero padding is supported by nn.Conv2d.")
        if dtype is not None:
            raise ValueError("For 'Conv2d' (torch signature), dtype other than None is not supported: per-layer dtype: cast with ms.amp or Cell.to_float.")
        pad_mode_, padding_ = _torch_conv_padding(padding, 2)
        super().__init__(in_channels, out_channels, _torch_ms_tuple(kernel_size, 2),
            _torch_ms_tuple(stride, 2), pad_mode=pad_mode_, padding=padding_,
            dilation=_torch_ms_tuple(dilation, 2), group=groups, has_bias=bias,
            weight_init=HeUniform(negative_slope=math.sqrt(5)),
            bias_init=Uniform(scale=1 / math.sqrt(in_channels // groups * _torch_kernel_area(kernel_size, 2))))
        self.padding_mode = padding_mode
        self.torch_padding = _torch_ntuple(padding, 2)

    groups = property(lambda self: self.group, lambda self, value: setattr(self, 'group', value))
''' in generated  # noqa: E501
    assert "def _torch_conv_padding(padding, dims, per_side=True, transpose=False):" in generated


def test_names_do_not_collide_with_the_files_own():
    src = TORCH_HEADER + "class TorchReLU:\n    pass\n_torch_relu = 1\nact = nn.ReLU\nf = F.relu\n"
    code = convert_source(src).code
    assert "class TorchReLU_(nn.ReLU, metaclass=_TorchSignature):" in code
    assert "def _torch_relu_(input, inplace=False):" in code
    assert code.endswith("class TorchReLU:\n    pass\n_torch_relu = 1\nact = TorchReLU_\nf = _torch_relu_\n")


def test_converting_again_keeps_the_block_and_adds_only_what_is_new():
    # torch.stft has no mapping: the torch import stays, so the output is converted again
    src = TORCH_HEADER + "act = nn.ReLU\ny = torch.stft(x, 8)\n"
    once = convert_source(src).code
    assert convert_source(once).code == once
    more = convert_source(once + "bn = torch.nn.BatchNorm2d\n").code  # (nn is MindSpore's now)
    generated, rest = split_generated(more)
    assert generated.count("class TorchReLU(") == 1 and generated.count("class TorchBatchNorm2d(") == 1
    assert generated.index("class TorchReLU(") < generated.index("class TorchBatchNorm2d(")
    assert rest.endswith("act = TorchReLU\n# migrate: MS901 torch.stft has no mapping\n"
                         "y = torch.stft(x, 8)\nbn = TorchBatchNorm2d\n")
    assert convert_source(more).code == more


def test_target_mindspore_generates_for_mindspore():
    code = convert_source(TORCH_HEADER + "act = nn.ReLU\n", target="mindspore").code
    assert code.startswith("import mindspore as ms\nfrom mindspore import nn\n")
    assert "class TorchReLU(nn.ReLU, metaclass=_TorchSignature):" in code


def test_renamed_nn_keeps_the_torch_name_in_the_docstring():
    """When the file still binds ``nn`` to torch.nn (a use with no mapping keeps the import), the
    MindSpore module gets another local name in the generated code, but the docstrings still name
    the torch class (the key that later conversions find the class by)."""
    src = TORCH_HEADER + "t = nn.Transformer\ny = getattr(nn, name)(3)\n"
    once = convert_source(src).code
    assert "class TorchTransformer(ms_nn.Transformer, metaclass=_TorchSignature):" in once
    assert '"""torch.nn.Transformer\'s signature over ms_nn.Transformer' in once
    assert "torch.ms_nn" not in once
    assert convert_source(once).code == once


def test_lookup_spells_the_names_and_refuses_others():
    """The generated lookup holds the torch.nn names the file spells (strings, f-string patterns)
    with their torch-signature classes; a getattr whose name the file never spells stays marked."""
    src = TORCH_HEADER + "k = 'GRU'\nrnn = getattr(nn, kind)\nbn = getattr(nn, f'BatchNorm{d}d')\n"
    generated, _ = split_generated(convert_source(src).code)
    assert """    found = {
        'BatchNorm1d': TorchBatchNorm1d,
        'BatchNorm2d': TorchBatchNorm2d,
        'BatchNorm3d': TorchBatchNorm3d,
        'GRU': TorchGRU,
    }.get(name)""" in generated
    unknown = convert_source(TORCH_HEADER + "layer = getattr(nn, kind)\n").code
    assert "# migrate: MS901 torch.nn has no mapping\nlayer = getattr(nn, kind)" in unknown


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
    assert "class TorchModuleList(" in code
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
