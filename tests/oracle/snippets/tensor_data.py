"""Tensor.data: read, a Tensor with the tensor's values (not the tensor itself); written, the
tensor takes the new values, shape and dtype (an EMA's `shadow[name].data = ...` on plain
tensors). Parameter.data is left out (MindSpore 2.10 returns another object, ms_core the
Parameter). Each case prints its values or its error."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))

t = ms.Tensor(np.arange(4, dtype=np.float32))
d = t.data
print(type(d).__name__, d is t, d.shape, d.dtype, d.asnumpy().tolist())
t.data = ms.Tensor(np.zeros(3, np.float64))
print(t.shape, t.dtype, t.asnumpy().tolist())
t.data = 0.5 * t + 1.0
print(t.shape, t.dtype, t.asnumpy().tolist())
shadow = {"w": ms.Tensor(np.ones((2, 2), np.float32))}
p = ms.Tensor(np.full((2, 2), 3.0, np.float32))
shadow["w"].data = (1.0 - 0.9) * p + 0.9 * shadow["w"].data
print(shadow["w"].shape, shadow["w"].dtype, shadow["w"].asnumpy().round(6).tolist())
