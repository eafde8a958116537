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
    cots = [rng.randn(*o.shape).astype(np.float32) if o.dtype.is_floating_point else None for o in outs]
    loss = sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots) if c is not None)
    grads = torch.autograd.grad(loss, [t for t in inputs if t.requires_grad]) if loss.requires_grad else ()
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
