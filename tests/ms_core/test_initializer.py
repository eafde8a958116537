"""Initializers: each distribution passes a one-sample Kolmogorov–Smirnov test against its formula
on a 256×256 draw; fans match torch's; seeding; validation."""
import math

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core.common import initializer as init
from ms_core.common.initializer import (Constant, HeNormal, HeUniform, Normal, One, TruncatedNormal,
                                        Uniform, XavierNormal, XavierUniform, Zero, initializer)

N = 256 * 256
# Asymptotic one-sample KS critical value at alpha = 0.01: D > 1.63 / sqrt(n) rejects.
KS_CRIT = 1.63 / math.sqrt(N)
_erf = np.vectorize(math.erf)


def normal_cdf(mean, std):
    return lambda x: 0.5 * (1.0 + _erf((x - mean) / (std * math.sqrt(2.0))))


def uniform_cdf(bound):
    return lambda x: np.clip((x + bound) / (2 * bound), 0.0, 1.0)


def trunc_normal_cdf(mean, std, a, b):
    phi = normal_cdf(mean, std)
    lo, hi = phi(np.array(a)), phi(np.array(b))
    return lambda x: np.clip((phi(x) - lo) / (hi - lo), 0.0, 1.0)


def ks_statistic(sample, cdf):
    """sup |F_n(x) - F(x)|, evaluated on both sides of every step of the empirical CDF."""
    x = np.sort(sample.astype(np.float64).ravel())
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(0, n) / n))


def draw(spec, shape=(256, 256)):
    return initializer(spec, shape, ms.float32).init_data().asnumpy()


# (initializer, shape, reference CDF from the formula). Shapes are chosen so fans differ.
CONV = (64, 16, 8, 8)  # 65536 elements, fan_in = 16*64 = 1024, fan_out = 64*64 = 4096
DIST_CASES = [
    ("normal default", Normal(), (256, 256), normal_cdf(0.0, 0.01)),
    ("normal", Normal(sigma=0.5, mean=1.0), (256, 256), normal_cdf(1.0, 0.5)),
    ("uniform default", Uniform(), (256, 256), uniform_cdf(0.07)),
    ("uniform", Uniform(scale=2.0), (256, 256), uniform_cdf(2.0)),
    ("he_uniform default", HeUniform(), CONV, uniform_cdf(math.sqrt(2) * math.sqrt(3 / 1024))),
    ("he_uniform sqrt5", HeUniform(negative_slope=math.sqrt(5)), (256, 256),
     uniform_cdf(math.sqrt(2 / 6) * math.sqrt(3 / 256))),
    ("he_uniform fan_out relu", HeUniform(mode="fan_out", nonlinearity="relu"), CONV,
     uniform_cdf(math.sqrt(2) * math.sqrt(3 / 4096))),
    ("he_normal default", HeNormal(), CONV, normal_cdf(0.0, math.sqrt(2) / math.sqrt(1024))),
    ("he_normal tanh fan_out", HeNormal(mode="fan_out", nonlinearity="tanh"), CONV,
     normal_cdf(0.0, (5 / 3) / math.sqrt(4096))),
    ("xavier_uniform", XavierUniform(), CONV, uniform_cdf(math.sqrt(6 / (1024 + 4096)))),
    ("xavier_uniform gain", XavierUniform(gain=2.0), (256, 256), uniform_cdf(2 * math.sqrt(6 / 512))),
    ("xavier_normal", XavierNormal(), CONV, normal_cdf(0.0, math.sqrt(2 / (1024 + 4096)))),
    ("trunc default", TruncatedNormal(), (256, 256), trunc_normal_cdf(0.0, 0.01, -2.0, 2.0)),
    ("trunc tight", TruncatedNormal(sigma=1.0, mean=0.5, a=-1.0, b=1.0), (256, 256),
     trunc_normal_cdf(0.5, 1.0, -1.0, 1.0)),
    ("trunc far tail", TruncatedNormal(sigma=1.0, a=3.0, b=4.0), (256, 256),
     trunc_normal_cdf(0.0, 1.0, 3.0, 4.0)),
    ("trunc left tail", TruncatedNormal(sigma=2.0, a=-20.0, b=-5.0), (256, 256),
     trunc_normal_cdf(0.0, 2.0, -20.0, -5.0)),
    ("variance_scaling untruncated fan_avg",
     init.VarianceScaling(2.0, "fan_avg", "untruncated_normal"), CONV,
     normal_cdf(0.0, math.sqrt(2.0 / 2560))),
    ("variance_scaling uniform fan_out", init.VarianceScaling(3.0, "fan_out", "uniform"), CONV,
     uniform_cdf(math.sqrt(9.0 / 4096))),
    # MindSpore 2.10's default 'truncated_normal' lands in the uniform branch (see the docstring)
    ("variance_scaling default", init.VarianceScaling(), CONV, uniform_cdf(math.sqrt(3.0 / 1024))),
    ("alias normal", "normal", (256, 256), normal_cdf(0.0, 0.01)),
    ("alias he_uniform", "he_uniform", CONV, uniform_cdf(math.sqrt(6 / 1024))),
    ("alias xavier_normal", "XAVIER_NORMAL", CONV, normal_cdf(0.0, math.sqrt(2 / 5120))),
    ("alias truncatednormal", "truncatedNormal", (256, 256), trunc_normal_cdf(0.0, 0.01, -2, 2)),
]


@pytest.mark.parametrize("name,spec,shape,cdf", DIST_CASES, ids=[c[0] for c in DIST_CASES])
def test_distribution_ks(name, spec, shape, cdf):
    ms.set_seed(1234)
    sample = draw(spec, shape)
    assert sample.dtype == np.float32 and sample.shape == shape
    d = ks_statistic(sample, cdf)
    assert d < KS_CRIT, f"{name}: KS statistic {d:.5f} >= critical {KS_CRIT:.5f}"


def test_ks_detects_wrong_formula():
    # The test has power: a N(0, 0.01²) draw is rejected against N(0, 0.011²) and against the
    # torch-default N(0, 1) reading of 'normal'.
    ms.set_seed(0)
    sample = draw(Normal())
    assert ks_statistic(sample, normal_cdf(0.0, 0.011)) > KS_CRIT
    assert ks_statistic(sample, normal_cdf(0.0, 1.0)) > KS_CRIT


def test_truncated_bounds_respected():
    ms.set_seed(3)
    s = draw(TruncatedNormal(sigma=1.0, mean=0.0, a=-0.5, b=0.25), (64, 64))
    assert s.min() >= -0.5 and s.max() <= 0.25


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5), (16, 4, 3, 3), (6, 2, 3, 3, 3), (1, 1), (5, 7, 1, 1)])
def test_fans_match_torch(shape):
    ours = init._calculate_fan_in_and_fan_out(shape)
    theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert ours == theirs


@pytest.mark.parametrize("shape", [(5,), ()])
def test_fans_need_two_dims(shape):
    # MindSpore and torch both refuse: a 1-D tensor (a bias) has no fan of its own.
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(shape)


@pytest.mark.parametrize("nl,param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                      ("tanh", None), ("relu", None), ("leaky_relu", None),
                                      ("leaky_relu", 0.2), ("leaky_relu", math.sqrt(5)),
                                      ("leaky_relu", 0), ("selu", None)])
def test_gain_matches_torch(nl, param):
    assert init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param),
                                                           rel=1e-12)


def test_seeded_reproducibility():
    for spec in ("normal", "uniform", "he_uniform", "xavier_normal", TruncatedNormal(1.0, 0, -1, 1)):
        ms.set_seed(7)
        a = draw(spec, (8, 9))
        ms.set_seed(7)
        b = draw(spec, (8, 9))
        c = draw(spec, (8, 9))
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(b, c)


def test_seed_reproduces_layer_init():
    ms.set_seed(11)
    w1 = ms.nn.Dense(4, 3).weight.asnumpy()
    ms.set_seed(11)
    w2 = ms.nn.Dense(4, 3).weight.asnumpy()
    np.testing.assert_array_equal(w1, w2)


@pytest.mark.parametrize("spec,value", [("zeros", 0), ("zero", 0), ("ones", 1), ("One", 1),
                                        (Zero(), 0), (One(), 1), (Constant(2.5), 2.5), (3, 3),
                                        (-1.5, -1.5)])
def test_constants(spec, value):
    # (MindSpore has no 'constant' alias: a number is the way to ask for a constant)
    out = draw(spec, (2, 3))
    np.testing.assert_array_equal(out, np.full((2, 3), value, np.float32))


@pytest.mark.parametrize("dtype", [ms.float16, ms.float32, ms.float64, ms.int32])
def test_dtype(dtype):
    t = initializer("ones", [2, 2], dtype).init_data()
    assert t.dtype == dtype


def test_shapes_int_list_and_tensor_init():
    assert initializer("zeros", 4).init_data().shape == (4,)
    assert initializer("zeros", [2, 3]).init_data().shape == (2, 3)
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = initializer(ms.Tensor(src), (2, 3)).init_data().asnumpy()
    np.testing.assert_array_equal(out, src)
    src[0, 0] = 99  # the drawn values do not alias the source
    assert out[0, 0] == 0


def test_returns_a_tensor_like_mindspore():
    t = initializer("ones", [2, 3], ms.float16)
    assert isinstance(t, ms.Tensor) and t.shape == (2, 3) and t.dtype == ms.float16
    assert t.init_data() is t  # code written for MindSpore's lazy Tensor keeps working
    np.testing.assert_array_equal((t + 1).asnumpy(), np.full((2, 3), 2, np.float16))
    ints = ms.Tensor(np.arange(3, dtype=np.int32))
    assert initializer(ints, 3).dtype == ms.int32  # a Tensor comes back with its own dtype


def test_initializer_object_stays_unbound():
    spec = Normal()
    a = initializer(spec, (2, 2))
    b = initializer(spec, (3,))
    assert a.shape == (2, 2) and b.shape == (3,)
    assert spec.shape is None


def test_parameter_and_set_data_accept_initializers():
    p = ms.Parameter(initializer("ones", (2, 2)), name="p")
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 2), np.float32))
    p.set_data(initializer("zeros", (2, 2)))
    np.testing.assert_array_equal(p.asnumpy(), np.zeros((2, 2), np.float32))


def test_identity_orthogonal_dirac():
    np.testing.assert_array_equal(draw("identity", (2, 3)), np.eye(2, 3, dtype=np.float32))
    ms.set_seed(0)
    q = draw(init.Orthogonal(), (4, 6)).astype(np.float64)
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    w = draw(init.Dirac(), (3, 3, 3, 3))
    x = torch.randn(1, 3, 5, 5)
    y = torch.nn.functional.conv2d(x, torch.from_numpy(w), padding=1)
    torch.testing.assert_close(y, x)


def test_aliases_are_mindspore_s():
    # MindSpore 2.10's _INITIALIZER_ALIAS, checked with the real package
    expected = ['dirac', 'he_normal', 'he_uniform', 'henormal', 'heuniform', 'identity', 'normal',
                'one', 'ones', 'orthogonal', 'sparse', 'truncatednormal', 'uniform',
                'variancescaling', 'xavier_normal', 'xavier_uniform', 'xaviernormal',
                'xavieruniform', 'zero', 'zeros']
    assert sorted(init._ALIASES) == expected


def test_custom_initializer_mindspore_style():
    class Twos(init.Initializer):
        def _initialize(self, arr):
            arr[:] = 2.0

    np.testing.assert_array_equal(draw(Twos(), (2,)), np.array([2, 2], np.float32))


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: initializer("nope", (2,)), ValueError, "'init' string must be one of"),
    (lambda: initializer(object(), (2,)), TypeError, "type of the 'init' argument"),
    (lambda: initializer("ones", (2, 0)), ValueError, "must be positive integer"),
    (lambda: initializer("ones", (2, -1)), ValueError, "must be positive integer"),
    (lambda: initializer(np.zeros((2, 2)), (3, 2)), ValueError, "should be same as"),
    (lambda: HeUniform(mode="fan_avg"), ValueError, "'mode' must be 'fan_in' or 'fan_out'"),
    (lambda: HeNormal(nonlinearity="swish"), ValueError, "'nonlinearity' must be one of"),
    (lambda: HeUniform(negative_slope="a"), TypeError, "'negative_slope' must be"),
    (lambda: Normal(sigma=-1.0), ValueError, "'sigma' must be >= 0"),
    (lambda: Uniform(scale="x"), TypeError, "'scale' must be a float"),
    (lambda: TruncatedNormal(a=1.0, b=-1.0), ValueError, "'a' must be less than 'b'"),
    (lambda: TruncatedNormal(sigma=0.0), ValueError, "'sigma' must be > 0"),
    (lambda: Normal().init_data(), ValueError, "shape is unknown"),
    (lambda: initializer("normal"), ValueError, "'shape' must be given"),
    (lambda: draw(HeUniform(), (5,)), ValueError, "fewer than 2 dimensions"),
    (lambda: draw("identity", (2, 2, 2)), ValueError, "should be 2"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_sparse_zeroes_a_fraction_of_every_column():
    ms.set_seed(0)
    w = draw(init.Sparse(sparsity=0.3, sigma=0.5), (20, 16))
    zeros_per_column = (w == 0).sum(axis=0)
    assert (zeros_per_column == math.ceil(0.3 * 20)).all()
    assert 0.3 < w[w != 0].std() < 0.7
