"""einops in converted code (MS500): before/after pairs of the code that uses it, the runtime names
it imports, and the errors of bad patterns (numbers against torch: tests/migrate/runtime/test_einops.py).

The pairs compare the converted code without its import block (:func:`~tests.migrate.convert.helpers.body`);
the HEADER's torch imports come first.
"""
import re
import textwrap

import pytest

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, check, split_generated

PAIRS = {
    # the three functions, imported by name; their imports go
    "functions": ("""\
        from einops import rearrange, repeat, reduce

        def f(x, cls):
            t = rearrange(x, 'b c h w -> b (h w) c')
            c = repeat(cls, '1 1 d -> b 1 d', b=x.shape[0])
            return reduce(t, 'b n d -> b d', 'mean'), c
        """, """\
        def f(x, cls):
            t = einops_rearrange(x, 'b c h w -> b (h w) c')
            c = einops_repeat(cls, '1 1 d -> b 1 d', b=x.shape[0])
            return einops_reduce(t, 'b n d -> b d', 'mean'), c
        """),
    # `import einops` and an alias of a function
    "aliased": ("""\
        import einops
        from einops import rearrange as rr

        def f(x):
            return einops.rearrange(x, 'b n d -> b d n'), rr(x, 'b n d -> n b d')
        """, """\
        def f(x):
            return einops_rearrange(x, 'b n d -> b d n'), einops_rearrange(x, 'b n d -> n b d')
        """),
    # the torch layers become Cells, in a Sequential too
    "layers": ("""\
        from einops.layers.torch import Rearrange, Reduce

        embed = nn.Sequential(Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=2), nn.ReLU())
        head = nn.Sequential(Reduce('b n d -> b d', 'mean'), nn.Tanh())
        """, """\
        embed = nn.SequentialCell(EinopsRearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=2), nn.ReLU())
        head = nn.SequentialCell(EinopsReduce('b n d -> b d', 'mean'), nn.Tanh())
        """),
    # names used as values: map, partial, isinstance; a subclass of a layer is a Cell
    "values": ("""\
        from functools import partial
        from einops import rearrange, repeat
        from einops.layers.torch import Rearrange

        class Patches(Rearrange):
            def forward(self, x):
                return super().forward(x)

        def f(qkv, m):
            q, k, v = map(lambda t: rearrange(t, 'b n (h d) -> b h n d', h=2), qkv)
            tile = partial(repeat, pattern='d -> b d')
            return isinstance(m, Rearrange), tile
        """, """\
        class Patches(EinopsRearrange):
            def construct(self, x):
                return super().construct(x)

        def f(qkv, m):
            q, k, v = map(lambda t: einops_rearrange(t, 'b n (h d) -> b h n d', h=2), qkv)
            tile = partial(einops_repeat, pattern='d -> b d')
            return isinstance(m, EinopsRearrange), tile
        """),
    # what rearrange returns is a tensor: torch's methods on it are translated
    "typed_result": ("""\
        from einops import rearrange

        def f(x):
            y = rearrange(x, 'b c h w -> b c (h w)')
            return y.transpose(1, 2)
        """, """\
        def f(x):
            y = einops_rearrange(x, 'b c h w -> b c (h w)')
            return ops.swapaxes(y, 1, 2)
        """),
    # pack / unpack / einsum / parse_shape / EinopsError
    "others": ("""\
        from einops import pack, unpack, einsum, parse_shape, EinopsError

        def f(a, b):
            x, ps = pack([a, b], 'b * d')
            a, b = unpack(x, ps, 'b * d')
            try:
                s = einsum(a, a, 'b i d, b j d -> b i j')
            except EinopsError:
                s = None
            return s, parse_shape(b, 'b _ d')
        """, """\
        def f(a, b):
            x, ps = einops_pack([a, b], 'b * d')
            a, b = einops_unpack(x, ps, 'b * d')
            try:
                s = einops_einsum(a, a, 'b i d, b j d -> b i j')
            except ValueError:
                s = None
            return s, einops_parse_shape(b, 'b _ d')
        """),
    # einops' own modules (einops.einops, einops.packing) name the same functions
    "internal_modules": ("""\
        from einops.einops import rearrange, reduce, repeat, einsum, parse_shape, asnumpy
        from einops.packing import pack, unpack

        fns = [rearrange, reduce, repeat, einsum, parse_shape, asnumpy, pack, unpack]
        """, """\
        fns = [einops_rearrange, einops_reduce, einops_repeat, einops_einsum, einops_parse_shape, einops_asnumpy, einops_pack, einops_unpack]
        """),  # noqa: E501
    # no-op: a function of the file's own called rearrange is not einops'
    "own_function": ("""\
        def rearrange(x, pattern):
            return x

        y = rearrange(1, 'a -> a')
        """, """\
        def rearrange(x, pattern):
            return x

        y = rearrange(1, 'a -> a')
        """),
}


@pytest.mark.parametrize("name", PAIRS)
def test_pair(name):
    before, after = PAIRS[name]
    res = check(before, after)
    assert not re.search(r"^(import|from) einops", res.code, re.M), res.code  # no einops import left


@pytest.mark.parametrize("name", [n for n in PAIRS if n != "own_function"])
def test_pair_is_idempotent_and_needs_no_einops(name):
    code = convert_source(HEADER + textwrap.dedent(PAIRS[name][0])).code
    assert convert_source(code).code == code
    namespace = {}
    exec(code, namespace)  # imports nothing of einops or torch


def test_einmix_is_marked_and_its_import_guarded():
    code = convert_source(HEADER + textwrap.dedent("""\
        from einops.layers.torch import EinMix, Rearrange

        mix = EinMix('b n d -> b n e', weight_shape='d e', d=4, e=8)
        flat = Rearrange('b n d -> b (n d)')
        """)).code
    lines = code.splitlines()
    call = "mix = EinMix('b n d -> b n e', weight_shape='d e', d=4, e=8)"
    assert call in lines and lines[lines.index(call) - 1].startswith("# migrate: MS901 einops' EinMix")
    assert "    from einops.layers.torch import EinMix\n" in code  # inside the guard
    assert "flat = EinopsRearrange('b n d -> b (n d)')" in code
    with pytest.raises(ImportError, match="EinMix"):
        exec(code, {})  # the marked line fails where it runs, with the marker's reason


def test_only_the_pieces_used_are_imported_or_inlined():
    src = HEADER + "from einops import rearrange\ny = rearrange\n"
    block, _ = split_generated(convert_source(src).code)
    assert block == "from migrate_runtime import einops_rearrange\n"
    block, _ = split_generated(convert_source(src, runtime="").code)
    assert "class EinopsPattern:" in block and "def einops_rearrange(" in block
    assert "einops_reduce" not in block and "EinopsRearrange" not in block and "einops_pack" not in block


def test_runtime_names_do_not_collide_with_the_files_own():
    code = convert_source(HEADER + textwrap.dedent("""\
        from einops import rearrange

        einops_rearrange = 'mine'
        ops = [1, 2]
        y = rearrange
        """)).code
    assert "import einops_rearrange as einops_rearrange_\n" in code and "y = einops_rearrange_" in code
    assert "einops_rearrange = 'mine'" in code
    namespace = {}
    exec(code, namespace)
    assert namespace["ops"] == [1, 2] and namespace["einops_rearrange"] == "mine"
    x = ms.Tensor([[1.0, 2.0, 3.0]])
    assert namespace["y"](x, "a b -> b a").shape == (3, 1)  # the runtime's own ops


def test_mindspore_target_inlines_the_same_code_over_mindspore():
    code = convert_source(HEADER + "from einops import reduce\ny = reduce\n", target="mindspore", runtime="").code
    assert "from mindspore import" in code and "ops.amax(x, axes)" in code and "ms_core" not in code


BAD = [
    # (call, message)
    (("rearrange", "b c h w -> b c h"), "For 'rearrange', the axes ['w'] of 'pattern' 'b c h w -> b c h' must be on "
                                        "both sides."),
    (("rearrange", "b c (h -> b c h"), "For 'rearrange', the 'pattern' has an unmatched '(': 'b c (h -> b c h'."),
    (("rearrange", "b c h w"), "For 'rearrange', the 'pattern' must be a str with one '->', but got 'b c h w'."),
    (("rearrange", "b c h w -> b c h h"), "For 'rearrange', the axis 'h' is twice on the right side of 'pattern' "
                                          "'b c h w -> b c h h'."),
    (("rearrange", "b c h -> b (c h)"), "For 'rearrange', the 'pattern' 'b c h -> b (c h)' has 3 axes on the left "
                                        "side, but got a tensor of shape (2, 6, 4, 6)."),
    (("rearrange", "b (c (h w)) -> b c h w"), "For 'rearrange', the 'pattern' may not nest parentheses"),
    (("rearrange", "b c h w -> b c (h w) 2"), "For 'rearrange', the 'pattern' may hold no anonymous axis but 1"),
    (("rearrange", "b (c k) h w -> b c k h w"), "For 'rearrange', the lengths of axes ['c', 'k'] in 'pattern' "
                                                "'b (c k) h w -> b c k h w' cannot be inferred"),
    (("rearrange", "b c h w -> ... b"), "For 'rearrange', the 'pattern' has '...' on the right side only"),
    (("repeat", "b c h w -> b c h"), "For 'repeat', the axes ['w'] of 'pattern' 'b c h w -> b c h' are on the "
                                     "left side only."),
    (("repeat", "b c h w -> b c h w r"), "For 'repeat', the lengths of the new axes ['r'] of 'pattern' "
                                         "'b c h w -> b c h w r' must be given."),
    (("reduce", "b c h w -> b c", "median"), "For 'reduce', the 'reduction' must be one of ['mean', 'sum', 'max', "
                                             "'min', 'prod', 'any', 'all'] or a callable, but got 'median'."),
    (("reduce", "b c h w -> b q", "mean"), "For 'reduce', the axes ['q'] of 'pattern' 'b c h w -> b q' are on the "
                                           "right side only."),
]


@pytest.mark.parametrize("call,message", BAD, ids=[b[0][1] for b in BAD])
def test_bad_patterns_are_clear_errors(call, message):
    from tests.migrate.runtime.test_einops import generated
    op, *args = call
    with pytest.raises(ValueError) as err:
        generated()[op](ms.Tensor(ms.ops.zeros((2, 6, 4, 6))), *args)
    assert str(err.value).startswith(message), str(err.value)


def test_bad_lengths_and_layers_fail_clearly():
    from tests.migrate.runtime.test_einops import generated
    ops = generated()
    x = ms.ops.zeros((2, 6, 4))
    with pytest.raises(ValueError, match=r"^For 'rearrange', the axis of length 6 cannot be split as \('h', 'd'\) "
                                         r"\(lengths \[4, '\?'\]\)"):
        ops["rearrange"](x, "b (h d) n -> b h d n", h=4)
    with pytest.raises(ValueError, match="^For 'rearrange', the axis 'q' given a length is not in 'pattern'"):
        ops["rearrange"](x, "b c n -> b n c", q=3)
    with pytest.raises(ValueError, match="^For 'rearrange', the axes"):
        ops["Rearrange"]("b c -> b")  # when the layer is built, as einops checks it
    with pytest.raises(ValueError, match=r"^For 'pack', the 'pattern' must hold distinct axis names and one '\*'"):
        ops["pack"]([x], "b c d")
    with pytest.raises(ValueError, match=r"^For 'unpack', 'packed_shapes' \[\(2,\)\] hold 2 elements, but axis 1"):
        ops["unpack"](x, [(2,)], "b * d")


def test_einsum_with_target_mindspore_is_the_runtime_function():
    # MindSpore 2.10's CPU backend has no Einsum kernel (numbers: tests/migrate/runtime/test_einops.py)
    src = HEADER + "def f(a, b):\n    return torch.einsum('bij,bjk->bik', [a, b])\n"
    res = convert_source(src, target="mindspore")
    block, rest = split_generated(res.code)
    assert "return torch_einsum('bij,bjk->bik', a, b)" in rest and block == "from migrate_runtime import torch_einsum\n"
    assert [c.label for c in res.changes if c.rule == "MS310"] == ["transformed"]
    assert "return ops.einsum('bij,bjk->bik', a, b)" in convert_source(src).code  # ms_core has the kernel
    assert convert_source(res.code, target="mindspore").code == res.code
