"""Optimizers with MindSpore's update formulas (`ms_core.nn.SGD`, `nn.Momentum`, `nn.Adam`, ...).

MindSpore 2.x has no `nn.AdamW`: `nn.AdamWeightDecay` is its decoupled-decay Adam (without bias
correction); a torch-style AdamW lives in `mindspore.experimental.optim`, outside this package.
"""
from .optimizer import Optimizer
from .sgd import SGD
from .momentum import Momentum
from .adam import Adam, AdamWeightDecay
from .rmsprop import RMSProp
from .ada_grad import Adagrad
from .adamax import AdaMax
from .adadelta import Adadelta
from .lamb import Lamb

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "RMSProp", "Adagrad", "AdaMax",
           "Adadelta", "Lamb"]
