"""ops.interpolate's argument rules: `size` ints, `scale_factor` floats (an int, a bool or a NumPy
float32 refused), on 3-D and 4-D input a scale factor only with recompute_scale_factor=True (5-D
and 'area' take one without), align_corners in the linear modes only, each mode on its ranks; the
error messages and the order they are checked in. Each case prints its output or its error.
Not here: 'bicubic' (not in ms_core) and 'area' upsampling of 3-D input (MindSpore's
adaptive_avg_pool1d refuses an output longer than the input, or one that does not divide it)."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
ops = ms.ops

rs = np.random.RandomState(0)
X = {3: ms.Tensor(rs.randn(1, 2, 5).astype(np.float32)),
     4: ms.Tensor(rs.randn(1, 2, 5, 4).astype(np.float32)),
     5: ms.Tensor(rs.randn(1, 1, 3, 5, 4).astype(np.float32))}
MODES = {3: ("nearest", "linear", "nearest-exact", "bilinear"),
         4: ("nearest", "bilinear", "area", "nearest-exact", "trilinear"),
         5: ("nearest", "trilinear", "area", "nearest-exact")}


def show(label, **kw):
    rank = kw.pop("rank")
    try:
        out = ops.interpolate(X[rank], **kw)
        print(label, "->", out.shape, " ".join(f"{v:.7g}" for v in out.asnumpy().ravel()[:8]))
    except (TypeError, ValueError) as e:
        print(label, "->", type(e).__name__, str(e).splitlines()[0])


for rank, modes in MODES.items():
    n = rank - 2
    for mode in modes:
        for scale in (2, 2.0, 1.5, 0.6, (2,) * n, (1.5,) * n):
            for recompute in (None, False, True):
                show(f"{rank}-D {mode} scale_factor={scale} recompute={recompute}", rank=rank, mode=mode,
                     scale_factor=scale, recompute_scale_factor=recompute)
        show(f"{rank}-D {mode} size", rank=rank, mode=mode, size=(7,) * n)
        show(f"{rank}-D {mode} size int", rank=rank, mode=mode, size=3)
        for corners in (True, False):
            show(f"{rank}-D {mode} align_corners={corners}", rank=rank, mode=mode, size=(6,) * n,
                 align_corners=corners)
for label, kw in [
        ("size float", dict(rank=4, size=6.0)),
        ("size float item", dict(rank=4, size=(6.0, 7))),
        ("size bool", dict(rank=4, size=True)),
        ("size numpy int", dict(rank=4, size=np.int64(6))),
        ("size zero", dict(rank=4, size=(0, 3))),
        ("size list", dict(rank=4, size=[6, 7], mode="bilinear")),
        ("size too short", dict(rank=4, size=(6,))),
        ("scale bool", dict(rank=5, scale_factor=True)),
        ("scale numpy float32", dict(rank=5, scale_factor=np.float32(2.0))),
        ("scale numpy float64", dict(rank=5, scale_factor=np.float64(2.0))),
        ("scale negative", dict(rank=5, scale_factor=-2.0)),
        ("scale inf", dict(rank=5, scale_factor=float("inf"))),
        ("scale list", dict(rank=5, scale_factor=[1.5, 2.0, 0.7], mode="trilinear")),
        ("scale too long", dict(rank=4, scale_factor=(1.5, 1.5, 1.5), recompute_scale_factor=True)),
        ("both", dict(rank=4, size=(6, 7), scale_factor=2.0)),
        ("neither", dict(rank=4)),
        ("recompute with size", dict(rank=4, size=(6, 7), recompute_scale_factor=True)),
        ("unknown mode", dict(rank=4, size=(6, 7), mode="cubic")),
        ("2-D input", dict(rank=4, size=(6, 7), mode="nearest")),
]:
    if label == "2-D input":
        X[2] = ms.Tensor(np.ones((2, 3), np.float32))
        kw = dict(rank=2, size=4)
    show(label, **kw)


class Up(ms.nn.Cell):
    def __init__(self, **kw):
        super().__init__()
        self.up = ms.nn.Upsample(**kw)

    def construct(self, x):
        return self.up(x)


for kw in (dict(scale_factor=2), dict(scale_factor=2.0), dict(scale_factor=2.0, recompute_scale_factor=True),
           dict(size=(6, 7), mode="bilinear", align_corners=True)):
    try:
        print("Upsample", kw, "->", " ".join(f"{v:.7g}" for v in Up(**kw)(X[4]).asnumpy().ravel()[:8]))
    except (TypeError, ValueError) as e:
        print("Upsample", kw, "->", type(e).__name__, str(e).splitlines()[0])
