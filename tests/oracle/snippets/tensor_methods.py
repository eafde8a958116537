# Tensor methods MindSpore 2.10 has that torch code uses: sort/topk/argsort/cumsum/narrow/unbind/...
import importlib
import os
import numpy as np
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
t = ms.Tensor(np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]], np.float32))
print(t.sort(), t.sort(axis=0, descending=True)[1])
print(ms.ops.sort(t))
print(t.topk(2), ms.ops.topk(t, 2, dim=0))
print(t.argsort(), t.argsort(axis=0, descending=True))
print(t.cumsum(1), t.narrow(1, 1, 2), t.expand((2, 2, 3)).shape, t.unbind(0)[1], t.type(), t.new_zeros((2,)).dtype,
      t.masked_select(t > 1.0))
print(ms.grad(lambda x: x.sort()[0][:, 0].sum())(t), ms.grad(lambda x: x.topk(1)[0].sum())(t),
      ms.grad(lambda x: x.cumsum(1).sum())(t))
print(t.where(t > 1.0, 0.0), t.t().shape, t.type(ms.int32).dtype, t.view_as(t.t()).shape, t.logical_not())
