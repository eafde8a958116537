# Gradient conventions at ties and boundaries (max/min, relu and abs at 0, clip bounds, sqrt at 0).
import importlib
import os
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
ops = ms.ops
x = ms.Tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
print(ms.grad(lambda t: ops.amax(t, 1).sum())(x))
print(ms.grad(lambda t: t.max())(x))
print(ms.grad(lambda t: ops.max(t, 1)[0].sum())(x))
print(ms.grad(lambda t: ops.max(t)[0])(x))
print(ops.max(x), ops.min(x))
print(ms.grad(lambda t: ops.relu(t).sum())(ms.Tensor([0.0, -1.0, 1.0])))
print(ms.grad(lambda t: ops.abs(t).sum())(ms.Tensor([0.0, -1.0, 1.0])))
print(ms.grad(lambda t: ops.clip_by_value(t, 0.0, 1.0).sum())(ms.Tensor([0.0, 1.0, 0.5, 2.0])))
print(ms.grad(lambda t: ops.sqrt(t).sum())(ms.Tensor([0.0, 4.0])))
print(ms.grad(lambda t: ops.pow(t, 2.0).sum())(ms.Tensor([0.0, -2.0])))
print(ms.grad(lambda t: ops.pow(2.0, t).sum())(ms.Tensor([0.0, 1.0])))
