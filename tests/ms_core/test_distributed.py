"""ms_core.communication over several processes (torch.distributed's gloo backend) and the
launcher `python -m ms_core.launch`. Every process group runs in children of a launcher that
the test starts with a timeout and stops (with its workers) when the time is up."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "distributed"
TIMEOUT = 180  # seconds; a run takes a few (two workers importing torch on a loaded machine)


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for k in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    env.update(extra)
    return env


def run_bounded(cmd, timeout=TIMEOUT, env=None):
    """Run `cmd` in its own session; on timeout stop the session (launcher and workers) and fail."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env or _env(), cwd=str(ROOT))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(map(str, cmd))} did not finish in {timeout} s")
    return proc.returncode, out, err


def launch(nproc, script, *args, extra=()):
    return run_bounded([sys.executable, "-m", "ms_core.launch", "--nproc", str(nproc), *extra,
                        str(FIXTURES / script), *map(str, args)])


def _ranks(out_dir, n):
    return [dict(np.load(out_dir / f"rank{r}.npz")) for r in range(n)]


def test_collectives_and_sync_batchnorm_on_two_processes(tmp_path):
    code, out, err = launch(2, "collectives.py", tmp_path)
    assert code == 0, err
    got = _ranks(tmp_path, 2)
    n = 2
    xs = [np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3) * (r + 1) - r for r in range(n)]
    for r, g in enumerate(got):
        assert (int(g["rank"]), int(g["size"]), int(g["local"])) == (r, n, r)
        np.testing.assert_array_equal(g["allreduce_sum"], xs[0] + xs[1])
        np.testing.assert_array_equal(g["allreduce_max"], np.maximum(xs[0], xs[1]))
        np.testing.assert_array_equal(g["allgather"], np.concatenate(xs))
        np.testing.assert_array_equal(g["reducescatter"], (xs[0] + xs[1])[2 * r:2 * r + 2])
        np.testing.assert_array_equal(g["broadcast_last"], xs[n - 1])
        np.testing.assert_array_equal(g["comm_all_reduce"], xs[0] + xs[1])
        np.testing.assert_array_equal(g["comm_broadcast"], xs[0])
        np.testing.assert_array_equal(g["x_after"], xs[r])
        np.testing.assert_array_equal(g["mint_all_reduce"], np.full((3, 2), 3.0, np.float32))
        np.testing.assert_array_equal(g["mint_avg"], np.full(4, 0.5, np.float32))
        # one buffer, three rounds: each sums the two ranks' current values (both equal after one)
        np.testing.assert_array_equal(g["mint_rounds"], [[3, 6], [6, 12], [12, 24]])
        base = np.array([2.0, -1.0, 3.0], np.float32)
        np.testing.assert_array_equal(g["mint_prod"], base * base * 2)
        np.testing.assert_array_equal(g["mint_min"], np.minimum(base, base * 2))
        np.testing.assert_array_equal(g["mint_max"], np.maximum(base, base * 2))
        for name, dtype in (("int32", np.int32), ("float64", np.float64), ("complex64", np.complex64)):
            assert g[f"mint_{name}"].dtype == dtype
            np.testing.assert_array_equal(g[f"mint_{name}"], np.array([3, 6, 9], dtype))
        np.testing.assert_array_equal(g["mint_many"], [[2 * k + 1] * 2 for k in range(10)])
        np.testing.assert_array_equal(g["mint_broadcast"], np.full(2, 10.0, np.float32))
        np.testing.assert_array_equal(g["mint_all_gather"], np.array([[0, 0], [1, 1]], np.float32))
        np.testing.assert_array_equal(g["objects"], [0, 1])
        np.testing.assert_array_equal(g["reduced0"], np.full((2, 2), 1.5, np.float32))
        assert g["reduced1"].dtype == np.float16
        np.testing.assert_array_equal(g["reduced1"], np.full(3, 1.5, np.float16))
        # d/dv of sum_k (k+1) * AllReduce(v): every rank's weight reaches every rank's input
        np.testing.assert_array_equal(g["grad_through_allreduce"], np.full(2, 3.0, np.float32))
        np.testing.assert_array_equal(g["sub_rank_size"], [r, 2])
        assert float(g["sub_sum"]) == 3.0
    _check_sync_batchnorm(got)


def _check_sync_batchnorm(got):
    """Two ranks with batches of 2 and 3: outputs, input and affine gradients and moving
    statistics equal torch's BatchNorm2d on the concatenated batch of 5 (float64 reference)."""
    x = torch.tensor(np.concatenate([g["bn_x"] for g in got]), dtype=torch.float64, requires_grad=True)
    w = torch.tensor(np.concatenate([g["bn_w"] for g in got]), dtype=torch.float64)
    bn = torch.nn.BatchNorm2d(3, momentum=0.1).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.5, 0.5, 1.0]))
        bn.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    bn.train()
    (bn(x) * w).sum().backward()
    y2 = bn(x).detach().numpy()
    dx = x.grad.numpy()
    for g, rows in ((got[0], slice(0, 2)), (got[1], slice(2, 5))):
        np.testing.assert_allclose(g["bn_y"], y2[rows], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(g["bn_dx"], dx[rows], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g["bn_mean"], bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["bn_var"], bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    # gamma and beta get each rank's own share (a DistributedGradReducer sums them)
    np.testing.assert_allclose(got[0]["bn_dgamma"] + got[1]["bn_dgamma"], bn.weight.grad.numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[0]["bn_dbeta"] + got[1]["bn_dbeta"], bn.bias.grad.numpy(),
                               rtol=1e-5, atol=1e-5)


def test_a_killed_worker_ends_the_launcher_with_one_line_and_an_error_code():
    code, out, err = launch(2, "killed.py")
    assert code == 128 + signal.SIGKILL
    lines = [ln for ln in err.splitlines() if ln.startswith("ms_core.launch:")]
    assert lines == [lines[0]] and "worker rank 1" in lines[0] and "killed by SIGKILL" in lines[0], err


@pytest.mark.parametrize("args,msg", [
    (["--nproc", "0"], "--nproc must be at least 1"),
    (["--nproc", "2", "--nnodes", "2", "--node-rank", "1"], "--master-port is required"),
    (["--nproc", "2", "--nnodes", "2", "--node-rank", "2", "--master-port", "1234"], "--node-rank must be in [0, 2)"),
    (["--nproc", "2", "--master-port", "70000"], "--master-port must be in [1, 65535]"),
])
def test_the_launcher_refuses_bad_arguments_with_a_message(tmp_path, capsys, args, msg):
    from ms_core import launch as launcher
    script = tmp_path / "s.py"
    script.write_text("raise SystemExit('a worker started')\n")
    with pytest.raises(SystemExit) as exc:
        launcher.main([*args, str(script)])
    assert exc.value.code == 2 and msg in capsys.readouterr().err


def test_the_launcher_refuses_a_missing_script(tmp_path, capsys):
    from ms_core import launch as launcher
    with pytest.raises(SystemExit) as exc:
        launcher.main(["--nproc", "1", str(tmp_path / "missing.py")])
    assert exc.value.code == 2 and "does not exist" in capsys.readouterr().err


def test_the_launcher_sets_each_workers_environment_and_logs(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os, sys\nprint(*[os.environ[k] for k in ('RANK', 'WORLD_SIZE', 'LOCAL_RANK', "
                      "'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'RANK_ID', 'RANK_SIZE', 'DEVICE_ID')], sys.argv[1:])\n")
    code, out, err = run_bounded([sys.executable, "-m", "ms_core.launch", "--nproc", "2", "--nnodes", "2",
                                  "--node-rank", "1", "--master-port", "29999", "--log-dir", str(tmp_path / "logs"),
                                  str(script), "--flag", "x"])
    assert code == 0, err
    logs = sorted((tmp_path / "logs").iterdir())
    assert [p.name for p in logs] == ["worker_2.log", "worker_3.log"]
    assert logs[0].read_text() == "2 4 0 2 1 2 4 0 ['--flag', 'x']\n"
    assert logs[1].read_text() == "3 4 1 2 1 3 4 1 ['--flag', 'x']\n"


def test_a_group_of_one_never_imports_torch():
    code = ("import sys; import numpy as np; import ms_core as ms; ms.communication.init(); "
            "x = ms.Tensor(np.ones(2, np.float32)); ms.mint.distributed.all_reduce(x); "
            "y = ms.ops.AllReduce()(x); ms.nn.DistributedGradReducer([], mean=True)((y,)); "
            "print(ms.communication.get_group_size(), 'torch' in sys.modules)")
    rc, out, err = run_bounded([sys.executable, "-c", code])
    assert (rc, out.split()) == (0, ["1", "False"]), err


def test_without_torch_a_group_of_one_works_and_a_launched_group_says_what_to_do():
    block = "import sys; sys.modules['torch'] = None; import numpy as np; import ms_core as ms; "
    rc, out, err = run_bounded([sys.executable, "-c", block + "ms.communication.init(); "
                                "print(ms.ops.AllReduce()(ms.Tensor(np.ones(2, np.float32))).asnumpy().sum())"])
    assert (rc, out.strip()) == (0, "2.0"), err
    env = _env(WORLD_SIZE="2", RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    rc, out, err = run_bounded([sys.executable, "-c", block + "ms.communication.init()"], env=env)
    assert rc != 0
    assert "the launcher started 2 processes" in err and "Install torch" in err


def test_collectives_before_init_under_a_launcher_say_to_call_init():
    env = _env(WORLD_SIZE="2", RANK="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    code = ("import numpy as np; import ms_core as ms; print(ms.communication.get_rank(), "
            "ms.communication.get_group_size()); ms.ops.AllReduce()(ms.Tensor(np.ones(2, np.float32)))")
    rc, out, err = run_bounded([sys.executable, "-c", code], env=env)
    assert out.split() == ["1", "2"] and rc != 0
    assert "call ms.communication.init() before any collective" in err


def test_a_group_keeps_the_torch_views_of_its_last_arrays():
    """The view of an array reduced again is reused (no new tensor per call), it shares the
    array's memory, and only the last few arrays are kept (no process group is needed for it)."""
    import torch.distributed as dist

    from ms_core.communication._group import KEPT_VIEWS, Gloo
    group = Gloo(torch, dist, None, [0], 0)
    arrays = [np.zeros(3, np.float32) for _ in range(KEPT_VIEWS + 2)]
    first = group._view(arrays[0])
    assert group._view(arrays[0]) is first
    first += 2
    np.testing.assert_array_equal(arrays[0], [2, 2, 2])
    for a in arrays[1:]:
        group._view(a)
    assert len(group._views) == KEPT_VIEWS
    assert group._view(arrays[0]) is not first  # dropped as the oldest, made again
    group._views.clear()
