"""Optimizers with MindSpore's update formulas (`ms_core.nn.SGD`, `nn.Momentum`, `nn.Adam`, ...).

Checked on MindSpore 2.10: there is no `nn.AdamW`. `nn.AdamWeightDecay` is its decoupled-decay
Adam (without bias correction); the torch-style AdamW is `mindspore.experimental.optim.AdamW`
(`ms_core.experimental.optim.AdamW` here). Each optimizer's docstring states its update formula and
how it differs from the torch optimizer of the same name.
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
