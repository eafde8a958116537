"""Generated torch-signature classes and functions (migrate.runtime.generated) built with torch's
arguments, against torch's layer built with the same ones: parameter shapes, then the forward
and the input gradient with torch's parameters copied in (float32: rtol 1e-5 / atol 1e-6;
rtol 1e-4 where a reduction over many products adds float32 rounding: the convolutions)."""
import numpy as np
import pytest

import migrate.runtime as runtime
from migrate.runtime.index import SIGNATURES
from tests.optest import check_op

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(5)

# (torch class, its arguments, input shape, rtol)
LAYERS = [
    ("Conv2d", dict(in_channels=3, out_channels=4, kernel_size=3, padding=(1, 2), stride=2, groups=1),
     (2, 3, 7, 8), 1e-4),
    ("Conv2d", dict(in_channels=4, out_channels=4, kernel_size=(3, 1), padding="same", groups=2, bias=False),
     (1, 4, 5, 5), 1e-4),
    ("Conv1d", dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, dilation=2), (2, 2, 9), 1e-4),
    ("Conv3d", dict(in_channels=2, out_channels=2, kernel_size=2, padding=1), (1, 2, 3, 4, 3), 1e-4),
    ("ConvTranspose2d", dict(in_channels=2, out_channels=3, kernel_size=3, stride=2, padding=1, output_padding=1),
     (1, 2, 4, 4), 1e-4),
    ("Linear", dict(in_features=5, out_features=3), (4, 5), 1e-5),
    ("Linear", dict(in_features=5, out_features=3, bias=False), (2, 6, 5), 1e-5),
    ("LayerNorm", dict(normalized_shape=[4], eps=1e-3), (2, 3, 4), 1e-5),
    ("LayerNorm", dict(normalized_shape=4, elementwise_affine=False), (2, 4), 1e-5),
    ("GroupNorm", dict(num_groups=2, num_channels=4), (2, 4, 3, 3), 1e-5),
    ("PReLU", dict(num_parameters=3, init=0.1), (2, 3, 4), 1e-5),
    ("MaxPool2d", dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), (1, 2, 7, 6), 1e-5),
    ("AvgPool2d", dict(kernel_size=2, stride=2, padding=1, count_include_pad=False), (1, 2, 5, 5), 1e-5),
    ("AvgPool1d", dict(kernel_size=3, stride=1, padding=1), (2, 3, 6), 1e-5),
    ("AdaptiveAvgPool2d", dict(output_size=(2, 3)), (1, 2, 6, 6), 1e-5),
    ("LeakyReLU", dict(negative_slope=0.2), (3, 4), 1e-5),
    ("ELU", dict(alpha=0.5), (3, 4), 1e-5),
    ("Hardtanh", dict(min_val=-0.5, max_val=0.7), (3, 4), 1e-5),
    ("Softmax", dict(dim=1), (2, 3, 4), 1e-5),
    ("Flatten", dict(start_dim=1, end_dim=2), (2, 3, 4, 5), 1e-5),
    ("Dropout", dict(p=0.3), (3, 4), 1e-5),
    ("Upsample", dict(scale_factor=2, mode="nearest"), (1, 2, 3, 3), 1e-5),
    ("Embedding", dict(num_embeddings=6, embedding_dim=3, padding_idx=0), None, 1e-5),
]


def _runtime_class(name):
    """What getattr(torch.nn, name) gives converted code: a generated class, or MindSpore's own
    where torch's arguments need no translation (AdaptiveAvgPool2d)."""
    return runtime.torch_nn_getattr(name)


@pytest.mark.parametrize("name,kwargs,shape,rtol", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_built_with_torchs_arguments_computes_torchs_values(name, kwargs, shape, rtol):
    t_layer = getattr(torch.nn, name)(**kwargs).eval()
    m_layer = _runtime_class(name)(**kwargs)
    assert type(m_layer).__name__ == name or SIGNATURES.get(f"torch.nn.{name}") is None
    t_params = [p.detach().numpy() for p in t_layer.parameters()]
    m_params = list(m_layer.trainable_params())
    # (a 1-D convolution's weight is (out, in, 1, k) on MindSpore: the same values, 2-D layout)
    assert [p.size for p in m_params] == [p.size for p in t_params]
    for p, value in zip(m_params, t_params):
        p.set_data(ms.Tensor(value.reshape(p.shape)))
    if shape is None:  # an index input: the table rows come out
        index = np.array([[0, 2, 5], [1, 1, 0]], np.int64)
        np.testing.assert_allclose(m_layer(ms.Tensor(index)).asnumpy(),
                                   t_layer(torch.tensor(index)).detach().numpy(), rtol=rtol, atol=1e-6)
        return
    check_op(lambda x: m_layer(x), lambda x: t_layer(x), [RNG.standard_normal(shape).astype(np.float32)],
             rtol=rtol)


def test_batch_norm_trains_its_statistics_as_torch():
    x = RNG.standard_normal((4, 3, 2, 2)).astype(np.float32)
    t_bn = torch.nn.BatchNorm2d(3, momentum=0.25, eps=1e-3)
    m_bn = _runtime_class("BatchNorm2d")(3, momentum=0.25, eps=1e-3)
    m_bn.set_train(True)
    for _ in range(2):
        out = m_bn(ms.Tensor(x))
        want = t_bn(torch.tensor(x))
    np.testing.assert_allclose(out.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_bn.moving_mean.asnumpy(), t_bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_bn.moving_variance.asnumpy(), t_bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    assert int(m_bn.torch_num_batches_tracked.asnumpy()) == int(t_bn.num_batches_tracked) == 2


def test_torch_initialisation_bounds():
    """Weights are drawn from torch's distributions: Linear's and Conv2d's U(-1/sqrt(fan_in), ...)."""
    for name, kwargs, fan_in in [("Linear", dict(in_features=400, out_features=300), 400),
                                 ("Conv2d", dict(in_channels=16, out_channels=64, kernel_size=3), 144)]:
        layer = _runtime_class(name)(**kwargs)
        bound = 1 / np.sqrt(fan_in)
        weight, bias = (p.asnumpy() for p in layer.trainable_params())
        assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.95 * bound
        assert np.abs(bias).max() <= bound and np.abs(bias).max() > 0.9 * bound


@pytest.mark.parametrize("qual,kwargs", [
    ("torch.nn.functional.relu", {}), ("torch.nn.functional.gelu", dict(approximate="tanh")),
    ("torch.nn.functional.leaky_relu", dict(negative_slope=0.3)), ("torch.nn.functional.softmax", dict(dim=-1)),
    ("torch.nn.functional.normalize", dict(p=2.0, dim=1)), ("torch.nn.functional.dropout", dict(training=False)),
    ("torch.relu", {}), ("torch.nn.functional.silu", {}), ("torch.nn.functional.hardtanh", dict(min_val=-0.5)),
])
def test_function_values_take_torchs_arguments(qual, kwargs):
    module, name = qual.rsplit(".", 1)
    fn = getattr(runtime, SIGNATURES[qual]) if module == "torch" else runtime.torch_functional_getattr(name)
    t_fn = getattr(torch.nn.functional if module.endswith("functional") else torch, name)
    check_op(lambda x: fn(x, **kwargs), lambda x: t_fn(x, **kwargs), [RNG.standard_normal((3, 4)).astype(np.float32)])


def test_arguments_without_a_counterpart_are_refused_by_name():
    with pytest.raises(ValueError, match="For 'Conv2d' \\(torch signature\\), padding_mode other than 'zeros'"):
        _runtime_class("Conv2d")(1, 1, 3, padding_mode="reflect")
