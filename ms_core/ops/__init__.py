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
from .array_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .einsum_ops import *  # noqa: F401,F403
from .._api import GradOperation  # noqa: F401
from . import functional, operations  # noqa: F401
