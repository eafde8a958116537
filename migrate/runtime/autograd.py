"""torch's autograd state as MindSpore's: activation checkpointing, and the grad mode.

The grad mode is the framework's own: MindSpore 2.10's ``ms._no_grad`` switches the PyNative
executor's ``enable_grad`` flag off (ops run inside record nothing, also inside ``ms.grad``, as
torch's no_grad), and ms_core mirrors it. :func:`torch_is_grad_enabled` reads that flag and
:class:`TorchSetGradEnabled` sets it, so torch's ``is_grad_enabled()`` answers as torch's does
under the converted ``no_grad`` / ``set_grad_enabled``. This module is the one place that reaches
that flag (a name MindSpore keeps private): converted code calls these instead.
"""
import contextlib
import functools

from .backend import ms


def torch_checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
                      debug=False, early_stop=True, **kwargs):
    """torch.utils.checkpoint.checkpoint(function, *args, **kwargs) without the recomputation (a
    memory trade: same values and gradients), with torch 2.13's checks of its arguments: keywords
    for the function need use_reentrant=False (None means True)."""
    kwargs.pop("preserve_rng_state", None)
    if use_reentrant is None or use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if context_fn is not None:
        raise ValueError("For 'checkpoint', context_fn (custom recomputation contexts) has no counterpart.")
    return function(*args, **kwargs)


def torch_checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """torch.utils.checkpoint.checkpoint_sequential(functions, segments, input) without the
    recomputation (a memory trade: same values and gradients): the cells of a SequentialCell (or
    a list) applied in order; ``segments`` only said where torch would recompute."""
    kwargs.pop("preserve_rng_state", None)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    for i in range(len(functions)):
        input = functions[i](input)
    return input


@contextlib.contextmanager
def torch_fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """torch.random.fork_rng(): the global generator's state saved on entry and restored at exit,
    so random ops inside do not change what follows (MindSpore's generator; there are no device
    generators to fork)."""
    if not enabled:
        yield
        return
    state = ms.get_rng_state()
    try:
        yield
    finally:
        ms.set_rng_state(state)


def torch_is_grad_enabled():
    """torch.is_grad_enabled(): MindSpore's grad mode (False inside ms._no_grad, torch's no_grad
    converted, and after set_grad_enabled(False))."""
    return ms.common.api._pynative_executor.enable_grad()


class TorchSetGradEnabled:
    """torch.set_grad_enabled(mode): sets MindSpore's grad mode at once (the flag ms._no_grad
    sets), as torch's function does; used as a context, it restores the previous mode at exit."""

    def __init__(self, mode):
        self.prev, self.mode = ms.common.api._pynative_executor.enable_grad(), bool(mode)
        ms.common.api._pynative_executor.set_enable_grad(self.mode)

    def __call__(self, fn):  # as a decorator: the mode is set while fn runs only (torch's too)
        ms.common.api._pynative_executor.set_enable_grad(self.prev)

        def with_mode(*args, **kwargs):
            with TorchSetGradEnabled(self.mode):
                return fn(*args, **kwargs)
        return with_mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        ms.common.api._pynative_executor.set_enable_grad(self.prev)
        return False


class torch_no_grad:
    """torch.no_grad(): a context (and decorator) that turns MindSpore's grad mode off while it is
    entered, or while the decorated function runs, and restores the previous mode at exit: ops
    inside record nothing, also inside ``ms.grad`` (what ``ms._no_grad`` does; lower-case, as
    torch's class is). Building one changes nothing: ``@torch_no_grad()`` on a function does not
    switch the mode when the function is defined."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def without_grad(*args, **kwargs):
            with torch_no_grad():
                return fn(*args, **kwargs)
        return without_grad

    def __enter__(self):
        self.prev = ms.common.api._pynative_executor.enable_grad()
        ms.common.api._pynative_executor.set_enable_grad(False)

    def __exit__(self, *exc):
        ms.common.api._pynative_executor.set_enable_grad(self.prev)
        return False


class TorchEnableGrad:
    """torch.enable_grad(): a context (and decorator) that turns MindSpore's grad mode on while it
    is entered and restores the previous mode at exit (the counterpart of ms._no_grad)."""

    def __call__(self, fn):
        def enabled(*args, **kwargs):
            with TorchEnableGrad():
                return fn(*args, **kwargs)
        return enabled

    def __enter__(self):
        self.prev = ms.common.api._pynative_executor.enable_grad()
        ms.common.api._pynative_executor.set_enable_grad(True)

    def __exit__(self, *exc):
        ms.common.api._pynative_executor.set_enable_grad(self.prev)
        return False
