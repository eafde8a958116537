import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn, ops = ms.nn, ms.ops
rng = np.random.default_rng(0)


def T(*shape):
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


def show(name, out):
    outs = out if isinstance(out, tuple) else (out,)
    print(name, [o.shape for o in outs],
          [[float(f"{v:.7g}") for v in o.asnumpy().astype(np.float64).ravel()[:12]] for o in outs])


def set_all(cell):
    for p in cell.get_parameters():
        p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.5))
    return cell


x = T(2, 3, 7, 7)
for kw in [dict(pad_mode="same", stride=2), dict(pad_mode="same", stride=1, kernel_size=4),
           dict(pad_mode="valid", stride=2), dict(pad_mode="pad", padding=1, stride=2),
           dict(pad_mode="pad", padding=(1, 0, 2, 1)), dict(pad_mode="same", dilation=2),
           dict(pad_mode="valid", group=3, out_channels=6)]:
    args = dict(in_channels=3, out_channels=4, kernel_size=3, has_bias=True)
    args.update(kw)
    conv = set_all(nn.Conv2d(**args))
    show(f"conv {kw}", conv(x))
    show(f"conv grad {kw}", ms.grad(lambda t: conv(t).sum())(x))

for kw in [dict(kernel_size=2, stride=2, pad_mode="same"), dict(kernel_size=3, stride=2, pad_mode="same"),
           dict(kernel_size=3, stride=2, pad_mode="valid"), dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)]:
    show(f"maxpool {kw}", nn.MaxPool2d(**kw)(x))
    show(f"avgpool {kw}", nn.AvgPool2d(**kw)(x))
show("seed maxpool", ops.MaxPool(kernel_size=2, strides=2, pad_mode="same")(
    ms.Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))))
show("seed avgpool", nn.AvgPool2d(kernel_size=2, stride=2, pad_mode="same")(
    ms.Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))))
show("adaptive avg", nn.AdaptiveAvgPool2d((3, 2))(x))
show("adaptive max", nn.AdaptiveMaxPool2d((3, 2))(x))
show("convT same", set_all(nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode="same", has_bias=True))(x))
show("convT valid", set_all(nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode="valid"))(x))
show("convT pad", set_all(nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1))(x))

bn = set_all(nn.BatchNorm2d(3, momentum=0.8))
bn.moving_variance.set_data(ms.Tensor(np.abs(bn.moving_variance.asnumpy()) + 0.5))
show("bn eval", bn(x))
bn.set_train()
show("bn train", bn(x))
show("bn moving", (bn.moving_mean.value(), bn.moving_variance.value())
     if hasattr(bn.moving_mean, "value") and callable(bn.moving_mean.value)
     else (ms.Tensor(bn.moving_mean.asnumpy()), ms.Tensor(bn.moving_variance.asnumpy())))
show("bn1d train", nn.BatchNorm1d(3).set_train()(T(4, 3)))
ln = set_all(nn.LayerNorm((7,), begin_norm_axis=-1, begin_params_axis=-1))
show("layernorm", ln(x))
gn = set_all(nn.GroupNorm(1, 3))
show("groupnorm", gn(x))
show("dropout eval", nn.Dropout(p=0.3)(x))
for act in ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "HSwish", "HSigmoid", "ELU", "LeakyReLU"]:
    if hasattr(nn, act):
        show(act, getattr(nn, act)()(x * 3))
show("gelu exact", nn.GELU(approximate=False)(x))
show("prelu", nn.PReLU()(x))
show("softmax", nn.Softmax(axis=1)(x))
show("logsoftmax", nn.LogSoftmax(axis=1)(x))
show("flatten", nn.Flatten()(x))
emb = set_all(nn.Embedding(5, 3))
show("embedding", emb(ms.Tensor(np.array([[0, 4], [2, 2]], np.int32))))
logits, labels = T(4, 5), ms.Tensor(np.array([1, 0, 4, 2], np.int32))
show("ce", nn.CrossEntropyLoss()(logits, labels))
show("ce smoothing", nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels))
show("ce weight", nn.CrossEntropyLoss(weight=ms.Tensor(np.array([1, 2, 3, 4, 5], np.float32)))(logits, labels))
show("sce sparse", nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(logits, labels))
show("nll", nn.NLLLoss()(ops.log_softmax(logits, 1), labels))
show("smoothl1", nn.SmoothL1Loss()(logits, logits * 0.3))
show("bce", nn.BCELoss(reduction="mean")(ops.sigmoid(logits), ops.sigmoid(logits * 2)))
show("l1", nn.L1Loss()(logits, logits * 0.5))
show("interp nearest", ops.interpolate(x, size=(14, 10), mode="nearest"))
show("interp bilinear ac", ops.interpolate(x, size=(14, 10), mode="bilinear", align_corners=True))
show("interp bilinear", ops.interpolate(x, size=(14, 10), mode="bilinear", align_corners=False))
show("pad", ops.pad(x, (1, 2, 0, 1)))
show("Pad op", ops.Pad(((0, 0), (0, 0), (1, 0), (1, 0)))(x))
