"""`ms_core.ops`: functional ops, primitive classes, GradOperation and HookBackward."""
from .functional import *  # noqa: F401,F403
from .functional import (abs, max, min, pow, round, sum)  # noqa: F401  (shadow builtins on purpose)
from .operations import *  # noqa: F401,F403
from .operations import PrimitiveOp as Primitive  # noqa: F401
from .conv_ops import *  # noqa: F401,F403
from .conv3d_ops import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .layer_ops import *  # noqa: F401,F403
from .random_ops import *  # noqa: F401,F403
from .comm_ops import *  # noqa: F401,F403
# Tensor methods use array_ops / math_ops directly; the ops namespace gets MindSpore 2.10's
# signatures from the *_func modules, which come after them
from .array_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .array_func import *  # noqa: F401,F403
from .math_func import *  # noqa: F401,F403
from .linalg_func import *  # noqa: F401,F403
from .nn_func import *  # noqa: F401,F403
from .einsum_ops import *  # noqa: F401,F403
from .complex_func import *  # noqa: F401,F403
from .fft_func import *  # noqa: F401,F403
from .._api import GradOperation  # noqa: F401
from . import functional, operations  # noqa: F401
