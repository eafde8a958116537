# Issue 12 section 3: signatures, result structures, attributes and errors where ms_core follows
# MindSpore 2.10 (printed the same on both; numbers compared to rtol 2e-5).
import importlib
import os
import numpy as np
ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn, ops = ms.nn, ms.ops
x = ms.Tensor(np.array([[3.0, 1.0, 7.0], [2.0, 9.0, 0.0]], np.float32))
print(ops.sum(x, dim=1, keepdim=True), ops.argmax(x, dim=1, keepdim=True))
print(ops.clamp(x, min=1.0, max=4.0), ops.clip(x, min=2.0))
print(ops.reduce_max(x, 1), ops.reduce_min(x, (0, 1)), ops.reduce_sum(x))
print(ops.max(x), ops.min(x), ops.max(x, 1))
def f(a, b):
    return (a * b * b).sum()


print(ms.grad(f, grad_position=(1,))(x, x))
print(ms.value_and_grad(f, grad_position=(0,))(x, x))
print(type(ms.grad(f, grad_position=(0, 1))(x, x)).__name__)


def error(fn):
    try:
        out = fn()
        # MindSpore runs ops asynchronously: an op's error surfaces when its value is read
        for o in out if isinstance(out, tuple) else (out,):
            getattr(o, "asnumpy", lambda: None)()
        return "no error"
    except Exception as e:  # only the class: the messages differ in wording
        return type(e).__name__


print(error(lambda: ops.sum(x, axis=1)), error(lambda: ops.argmax(x, axis=1)))
print(error(lambda: ops.sum(x, 5)), error(lambda: ops.softmax(x, -3)), error(lambda: ops.concat((x, x), 2)))
print(error(lambda: x + ms.Tensor(np.ones(4, np.float32))), error(lambda: ops.transpose(x, (0, 5))))
print(error(lambda: nn.Dense(3, 2)(ms.Tensor(np.ones((2, 3), np.int32)))))
print(error(lambda: nn.Dense(3, 2)(ms.Tensor(np.ones((2, 3), np.float16)))))
d = nn.Dropout2d(0.5)
print(d(x))
print(x.to(device="cpu"), x.to("cpu", ms.float16).dtype, x.to(ms.int32).dtype)
for conv in (nn.Conv2d(3, 4, 3), nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1),
             nn.Conv2d(3, 4, 3, pad_mode="pad", padding=(1, 1, 2, 2)),
             nn.Conv1d(3, 4, 3, stride=2, pad_mode="pad", padding=1, dilation=2),
             nn.Conv2dTranspose(3, 4, 3, pad_mode="pad", padding=1),
             nn.Conv1dTranspose(3, 4, 3, pad_mode="pad", padding=1),
             nn.Conv3d(3, 4, (3, 1, 3), stride=(1, 2, 1), pad_mode="pad", padding=(1, 1, 0, 0, 2, 2)),
             nn.Conv3dTranspose(3, 4, 3, pad_mode="pad", padding=1)):
    print(type(conv).__name__, conv.padding, conv.kernel_size, conv.stride, conv.dilation,
          getattr(conv, "output_padding", "-"), tuple(conv.weight.shape))
print(error(lambda: nn.Conv1d(3, 4, 3, pad_mode="pad", padding=(1, 2))))
print(sorted(p.name for p in nn.BatchNorm3d(3).get_parameters()))
print(error(lambda: nn.Upsample(scale_factor=2)(ms.Tensor(np.ones((1, 1, 2, 2), np.float32)))))
print(error(lambda: nn.Upsample(scale_factor=2.0)(ms.Tensor(np.ones((1, 1, 2, 2), np.float32)))))
print(nn.Upsample(scale_factor=2.0, recompute_scale_factor=True)(ms.Tensor(np.ones((1, 1, 2, 2), np.float32))).shape)
print(error(lambda: nn.LayerNorm((2, 3), begin_norm_axis=-2, begin_params_axis=-2)(x)))
print(error(lambda: nn.LRN()(ms.Tensor(np.ones((1, 2, 3), np.float32)))))
print(error(lambda: nn.Conv3dTranspose(3, 4, 3, dilation=2)))
print(nn.Identity(5, key="anything")(x).shape)
