"""F.batch_norm without running statistics (weight standardization): the generated
torch_batch_stats_norm gives torch's values and gradients; before/after pairs."""
import numpy as np
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, after

rs = np.random.RandomState(0)


def _both(code):
    src = HEADER + code
    res = convert_source(src)
    assert "# migrate:" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(src, "<torch>", "exec"), t_ns)
    exec(compile(res.code, "<converted>", "exec"), m_ns)
    return t_ns["f"], m_ns["f"]


def test_batch_statistics_call_becomes_the_generated_helper():
    out = after("def f(w, g):\n"
                "    return F.batch_norm(w, None, None, weight=g, training=True, momentum=0., eps=1e-6)\n")
    assert "torch_batch_stats_norm(w, g, None, training=True, eps=1e-6)" in out, out
    assert convert_source(HEADER + "y = F.batch_norm(x, None, None, training=True)\n").runtime == \
        ("torch_batch_stats_norm",)


def test_one_running_statistic_only_is_marked():
    assert "# migrate: MS902" in after("y = F.batch_norm(x, m, None, training=True)\n")


def test_batch_statistics_values_and_gradients_match_torch():
    t_f, m_f = _both("def f(x, w, b):\n    return F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5) * x\n")
    x = rs.randn(4, 3, 5).astype(np.float32)
    w, b = rs.randn(3).astype(np.float32), rs.randn(3).astype(np.float32)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    t_out = t_f(tx, tw, tb)
    t_out.sum().backward()
    m_out = m_f(*(ms.Tensor(a) for a in (x, w, b)))
    grads = ms.grad(lambda *a: m_f(*a).sum(), grad_position=(0, 1, 2))(*(ms.Tensor(a) for a in (x, w, b)))
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)  # 1/sqrt vs rsqrt
    for g, t in zip(grads, (tx, tw, tb)):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)  # sums over 20 terms


def test_batch_statistics_in_evaluation_mode_raise_as_torch():
    _, m_f = _both("def f(x):\n    return F.batch_norm(x, None, None, training=False)\n")
    try:
        m_f(ms.Tensor(rs.randn(2, 3).astype(np.float32)))
    except ValueError as e:
        assert "running_mean and running_var must be given" in str(e)
    else:
        raise AssertionError("no error")
