"""Seed 004 (MindSpore r2.0.0-alpha "typical differences from PyTorch"): the 'same' padding
placement of Conv and Pooling, with the printed outputs of the seed's two examples."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ms_core as ms
from ms_core import nn, ops


def _data():
    return np.arange(9).reshape(1, 1, 3, 3).astype(np.float32)


def test_maxpool_same_prints_seed_output():
    data = _data()
    op = ops.MaxPool(kernel_size=2, strides=2, pad_mode='same')
    out = op(ms.Tensor(data))
    np.testing.assert_array_equal(out.asnumpy(), [[[[4., 5.], [7., 8.]]]])
    assert str(out) == "[[[[4. 5.]\n   [7. 8.]]]]"


def test_pad_then_valid_matches_pytorch_placement():
    data = _data()
    pad = ops.Pad(((0, 0), (0, 0), (1, 0), (1, 0)))  # only top/left, like PyTorch
    padded = pad(ms.Tensor(data))
    # the seed spells it 'vaild'; MindSpore 2.x validates pad_mode, so we use 'valid'
    res = ops.MaxPool(kernel_size=2, strides=2, pad_mode='valid')(padded)
    np.testing.assert_array_equal(res.asnumpy(), [[[[0., 2.], [6., 8.]]]])
    # and that is what PyTorch computes with symmetric padding 1 and -inf pads on its own
    ref = TF.max_pool2d(torch.tensor(data), 2, 2, padding=1)
    np.testing.assert_array_equal(res.asnumpy(), ref.numpy())


def test_misspelled_pad_mode_is_a_clear_error():
    with pytest.raises(ValueError, match=r"For 'MaxPool', the 'pad_mode' must be one of "
                                         r"\['same', 'valid'\], but got 'vaild'\."):
        ops.MaxPool(kernel_size=2, strides=2, pad_mode='vaild')


def test_pad_mode_is_case_insensitive():
    out = ops.MaxPool(kernel_size=2, strides=2, pad_mode='SAME')(ms.Tensor(_data()))
    np.testing.assert_array_equal(out.asnumpy(), [[[[4., 5.], [7., 8.]]]])
    out = nn.MaxPool2d(kernel_size=2, stride=2, pad_mode='VALID')(ms.Tensor(_data()))
    np.testing.assert_array_equal(out.asnumpy(), [[[[4.]]]])


@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv_same_odd_padding_goes_bottom_right():
    """An odd 'same' padding total lands on the bottom/right in MindSpore; the seed's PyTorch
    picture pads top/left first. (torch's own padding='same', stride 1 only, also puts the extra
    on the bottom/right, so it agrees with MindSpore.)"""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), np.float32)
    net = nn.Conv2d(1, 1, 2, pad_mode='same', weight_init=ms.Tensor(w))
    out = net(ms.Tensor(x)).asnumpy()
    bottom_right = TF.conv2d(TF.pad(torch.tensor(x), (0, 1, 0, 1)), torch.tensor(w)).numpy()
    top_left = TF.conv2d(TF.pad(torch.tensor(x), (1, 0, 1, 0)), torch.tensor(w)).numpy()
    np.testing.assert_array_equal(out, bottom_right)
    assert not np.array_equal(out, top_left)
    torch_same = TF.conv2d(torch.tensor(x), torch.tensor(w), padding='same').numpy()
    np.testing.assert_array_equal(out, torch_same)
    # the seed's recipe: pad top/left by hand, then 'valid'
    padded = ops.Pad(((0, 0), (0, 0), (1, 0), (1, 0)))(ms.Tensor(x))
    recipe = nn.Conv2d(1, 1, 2, pad_mode='valid', weight_init=ms.Tensor(w))(padded).asnumpy()
    np.testing.assert_array_equal(recipe, top_left)


def test_avgpool_same_divides_by_real_elements():
    out = ops.AvgPool(kernel_size=2, strides=2, pad_mode='same')(ms.Tensor(_data()))
    np.testing.assert_array_equal(out.asnumpy(), [[[[2., 3.5], [6.5, 8.]]]])
