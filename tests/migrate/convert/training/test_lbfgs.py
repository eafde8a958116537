"""torch.optim.LBFGS with a closure -> the generated TorchLBFGS, the closure's backward() as
ms.value_and_grad returning (loss, grads): the same losses and parameters as torch over several
steps (float64: the L-BFGS recursion amplifies float32 rounding of its dot products, so the
float32 fixture tests/fixtures/training/lbfgs_closure.py is compared at rtol 1e-4 only)."""
import importlib.util
import textwrap

import numpy as np
import pytest
import torch

from migrate import convert_source

SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    import torch.optim as optim


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 8)
            self.fc2 = nn.Linear(8, 1)

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(x)))


    def train(model, input, target, steps):
        criterion = nn.MSELoss()
        optimizer = optim.LBFGS(model.parameters(), OPTIONS)
        losses = []
        for i in range(steps):
            def closure():
                optimizer.zero_grad()
                out = model(input)
                loss = criterion(out, target)
                losses.append(loss.item())
                loss.backward()
                return loss
            first = optimizer.step(closure)
            losses.append(first.item())
        return losses
    """)


def _module(tmp_path, name, code):
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("options", ["lr=0.8", "lr=1, max_iter=7, history_size=3",
                                     "0.5, 4, 6, 1e-7, 1e-5"])
def test_lbfgs_steps_match_torch_in_float64(tmp_path, options):
    import ms_core as ms
    script = SCRIPT.replace("OPTIONS", options)
    res = convert_source(script)
    assert "# migrate: MS9" not in res.code.replace('(marked "# migrate: MS9xx")', ""), res.code
    assert f"TorchLBFGS(model.trainable_params(), {options})" in res.code
    assert "return loss, grads" in res.code and "ms.value_and_grad(forward_fn, None, optimizer.parameters)" in res.code
    t, c = _module(tmp_path, "lbfgs_t", script), _module(tmp_path, "lbfgs_c", res.code)
    rs = np.random.RandomState(0)
    x = rs.randn(16, 3)
    y = np.sin(x.sum(1, keepdims=True))
    torch.manual_seed(0)
    tm, cm = t.Net().double(), c.Net()
    for p, q in zip(tm.parameters(), cm.trainable_params()):
        q._data = p.detach().numpy().copy()  # float64 parameters (ms_core's set_data keeps float32)
    want = t.train(tm, torch.tensor(x), torch.tensor(y), 3)
    got = c.train(cm, ms.Tensor(x), ms.Tensor(y), 3)
    assert len(got) == len(want) > 6
    np.testing.assert_allclose(got, want, rtol=1e-6)  # 60 evaluations: rounding grows to ~1e-7
    for p, q in zip(tm.parameters(), cm.trainable_params()):
        assert q.asnumpy().dtype == np.float64
        np.testing.assert_allclose(q.asnumpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_line_search_is_marked():
    code = convert_source(SCRIPT.replace("OPTIONS", "line_search_fn='strong_wolfe'")).code
    assert ("# migrate: MS902 torch.optim.LBFGS: line_search_fn='strong_wolfe': "
            "the generated LBFGS steps by lr only") in code


def test_a_closure_that_returns_another_value_is_marked():
    code = convert_source(SCRIPT.replace("OPTIONS", "lr=1").replace("            return loss\n",
                                                                     "            return loss.item()\n")).code
    assert "# migrate: MS953 the closure of optimizer.step() returns something else" in code


def test_the_runtime_optimizer_refuses_a_plain_loss():
    import ms_core as ms
    from migrate.runtime.optim import TorchLBFGS
    opt = TorchLBFGS([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")])
    with pytest.raises(TypeError, match="For 'LBFGS', the closure must return \\(loss, grads\\)"):
        opt.step(lambda: ms.Tensor(1.0))
    with pytest.raises(ValueError, match="For 'LBFGS', line_search_fn 'strong_wolfe' is not supported"):
        TorchLBFGS([], line_search_fn="strong_wolfe")
