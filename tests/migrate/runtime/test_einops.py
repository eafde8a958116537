"""The runtime's einops (migrate/runtime/einops.py) against torch: forward and gradients of
rearrange / reduce / repeat / pack / unpack / einsum and the layers, each compared with the same
operation written by hand with reshape / permute / expand / reductions.

einops is not a dependency: when it happens to be importable, the same calls are also compared
with einops itself (an extra check; every assertion against torch runs either way).
"""
import numpy as np
import pytest
import torch

import ms_core as ms
import migrate.runtime as runtime
from migrate.runtime.einops import EinopsPattern
from tests.optest import check_op

try:  # an extra reference only
    import einops
except ImportError:
    einops = None

OPS = dict(rearrange=runtime.einops_rearrange, reduce=runtime.einops_reduce, repeat=runtime.einops_repeat,
           pack=runtime.einops_pack, unpack=runtime.einops_unpack, einsum=runtime.einops_einsum,
           parse_shape=runtime.einops_parse_shape, asnumpy=runtime.einops_asnumpy,
           Rearrange=runtime.EinopsRearrange, Reduce=runtime.EinopsReduce)


def generated() -> dict:
    """einops' names as converted code gets them from the runtime."""
    return OPS


def rs(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# (operation, input, pattern and arguments, the same written by hand in torch)
CASES = [
    ("rearrange", rs(2, 6, 4, 6), ("b c (h p1) (w p2) -> b (h w) (p1 p2 c)",), dict(p1=2, p2=3),
     lambda t: t.reshape(2, 6, 2, 2, 2, 3).permute(0, 2, 4, 3, 5, 1).reshape(2, 4, 36)),
    ("rearrange", rs(2, 5, 12), ("b n (h d) -> b h n d",), dict(h=3),
     lambda t: t.reshape(2, 5, 3, 4).permute(0, 2, 1, 3)),
    ("rearrange", rs(2, 3, 5, 4), ("b h n d -> b n (h d)",), {},
     lambda t: t.permute(0, 2, 1, 3).reshape(2, 5, 12)),
    ("rearrange", rs(2, 3, 4, 5), ("b ... d -> b (...) d",), {}, lambda t: t.reshape(2, 12, 5)),
    ("rearrange", rs(2, 3, 4, 5), ("b c ... -> ... b c",), {}, lambda t: t.permute(2, 3, 0, 1)),
    ("rearrange", rs(3, 4, 2), ("i ... -> i 1 ...",), {}, lambda t: t.unsqueeze(1)),
    ("rearrange", rs(2, 1, 4, 1), ("b () h 1 -> b h",), {}, lambda t: t.reshape(2, 4)),
    ("rearrange", rs(2, 4), ("b d -> b 1 1 d ()",), {}, lambda t: t.reshape(2, 1, 1, 4, 1)),
    ("rearrange", rs(6, 8, 3), ("(b x y) (w1 w2) d -> b (x w1) (y w2) d",), dict(x=1, y=3, w1=2),
     lambda t: t.reshape(2, 1, 3, 2, 4, 3).permute(0, 1, 3, 2, 4, 5).reshape(2, 2, 12, 3)),
    ("reduce", rs(2, 3, 4, 6), ("b c (h h2) (w w2) -> b c h w", "max"), dict(h2=2, w2=3),
     lambda t: t.reshape(2, 3, 2, 2, 2, 3).amax(dim=(3, 5))),
    ("reduce", rs(2, 3, 4, 6), ("b c h w -> b c", "mean"), {}, lambda t: t.mean(dim=(2, 3))),
    ("reduce", rs(2, 3, 4, 6), ("b c h w -> b c 1 1", "mean"), {}, lambda t: t.mean(dim=(2, 3), keepdim=True)),
    ("reduce", rs(2, 3, 4), ("b n d -> b d", "sum"), {}, lambda t: t.sum(dim=1)),
    ("reduce", rs(2, 3, 4), ("b n d -> d b", "min"), {}, lambda t: t.amin(dim=1).permute(1, 0)),
    ("reduce", rs(2, 3, 4), ("b n d -> b", "prod"), {}, lambda t: t.prod(dim=2).prod(dim=1)),
    ("reduce", rs(2, 3, 4, 5), ("b ... d -> b d", "mean"), {}, lambda t: t.mean(dim=(1, 2))),
    ("reduce", rs(2, 3, 4), ("b n d -> b n d", "mean"), {}, lambda t: t * 1),
    ("repeat", rs(4), ("d -> b 1 d",), dict(b=3), lambda t: t.reshape(1, 1, 4).expand(3, 1, 4)),
    ("repeat", rs(1, 1, 4), ("1 1 d -> b 1 d",), dict(b=2), lambda t: t.expand(2, 1, 4)),
    ("repeat", rs(3, 4), ("h w -> (h 2) (r w)",), dict(r=2),
     lambda t: t.repeat_interleave(2, dim=0).repeat(1, 2)),
    ("repeat", rs(3, 4), ("h w -> w b h",), dict(b=2), lambda t: t.permute(1, 0).unsqueeze(1).expand(4, 2, 3)),
]


def _case_id(case):
    return f"{case[0]}:{case[2][0]}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_forward_and_gradient_match_torch_by_hand(case):
    op, x, args, kwargs, by_hand = case
    fn = generated()[op]
    check_op(lambda t: fn(t, *args, **kwargs), by_hand, [x])
    if einops is not None:
        check_op(lambda t: fn(t, *args, **kwargs), lambda t: getattr(einops, op)(t, *args, **kwargs), [x])


def test_rearrange_of_a_list_stacks_it_first():
    fn = generated()["rearrange"]
    check_op(lambda a, b: fn([a, b], "n b d -> b (n d)"),
             lambda a, b: torch.stack([a, b]).permute(1, 0, 2).reshape(2, 8), [rs(2, 4), rs(2, 4, seed=1)])


def test_reduce_takes_a_callable_over_the_axes():
    fn = generated()["reduce"]
    check_op(lambda t: fn(t, "b (n k) -> b n", lambda v, axes: v.sum(axis=axes) * 2, k=2),
             lambda t: t.reshape(2, 3, 2).sum(dim=2) * 2, [rs(2, 6)])


def test_pack_and_unpack_match_cat_and_split():
    ops = generated()
    pack, unpack = ops["pack"], ops["unpack"]

    def ms_fn(a, b):
        packed, shapes = pack([a, b], "b * d")
        assert shapes == [(), (3, 4)]
        first, second = unpack(packed * 2, shapes, "b * d")
        return packed, first, second

    def torch_fn(a, b):
        packed = torch.cat([a.reshape(2, 1, 5), b.reshape(2, 12, 5)], dim=1)
        first, second = (packed * 2).split([1, 12], dim=1)
        return packed, first.reshape(2, 5), second.reshape(2, 3, 4, 5)

    check_op(ms_fn, torch_fn, [rs(2, 5), rs(2, 3, 4, 5, seed=1)])


def test_unpack_infers_one_unknown_length():
    out = generated()["unpack"](ms.Tensor(rs(2, 7, 3)), [(1,), (-1, 3)], "b * d")
    assert [tuple(t.shape) for t in out] == [(2, 1, 3), (2, 2, 3, 3)]


def test_einsum_names_axes_by_words():
    fn = generated()["einsum"]
    check_op(lambda q, k: fn(q, k, "batch head i d, batch head j d -> batch head i j"),
             lambda q, k: torch.einsum("bhid,bhjd->bhij", q, k), [rs(2, 3, 4, 5), rs(2, 3, 6, 5, seed=1)])


def test_parse_shape_names_the_lengths():
    fn = generated()["parse_shape"]
    assert fn(ms.Tensor(rs(2, 3, 4, 5)), "b _ h w") == {"b": 2, "h": 4, "w": 5}
    assert fn(ms.Tensor(rs(2, 3, 4, 5)), "b ... w") == {"b": 2, "w": 5}


def test_asnumpy_gives_the_values():
    x = rs(2, 3)
    out = generated()["asnumpy"](ms.Tensor(x))
    assert type(out) is np.ndarray and out.dtype == np.float32
    np.testing.assert_array_equal(out, x)


def test_layers_are_cells_that_match_torch():
    ops = generated()
    patches = ops["Rearrange"]("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2)
    pool = ops["Reduce"]("b n d -> b d", "mean")
    assert isinstance(patches, ms.nn.Cell) and isinstance(pool, ms.nn.Cell)
    assert "p1=2" in repr(patches) and "'mean'" in repr(pool)
    check_op(lambda t: pool(patches(t)),
             lambda t: t.reshape(2, 3, 2, 2, 2, 2).permute(0, 2, 4, 3, 5, 1).reshape(2, 4, 12).mean(dim=1),
             [rs(2, 3, 4, 4)])


def test_float32_stays_float32_and_a_pattern_is_parsed_once():
    ops = generated()
    x = ms.Tensor(rs(2, 3, 4))
    assert ops["rearrange"](x, "a b c -> c (a b)").dtype == ms.float32
    first = EinopsPattern.of("rearrange", "a b c -> c (a b)")
    ops["rearrange"](x, "a b c -> c (a b)")
    assert EinopsPattern.of("rearrange", "a b c -> c (a b)") is first


# torch.einsum with --target mindspore, and einops.einsum on both targets, run the runtime's
# torch_einsum (MindSpore 2.10's CPU backend has no Einsum kernel): sums and batched matmuls
EINSUM = [
    ("b h i d, b h j d -> b h i j", (2, 3, 4, 5), (2, 3, 6, 5)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("...d,d", (2, 3, 4), (4,)),
    ("ij->ji", (3, 4)),
    ("ij->", (3, 4)),
    ("ij,jk", (2, 3), (3, 4)),
    ("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),
    ("i,j->ij", (3,), (4,)),
    ("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 6)),
    ("bhid,bhjd->bhij", (2, 1, 4, 5), (2, 3, 6, 5)),
    ("b i d, j d -> b i j", (2, 3, 4), (5, 4)),
    ("ii->i", (3, 3)),
]


def torch_einsum():
    return runtime.torch_einsum


@pytest.mark.parametrize("case", EINSUM, ids=[e[0] for e in EINSUM])
def test_generated_einsum_matches_torch(case):
    equation, *shapes = case
    arrays = [rs(*shape, seed=i) for i, shape in enumerate(shapes)]
    check_op(lambda *xs: torch_einsum()(equation, *xs), lambda *xs: torch.einsum(equation, *xs), arrays)
    # torch's other spelling: the operands in one list
    check_op(lambda *xs: torch_einsum()(equation, list(xs)), lambda *xs: torch.einsum(equation, list(xs)), arrays)


def test_generated_einsum_checks_the_operand_count():
    with pytest.raises(ValueError, match=r"^For 'einsum', the equation 'ij,jk' names 2 operands, but got 1\."):
        torch_einsum()("ij,jk", ms.Tensor(rs(2, 3)))
