"""MS325: a convolution's padding / kernel_size / stride / dilation / padding_mode read in
torch's form (``torch_conv_attr``), where MindSpore's layer keeps another form."""
import pytest

from migrate import convert_source
from migrate.runtime.values import torch_conv_attr
from tests.migrate.convert.helpers import check

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def test_fuse_reads_torch_padding():
    check("""\
        class ConvNorm(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(4, 4, 3, padding=1)

            def fuse(self):
                c = self.conv
                return nn.Conv1d(4, 4, c.kernel_size, stride=c.stride, padding=c.padding, padding_mode=c.padding_mode)
        """, """\
        class ConvNorm(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(4, 4, 3, pad_mode='pad', padding=1, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(12)))

            def fuse(self):
                c = self.conv
                return TorchConv1d(4, 4, torch_conv_attr(c, 'kernel_size'), stride=torch_conv_attr(c, 'stride'), padding=torch_conv_attr(c, 'padding'), padding_mode=torch_conv_attr(c, 'padding_mode'))
        """)  # noqa: E501


def test_written_attribute_is_set_by_the_runtime_or_stays_marked():
    # one value written to a Conv2d: torch_conv_set (tests/migrate/convert/test_first_pass_left.py); several at
    # once or an augmented write stay marked
    code = convert_source("import torch.nn as nn\nc = nn.Conv2d(2, 2, 3)\nc.padding = (1, 1)\n"
                          "if isinstance(c, nn.Conv2d):\n    c.stride, c.padding = (1, 1), (2, 2)\n"
                          "c.padding += (1,)\n").code
    assert code.count("# migrate: MS918 Conv2d.padding") == 2 and "torch_conv_attr" not in code
    assert "\ntorch_conv_set(c, padding=(1, 1))\n" in code


def test_same_attribute_on_both_sides_is_left():
    code = convert_source("import torch.nn as nn\nc = nn.Conv2d(2, 2, 3)\ns = c.stride, c.dilation\n").code
    assert code.endswith("s = c.stride, c.dilation\n")


# (torch layer, MindSpore layer as the converter writes it for the same arguments)
LAYERS = [
    ("nn.Conv2d(2, 4, 3, padding=1)", "nn.Conv2d(2, 4, 3, pad_mode='pad', padding=1)"),
    ("nn.Conv2d(2, 4, (3, 5), stride=(2, 1), padding=(1, 2), dilation=(1, 2))",
     "nn.Conv2d(2, 4, (3, 5), stride=(2, 1), pad_mode='pad', padding=(1, 1, 2, 2), dilation=(1, 2))"),
    ("nn.Conv2d(2, 4, 3)", "nn.Conv2d(2, 4, 3, pad_mode='valid')"),
    ("nn.Conv1d(2, 4, 5, stride=2, padding=2, dilation=3)",
     "nn.Conv1d(2, 4, 5, stride=2, pad_mode='pad', padding=2, dilation=3)"),
    ("nn.Conv3d(2, 4, 3, padding=(0, 1, 2))", "nn.Conv3d(2, 4, 3, pad_mode='pad', padding=(0, 0, 1, 1, 2, 2))"),
    ("nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1)",
     "nn.Conv2dTranspose(2, 4, 3, stride=2, pad_mode='pad', padding=1)"),
    ("nn.ConvTranspose1d(2, 4, 3, stride=2, padding=1)",
     "nn.Conv1dTranspose(2, 4, 3, stride=2, pad_mode='pad', padding=1)"),
]


@pytest.mark.parametrize("torch_layer,ms_layer", LAYERS)
@pytest.mark.parametrize("name", ["padding", "kernel_size", "stride", "dilation", "padding_mode"])
def test_helper_gives_torchs_value_for_mindspores_layer(torch_layer, ms_layer, name):
    t = eval(torch_layer, {"nn": torch.nn})
    m = eval(ms_layer, {"nn": ms.nn})
    assert torch_conv_attr(m, name) == getattr(t, name)


def test_helper_same_and_asymmetric_padding():
    assert torch_conv_attr(ms.nn.Conv2d(2, 4, 3, pad_mode="same"), "padding") == "same"
    with pytest.raises(ValueError, match="For 'Conv2d', the padding .* has no torch form"):
        torch_conv_attr(ms.nn.Conv2d(2, 4, 3, pad_mode="pad", padding=(0, 1, 1, 1)), "padding")


def test_padding_mode_of_another_layer_and_quoted_default():
    """``padding_mode=c.padding_mode`` goes to the torch-signature class with the helper's value
    (checked when the layer is built); ``"zeros"`` in double quotes is the default."""
    code = convert_source("import torch.nn as nn\nc = nn.Conv1d(4, 4, 3)\n"
                          "m = nn.Conv1d(4, 4, 3, padding=c.padding, padding_mode=c.padding_mode)\n"
                          'n = nn.Conv1d(4, 4, 3, padding_mode="zeros")\n').code
    assert "m = TorchConv1d(4, 4, 3, padding=torch_conv_attr(c, 'padding'), " \
           "padding_mode=torch_conv_attr(c, 'padding_mode'))" in code
    assert "# migrate" not in code and "n = nn.Conv1d(4, 4, 3, pad_mode='valid'" in code
