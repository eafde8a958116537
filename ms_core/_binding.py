"""The one place where ms_core's import cycle is closed.

The cycle: the primitives' backward rules are written with ms_core ops (so that a backward pass
is itself recorded and can be differentiated again), and ops are built from the primitives. A
module cannot import one that imports it while both are loading, so the modules load in the order
primitives -> ops, each primitive module holding a placeholder `F = None` for ops.functional, and
`bind()`, called once by ms_core/__init__.py as soon as ops are loaded, fills the placeholders:

    _prims.array.F, _prims.math.F, _prims.nn.F, _prims.loss.F   <- ops.functional

Nothing else assigns these names.
"""
from ._prims import array, loss, math, nn
from .ops import functional


def bind():
    """Give the modules that load before ops.functional their reference to it (see above)."""
    for module in (array, math, nn, loss):
        module.F = functional
