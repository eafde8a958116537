"""Dropout family: keep_prob / p semantics, statistics, gradients, validation, mask replay."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn, ops
from ms_core.ops import nn_ops


@pytest.fixture(autouse=True)
def _seed():
    ms.set_seed(123)
    yield
    nn_ops.set_dropout_mask_provider(None)


def ones(*shape):
    return ms.Tensor(np.ones(shape, np.float32))


@pytest.mark.parametrize("kwargs,keep", [({}, 0.5), ({"keep_prob": 0.8}, 0.8), ({"p": 0.3}, 0.7),
                                         ({"keep_prob": 0.9, "p": 0.6}, 0.4)], ids=str)
def test_fraction_kept_and_scale(kwargs, keep):
    net = nn.Dropout(**kwargs).set_train()
    assert net.keep_prob == pytest.approx(keep)
    out = net(ones(200, 500)).asnumpy()
    kept = out != 0
    # 100k Bernoulli draws: the kept fraction is within 5 standard deviations of keep_prob
    assert abs(kept.mean() - keep) < 5 * np.sqrt(keep * (1 - keep) / kept.size)
    np.testing.assert_allclose(out[kept], 1.0 / keep, rtol=1e-6)
    assert out.dtype == np.float32


def test_identity_in_inference_mode_and_for_keep_prob_1():
    x = ones(4, 5)
    assert nn.Dropout(keep_prob=0.5)(x) is x  # Cells start in inference mode
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x
    assert nn.Dropout(p=0.0).set_train()(x) is x
    assert ops.dropout(x, p=0.5, training=False) is x


def test_gradient_is_mask_over_keep_prob():
    net = nn.Dropout(p=0.25).set_train()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((50, 40)).astype(np.float32))
    captured = {}

    def provider(shape, keep_prob):
        captured["mask"] = np.random.default_rng(1).random(shape) < keep_prob
        return captured["mask"]

    net.mask_provider = provider
    out, g = ms.value_and_grad(lambda a: net(a).sum())(x)
    mask = captured["mask"]
    np.testing.assert_allclose(g.asnumpy(), mask / 0.75, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), (x.asnumpy() * mask / 0.75).sum(), rtol=1e-5)


def test_mask_provider_replays_torch_mask():
    x = np.random.default_rng(2).standard_normal((6, 8)).astype(np.float32)
    torch.manual_seed(0)
    tx = torch.tensor(x, requires_grad=True)
    tout = torch.nn.functional.dropout(tx, p=0.4, training=True)
    tout.sum().backward()
    torch_mask = (tout.detach().numpy() != 0)
    nn_ops.set_dropout_mask_provider(lambda shape, keep: torch_mask)
    net = nn.Dropout(p=0.4).set_train()
    xm = ms.Tensor(x)
    np.testing.assert_allclose(net(xm).asnumpy(), tout.detach().numpy(), rtol=1e-6)
    g = ms.grad(lambda a: net(a).sum())(xm)
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="mask provider must return an array of shape"):
        nn_ops.set_dropout_mask_provider(lambda shape, keep: np.ones((2, 2)))
        net(xm)


def test_seed_makes_masks_reproducible():
    net = nn.Dropout(p=0.5).set_train()
    ms.set_seed(7)
    a = net(ones(10, 10)).asnumpy()
    ms.set_seed(7)
    b = net(ones(10, 10)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, net(ones(10, 10)).asnumpy())


@pytest.mark.parametrize("kwargs,exc,msg", [
    ({"keep_prob": 0.0}, ValueError,
     r"For 'Dropout', the 'keep_prob' must be a number in range \(0, 1\], but got 0.0."),
    ({"keep_prob": 1.5}, ValueError, r"the 'keep_prob' must be a number in range \(0, 1\]"),
    ({"keep_prob": 1}, TypeError, r"the type of 'keep_prob' should be 'float'"),
    ({"p": 1.0}, ValueError, r"For 'Dropout', the 'p' must be a number in range \[0, 1\), but got 1.0."),
    ({"p": -0.1}, ValueError, r"the 'p' must be a number in range \[0, 1\)"),
    ({"p": "0.5"}, TypeError, r"the type of 'p' should be one of"),
], ids=str)
def test_validation_messages(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        nn.Dropout(**kwargs)


def test_p_int_zero_is_accepted():
    assert nn.Dropout(p=0).keep_prob == 1.0


def test_ops_dropout_statistics_and_errors():
    out = ops.dropout(ones(100, 100), p=0.2).asnumpy()
    assert abs((out != 0).mean() - 0.8) < 0.02
    np.testing.assert_allclose(out[out != 0], 1.25, rtol=1e-6)
    with pytest.raises(ValueError, match=r"'p' must be in range \[0.0, 1.0\]"):
        ops.dropout(ones(2), p=1.5)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        ops.dropout(np.ones(2))


@pytest.mark.parametrize("cls,shape", [(nn.Dropout2d, (8, 16, 3, 3)), (nn.Dropout1d, (8, 16, 5)),
                                       (nn.Dropout3d, (4, 16, 2, 2, 2))], ids=str)
def test_channel_dropout_zeroes_whole_channels(cls, shape):
    net = cls(p=0.5).set_train()
    out = net(ones(*shape)).asnumpy()
    per_channel = out.reshape(shape[0], shape[1], -1)
    # every channel is either all zero or all 1/keep_prob
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    frac = (per_channel[..., 0] != 0).mean()
    assert 0.25 < frac < 0.75
    assert net(ones(*shape)) is not None
    assert cls(p=0.5)(ones(*shape)).asnumpy().min() == 1.0  # inference: identity


def test_channel_dropout_validation_and_functional():
    with pytest.raises(ValueError, match=r"the 'p' must be a number in range \[0, 1\]"):
        nn.Dropout2d(p=1.5)
    with pytest.raises(TypeError, match="the type of 'p' should be 'float'"):
        nn.Dropout2d(p=1)
    # as MindSpore 2.10: training needs a 4-D (Dropout3d: 5-D) input, inference takes any
    with pytest.raises(ValueError, match="must be a 4-D Tensor, but got shape \\[2, 3\\]"):
        nn.Dropout2d().set_train()(ones(2, 3))
    with pytest.raises(ValueError, match="must be a 4-D Tensor"):
        nn.Dropout2d().set_train()(ones(3, 2, 2))
    with pytest.raises(ValueError, match="must be a 5-D Tensor"):
        nn.Dropout3d().set_train()(ones(2, 3, 4, 4))
    assert nn.Dropout2d(p=0.5)(ones(2, 3)).asnumpy().tolist() == [[1.0] * 3] * 2
    out = ops.dropout2d(ones(4, 6, 2, 2), p=0.5).asnumpy().reshape(24, 4)
    assert np.all((out == 0).all(-1) | (out == 2.0).all(-1))


def test_dropout_in_network_respects_set_train():
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Dropout(p=0.5)])
    x = ones(3, 4)
    a, b = net(x).asnumpy(), net(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    net.set_train()
    assert net[1].training
    net.set_train(False)
    np.testing.assert_array_equal(net(x).asnumpy(), a)


def test_dropout_operator_classes_return_output_and_mask():
    out, mask = ops.Dropout(keep_prob=0.8)(ones(50, 40))
    m = mask.asnumpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), m / 0.8, rtol=1e-6)
    out2, mask2 = ops.Dropout2D(keep_prob=0.5)(ones(4, 6, 2, 2))
    assert mask2.dtype == ms.bool_ and mask2.shape == (4, 6, 2, 2)
    np.testing.assert_allclose(out2.asnumpy(), mask2.asnumpy() * 2.0)
    with pytest.raises(ValueError, match="4-D"):
        ops.Dropout2D()(ones(2, 3))


def test_functional_dropout_refuses_an_int_p_as_mindspore_does():
    """MindSpore 2.10: ops.dropout(x, p=0) with training=True raises (its Dropout primitive takes
    keep_prob = 1 - p as a float); with training=False the input is returned; ops.dropout1d
    wants a float p always (checked on 2.10)."""
    import numpy as np
    import pytest
    import ms_core as ms
    from ms_core import ops
    x = ms.Tensor(np.ones((2, 3, 4), np.float32))
    with pytest.raises(TypeError, match=r'Failed calling Dropout with "Dropout\(keep_prob=int'):
        ops.dropout(x, p=0)
    np.testing.assert_array_equal(ops.dropout(x, p=0, training=False).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.dropout(x, p=0.0).asnumpy(), x.asnumpy())
    with pytest.raises(TypeError, match="For dropout1d, 'p' must be float"):
        ops.dropout1d(x, p=0)
