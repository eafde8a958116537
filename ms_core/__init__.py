"""ms_core: a NumPy-backed deep-learning core with MindSpore's API and semantics.

    import ms_core as ms
    from ms_core import nn, ops
"""
from .common import dtype  # noqa: F401
from .common.dtype import *  # noqa: F401,F403
from .common.dtype import bool_, float16, float32, float64, int32, int64  # noqa: F401
from .common.tensor import Tensor  # noqa: F401
from .common.parameter import Parameter, ParameterTuple  # noqa: F401
from .common import initializer as _initializer_module  # noqa: F401
from . import ops  # noqa: F401  (loading ops registers them: see ms_core/_registry.py)
from ._api import grad, value_and_grad, vjp, GradOperation  # noqa: F401
from .common.api import _no_grad  # noqa: F401  (MindSpore's grad-mode context)
from .context import (GRAPH_MODE, PYNATIVE_MODE, set_context, get_context,  # noqa: F401
                      set_auto_parallel_context, get_auto_parallel_context, ParallelMode)
from ._random import set_seed, get_seed  # noqa: F401
from .ops.random_ops import get_rng_state, set_rng_state  # noqa: F401
from . import nn, amp, context, common, train  # noqa: F401
from . import dataset, experimental, communication, mint  # noqa: F401
from . import hub  # noqa: F401  (ms_core only: torch checkpoints without torch)
from .train.serialization import *  # noqa: F401,F403


def jit(fn=None, mode="PSJit", input_signature=None, **kwargs):
    """`@ms.jit`: accepted and run eagerly (the numbers are the same)."""
    if fn is None:
        return lambda f: f
    return fn


ms_function = jit


def is_tensor(x):
    return isinstance(x, Tensor)


__version__ = "0.1.0"
