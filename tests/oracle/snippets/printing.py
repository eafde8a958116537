import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn = ms.nn

for data in ([[1.5, 2.0]], [1.0, 2.0], 3.0, -2.0, 0.5, [1, 2], [[1, 2], [3, 4]], [True, False], 7):
    t = ms.Tensor(data)
    print(repr(t), "|", str(t), "|", t.dtype, t.shape)
print(repr(ms.Tensor(np.arange(2000, dtype=np.float32))))
print(repr(ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 6))))
print(repr(ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2))))
print(repr(ms.Parameter(ms.Tensor([1.0]), name="w")))
print(ms.float32, ms.int64, ms.bool_, ms.float16)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.act = nn.ReLU()


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Dense(2, 1, has_bias=False)


print(repr(Net()))
print([p.name for p in Net().get_parameters()])
print([n for n, _ in Net().cells_and_names()])
