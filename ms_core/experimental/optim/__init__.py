"""`ms_core.experimental.optim`: optimizers with PyTorch's update rules and `param_groups`, and
their `lr_scheduler`s, as `mindspore.experimental.optim`.

    from ms_core.experimental import optim
    optimizer = optim.SGD(net.trainable_params(), lr=0.1, momentum=0.9)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=10)
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    loss, grads = grad_fn(x, y)
    optimizer(grads)
    scheduler.step()
"""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .asgd import ASGD
from .rprop import Rprop
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
           "RAdam", "ASGD", "Rprop", "lr_scheduler"]
