"""A Python complex becomes a Tensor as any other number: Tensor(1j) is Complex128 (as
np.asarray(1j)), a dtype given keeps the real part (or, for bool, whether the value is nonzero), and
the 0-d result's real and imaginary parts stay 0-d. Each case prints its value and dtype."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
ops = ms.ops
Tensor = ms.Tensor

CASES = [
    ("1j", lambda: Tensor(1j)),
    ("2+3j", lambda: Tensor(2 + 3j)),
    ("complex(1, 0)", lambda: Tensor(complex(1, 0))),
    ("list with complex", lambda: Tensor([1j, 2])),
    ("tuple with complex", lambda: Tensor((1, 2j))),
    ("1j as complex64", lambda: Tensor(1j, ms.complex64)),
    ("1j as complex128", lambda: Tensor(1j, ms.complex128)),
    ("1.5+1j as float32", lambda: Tensor(1.5 + 1j, ms.float32)),
    ("1.5+1j as int32", lambda: Tensor(1.5 + 1j, ms.int32)),
    ("1j as bool", lambda: Tensor(1j, ms.bool_)),
    ("0j as bool", lambda: Tensor(0j, ms.bool_)),
    ("list as float32", lambda: Tensor([1j, 2.5], ms.float32)),
    ("real of 0-d", lambda: ops.real(Tensor(1.5 + 2j))),
    ("imag of 0-d", lambda: ops.imag(Tensor(1.5 + 2j))),
    ("0-d times 2", lambda: Tensor(1j) * 2),
    ("float tensor plus Tensor(1j)", lambda: Tensor(np.array([1.0, 2.0], np.float32)) + Tensor(1j)),
]

for label, make in CASES:
    t = make()
    print(label, "->", t.dtype, t.shape, np.real(t.asnumpy()).tolist(), np.imag(t.asnumpy()).tolist())
