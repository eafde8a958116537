"""An in-place update of a tensor whose named view is read afterwards (or of the view, whose base
is read afterwards) is marked MS907 on the targets whose converted code does not share it: ``t +=``
(a new tensor on both), a view torch makes and the target copies (``detach`` on ms_core), and on
MindSpore 2.10 a ``copy_`` into a strided view. The writes both targets share, and those no live
view sees, stay unmarked. Before/after pairs, then every case run on ms_core against torch."""
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, after

MARK = "# migrate: MS907 "

# source, the targets that mark it
MARKED = {
    "view_written_strided": ("""\
        def f(t: torch.Tensor):
            v = t[0]
            v.add_(1)
            return t
        """, {"mindspore"}),
    "augmented": ("""\
        def f(t: torch.Tensor):
            v = t.transpose(0, 1)
            t += 1
            return v
        """, {"ms_core", "mindspore"}),
    "augmented_untyped_torch_view": ("""\
        def f(t):
            v = t.unsqueeze(0)
            t += 1
            return v
        """, {"ms_core", "mindspore"}),
    "detached": ("""\
        def f(t: torch.Tensor):
            v = t.detach()
            t.mul_(2)
            return v
        """, {"ms_core"}),
}

UNMARKED = {
    "base_written": """\
        def f(t: torch.Tensor):
            v = t.view(-1)
            t.mul_(2)
            return v
        """,
    "view_written_contiguous": """\
        def f(t: torch.Tensor):
            v = t.view(-1)
            v.add_(1)
            return t
        """,
    "item_assignment": """\
        def f(t: torch.Tensor):
            a, b = t.chunk(2)
            t[0] = 5.0
            return a
        """,
    "in_a_loop": """\
        def f(t: torch.Tensor):
            v = t.transpose(0, 1)
            out = []
            for _ in range(2):
                out.append(v.sum())
                t.add_(1)
            return torch.stack(out)
        """,
    "view_not_read_after": """\
        def f(t: torch.Tensor):
            v = t.view(-1)
            s = v.sum()
            t.mul_(2)
            return t + s
        """,
    "view_taken_again": """\
        def f(t: torch.Tensor):
            v = t.view(-1)
            t.mul_(2)
            v = t.view(-1)
            return v
        """,
    "view_bound_in_the_loop": """\
        def f(t: torch.Tensor):
            out = []
            for _ in range(2):
                v = t.view(-1)
                out.append(v.sum())
                t.add_(1)
            return torch.stack(out)
        """,
    "rebound_to_its_own_view": """\
        def f(t: torch.Tensor):
            t = t.view(-1)
            t.mul_(2)
            return t
        """,
    "a_copy": """\
        def f(t: torch.Tensor):
            v = t.clone()
            t.mul_(2)
            return v
        """,
}


def test_a_write_a_live_view_misses_is_marked():
    out = after(MARKED["detached"][0])
    assert out == textwrap.dedent("""\
        def f(t: ms.Tensor):
            v = ops.stop_gradient(t)
            # migrate: MS907 in-place update of t while v is a view of t and v is read after it: torch \
updates both; here detach makes a copy, and v keeps the old values; take the view again after the update, \
or update the tensor that is read
            t.copy_(t.copy().mul(2))
            return v
        """), out


@pytest.mark.parametrize("name", sorted(MARKED))
@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_marked(name, target):
    source, targets = MARKED[name]
    out = after(source, target)
    assert out.count(MARK) == (target in targets), out


@pytest.mark.parametrize("name", sorted(UNMARKED))
@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_unmarked(name, target):
    out = after(UNMARKED[name], target)
    assert MARK not in out, out


def test_a_numpy_arrays_views_are_left_alone():
    out = after("""\
        def f(a):
            v = a.reshape(-1)
            a += 1
            return v
        """)
    assert MARK not in out and "a += 1" in out


def test_converting_again_changes_nothing():
    code = convert_source(HEADER + textwrap.dedent(MARKED["detached"][0])).code
    assert code.count(MARK) == 1
    assert convert_source(code).code == code


# --- on ms_core against torch ------------------------------------------------------------------

def _run(source: str):
    torch = pytest.importorskip("torch")
    import ms_core as ms
    code = HEADER + textwrap.dedent(source)
    tns, mns = {}, {}
    exec(compile(code, "<torch>", "exec"), tns)
    out = convert_source(code).code
    exec(compile(out, "<converted>", "exec"), mns)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
    want = tns["f"](torch.tensor(x)).numpy()
    got = mns["f"](ms.Tensor(x)).asnumpy()
    return got, want


@pytest.mark.parametrize("name", sorted(UNMARKED))
def test_unmarked_cases_compute_what_torch_computes(name):
    got, want = _run(UNMARKED[name])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(MARKED))
def test_marked_cases_differ_on_ms_core_only_where_marked(name):
    """ms_core's views share their base's writes, as torch's do (tests/ms_core/test_view_writes.py):
    a case marked for MindSpore only gives torch's values on ms_core; one marked on ms_core
    (`t += 1` binds a new tensor; `detach` is a copy) does not."""
    source, targets = MARKED[name]
    got, want = _run(source)
    if "ms_core" in targets:
        assert got.shape != want.shape or not np.allclose(got, want), (got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_view_function_of_an_imported_module_views_its_first_argument():
    """Converted code reads `ops.reshape(ops.argmax(m, -1), ...)`: a view function of a new tensor,
    not a view of `ops` (a second conversion of detr's panoptic post-processing marked it), and
    the reason names no line (the markers above a write move it between conversions)."""
    import ast

    from migrate.convert.view_alias import aliased_writes
    code = textwrap.dedent("""\
        from ms_core import ops

        def panoptic(m, h, w, equiv):
            m = ops.reshape(ops.argmax(m, -1), (h, w))
            for eq_id in equiv:
                m.copy_(ops.masked_fill(m.copy(), ops.equal(m, eq_id), equiv[0]))
            return ops.zeros(2), m

        def viewed(t, s):
            v = ops.reshape(t, (-1,))
            t += s
            return v
        """)
    found = aliased_writes(ast.parse(code))
    assert list(found) == [11], found   # only t += s while v = ops.reshape(t, ...) is read after
    assert found[11][2]["ms_core"].startswith("in-place update of t while v is a view of t and v is read after it")
