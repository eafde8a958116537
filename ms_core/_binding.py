"""The one place where ms_core's import cycle is closed.

The cycle has three links:

- ops are built from primitives, which the engine applies (`_engine.apply`), and the engine wraps
  every result in a Tensor;
- a Tensor's operators and methods (`a + b`, `t.sum()`, `t.reshape(...)`) are ops;
- every primitive's backward is written with ops, so that a backward pass is itself recorded and
  can be differentiated again (`grad(grad(f))`).

A module cannot import one that imports it while both are loading. So they load in one order,
engine -> Tensor -> primitives -> ops, each holding a placeholder (None) for what loads after it,
and `bind()`, called once by ms_core/__init__.py as soon as ops are loaded (before anything can
compute with a Tensor or differentiate), fills the placeholders:

    _engine.Tensor                                              <- common.tensor.Tensor
    common.tensor.F, common.tensor_methods.F                    <- ops.functional
    _prims.array.F, _prims.math.F, _prims.nn.F, _prims.loss.F,
    _prims.math_ext.F, _prims.linalg.F, _prims.comm.F           <- ops.functional
    _prims.complex.F                                            <- ops (the package: real, Complex...)

Nothing else assigns these names.
"""
from . import _engine
from ._prims import array, comm, complex as complex_prims, linalg, loss, math, math_ext, nn
from .common import tensor, tensor_methods
from . import ops
from .ops import functional


def bind():
    """Give the modules that load before Tensor and ops their references to them (see above)."""
    _engine.Tensor = tensor.Tensor
    api = {complex_prims: ops}  # complex primitives' backward needs ops.real/Complex, not in functional
    for module in (tensor, tensor_methods, array, math, nn, loss, math_ext, linalg, complex_prims,
                   comm):
        module.F = api.get(module, functional)
