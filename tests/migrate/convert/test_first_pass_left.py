"""Classes the first-pass samples found on real code and left (bench/README.md "A third sample" and
before): each a fixture of our own, converted for both targets, the text checked where the rewrite
matters and the result run against torch (forward and gradients). The --target mindspore output runs
here on ms_core (the same ops, one import apart); tests/oracle/test_oracle_first_pass_left.py runs it
on MindSpore 2.10."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def on_ms_core(code: str) -> str:
    """--target mindspore output made to import ms_core: the same ops, one import apart."""
    return code.replace("import mindspore as ms", "import ms_core as ms").replace("from mindspore", "from ms_core")


def converted(code: str, target: str) -> dict:
    """The namespace of ``code`` converted for ``target``, run on ms_core."""
    out = convert_source(HEAD + code, target=target).code
    assert "# migrate: MS9" not in out, out
    namespace = {}
    exec(on_ms_core(out), namespace)  # noqa: S102 (running the converted code is the test)
    return namespace


def torch_and_grads(fn, arrays, cot_seed=1):
    """torch's outputs of fn(*arrays), the cotangents drawn for them and the float inputs' gradients."""
    inputs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    outs = fn(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    rng = np.random.RandomState(cot_seed)
    cots = [np.asarray(rng.randn(*o.shape), np.float32) if o.dtype.is_floating_point else None for o in outs]
    loss = sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots) if c is not None)
    grads = torch.autograd.grad(loss, [t for t in inputs if t.requires_grad]) \
        if isinstance(loss, torch.Tensor) and loss.requires_grad else ()
    return [o.detach().numpy() for o in outs], cots, [g.numpy() for g in grads]


def ms_and_grads(fn, arrays, cots):
    """fn's outputs on ms_core and the float inputs' gradients under the same cotangents."""
    inputs = [ms.Tensor(a) for a in arrays]
    floats = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")
    outs = fn(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)

    def scalar(*args):
        got = fn(*args)
        got = got if isinstance(got, tuple) else (got,)
        return sum((o * ms.Tensor(c)).sum() for o, c in zip(got, cots) if c is not None)
    grads = ms.grad(scalar, grad_position=floats)(*inputs) if floats and any(c is not None for c in cots) else ()
    grads = grads if isinstance(grads, tuple) else (grads,)
    return [o.asnumpy() for o in outs], [g.asnumpy() for g in grads]


def assert_same_as_torch(code: str, name: str, arrays, targets=("ms_core", "mindspore")):
    torch_namespace = {}
    exec(HEAD + code, torch_namespace)  # noqa: S102
    want, cots, want_grads = torch_and_grads(torch_namespace[name], arrays)
    for target in targets:
        got, grads = ms_and_grads(converted(code, target)[name], arrays, cots)
        assert len(got) == len(want) and len(grads) == len(want_grads), target
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, (target, g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=target)
        for g, w in zip(grads, want_grads):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=target)


# fill_diagonal_ on a tensor that needs gradients (a similarity matrix's self-pairs masked out, as metric
# learning losses do): MindSpore 2.10's FillDiagonal has no bprop
FILL_DIAGONAL = '''
def fill(sim, tall, cube, ints):
    sim = sim * 2
    sim.fill_diagonal_(-1.5)
    wrapped = (tall + 1).fill_diagonal_(0.25, wrap=True)
    plain = (tall + 1).fill_diagonal_(0.25)
    wide = tall.t().clone().fill_diagonal_(3.0)
    return sim, wrapped, plain, wide, (cube * 1).fill_diagonal_(7.0), ints.clone().fill_diagonal_(5)
'''


def test_fill_diagonal_for_mindspore_is_a_differentiable_where_over_a_mask():
    assert "sim.copy_(sim.copy().fill_diagonal(-1.5))" in convert_source(HEAD + FILL_DIAGONAL).code
    out = convert_source(HEAD + FILL_DIAGONAL, target="mindspore").code
    assert "sim.copy_(torch_fill_diagonal(sim.copy(), -1.5))" in out
    assert "torch_fill_diagonal(tall + 1, 0.25, wrap=True)" in out and "fill_diagonal(" not in out.replace(
        "torch_fill_diagonal(", "")
    rng = np.random.RandomState(0)
    arrays = [rng.randn(4, 4).astype(np.float32), rng.randn(7, 3).astype(np.float32),
              rng.randn(3, 3, 3).astype(np.float32), np.arange(12).reshape(4, 3)]
    assert_same_as_torch(FILL_DIAGONAL, "fill", arrays)


def test_fill_diagonal_refuses_what_torch_refuses_with_a_clear_error():
    from migrate.runtime.functional import torch_fill_diagonal
    with pytest.raises(ValueError, match="For 'fill_diagonal', the dimension of 'input' must be at least 2"):
        torch_fill_diagonal(ms.Tensor(np.zeros(3, np.float32)), 1.0)
    with pytest.raises(ValueError, match="all its dimensions must have the same length, but got \\(2, 3, 3\\)"):
        torch_fill_diagonal(ms.Tensor(np.zeros((2, 3, 3), np.float32)), 1.0)


# segment-anything's PromptEncoder: int64 labels joined with float32 padding made a line earlier, points with
# float padding; torch promotes, MindSpore 2.10's Concat and Stack take one dtype
CAT_PROMOTE = '''
def prompt(points, labels):
    padding_point = torch.zeros((points.shape[0], 1, 2))
    padding_label = -torch.ones((labels.shape[0], 1))
    points = torch.cat([points, padding_point], dim=1)
    labels = torch.cat([labels, padding_label], dim=1)
    same = torch.cat([points, points * 2], 1)
    pairs = torch.stack((labels[:, 0], labels[:, 1].long()), dim=1)
    flags = torch.cat([labels > 0, labels.int() < 0], 0)
    return points, labels, same, pairs, flags
'''


def test_cat_for_mindspore_promotes_where_the_operands_dtypes_may_differ():
    plain = convert_source(HEAD + CAT_PROMOTE).code
    assert "labels = ops.cat([labels, padding_label], axis=1)" in plain and "promoted" not in plain
    out = convert_source(HEAD + CAT_PROMOTE, target="mindspore").code
    assert "labels = cat_promoted([labels, padding_label], axis=1)" in out
    assert "points = cat_promoted([points, padding_point], axis=1)" in out
    assert "pairs = stack_promoted((labels[:, 0], labels[:, 1].astype(ms.int64)), axis=1)" in out
    # operands of one form (nothing sets a dtype apart; both bool by form) stay MindSpore's own
    assert "same = ops.cat([points, points * 2], 1)" in out and "flags = ops.cat([labels > 0, " in out
    assert convert_source(out, target="mindspore").code == out
    rng = np.random.RandomState(0)
    assert_same_as_torch(CAT_PROMOTE, "prompt", [rng.randn(2, 3, 2).astype(np.float32),
                                                 rng.randint(-1, 3, (2, 3)).astype(np.int64)])


@pytest.mark.parametrize("a,b", [("int64", "float32"), ("bool", "int32"), ("uint8", "int8"), ("float16", "int64"),
                                 ("int32", "float16"), ("float64", "float32"), ("bool", "bool")])
def test_promoted_joins_give_torchs_dtype(a, b):
    from migrate.runtime.functional import cat_promoted, stack_promoted
    x, y = np.arange(4).reshape(2, 2) % 2, np.ones((2, 2))
    want = torch.cat([torch.tensor(x).to(getattr(torch, a)), torch.tensor(y).to(getattr(torch, b))], 1)
    mx, my = (ms.Tensor(v).astype(getattr(ms, "bool_" if d == "bool" else d)) for v, d in ((x, a), (y, b)))
    got = cat_promoted([mx, my], 1)
    assert str(got.dtype).lower() == str(want.dtype).split(".")[1]
    np.testing.assert_array_equal(got.astype(ms.float32).asnumpy(), want.float().numpy())
    assert str(stack_promoted((mx, my)).dtype) == str(got.dtype)
    with pytest.raises(ValueError, match="For 'cat', 'tensors' must hold at least one tensor"):
        cat_promoted([])


def test_torchs_promotion_table_over_every_pair_of_real_dtypes():
    from migrate.runtime.functional import torch_promote_types
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in names:
        for b in names:
            want = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1]
            got = torch_promote_types([getattr(ms, "bool_" if n == "bool" else n) for n in (a, b)])
            assert str(got).lower() == want, (a, b, got)


# unique slices along a dim (metric-learning miners: torch.unique(pairs, dim=1)) and flags passed through from the
# caller (a lambda called in place before, for a literal return_inverse only)
UNIQUE = '''
def uniques(x: torch.Tensor, pairs, inverse, counts):
    flat, where = torch.unique(x, return_inverse=True)
    asked = torch.unique(x, sorted=False, return_inverse=inverse, return_counts=counts)
    rows, row_of, row_counts = torch.unique(pairs, dim=1, return_inverse=True, return_counts=True)
    columns = pairs.unique(dim=-2)
    plain, seen = torch.unique(x * 2, return_counts=True)
    return (flat, where, *asked, rows, row_of, row_counts, columns, plain, seen, x.unique(), (x + 1).unique())
'''


def test_unique_with_a_dim_or_run_time_flags_goes_through_the_runtimes_torch_unique():
    plain = convert_source(HEAD + UNIQUE).code
    assert "flat, where = torch_unique(x, return_inverse=True)" in plain
    assert "asked = torch_unique(x, sorted=False, return_inverse=inverse, return_counts=counts)" in plain
    assert "torch_unique(pairs, return_inverse=True, return_counts=True, dim=1)" in plain
    assert "columns = torch_unique(pairs, dim=-2)" in plain
    assert "ops.unique_consecutive(ops.sort(ops.reshape((x * 2), (-1,)))[0], False, True)" in plain
    assert "x.unique(), (x + 1).unique())" in plain and "lambda" not in plain
    out = convert_source(HEAD + UNIQUE, target="mindspore").code  # MindSpore 2.10's Tensor.unique: no CPU kernel
    assert "ops.unique_consecutive(ops.sort(ops.reshape((x + 1), (-1,)))[0]))" in out
    for code in (plain, out):
        assert convert_source(code, target="mindspore" if code is out else "ms_core").code == code
    torch_namespace = {}
    exec(HEAD + UNIQUE, torch_namespace)  # noqa: S102
    rng = np.random.RandomState(0)
    x = rng.randint(0, 5, (3, 4))
    pairs = np.array([[1, 0, 1, 2, 0], [3, 0, 3, 1, 0], [2, 2, 2, 0, 2]])
    for target in ("ms_core", "mindspore"):
        fn = converted(UNIQUE, target)["uniques"]
        for inverse, counts in ((True, True), (False, True), (True, False), (False, False)):
            want = torch_namespace["uniques"](torch.tensor(x), torch.tensor(pairs), inverse, counts)
            got = fn(ms.Tensor(x), ms.Tensor(pairs), inverse, counts)
            assert len(got) == len(want), (target, inverse, counts)
            for g, w in zip(got, want):
                assert g.asnumpy().dtype == w.numpy().dtype and g.shape == tuple(w.shape), (target, g, w)
                np.testing.assert_array_equal(g.asnumpy(), w.numpy())


def test_unique_of_floats_and_its_errors():
    from migrate.runtime.functional import torch_unique
    v = np.array([[0.5, -1.0], [0.5, 2.0], [0.5, -1.0]], np.float32)
    for dim in (None, 0, 1):
        want = torch.unique(torch.tensor(v), return_inverse=True, return_counts=True, dim=dim)
        for g, w in zip(torch_unique(ms.Tensor(v), return_inverse=True, return_counts=True, dim=dim), want):
            assert g.asnumpy().dtype == w.numpy().dtype
            np.testing.assert_array_equal(g.asnumpy(), w.numpy())
    with pytest.raises(ValueError, match=r"For 'unique', 'dim' must be in \[-2, 2\), but got 2"):
        torch_unique(ms.Tensor(v), dim=2)


# product-key-memory's value table: an EmbeddingBag summing the top-k rows of each query with their attention
# weights; beside it the other forms torch takes (1-D input with offsets, the last offset included, padding, max)
EMBEDDING_BAG = '''
class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.values = nn.EmbeddingBag(12, 4, mode='sum')
        nn.init.normal_(self.values.weight, std=0.5)
        self.mean = nn.EmbeddingBag(12, 4, padding_idx=0)
        self.most = nn.EmbeddingBag(12, 4, mode='max', include_last_offset=True)

    def forward(self, scores, indices, flat, offsets):
        weights = scores.softmax(dim=-1)
        out = self.values(indices, per_sample_weights=weights)
        bags = self.mean(flat, offsets)
        ends = torch.cat([offsets, torch.tensor([flat.shape[0]])])  # (torch: the last offset is the input's size)
        return out, bags, self.most(flat, ends), self.values.weight.sum()
'''


def test_embedding_bag_is_the_runtimes_layer_with_torchs_forward_gradients_and_weight_name():
    from tests.migrate.convert.test_fixtures_numeric import copy_weights
    out = convert_source(HEAD + EMBEDDING_BAG).code
    assert "self.values = EmbeddingBagTorch(12, 4, mode='sum')" in out and "MS9" not in out
    assert "self.values.weight" in out and "self.mean = EmbeddingBagTorch(12, 4, padding_idx=0)" in out
    torch_namespace = {}
    exec(HEAD + EMBEDDING_BAG, torch_namespace)  # noqa: S102
    torch.manual_seed(0)
    net = torch_namespace["Memory"]()
    assert not net.mean.weight.detach()[0].numpy().any()
    rng = np.random.RandomState(0)
    scores = rng.randn(3, 5).astype(np.float32)
    indices = rng.randint(0, 12, (3, 5))
    flat = np.array([3, 0, 7, 7, 1, 0, 11, 5, 2])
    offsets = np.array([0, 2, 2, 5])  # the third bag is empty; the second holds padding only
    arrays = [scores, indices, flat, offsets]
    want, cots, _ = torch_and_grads(lambda *a: net(*a), arrays)
    inputs = [torch.tensor(a) for a in arrays]
    loss = sum((o * torch.tensor(c)).sum() for o, c in zip(net(*inputs), cots))
    want_grads = dict(zip(("values.weight", "mean.weight", "most.weight"),
                          (g.numpy() for g in torch.autograd.grad(loss, [net.values.weight, net.mean.weight,
                                                                          net.most.weight]))))
    for target in ("ms_core", "mindspore"):
        cell = converted(EMBEDDING_BAG, target)["Memory"]()
        assert sorted(n for n, _ in cell.parameters_and_names()) == sorted(want_grads)
        assert not cell.mean.weight.asnumpy()[0].any() and cell.values.weight.asnumpy().std() > 0.3
        assert copy_weights(net, cell) == set()
        got, _ = ms_and_grads(cell, arrays, cots)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=target)
        params = dict(cell.parameters_and_names())

        def scalar(*args):
            return sum((o * ms.Tensor(c)).sum() for o, c in zip(cell(*args), cots))
        grads = ms.grad(scalar, grad_position=None, weights=[params[n] for n in want_grads])(
            *[ms.Tensor(a) for a in arrays])
        for name, g in zip(want_grads, grads):
            np.testing.assert_allclose(g.asnumpy(), want_grads[name], rtol=1e-5, atol=1e-6, err_msg=f"{target} {name}")


def test_embedding_bag_refuses_what_torch_refuses_with_a_clear_error():
    from migrate.runtime.layers import EmbeddingBagTorch
    with pytest.raises(ValueError, match="For 'EmbeddingBag', the 'mode' must be one of"):
        EmbeddingBagTorch(4, 2, mode="min")
    bag = EmbeddingBagTorch(4, 2, mode="mean")
    with pytest.raises(ValueError, match="'per_sample_weights' is only supported for mode 'sum'"):
        bag(ms.Tensor(np.zeros((2, 2), np.int64)), None, ms.Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError, match="'input' must be 2-D, or 1-D with 1-D 'offsets'"):
        bag(ms.Tensor(np.zeros(3, np.int64)))
    assert "MS902" in convert_source(HEAD + "y = nn.EmbeddingBag(4, 2, max_norm=1.0)\n").code


# segmentation-models' DeepLabV3 encoders: strides turned into dilation on the built Conv2d layers
# (MindSpore's Conv2d builds its primitive once: a bare attribute write would change nothing)
DILATED = '''
def replace_strides_with_dilation(module, dilation_rate):
    for mod in module.modules():
        if isinstance(mod, nn.Conv2d):
            mod.stride = (1, 1)
            mod.dilation = (dilation_rate, dilation_rate)
            kh, kw = mod.kernel_size
            mod.padding = ((kh // 2) * dilation_rate, (kh // 2) * dilation_rate)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 3, 3, stride=2, padding=1)
        self.deep = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2), nn.ReLU(), nn.Conv2d(4, 2, 1, stride=2, bias=False))
        replace_strides_with_dilation(self.deep, 2)

    def forward(self, x):
        return self.deep(self.stem(x))
'''


def test_conv_geometry_written_after_construction_is_rebuilt_as_torch_computes_it():
    from tests.migrate.convert.test_fixtures_numeric import copy_weights
    out = convert_source(HEAD + DILATED).code
    assert "torch_conv_set(mod, stride=(1, 1))" in out and "MS918" not in out
    assert "torch_conv_set(mod, padding=((kh // 2) * dilation_rate, (kh // 2) * dilation_rate))" in out
    assert convert_source(out).code == out
    torch_namespace = {}
    exec(HEAD + DILATED, torch_namespace)  # noqa: S102
    torch.manual_seed(0)
    net = torch_namespace["Encoder"]()
    x = np.random.RandomState(0).randn(2, 2, 9, 9).astype(np.float32)
    want, cots, want_grads = torch_and_grads(net, [x])
    assert want[0].shape == (2, 2, 5, 5)
    for target in ("ms_core", "mindspore"):
        cell = converted(DILATED, target)["Encoder"]()
        assert copy_weights(net, cell) == set()
        got, grads = ms_and_grads(cell, [x], cots)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6, err_msg=target)
        np.testing.assert_allclose(grads[0], want_grads[0], rtol=1e-5, atol=1e-6, err_msg=target)


def test_conv_set_refuses_what_torch_would_not_build():
    from migrate.runtime.layers import torch_conv_set
    conv = ms.nn.Conv2d(2, 2, 3)
    with pytest.raises(ValueError, match="For 'Conv2d', the 'padding' must be 'same', 'valid', an int or a pair"):
        torch_conv_set(conv, padding="full")
    with pytest.raises(ValueError, match="the 'stride' must be an int or a pair of non-negative ints, but got"):
        torch_conv_set(conv, stride=(1, 1, 1))
    with pytest.raises(TypeError, match="the layer must be a Conv2d, but got Dense"):
        torch_conv_set(ms.nn.Dense(2, 2), padding=1)


# segformer's four-stage encoder: the last stage attends over a 1x1 map (a softmax over one key) after an earlier
# stage's attention; MindSpore 2.10's CPU Softmax over that length-1 axis makes the earlier softmax's gradient wrong
SOFTMAX_LENGTH_ONE = '''
def two_attentions(q, k, v):
    first = (q @ k.transpose(1, 2) * 0.3).softmax(dim=-1) @ v
    x = first.reshape(8, 1, 24)
    single = nn.Softmax(dim=-1)(x[..., :8] @ x[..., 8:16].transpose(1, 2))
    return first, single @ x[..., 16:], F.softmax(v, 1)
'''


def test_softmax_for_mindspore_writes_a_length_one_axis_as_ones():
    plain = convert_source(HEAD + SOFTMAX_LENGTH_ONE).code
    assert "(q @ k.transpose(1, 2) * 0.3).softmax(axis=-1) @ v" in plain and "guarded" not in plain
    out = convert_source(HEAD + SOFTMAX_LENGTH_ONE, target="mindspore").code
    assert "first = softmax_guarded(q @ k.transpose(1, 2) * 0.3, axis=-1) @ v" in out
    assert "single = SoftmaxGuarded(axis=-1)(x[..., :8] @ x[..., 8:16].transpose(1, 2))" in out
    assert "softmax_guarded(v, 1)" in out and convert_source(out, target="mindspore").code == out
    rng = np.random.RandomState(0)
    assert_same_as_torch(SOFTMAX_LENGTH_ONE, "two_attentions", [rng.randn(4, 4, 12).astype(np.float32)
                                                                for _ in range(3)])


def test_softmax_guarded_keeps_nan_and_has_a_zero_gradient_on_a_length_one_axis():
    from migrate.runtime.functional import softmax_guarded
    x = np.array([[0.5], [np.nan], [-3.0]], np.float32)
    want = torch.softmax(torch.tensor(x), -1).numpy()
    np.testing.assert_array_equal(softmax_guarded(ms.Tensor(x), -1).asnumpy(), want)
    g = ms.grad(lambda t: (softmax_guarded(t, -1) * 3).sum())(ms.Tensor(x[[0, 2]]))
    np.testing.assert_array_equal(g.asnumpy(), np.zeros((2, 1), np.float32))
