"""Proofs of mappings/functional.toml (torch.nn.functional.*): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Expr, case_id, run

pytest.importorskip("torch")

CASES = [
    Expr("torch.nn.functional.relu", "F.relu(x)"),
    Expr("torch.nn.functional.softmax", "F.softmax(x, dim=1)"),
    # torch refuses gradients with respect to the running statistics
    Expr("torch.nn.functional.batch_norm", "F.batch_norm(img, rm, rv, w2, b2, False, 0.1, 1e-3)", grad=False,
         arrays=(("rm", "rs.randn(2).astype(np.float32)"), ("rv", "rs.rand(2).astype(np.float32) + 0.5"),
                 ("w2", "rs.randn(2).astype(np.float32)"), ("b2", "rs.randn(2).astype(np.float32)"))),
    Expr("torch.nn.functional.batch_norm",
         "F.batch_norm(img, torch.zeros(2), torch.ones(2), w2, b2, training=True, momentum=0.3)",
         rtol=1e-4, atol=1e-5,
         arrays=(("w2", "rs.randn(2).astype(np.float32)"), ("b2", "rs.randn(2).astype(np.float32)"))),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
