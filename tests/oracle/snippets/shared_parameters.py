"""A Parameter two cells hold, or one cell reached by two paths, is listed once, under the first
path that reaches it (`self.degrees = self.linear.degrees`, tied embedding and output weights, a
layer assigned twice, a ParameterTuple of Parameters that sub-cells own): parameters_and_names,
trainable_params, untrainable_params, get_parameters and parameters_dict print each Parameter once
with the name it was given first."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn = ms.nn


class HeldByParent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.linear = nn.Dense(2, 3)
        self.linear.degrees = ms.Parameter(ms.Tensor(np.arange(3)), requires_grad=False)
        self.degrees = self.linear.degrees


class HeldBefore(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="scale")
        self.inner = nn.Dense(3, 3)
        self.inner.scale = self.scale


class Tied(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.head = nn.Dense(3, 5, has_bias=False)
        self.head.weight = self.emb.embedding_table


class TwoPaths(nn.Cell):
    def __init__(self):
        super().__init__()
        layer = nn.Dense(2, 2)
        self.a = layer
        self.b = layer


class Gathered(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2, 3)
        self.fc2 = nn.Dense(3, 2)
        self.params = ms.ParameterTuple([self.fc2.weight, self.fc1.weight])


class Nested(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = HeldByParent()
        self.w = self.block.linear.weight


for cls in (HeldByParent, HeldBefore, Tied, TwoPaths, Gathered, Nested):
    net = cls()
    print(cls.__name__)
    print("  parameters_and_names", [(n, p.name) for n, p in net.parameters_and_names()])
    print("  trainable_params", [p.name for p in net.trainable_params()])
    print("  untrainable_params", [p.name for p in net.untrainable_params()])
    print("  get_parameters", [p.name for p in net.get_parameters()])
    print("  parameters_dict", list(net.parameters_dict()))
