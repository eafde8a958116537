"""Proofs of the torch.toml entries backed by the ms_core ops of issue 12 section 3
(torch.einsum -> ops.einsum): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Expr, case_id, run

pytest.importorskip("torch")

CASES = [
    Expr("torch.einsum", "torch.einsum('bij,bjk->bik', x, y.transpose(1, 2))"),
    Expr("torch.einsum", "torch.einsum('...d,d', x, v4)",
         arrays=(("v4", "rs.randn(4).astype(np.float32)"),)),
    Expr("torch.einsum", "torch.einsum('ii->i', sq)"),
    Expr("torch.einsum", "torch.einsum('bn,anm,bm->ba', b1, w3, b2)",
         arrays=(("b1", "rs.randn(2, 3).astype(np.float32)"),
                 ("w3", "rs.randn(4, 3, 5).astype(np.float32)"),
                 ("b2", "rs.randn(2, 5).astype(np.float32)"))),
    Expr("torch.einsum", "torch.einsum('ij,jk', [m, m.T])"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
