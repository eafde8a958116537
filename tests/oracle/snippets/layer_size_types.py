"""Which sizes the convolution and pooling layers and functions take: an int or a tuple, never a
list (torch takes either); the 1-D adaptive pools an int only. Each case prints its output shape
or the kind of error it raises."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn = ms.nn

CASES = [
    ("Conv2d kernel list", lambda: nn.Conv2d(3, 4, [3, 3]), (1, 3, 8, 8)),
    ("Conv2d stride list", lambda: nn.Conv2d(3, 4, 3, stride=[1, 1]), (1, 3, 8, 8)),
    ("Conv2d dilation list", lambda: nn.Conv2d(3, 4, 3, dilation=[1, 1]), (1, 3, 8, 8)),
    ("Conv2d padding list", lambda: nn.Conv2d(3, 4, 3, pad_mode="pad", padding=[1, 1, 1, 1]), (1, 3, 8, 8)),
    ("Conv2d tuples", lambda: nn.Conv2d(3, 4, (3, 3), stride=(1, 1), pad_mode="pad", padding=(1, 1, 1, 1)),
     (1, 3, 8, 8)),
    ("Conv1d kernel list", lambda: nn.Conv1d(3, 4, [3]), (1, 3, 8)),
    ("Conv3d kernel list", lambda: nn.Conv3d(3, 4, [3, 3, 3]), (1, 3, 6, 6, 6)),
    ("Conv2dTranspose kernel list", lambda: nn.Conv2dTranspose(3, 4, [3, 3]), (1, 3, 8, 8)),
    ("MaxPool2d kernel list", lambda: nn.MaxPool2d(kernel_size=[2, 2], stride=2), (1, 3, 8, 8)),
    ("MaxPool2d stride list", lambda: nn.MaxPool2d(2, stride=[2, 2]), (1, 3, 8, 8)),
    ("MaxPool2d padding list", lambda: nn.MaxPool2d(2, pad_mode="pad", padding=[1, 1]), (1, 3, 8, 8)),
    ("AvgPool2d kernel list", lambda: nn.AvgPool2d(kernel_size=[2, 2], stride=2), (1, 3, 8, 8)),
    ("AvgPool2d tuples", lambda: nn.AvgPool2d(kernel_size=(2, 2), stride=(2, 2)), (1, 3, 8, 8)),
    ("MaxPool1d kernel list", lambda: nn.MaxPool1d(kernel_size=[2]), (1, 3, 8)),
    ("AvgPool1d kernel list", lambda: nn.AvgPool1d([2]), (1, 3, 8)),
    ("MaxPool3d kernel list", lambda: nn.MaxPool3d([2, 2, 2]), (1, 3, 4, 4, 4)),
    ("AvgPool3d stride list", lambda: nn.AvgPool3d(2, stride=[2, 2, 2]), (1, 3, 4, 4, 4)),
    ("AdaptiveAvgPool2d list", lambda: nn.AdaptiveAvgPool2d([2, 2]), (1, 3, 8, 8)),
    ("AdaptiveMaxPool2d list", lambda: nn.AdaptiveMaxPool2d([2, 2]), (1, 3, 8, 8)),
    ("AdaptiveAvgPool3d list", lambda: nn.AdaptiveAvgPool3d([2, 2, 2]), (1, 3, 4, 4, 4)),
    ("AdaptiveAvgPool1d list", lambda: nn.AdaptiveAvgPool1d([2]), (1, 3, 8)),
    ("AdaptiveAvgPool1d tuple", lambda: nn.AdaptiveAvgPool1d((2,)), (1, 3, 8)),
    ("AdaptiveMaxPool1d tuple", lambda: nn.AdaptiveMaxPool1d((2,)), (1, 3, 8)),
    ("AdaptiveAvgPool1d int", lambda: nn.AdaptiveAvgPool1d(2), (1, 3, 8)),
]

ops = ms.ops
x2, x1, x3 = (ms.Tensor(np.ones(s, np.float32)) for s in ((1, 3, 8, 8), (1, 3, 8), (1, 3, 4, 4, 4)))
w2, w3 = ms.Tensor(np.ones((4, 3, 3, 3), np.float32)), ms.Tensor(np.ones((4, 3, 3, 3, 3), np.float32))
FUNCTIONS = [
    ("max_pool2d kernel list", lambda: ops.max_pool2d(x2, [2, 2])),
    ("max_pool2d stride list", lambda: ops.max_pool2d(x2, 2, [2, 2])),
    ("max_pool2d tuples", lambda: ops.max_pool2d(x2, (2, 2), (2, 2))),
    ("avg_pool2d kernel list", lambda: ops.avg_pool2d(x2, [2, 2])),
    ("avg_pool2d stride list", lambda: ops.avg_pool2d(x2, 2, [2, 2])),
    ("avg_pool2d tuples", lambda: ops.avg_pool2d(x2, (2, 2), (2, 2))),
    ("avg_pool1d kernel list", lambda: ops.avg_pool1d(x1, [2])),
    ("max_pool3d kernel list", lambda: ops.max_pool3d(x3, [2, 2, 2])),
    ("avg_pool3d kernel list", lambda: ops.avg_pool3d(x3, [2, 2, 2])),
    ("adaptive_max_pool2d list", lambda: ops.adaptive_max_pool2d(x2, [2, 2])),
    ("adaptive_avg_pool2d list", lambda: ops.adaptive_avg_pool2d(x2, [2, 2])),
    ("adaptive_avg_pool3d list", lambda: ops.adaptive_avg_pool3d(x3, [2, 2, 2])),
    ("adaptive_avg_pool1d list", lambda: ops.adaptive_avg_pool1d(x1, [2])),
    ("interpolate size list", lambda: ops.interpolate(x2, size=[4, 4])),
    ("conv2d stride list", lambda: ops.conv2d(x2, w2, stride=[1, 1])),
    ("conv2d dilation list", lambda: ops.conv2d(x2, w2, dilation=[1, 1])),
    ("conv2d tuples", lambda: ops.conv2d(x2, w2, stride=(1, 1), dilation=(1, 1))),
    ("conv3d stride list", lambda: ops.conv3d(x3, w3, stride=[1, 1, 1])),
]

for name, build, shape in CASES:
    try:
        out = build()(ms.Tensor(np.ones(shape, np.float32)))
        print(name, "ok", tuple(out.shape))
    except (TypeError, ValueError) as e:
        print(name, type(e).__name__)

for name, call in FUNCTIONS:
    try:
        out = call()
        out = out[0] if isinstance(out, tuple) else out
        print(name, "ok", tuple(out.shape))
    except (TypeError, ValueError) as e:
        print(name, type(e).__name__)
