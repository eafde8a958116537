# Item assignment into a view reaches its base, and into the base reaches the view, as in torch:
# MindSpore 2.10 PyNative and ms_core print the same (tests/ms_core/test_view_writes.py compares
# ms_core with torch). copy_ is shown on contiguous views only: MindSpore 2.10's CPU copy_ into a
# strided view leaves the base unchanged. Gradients: views taken by indexing (MindSpore drops a
# write through Tensor.view from the gradient; ms_core gives torch's).
import importlib
import os
import numpy as np
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
ops = ms.ops
X = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5 - 2.0
VIEWS = [
    ("view(-1)", lambda x: x.view(-1)), ("view(4,3)", lambda x: x.view(4, 3)),
    ("reshape(2,6)", lambda x: x.reshape(2, 6)), ("x[0]", lambda x: x[0]), ("x[1::2]", lambda x: x[1::2]),
    ("x[:,1:3]", lambda x: x[:, 1:3]), ("x[...,-1]", lambda x: x[..., -1]), ("x[None]", lambda x: x[None]),
    ("transpose", lambda x: x.transpose(0, 1)), ("T", lambda x: x.T), ("t()", lambda x: x.t()),
    ("permute", lambda x: x.permute(1, 0)), ("movedim", lambda x: x.movedim(0, 1)),
    ("narrow", lambda x: x.narrow(1, 1, 2)), ("unsqueeze", lambda x: x.unsqueeze(1)),
    ("squeeze", lambda x: x.unsqueeze(0).squeeze(0)), ("flatten", lambda x: x.flatten()),
    ("select", lambda x: x.select(1, 2)), ("diagonal", lambda x: x.diagonal()),
    ("diagonal(1)", lambda x: x.diagonal(1)), ("chunk", lambda x: x.chunk(2, 1)[1]),
    ("split", lambda x: x.split(2, 0)[1]), ("unbind", lambda x: x.unbind(1)[3]),
    ("view of view", lambda x: x.view(-1)[2:10].view(2, 4)[:, ::2]),
]
for name, make in VIEWS:
    x = ms.Tensor(X)
    v = make(x)
    v[0] = 9.0
    print(name, "base", x.asnumpy().ravel(), "view", v.asnumpy().ravel())
    x = ms.Tensor(X)
    v = make(x)
    x[1, 2] = 100.0
    print(name, "after a base write", v.asnumpy().ravel())
for name, make in VIEWS[:3] + [VIEWS[7], VIEWS[14], VIEWS[15], VIEWS[16]]:
    x = ms.Tensor(X)
    v = make(x)
    v.copy_(ops.ones_like(v) * 7)
    print(name, "copy_", x.asnumpy().ravel())
x = ms.Tensor(X)
x.T.reshape(-1)[0] = 9.0  # a copy, as in torch
print("T.reshape(-1) is a copy", x.asnumpy().ravel())


def row_gets_a_value_of_x(x):
    y = x * 2
    v = y[0]
    v[1] = x[1, 2] * 3
    return (y * y).sum()


def transposed_view_read_after(x):
    y = x * 2
    v = y.T
    v[0] = 1.0
    return (v * v * x.T).sum()


def column_and_an_earlier_use(x):
    y = x * 0.5
    z = y.exp()
    v = y[:, 1]
    v[0] = 5.0
    return (z + y * y).sum()


for f in (row_gets_a_value_of_x, transposed_view_read_after, column_and_an_earlier_use):
    print(f.__name__, ms.grad(f)(ms.Tensor(X)))
