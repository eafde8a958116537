"""Oracle: a module's forward read or replaced as a value, converted with --target mindspore
(``module.construct = wrapper``, ``setattr(module, "construct", f)``): MindSpore 2.10 PyNative calls an
instance's construct, so the converted Net gives torch's values and input gradients, as on ms_core
(tests/migrate/convert/test_forward_as_value.py)."""
import subprocess
import textwrap

import pytest

from migrate import convert_source
from tests.migrate.convert.test_forward_as_value import SRC

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

# runs under the oracle interpreter, which has torch too
DRIVER = textwrap.dedent("""
    import sys
    import numpy as np, torch, mindspore as ms
    sys.path[:0] = [sys.argv[1]]
    import forward_ms as m
    import forward_torch as t
    torch.manual_seed(0)
    ref, net = t.Net(), m.Net()
    for name in ("fc", "out"):
        layer = ref.fc if name == "fc" else ref.out.inner
        target = net.fc if name == "fc" else net.out.inner
        target.weight.set_data(ms.Tensor(layer.weight.detach().numpy()))
        target.bias.set_data(ms.Tensor(layer.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    xt = torch.from_numpy(x).requires_grad_()
    want = ref(xt)
    want.sum().backward()
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    grad = ms.grad(lambda v: net(v).sum())(ms.Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    print("ok")
""")


def test_a_replaced_forward_runs_on_mindspore(tmp_path):
    res = convert_source(SRC, target="mindspore")
    assert res.error is None and "# migrate" not in res.code and "module.construct = forward" in res.code, res.code
    (tmp_path / "forward_ms.py").write_text(res.code)
    (tmp_path / "forward_torch.py").write_text(SRC)
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path)], capture_output=True, text=True,
                          timeout=600, env=oracle_env("mindspore"))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-4000:]
