"""`ms_core.experimental`: MindSpore's experimental APIs (PyTorch-semantics optimizers and lr
schedulers in `experimental.optim`).

`optim` is imported on first use, so `import ms_core` stays fast.
"""
import importlib

__all__ = ["optim"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
