"""`ms_core.nn`: Cell, layers, losses, optimizers."""
from .cell import Cell, HookHandle  # noqa: F401
from .layer.basic import *  # noqa: F401,F403
from .layer.basic import Dense, Flatten, Identity  # noqa: F401
from .layer.activation import *  # noqa: F401,F403
from .layer.activation import ReLU, Sigmoid, Tanh, Softmax, LogSoftmax, get_activation  # noqa: F401
from .layer.conv import *  # noqa: F401,F403
from .layer.pooling import *  # noqa: F401,F403
from .layer.image import *  # noqa: F401,F403
from .layer.normalization import *  # noqa: F401,F403
from .layer.container import *  # noqa: F401,F403
from .layer.embedding import *  # noqa: F401,F403
from .layer.dropout import *  # noqa: F401,F403
from .layer.rnns import *  # noqa: F401,F403
from .layer.transformer import *  # noqa: F401,F403
from .layer.padding import *  # noqa: F401,F403
from .loss.loss import *  # noqa: F401,F403
from .loss.loss import LossBase, MSELoss, L1Loss, BCEWithLogitsLoss  # noqa: F401
from .optim import *  # noqa: F401,F403
from .wrap import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .dynamic_lr import *  # noqa: F401,F403
from . import utils  # noqa: F401
