"""ops.einsum: forward and gradients vs torch.einsum, second derivatives vs finite differences,
torch's equation rules (ellipsis, implicit output, broadcasting, diagonals), errors."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import ops
from tests.optest import check_double_backward, check_op

rs = np.random.RandomState(0)


def r(*shape):
    return rs.randn(*shape).astype(np.float32)


CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),           # diagonal
    ("ii", [(3, 3)]),              # trace (implicit output)
    ("iij->j", [(3, 3, 2)]),
    ("i,j->ij", [(2,), (3,)]),     # outer product
    ("ij,ij->i", [(2, 3), (2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]),   # implicit: 'ik'
    ("ba,ca", [(2, 3), (4, 3)]),   # implicit output sorted: 'bc'
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # ellipsis with broadcasting
    ("...d,d", [(2, 3, 4), (4,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),     # three operands (bilinear)
    ("ij,kl->ijkl", [(2, 1), (1, 3)]),
    ("i,i->", [(1,), (4,)]),        # a size-1 letter broadcasts
    ("ijk->k", [(2, 3, 4)]),        # letters summed over one operand alone
]


@pytest.mark.parametrize("eq,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_torch(eq, shapes):
    check_op(lambda *xs: ops.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs),
             [r(*s) for s in shapes])


@pytest.mark.parametrize("eq,shapes", [CASES[1], CASES[5], CASES[12], CASES[14], CASES[17]],
                         ids=lambda c: str(c))
def test_einsum_double_backward(eq, shapes):
    check_double_backward(lambda *xs: ops.einsum(eq, *xs), [r(*s) for s in shapes])


def test_einsum_takes_a_list_and_keeps_float32():
    a, b = r(2, 3), r(3, 4)
    out = ops.einsum("ij,jk->ik", [ms.Tensor(a), ms.Tensor(b)])
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-5, atol=1e-6)
    ints = ops.einsum("ij,jk->ik", ms.Tensor(np.ones((2, 3), np.int32)),
                      ms.Tensor(np.ones((3, 4), np.int32)))
    assert ints.dtype == ms.int32 and int(ints.asnumpy()[0, 0]) == 3


@pytest.mark.parametrize("call,err,match", [
    (lambda a, b: ops.einsum("ij,jk->ik", a), ValueError, "number of operands"),
    (lambda a, b: ops.einsum("ij,jk->ik", a, ms.Tensor(r(5, 4))), ValueError,
     "dimension of letter 'j'"),
    (lambda a, b: ops.einsum("ijk,jk->i", a, b), ValueError, "needs an operand with 3"),
    (lambda a, b: ops.einsum("ij,jk->iz", a, b), ValueError, "output letter 'z'"),
    (lambda a, b: ops.einsum("i1,jk", a, b), ValueError, "only letters"),
    (lambda a, b: ops.einsum("ij,jk", a, ms.Tensor(np.ones((3, 4)))), TypeError, "same dtype"),
    (lambda a, b: ops.einsum(3, a, b), TypeError, "'equation' must be str"),
])
def test_einsum_errors_in_mindspore_style(call, err, match):
    with pytest.raises(err, match=match) as info:
        call(ms.Tensor(r(2, 3)), ms.Tensor(r(3, 4)))
    assert str(info.value).startswith("For 'Einsum'")
