# Tensor methods called with torch's signatures, which MindSpore 2.10 accepts (and its older forms)
import importlib
import os
import numpy as np
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1.5)
m = ms.Tensor(np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32))
print(m.transpose(0, 1).shape, x.transpose(1, 2).shape, x.transpose(-1, 0).shape, x.transpose(2, 0, 1).shape)
print(x.sum(dim=1, keepdim=True), x.sum(1, True).shape, x.sum(axis=2, keepdims=True).shape, x.mean(dim=(0, 2)))
print(x.max(1)[0], x.max(dim=2, keepdim=True)[1].shape, x.max(), x.min(dim=-1)[1])
print(x.std(), x.std(correction=1), x.var(1, ddof=1), x.std(dim=2, correction=0, keepdim=True).shape)
print(x.squeeze(1).shape, x[:, :1].squeeze(1).shape, x.flatten(1).shape, x.flatten().shape, x.flatten(0, 1).shape)
print(x[:, :1].expand(-1, 3, -1).shape, x.expand(2, 2, 3, 4).shape, x.permute(2, 0, 1).shape, x.view(4, 6).shape)
idx = ms.Tensor(np.array([[[0, 2, 1, 0], [1, 1, 0, 2], [2, 0, 0, 1]]] * 2, np.int64))
print(x.gather(1, idx), x.split(2, dim=2)[1].shape, x.chunk(2, dim=2)[0].shape, x.unbind(1)[2].shape)
print(x.repeat_interleave(2, dim=1).shape, m.diagonal(), x.diagonal(0, 1, 2), x.movedim(0, 2).shape)
print(x.clamp(min=0)[0, 0], x.amax(1), x.logsumexp(1), x.median(1)[0], x.cumsum(dim=2)[1, 2])
print(x.any(dim=1), (x > 0).all(1), x.argmax(dim=2), x.new_zeros((1, 2)).dtype)
# x.add_(v) written as converted code writes it: MindSpore 2.10's own add_/mul_/... leave the
# tensor unchanged on CPU and their gradients ignore them; copy_ updates, and differentiates
y = x * 1
y.copy_(y.copy().add(m.sum(), alpha=2))
y.copy_(y.copy().mul(0.5))
y.copy_(y.copy().div(2))
y.copy_(y.copy().sub(x))
print(y[0])
print(y.copy_(x)[1, 1])
a = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
b = ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32))
def f(a, b):
    z = a * 1
    z.copy_(z.copy().mul(b).add(b.sin()))
    z.copy_(z.copy().sigmoid())
    return z.sum()
print(ms.grad(f, grad_position=(0, 1))(a, b))
