"""Checkpoints against hostile headers and killed saves (issue 13, item 9): a forged header of deeply
nested JSON is the checkpoint error, and the temp file of a save killed with SIGKILL is removed by
the next save of the same checkpoint, never the temp file of a save still running."""
import hashlib
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ms_core as ms
from ms_core.train import serialization as ser

ROOT = Path(__file__).resolve().parents[2]

# A child that saves a checkpoint and stops inside the write (fsync blocks), so the parent can
# kill it or save next to it at a known moment.
_BLOCKED_SAVER = """
import os, sys, time
import numpy as np
import ms_core as ms
os.fsync = lambda fd: (print("writing", flush=True), time.sleep(120))
ms.save_checkpoint({"w": ms.Tensor(np.ones((64, 64), np.float32))}, sys.argv[1])
"""


def _forge(path, header_bytes, payload=b""):
    with open(path, "wb") as f:
        f.write(ser._PREFIX.pack(ser.MAGIC, ser.VERSION, len(header_bytes),
                                 hashlib.sha256(header_bytes).digest()))
        f.write(header_bytes + payload)


def test_deeply_nested_header_is_the_checkpoint_error(tmp_path):
    path = str(tmp_path / "nested.ckpt")
    _forge(path, b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ser.CheckpointError, match="nested too deeply"):
        ms.load_checkpoint(path)


def _start_blocked_saver(target):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _BLOCKED_SAVER, str(target)], env=env,
                            stdout=subprocess.PIPE, text=True)
    if not select.select([proc.stdout], [], [], 120)[0]:  # a child stuck before writing fails the test
        proc.kill()
        proc.wait()
        pytest.fail("the saving child printed nothing within 120 s")
    assert proc.stdout.readline().strip() == "writing"
    return proc


def _temps(directory, name):
    return sorted(p.name for p in Path(directory).iterdir()
                  if p.name.startswith(f".{name}.") and p.name.endswith(".tmp"))


def test_next_save_removes_the_temp_file_of_a_killed_save(tmp_path):
    target = tmp_path / "net.ckpt"
    proc = _start_blocked_saver(target)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert len(_temps(tmp_path, "net.ckpt")) == 1  # what kill -9 leaves
    ms.save_checkpoint({"w": ms.Tensor(np.zeros(3, np.float32))}, str(target))
    assert _temps(tmp_path, "net.ckpt") == []
    np.testing.assert_array_equal(ms.load_checkpoint(str(target))["w"].asnumpy(), np.zeros(3, np.float32))


def test_a_running_save_keeps_its_temp_file(tmp_path):
    target = tmp_path / "net.ckpt"
    proc = _start_blocked_saver(target)
    try:
        before = _temps(tmp_path, "net.ckpt")
        ms.save_checkpoint({"w": ms.Tensor(np.zeros(3, np.float32))}, str(target))
        assert _temps(tmp_path, "net.ckpt") == before and len(before) == 1
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def test_other_files_are_never_removed(tmp_path):
    keep = [".net.ckpt.notatoken.tmp", ".other.ckpt.0123456789abcdef.tmp", "net.ckpt.bak",
            ".net.ckpt.0123456789ABCDEF.tmp"]
    for name in keep:
        (tmp_path / name).write_bytes(b"x")
    stale = tmp_path / ".net.ckpt.0123456789abcdef.tmp"
    stale.write_bytes(b"x")
    ms.save_checkpoint({"w": ms.Tensor(np.zeros(3, np.float32))}, str(tmp_path / "net.ckpt"))
    assert not stale.exists()
    assert all((tmp_path / name).exists() for name in keep)
