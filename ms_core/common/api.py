"""MindSpore's PyNative grad mode: the executor flag that ``ms._no_grad`` switches off.

MindSpore 2.10 keeps it on ``mindspore.common.api._pynative_executor`` (``enable_grad()``,
``set_enable_grad(flag)``); ``mindspore._no_grad`` is a context manager and decorator that turns
it off and restores the previous value at exit. While it is off, ops record nothing, also inside
``ms.grad`` (what is computed there is a constant to the gradient, as under torch's no_grad), and
calling a grad transform raises ``RuntimeError: In no_grad context, you can not calculate
gradient`` (checked on MindSpore 2.10).
"""
import contextlib

from .. import _engine


class _PyNativeExecutor:
    """The part of MindSpore's PyNative executor that holds the grad mode."""

    @staticmethod
    def enable_grad():
        """Whether ops run now are recorded for gradients (True unless switched off)."""
        return _engine.state.grad_enabled

    @staticmethod
    def set_enable_grad(flag):
        """Switch the grad mode on or off."""
        _engine.state.grad_enabled = bool(flag)


_pynative_executor = _PyNativeExecutor()


class _no_grad(contextlib.ContextDecorator):
    """Context manager (and decorator) that disables gradient recording and restores the previous
    mode at exit.

    Example:
        >>> with ms._no_grad():
        ...     y = x * 2   # a constant to any enclosing ms.grad
    """

    def __init__(self):
        self.prev_state = False

    def __enter__(self):
        self.prev_state = _pynative_executor.enable_grad()
        _pynative_executor.set_enable_grad(False)

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pynative_executor.set_enable_grad(self.prev_state)
        return False
