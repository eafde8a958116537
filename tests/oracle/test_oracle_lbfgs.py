"""Oracle: the generated TorchLBFGS and its closure (tests/migrate/convert/training/test_lbfgs.py),
converted with --target mindspore, train on real MindSpore 2.10 with torch's losses and
parameters (float32, 3 steps of 5 evaluations: rtol 1e-4, as the float32 fixture
tests/fixtures/training/lbfgs_closure.py on ms_core. In float64 the first loss on MindSpore 2.10
already differs from torch's by ~1e-8 relative (its kernels), which the L-BFGS recursion
amplifies, so the float64 comparison of test_lbfgs.py is not repeated here)."""
import subprocess

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.training.test_lbfgs import SCRIPT, _module

from .test_oracle import ORACLE, oracle_env

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

DRIVER = """
import importlib.util, json, sys
import numpy as np
import mindspore as ms
spec = importlib.util.spec_from_file_location("converted", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
data = np.load(sys.argv[2])
net = mod.Net()
for i, p in enumerate(net.trainable_params()):
    p.set_data(ms.Tensor(data[f"p{i}"]))
losses = mod.train(net, ms.Tensor(data["x"]), ms.Tensor(data["y"]), 3)
np.savez(sys.argv[3], losses=np.array(losses), **{f"p{i}": p.asnumpy() for i, p in enumerate(net.trainable_params())})
"""


def test_lbfgs_trains_on_mindspore_as_torch(tmp_path):
    script = SCRIPT.replace("OPTIONS", "lr=0.5, max_iter=5")
    (tmp_path / "converted.py").write_text(convert_source(script, target="mindspore").code)
    (tmp_path / "driver.py").write_text(DRIVER)
    t = _module(tmp_path, "lbfgs_t", script)
    rs = np.random.RandomState(0)
    x = rs.randn(16, 3).astype(np.float32)
    y = np.sin(x.sum(1, keepdims=True))
    torch.manual_seed(0)
    torch_net = t.Net()
    start = {f"p{i}": p.detach().numpy().copy() for i, p in enumerate(torch_net.parameters())}
    np.savez(tmp_path / "data.npz", x=x, y=y, **start)
    want = t.train(torch_net, torch.tensor(x), torch.tensor(y), 3)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "converted.py"),
                           str(tmp_path / "data.npz"), str(tmp_path / "out.npz")], capture_output=True,
                          text=True, timeout=600, env=oracle_env("mindspore"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = np.load(tmp_path / "out.npz")
    assert len(want) == len(got["losses"]) == 18
    np.testing.assert_allclose(got["losses"], want, rtol=1e-4)
    for i, p in enumerate(torch_net.parameters()):
        np.testing.assert_allclose(got[f"p{i}"], p.detach().numpy(), rtol=1e-4, atol=1e-5)
