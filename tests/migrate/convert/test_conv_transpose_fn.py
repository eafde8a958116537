"""torch's functional transposed convolutions (asteroid-filterbanks' Decoder: F.conv_transpose1d over a filterbank):
conv_transpose1d is the runtime's torch_conv_transpose1d on both targets, conv_transpose2d stays ops.conv_transpose2d
on ms_core and is the runtime's torch_conv_transpose2d with --target mindspore (MindSpore 2.10 has no CPU kernel for
the functional one). Forward and gradients (input, weight, bias) against torch, the mindspore output run here on
ms_core; tests/oracle/test_oracle_conv_transpose_fn.py runs it on MindSpore 2.10."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_left import HEAD, assert_same_as_torch

torch = pytest.importorskip("torch")

# a decoder: frames back to a signal by a strided transposed convolution over a filterbank, then
# the 2-D forms torch takes (tuples, groups, dilation, output_padding beyond the padding)
DECODERS = '''
def decode(spec, filters, bias):
    return F.conv_transpose1d(spec, filters, bias, stride=4, padding=2, output_padding=1)


def decode_grouped(spec, filters):
    return torch.conv_transpose1d(spec, filters, None, 2, 0, 1, 2, 2)


def upsample(x, w, b):
    return F.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2))


def upsample_grouped(x, w):
    return F.conv_transpose2d(x, w, stride=1, padding=2, groups=2, dilation=2)
'''

RNG = np.random.RandomState(0)
CASES = {
    "decode": [RNG.randn(2, 6, 7), RNG.randn(6, 1, 8), RNG.randn(1)],
    "decode_grouped": [RNG.randn(2, 4, 5), RNG.randn(4, 3, 3)],
    "upsample": [RNG.randn(2, 4, 5, 6), RNG.randn(4, 3, 3, 2), RNG.randn(3)],
    "upsample_grouped": [RNG.randn(1, 4, 5, 5), RNG.randn(4, 2, 3, 3)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_transposed_convolutions_give_torchs_values_and_gradients(name):
    assert_same_as_torch(DECODERS, name, [a.astype(np.float32) for a in CASES[name]])


def test_what_each_target_writes():
    core = convert_source(HEAD + DECODERS).code
    mind = convert_source(HEAD + DECODERS, target="mindspore").code
    assert "return torch_conv_transpose1d(spec, filters, bias, stride=4, padding=2, output_padding=1)" in core
    assert "return ops.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2))" in core
    assert "return torch_conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2))" in mind
    assert "return torch_conv_transpose1d(spec, filters, None, 2, 0, 1, 2, 2)" in mind
    assert "MS9" not in core + mind


def test_a_wrong_rank_is_refused_with_a_clear_error():
    from migrate.runtime.functional import torch_conv_transpose1d
    import ms_core as ms
    with pytest.raises(ValueError, match="For 'conv_transpose1d', the input and weight must be 3-D, but got 4-D"):
        torch_conv_transpose1d(ms.Tensor(np.zeros((1, 2, 3, 4), np.float32)),
                               ms.Tensor(np.zeros((2, 1, 3), np.float32)))
