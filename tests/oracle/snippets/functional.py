# Functional ops and Tensor methods: dtypes, shapes and values. Not compared, where MindSpore 2.10
# is stricter or odd: ops.full((2,), 3.0) gives Int64 there; ops.exp on an int Tensor and
# ops.amax with a tuple axis raise TypeError there (ms_core computes them).
import importlib
import os
import numpy as np
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
ops = ms.ops
rng = np.random.default_rng(0)
x = ms.Tensor(rng.standard_normal((2, 3, 4)).astype(np.float32))
i = ms.Tensor(np.array([[1, 2], [3, 0]], np.int64))
def show(name, f):
    try:
        out = f()
        outs = out if isinstance(out, (tuple, list)) else (out,)
        print(name, [(o.dtype, o.shape, np.round(o.asnumpy().astype(np.float64).ravel()[:6], 4).tolist())
                     if isinstance(o, ms.Tensor) else o for o in outs])
    except Exception as e:
        print(name, "EXC", type(e).__name__)
cases = {
 "argmax": lambda: ops.argmax(x, 1), "argmax none": lambda: ops.argmax(x),
 "argmin": lambda: ops.argmin(x, -1), "mean": lambda: ops.mean(x, 1), "mean int": lambda: ops.mean(i),
 "sum int": lambda: ops.sum(i), "std": lambda: ops.std(x, 1) if hasattr(ops, "std") else None,
 "var": lambda: ops.var(x, 1) if hasattr(ops, "var") else None,
 "tensor.std": lambda: x.std(1), "tensor.var": lambda: x.var(1),
 "squeeze": lambda: ops.squeeze(ops.expand_dims(x, 0)), "split list": lambda: ops.split(x, [1, 2], 1),
 "chunk": lambda: ops.chunk(x, 2, 2), "cat": lambda: ops.cat((x, x), -1), "stack": lambda: ops.stack((x, x)),
 "where": lambda: ops.where(x > 0, x, 0.0), "softmax": lambda: ops.softmax(x),
 "log_softmax": lambda: ops.log_softmax(x, 1),
 "matmul": lambda: ops.matmul(x, ops.transpose(x, (0, 2, 1))), "bmm": lambda: ops.bmm(x, ops.transpose(x, (0, 2, 1))),
 "transpose": lambda: ops.transpose(x, (2, 0, 1)), "permute": lambda: ops.permute(x, (2, 0, 1)),
 "flatten": lambda: ops.flatten(x), "reshape": lambda: ops.reshape(x, (6, -1)),
 "ones": lambda: ops.ones((2, 3)), "zeros int": lambda: ops.zeros((2,), ms.int32),
 "arange": lambda: ops.arange(5), "arange f": lambda: ops.arange(0, 1, 0.25), "linspace": lambda: ops.linspace(0, 1, 5),
 "eye": lambda: ops.eye(3),
 "one_hot": lambda: ops.one_hot(ms.Tensor(np.array([0, 2], np.int32)), 3, ms.Tensor(1.0), ms.Tensor(0.0)),
 "gather": lambda: ops.gather(x, ms.Tensor(np.array([0, 2], np.int32)), 1),
 "tile": lambda: ops.tile(x, (1, 2, 1)), "broadcast_to": lambda: ops.broadcast_to(ms.Tensor([1.0, 2.0]), (3, 2)),
 "clip_by_norm": lambda: ops.clip_by_norm(x, 1.0), "norm": lambda: ops.norm(x),
 "logsumexp": lambda: ops.logsumexp(x, 1), "cumsum": lambda: ops.cumsum(x, 1),
 "floor_div": lambda: x // 0.3, "mod": lambda: x % 0.3, "pow": lambda: x ** 2, "rpow": lambda: 2 ** x,
 "int div": lambda: i / 2, "int floordiv": lambda: i // 2, "abs int": lambda: ops.abs(i), "neg int": lambda: -i,
 "sqrt int": lambda: ops.sqrt(i),
 "prod": lambda: ops.prod(x, 1),
 "masked_fill": lambda: ops.masked_fill(x, x > 0, 0.0), "flip": lambda: ops.flip(x, (1,)),
 "isclose": lambda: ops.isclose(x, x), "sigmoid": lambda: ops.sigmoid(x), "tanh": lambda: ops.tanh(x),
 "dense": lambda: ops.dense(x, ms.Tensor(np.ones((2, 4), np.float32))),
 "pad": lambda: ops.pad(x, (1, 1)),
 "bce": lambda: ops.binary_cross_entropy_with_logits(x, ops.sigmoid(x), ops.ones_like(x), ops.ones_like(x)),
 "x.sum keep": lambda: x.sum(1, keepdims=True), "x.mean": lambda: x.mean(), "x.argmax": lambda: x.argmax(),
 "x.max axis": lambda: x.max(1),
 "x.reshape": lambda: x.reshape(6, 4), "x.view": lambda: x.view(6, 4), "x.transpose": lambda: x.transpose(2, 0, 1),
 "x.squeeze": lambda: x.expand_dims(1).squeeze(1), "x.astype": lambda: x.astype(ms.int32), "x.T": lambda: x[0].T,
 "x.clip": lambda: x.clip(-0.5, 0.5), "x.item": lambda: ms.Tensor([3.5]).item(),
 "getitem bool": lambda: x[x > 0], "getitem None": lambda: x[None, 0, ..., 1],
 "x.size": lambda: x.size, "x.ndim": lambda: x.ndim, "len": lambda: len(x),
 "min tuple": lambda: ops.min(x, 1),
 "grad mean int": lambda: ms.grad(lambda t: (t * 2).mean())(x),
}
for k, f in cases.items():
    show(k, f)
