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


def test_conv_bn_relu_dropout_ce_training_steps_match_torch():
    """Three plain-SGD training steps of Conv -> BN -> ReLU -> Dropout(replayed mask) -> Dense ->
    cross-entropy: losses, every gradient and the moving statistics equal torch's."""
    import torch

    from ms_core.ops import nn_ops

    rng = np.random.default_rng(0)
    w_conv = (rng.standard_normal((4, 2, 3, 3)) * 0.3).astype(np.float32)
    b_conv = (rng.standard_normal(4) * 0.1).astype(np.float32)
    w_fc = (rng.standard_normal((3, 4 * 5 * 5)) * 0.1).astype(np.float32)
    b_fc = np.zeros(3, np.float32)

    class MsNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, pad_mode="pad", padding=1, has_bias=True,
                                  weight_init=ms.Tensor(w_conv), bias_init=ms.Tensor(b_conv))
            self.bn = nn.BatchNorm2d(4, momentum=0.8)  # torch momentum 0.2
            self.relu = nn.ReLU()
            self.drop = nn.Dropout(p=0.3)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(100, 3, weight_init=ms.Tensor(w_fc), bias_init=ms.Tensor(b_fc))

        def construct(self, x):
            return self.fc(self.flatten(self.drop(self.relu(self.bn(self.conv(x))))))

    tnet = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3, padding=1), torch.nn.BatchNorm2d(4, momentum=0.2),
                               torch.nn.ReLU(), torch.nn.Dropout(0.3), torch.nn.Flatten(),
                               torch.nn.Linear(100, 3))
    with torch.no_grad():
        tnet[0].weight.copy_(torch.tensor(w_conv))
        tnet[0].bias.copy_(torch.tensor(b_conv))
        tnet[5].weight.copy_(torch.tensor(w_fc))
        tnet[5].bias.copy_(torch.tensor(b_fc))
    net = MsNet().set_train()
    tnet.train()
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    params = net.trainable_params()
    assert [p.name for p in params] == ["conv.weight", "conv.bias", "bn.gamma", "bn.beta",
                                        "fc.weight", "fc.bias"]
    tparams = [tnet[0].weight, tnet[0].bias, tnet[1].weight, tnet[1].bias, tnet[5].weight,
               tnet[5].bias]
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, params)
    masks = []
    tnet[3].register_forward_hook(lambda m, i, o: masks.append((o != 0).numpy()))
    net.drop.mask_provider = lambda shape, keep: masks[-1]
    try:
        for step in range(3):
            x = rng.standard_normal((6, 2, 5, 5)).astype(np.float32)
            y = rng.integers(0, 3, 6).astype(np.int32)
            tloss = torch.nn.functional.cross_entropy(tnet(torch.tensor(x)), torch.tensor(y).long(),
                                                      label_smoothing=0.1)
            for p in tparams:
                p.grad = None
            tloss.backward()
            loss, grads = grad_fn(ms.Tensor(x), ms.Tensor(y))
            np.testing.assert_allclose(loss.asnumpy(), tloss.item(), rtol=1e-5)
            for g, tp, p in zip(grads, tparams, params):
                np.testing.assert_allclose(g.asnumpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6,
                                           err_msg=p.name)
                p.set_data(ms.Tensor(p.asnumpy() - 0.1 * g.asnumpy()))
            with torch.no_grad():
                for tp in tparams:
                    tp -= 0.1 * tp.grad
        np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), tnet[1].running_mean.numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.bn.moving_variance.asnumpy(), tnet[1].running_var.numpy(),
                                   rtol=1e-5, atol=1e-6)
    finally:
        nn_ops.set_dropout_mask_provider(None)
