"""migrate.runtime.distributed against torch: DDP's broadcasts of parameters and buffers, and
SyncBatchNorm over all-reduces (in a group of one it is torch's BatchNorm; on two processes, the
BatchNorm of the whole batch). The two-process run is a launcher child with a timeout."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from migrate.runtime.distributed import (TorchSyncBatchNormAllReduce, torch_convert_sync_batchnorm,
                                         torch_distributed_data_parallel)

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")
ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "distributed" / "runtime_helpers.py"


def _bn_pair(c=3):
    ours = TorchSyncBatchNormAllReduce(c, eps=1e-3, momentum=0.2)
    ref = torch.nn.BatchNorm2d(c, eps=1e-3, momentum=0.2)
    gamma, beta = np.array([1.5, 0.5, 1.0][:c], np.float32), np.array([0.1, -0.2, 0.3][:c], np.float32)
    ours.gamma.set_data(ms.Tensor(gamma))
    ours.beta.set_data(ms.Tensor(beta))
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(gamma))
        ref.bias.copy_(torch.from_numpy(beta))
    return ours, ref


def test_sync_batchnorm_of_one_process_is_torchs_batchnorm():
    ours, ref = _bn_pair()
    ours.set_train(True)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 3, 5, 5)).astype(np.float32), rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    loss, (dx, (dg, db)) = ms.value_and_grad(lambda v: (ours(v) * ms.Tensor(w)).sum(), 0,
                                             ours.trainable_params())(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    tloss = (ref(tx) * torch.from_numpy(w)).sum()
    tloss.backward()
    np.testing.assert_allclose(loss.asnumpy(), tloss.item(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dg.asnumpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(db.asnumpy(), ref.bias.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours.moving_mean.asnumpy(), ref.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.moving_variance.asnumpy(), ref.running_var.numpy(), rtol=1e-5, atol=1e-6)
    ours.set_train(False)
    ref.eval()
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), ref(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_convert_sync_batchnorm_replaces_every_batchnorm_with_its_state():
    net = ms.nn.SequentialCell([ms.nn.Conv2d(3, 3, 1), ms.nn.BatchNorm2d(3, momentum=0.7)])
    net[1].moving_mean.set_data(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    out = torch_convert_sync_batchnorm(net)
    assert out is net and isinstance(net[1], TorchSyncBatchNormAllReduce)
    assert net[1].momentum == pytest.approx(0.3)  # torch's momentum: the weight of the new batch
    np.testing.assert_array_equal(net[1].moving_mean.asnumpy(), [1.0, 2.0, 3.0])
    assert isinstance(torch_convert_sync_batchnorm(ms.nn.BatchNorm1d(2)), TorchSyncBatchNormAllReduce)


def test_ddp_of_one_process_changes_nothing():
    net = ms.nn.Dense(2, 2)
    before = net.weight.asnumpy().copy()
    assert torch_distributed_data_parallel(net) is net
    np.testing.assert_array_equal(net.weight.asnumpy(), before)


def test_sync_batchnorm_momentum_none_is_refused():
    with pytest.raises(ValueError, match="momentum=None"):
        TorchSyncBatchNormAllReduce(3, momentum=None)


def run_two_processes(out_dir, launcher=None, env=None, pythonpath=None, timeout=240):
    """FIXTURE on 2 processes (ms_core's launcher unless `launcher` is given); fails on timeout."""
    cmd = launcher or [sys.executable, "-m", "ms_core.launch", "--nproc", "2"]
    env = dict(env or os.environ,
               PYTHONPATH=pythonpath or os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([*cmd, str(FIXTURE), str(out_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=str(out_dir),
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the two-process run did not finish in {timeout} s")
    assert proc.returncode == 0, out[-3000:]
    return [dict(np.load(Path(out_dir) / f"rank{r}.npz")) for r in range(2)]


def check_two_ranks(got):
    """What both ranks must hold after FIXTURE (references: rank 0's values; torch's BatchNorm2d
    on the concatenated batch)."""
    for r, g in enumerate(got):
        np.testing.assert_array_equal(g["ddp_weight"], np.ones((2, 3), np.float32))
        np.testing.assert_array_equal(g["ddp_mean_built"], np.full(2, 10.0, np.float32))
        # rank 0's 100 before the forward, then this rank's batch with momentum 0.1
        want = 0.9 * 100.0 + 0.1 * g["ddp_dense_out"].mean(axis=0)
        np.testing.assert_allclose(g["ddp_mean_after_step"], want, rtol=1e-5)
        assert str(g["converted_type"]) == "TorchSyncBatchNormAllReduce"
    x = torch.tensor(np.concatenate([g["bn_x"] for g in got]), dtype=torch.float64, requires_grad=True)
    w = torch.tensor(np.concatenate([g["bn_w"] for g in got]), dtype=torch.float64)
    bn = torch.nn.BatchNorm2d(3, momentum=0.1).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.5, 0.5, 1.0]))
        bn.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    (bn(x) * w).sum().backward()
    y = bn(x).detach().numpy()
    for g, rows in ((got[0], slice(0, 2)), (got[1], slice(2, 5))):
        np.testing.assert_allclose(g["bn_y"], y[rows], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(g["bn_dx"], x.grad.numpy()[rows], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g["bn_mean"], bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["bn_var"], bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0]["bn_dgamma"] + got[1]["bn_dgamma"], bn.weight.grad.numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[0]["bn_dbeta"] + got[1]["bn_dbeta"], bn.bias.grad.numpy(),
                               rtol=1e-5, atol=1e-5)


def test_ddp_broadcasts_and_sync_batchnorm_on_two_processes(tmp_path):
    check_two_ranks(run_two_processes(tmp_path))
