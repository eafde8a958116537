"""The one switch between ms_core and MindSpore: every other module of the runtime imports the
framework from here (``from .backend import ms, nn, ops, init``).

In this repository the framework is chosen by the environment variable ``MIGRATE_RUNTIME_TARGET``
(``ms_core``, the default, or ``mindspore``), read once when the runtime is first imported, so a
test can run the same runtime on either. The copy that ``migrate convert`` writes into an output
tree has this module replaced by the fixed imports of the conversion's target
(:func:`migrate.runtime.writer.backend_source`): converted code never reads the environment.
"""
import os

TARGETS = ("ms_core", "mindspore")
TARGET = os.environ.get("MIGRATE_RUNTIME_TARGET", "ms_core")

if TARGET == "mindspore":
    import mindspore as ms
    from mindspore import nn, ops
    from mindspore.common import initializer as init
elif TARGET == "ms_core":
    import ms_core as ms
    from ms_core import nn, ops
    from ms_core.common import initializer as init
else:
    raise ImportError(f"For the migrate runtime, MIGRATE_RUNTIME_TARGET must be one of {list(TARGETS)}, "
                      f"but got {TARGET!r}.")

__all__ = ["TARGET", "init", "ms", "nn", "ops"]
