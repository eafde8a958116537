"""torch's rule for a GradScaler on a machine without its device, mirrored by the runtime's
``torch_grad_scaler``: a 'cuda' scaler (torch.cuda.amp.GradScaler, torch.amp.GradScaler's default)
is disabled without CUDA, with a warning; its analogue is a CPU backend (ms_core, MindSpore on
'CPU'). Each answer is compared with torch's own scaler on this CPU-only machine."""
import warnings

import numpy as np
import pytest
import torch

import ms_core as ms
from migrate.runtime import optim as runtime_optim
from migrate.runtime.optim import (torch_grad_scaler, torch_scaler_is_enabled, torch_scaler_load_state_dict,
                                   torch_scaler_state_dict)

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="torch's CPU-only behaviour is the reference")


def _dynamic():
    return ms.amp.DynamicLossScaler(scale_value=1024.0, scale_factor=2, scale_window=3)


def _torch(ctor: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = eval(ctor, {"torch": torch})  # noqa: S307 (the test's own constructor strings)
    return scaler, [w for w in caught if issubclass(w.category, UserWarning)]


def _converted(device, enabled=True):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch_grad_scaler(_dynamic(), device=device, enabled=enabled)
    return scaler, [w for w in caught if issubclass(w.category, UserWarning)]


# (torch's constructor on this machine, the converted call's device and enabled)
CASES = [("torch.cuda.amp.GradScaler(init_scale=1024.0, growth_interval=3)", "cuda", True),
         ("torch.amp.GradScaler(init_scale=1024.0, growth_interval=3)", "cuda", True),
         ("torch.amp.GradScaler('cuda', init_scale=1024.0, growth_interval=3, enabled=False)", "cuda", False),
         ("torch.amp.GradScaler('cpu', init_scale=1024.0, growth_interval=3)", "cpu", True),
         ("torch.amp.GradScaler('cpu', init_scale=1024.0, growth_interval=3, enabled=False)", "cpu", False)]


@pytest.mark.parametrize("ctor, device, enabled", CASES)
def test_enabled_scale_state_and_warning_follow_torch(ctor, device, enabled):
    ref, ref_warnings = _torch(ctor)
    got, got_warnings = _converted(device, enabled)
    assert torch_scaler_is_enabled(got) == ref.is_enabled()
    assert float(got.scale_value) == ref.get_scale()
    assert torch_scaler_state_dict(got) == ref.state_dict()
    assert len(got_warnings) == len(ref_warnings)
    if ref_warnings:
        assert "Disabling" in str(got_warnings[0].message) and "CPU" in str(got_warnings[0].message)
    loss = np.float32(2.5)
    scaled = ref.scale(torch.tensor(loss))
    np.testing.assert_allclose(got.scale(ms.Tensor(loss)).asnumpy(), scaled.numpy(), rtol=1e-6)


def test_disabled_scaler_ignores_a_state_dict_as_torch_does():
    ref, _ = _torch("torch.cuda.amp.GradScaler()")
    got, _ = _converted("cuda")
    state = {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 5, "_growth_tracker": 1}
    ref.load_state_dict(state)
    torch_scaler_load_state_dict(got, state)
    assert float(got.scale_value) == ref.get_scale() == 1.0


def test_a_cuda_scaler_scales_on_an_accelerator(monkeypatch):
    # MindSpore on Ascend/GPU: the scaler built from torch's arguments, as torch's on a CUDA machine
    monkeypatch.setattr(runtime_optim, "_accelerator", lambda: True)
    built = _dynamic()
    got, caught = _converted("cuda")
    assert caught == []
    got = torch_grad_scaler(built)
    assert got is built and torch_scaler_is_enabled(got)
    assert isinstance(torch_grad_scaler(built, enabled=False), ms.amp.StaticLossScaler)


def test_ms_core_counts_as_a_cpu_even_with_a_gpu_device_target():
    before = ms.get_context("device_target")
    ms.set_context(device_target="GPU")
    try:
        got, caught = _converted("cuda")
    finally:
        ms.set_context(device_target=before)
    assert not torch_scaler_is_enabled(got) and len(caught) == 1
