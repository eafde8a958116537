import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn, ops = ms.nn, ms.ops
GradOperation = ops.GradOperation
Tensor = ms.Tensor

hook = ops.HookBackward(lambda g: print("hook_fn print grad_out:", g))
print("output:",
      GradOperation(get_all=True)(lambda x, y: hook(x * y) * y)(Tensor(1, ms.float32), Tensor(2, ms.float32)))


def pre(cell, inputs):
    print("forward inputs: ", inputs)
    return inputs[0]


def fwd(cell, inputs, outputs):
    print("forward inputs: ", inputs)
    print("forward outputs: ", outputs)
    return outputs + outputs


def bwd(cell, grad_input, grad_output):
    print("grad input: ", grad_input)
    print("grad output: ", grad_output)


class Net(nn.Cell):
    def __init__(self, hooks):
        super().__init__()
        self.relu = nn.ReLU()
        for kind, fn in hooks:
            getattr(self.relu, "register_" + kind)(fn)

    def construct(self, x, y):
        return self.relu(x + y)


# One network per combination: MindSpore caches a cell's backward graph, so hooks are never
# changed on a network that has already been differentiated. Two distinct input Tensors: passing
# the same Tensor object twice makes MindSpore 2.10 return the summed gradient at both positions.
for hooks in ([("forward_pre_hook", pre)], [("forward_hook", fwd)], [("backward_hook", bwd)],
              [("forward_pre_hook", pre), ("forward_hook", fwd), ("backward_hook", bwd)]):
    x = Tensor(np.ones([1]).astype(np.float32))
    y = Tensor(np.ones([1]).astype(np.float32))
    print(GradOperation(get_all=True)(Net(hooks))(x, y))


class Scale(nn.Cell):
    def construct(self, x):
        return x * 3


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = Scale()
        self.scale.register_backward_hook(bwd)

    def construct(self, x):
        return self.scale(x) * 2


print(GradOperation()(Outer())(Tensor([1.0])))


class B(nn.Cell):
    def construct(self, x, y):
        return x * y * y

    def bprop(self, x, y, out, dout):
        return x + y, x * y


print(GradOperation(get_all=True)(B())(Tensor(1, ms.float32), Tensor(2, ms.float32)))
