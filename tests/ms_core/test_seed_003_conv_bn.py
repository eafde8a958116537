"""Seed 003, last backward-hook example: Conv2d(1, 2, 2, 'valid', weight 'ones') -> BatchNorm2d
-> ReLU on a ones(1, 1, 2, 2) input, with a backward hook on the BatchNorm.

The numbers: the conv output is 4 in both channels; the Cell is in inference mode, so BN uses
moving mean 0 / variance 1: y = 4 * gamma / sqrt(1 + eps) = 4 / sqrt(1 + 1e-5) > 0, ReLU passes.
 * gradient w.r.t. the BN output (MindSpore 2.x `grad_output`): 1.0 in both channels;
 * gradient w.r.t. the BN input (MindSpore 2.x `grad_input`): 1 / sqrt(1 + 1e-5) = 0.999995;
 * input gradient: both channels' ones-kernels add up: 2 * 0.999995 = 1.99999 per pixel.
The r1.7 seed printed the pair in the order (grad wrt output, grad wrt input); MindSpore 2.x passes
(cell, grad_input, grad_output) with grad_input the gradient w.r.t. the cell's inputs.
"""
import numpy as np
import pytest

import ms_core as ms
from ms_core import nn
from ms_core.ops import GradOperation

pytestmark = pytest.mark.skipif(not hasattr(nn, "Conv2d"), reason="waiting on Conv2d")

BN_IN_GRAD = np.float32(1.0) / np.sqrt(np.float32(1.0 + 1e-5))  # 0.999995


class Net(nn.Cell):
    def __init__(self, hook):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones",
                              pad_mode="valid")
        self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
        self.handle = self.bn.register_backward_hook(hook)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.conv(x)
        x = self.bn(x)
        x = self.relu(x)
        return x


def test_seed_003_conv_bn_backward_hook(capsys):
    seen = []

    def backward_hook_function(cell, grad_input, grad_output):
        seen.append((grad_input, grad_output))
        print(grad_input)
        print(grad_output)

    net = Net(backward_hook_function)
    grad_all = GradOperation(get_all=True)
    x = ms.Tensor(np.ones([1, 1, 2, 2]).astype(np.float32))
    output = grad_all(net)(x)
    assert len(seen) == 1
    grad_input, grad_output = seen[0]
    assert isinstance(grad_input, tuple) and len(grad_input) == 1
    assert isinstance(grad_output, tuple) and len(grad_output) == 1
    assert grad_output[0].shape == (1, 2, 1, 1) and grad_input[0].shape == (1, 2, 1, 1)
    np.testing.assert_array_equal(grad_output[0].asnumpy().ravel(), [1.0, 1.0])
    np.testing.assert_allclose(grad_input[0].asnumpy().ravel(), [0.999995, 0.999995], rtol=1e-6)
    np.testing.assert_allclose(grad_input[0].asnumpy().ravel(), [BN_IN_GRAD] * 2, rtol=1e-7)
    assert isinstance(output, tuple) and len(output) == 1
    assert output[0].shape == (1, 1, 2, 2)
    np.testing.assert_allclose(output[0].asnumpy(), np.full((1, 1, 2, 2), 1.99999), rtol=1e-6)
    printed = capsys.readouterr().out
    assert "9.99994993e-01" in printed and "1.00000000e+00" in printed

    net.handle.remove()
    seen.clear()
    again = grad_all(net)(x)
    assert not seen  # the hook is gone, the gradient is unchanged
    np.testing.assert_array_equal(again[0].asnumpy(), output[0].asnumpy())
    # inference mode throughout: the moving statistics were not touched
    np.testing.assert_array_equal(net.bn.moving_mean.asnumpy(), [0.0, 0.0])
    np.testing.assert_array_equal(net.bn.moving_variance.asnumpy(), [1.0, 1.0])


def test_seed_003_numbers_in_training_mode_differ():
    # with batch statistics over a single value per channel BN would normalise 4 to 0 and
    # ReLU would kill the gradient; the seed's numbers need inference mode (MindSpore's default)
    net = Net(lambda *a: None)
    assert net.training is False and net.bn.training is False
