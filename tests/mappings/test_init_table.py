"""Proofs of mappings/init.toml (torch.nn.init.* and the in-place tensor initialisers): see
tests/mappings/proof.py.

An initialiser runs on a Parameter (``set_data`` is the Parameter's), built from a zero array of
the case's shape. Deterministic initialisers compare values; random ones compare the mean and
standard deviation of 20,000 draws (the std to rtol 5 %, the mean to atol 0.04 x the expected
scale: the difference of two such sample means has a standard error of 1 % of the scale), and
sparse_ its count of zeros per column.
"""
import pytest

from tests.mappings.proof import Expr, Marked, case_id, run

pytest.importorskip("torch")

BIG = (("z", "np.zeros((200, 100), np.float32)"),)       # fan_in 100, fan_out 200
CONV = (("k", "np.zeros((6, 4, 3, 3), np.float32)"),)     # fan_in 36


def stats(api, code, scale, arrays=BIG):
    return Expr(api, code, grad=False, check="stats", rtol=0.05, atol=0.04 * scale,
                arrays=arrays)


CASES = [
    stats("torch.nn.init.kaiming_normal_", "nn.init.kaiming_normal_(nn.Parameter(z))", 0.14),
    stats("torch.nn.init.kaiming_normal_", "nn.init.kaiming_normal_(nn.Parameter(z), a=0.1, "
          "mode='fan_out', nonlinearity='leaky_relu')", 0.1),
    stats("torch.nn.init.kaiming_normal", "nn.init.kaiming_normal(nn.Parameter(z))", 0.14),
    stats("torch.nn.init.kaiming_uniform_", "nn.init.kaiming_uniform_(nn.Parameter(z), "
          "a=5 ** 0.5)", 0.06),
    stats("torch.nn.init.kaiming_uniform", "nn.init.kaiming_uniform(nn.Parameter(z), "
          "nonlinearity='relu')", 0.14),
    stats("torch.nn.init.xavier_uniform_", "nn.init.xavier_uniform_(nn.Parameter(z))", 0.08),
    stats("torch.nn.init.xavier_uniform_", "nn.init.xavier_uniform_(nn.Parameter(z), "
          "gain=nn.init.calculate_gain('relu'))", 0.12),
    stats("torch.nn.init.xavier_uniform", "nn.init.xavier_uniform(nn.Parameter(z))", 0.08),
    stats("torch.nn.init.xavier_normal_", "nn.init.xavier_normal_(nn.Parameter(z), 2.0)", 0.16),
    stats("torch.nn.init.xavier_normal", "nn.init.xavier_normal(nn.Parameter(z))", 0.08),
    stats("torch.nn.init.normal_", "nn.init.normal_(nn.Parameter(z), 0.5, 2.0)", 2.0),
    stats("torch.nn.init.normal_", "nn.init.normal_(nn.Parameter(z), std=0.02)", 0.02),
    stats("torch.nn.init.normal", "nn.init.normal(nn.Parameter(z))", 1.0),
    stats("torch.nn.init.trunc_normal_", "nn.init.trunc_normal_(nn.Parameter(z), std=0.02)",
          0.02),
    stats("torch.nn.init.trunc_normal_", "nn.init.trunc_normal_(nn.Parameter(z), 1.0, 2.0, "
          "-1.0, 3.0)", 2.0),
    stats("torch.nn.init.uniform_", "nn.init.uniform_(nn.Parameter(z), -0.1, 0.1)", 0.1),
    stats("torch.nn.init.uniform", "nn.init.uniform(nn.Parameter(z), -2.0, 2.0)", 2.0),
    stats("torch.nn.init.uniform_", "nn.init.uniform_(nn.Parameter(z), 0.5, 2.0)", 0.75),
    Expr("torch.nn.init.constant_", "nn.init.constant_(nn.Parameter(w), 0.3)", grad=False),
    Expr("torch.nn.init.constant", "nn.init.constant(nn.Parameter(w), -2.0)", grad=False),
    Expr("torch.nn.init.zeros_", "nn.init.zeros_(nn.Parameter(w))", grad=False),
    Expr("torch.nn.init.ones_", "nn.init.ones_(nn.Parameter(w))", grad=False),
    # orthogonal: W W^T = gain^2 I for a (rows <= cols) matrix, whatever the draw
    Expr("torch.nn.init.orthogonal_", "(lambda q: q @ q.T)(nn.init.orthogonal_(nn.Parameter(m), "
         "2.0).data)", grad=False, atol=1e-5),
    Expr("torch.nn.init.orthogonal", "(lambda q: q @ q.T)(nn.init.orthogonal(nn.Parameter(m))"
         ".data)", grad=False, atol=1e-5),
    Expr("torch.nn.init.dirac_", "nn.init.dirac_(nn.Parameter(k))", grad=False, arrays=CONV),
    Expr("torch.nn.init.dirac_", "nn.init.dirac_(nn.Parameter(k), groups=2)", grad=False,
         arrays=CONV),
    Expr("torch.nn.init.dirac", "nn.init.dirac(nn.Parameter(k))", grad=False, arrays=CONV),
    Expr("torch.nn.init.eye_", "nn.init.eye_(nn.Parameter(w))", grad=False),
    Expr("torch.nn.init.eye", "nn.init.eye(nn.Parameter(m))", grad=False),
    Expr("torch.nn.init.sparse_", "(nn.init.sparse_(nn.Parameter(z), 0.3).data == 0).sum(0)",
         grad=False, arrays=BIG),
    Expr("torch.nn.init.sparse", "(nn.init.sparse(nn.Parameter(z), 0.1, std=0.5).data == 0)"
         ".sum(0)", grad=False, arrays=BIG),
    stats("torch.nn.init.sparse_", "nn.init.sparse_(nn.Parameter(z), 0.5, std=2.0)", 1.4),
    Expr("torch.nn.init._calculate_fan_in_and_fan_out", "nn.init._calculate_fan_in_and_fan_out(k)",
         grad=False, arrays=CONV),
    Expr("torch.nn.init.calculate_gain", "nn.init.calculate_gain('relu')", grad=False),
    Expr("torch.nn.init.calculate_gain", "nn.init.calculate_gain('leaky_relu', 0.2)", grad=False),
    Expr("torch.nn.init.calculate_gain", "nn.init.calculate_gain('tanh') * "
         "nn.init.calculate_gain('selu') * nn.init.calculate_gain('conv2d')", grad=False),
    Expr("torch.nn.init.calculate_gain",
         "[nn.init.calculate_gain(n) for n in ('linear', 'sigmoid', 'relu', 'tanh', 'selu', "
         "'leaky_relu', 'conv_transpose3d')]", grad=False),
    Marked("torch.nn.init.calculate_gain", "nn.init.calculate_gain('gelu')"),
    # the in-place tensor methods, on a parameter's .data as in real code
    stats("Tensor.normal_", "nn.Parameter(z).data.normal_(0, 0.02)", 0.02),
    stats("Tensor.uniform_", "nn.Parameter(z).data.uniform_(-0.5, 0.5)", 0.5),
    Expr("Tensor.zero_", "nn.Parameter(w).data.zero_()", grad=False),
    Expr("Tensor.fill_", "nn.Parameter(w).data.fill_(1.5)", grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
