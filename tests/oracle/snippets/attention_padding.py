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
    print(name, [tuple(o.shape) for o in outs],
          [[float(f"{v:.6g}") for v in o.asnumpy().astype(np.float64).ravel()[:10]] for o in outs])


def set_all(cell):
    for p in sorted(cell.get_parameters(), key=lambda p: p.name):
        scale = 1.0 if p.name.endswith("gamma") else 0.0
        p.set_data(ms.Tensor((rng.standard_normal(p.shape) * 0.3 + scale).astype(np.float32)))
    return cell


print("mha names", [(p.name, tuple(p.shape)) for p in nn.MultiheadAttention(8, 2).get_parameters()])
print("mha kdim names", sorted((p.name, tuple(p.shape)) for p in
                               nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True).get_parameters()))
print("dec names", [p.name for p in nn.TransformerDecoderLayer(8, 2, 16).get_parameters()])

q, kv = T(4, 3, 8), T(5, 3, 8)
causal = ms.Tensor(np.triu(np.ones((4, 4), bool), 1))
kpm = ms.Tensor(np.array([[False, False, True, False]] * 3))
fmask = T(4, 5)
mha = set_all(nn.MultiheadAttention(8, 2))
show("mha self", mha(q, q, q))
show("mha cross", mha(q, kv, kv))
show("mha bool masks", mha(q, q, q, attn_mask=causal, key_padding_mask=kpm))
show("mha float mask", mha(q, kv, kv, attn_mask=fmask))
show("mha per head", mha(q, kv, kv, average_attn_weights=False))
print("need_weights=False ->", len(mha(q, q, q, need_weights=False)))
show("mha grad", ms.grad(lambda a, b: mha(a, b, b)[0].sum(), grad_position=(0, 1))(q, kv))
mha2 = set_all(nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True, add_bias_kv=True,
                                     add_zero_attn=True))
show("mha kdim bias_kv zero_attn", mha2(T(3, 4, 8), T(3, 5, 5), T(3, 5, 3)))
show("mha unbatched", mha(T(4, 8), T(5, 8), T(5, 8)))

for kw in [dict(), dict(norm_first=True), dict(batch_first=True, activation="gelu")]:
    bf = kw.get("batch_first", False)
    src, mem = (ops.swapaxes(q, 0, 1), ops.swapaxes(kv, 0, 1)) if bf else (q, kv)
    enc = set_all(nn.TransformerEncoderLayer(8, 2, 16, **kw))
    show(f"enc layer {kw}", enc(src, src_mask=causal, src_key_padding_mask=kpm))
    dec = set_all(nn.TransformerDecoderLayer(8, 2, 16, **kw))
    show(f"dec layer {kw}", dec(src, mem, tgt_mask=causal))
    show(f"enc layer grad {kw}", ms.grad(lambda a: enc(a).sum())(src))
stack = set_all(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm((8,))))
show("enc stack", stack(q, src_key_padding_mask=kpm))
tr = set_all(nn.Transformer(8, 2, 1, 1, 16))
show("transformer", tr(kv, q, tgt_mask=causal))

x4, x3 = T(2, 2, 4, 5), T(2, 4, 5)
for name, layer in [("zero2d", nn.ZeroPad2d((1, 0, 2, 1))), ("const1d", nn.ConstantPad1d(2, 1.5)),
                    ("const2d", nn.ConstantPad2d((1, 2, 0, 1), -1.0)), ("const3d", nn.ConstantPad3d(1, 0.5)),
                    ("refl1d", nn.ReflectionPad1d((3, 1))), ("refl2d", nn.ReflectionPad2d((1, 2, 3, 0))),
                    ("repl1d", nn.ReplicationPad1d((0, 3))), ("repl2d", nn.ReplicationPad2d((2, 1, 0, 3)))]:
    x = x3 if name.endswith("1d") else x4
    show(f"pad {name}", layer(x))
    show(f"pad grad {name}", ms.grad(lambda a: (layer(a) * layer(a)).sum())(x))
show("pad refl3d", nn.ReflectionPad3d(1)(T(1, 2, 2, 3, 2)))
show("pad repl3d", nn.ReplicationPad3d((1, 0, 2, 1, 0, 1))(T(1, 2, 2, 3, 2)))
x2 = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
for mode in ["CONSTANT", "REFLECT", "SYMMETRIC"]:
    show(f"nn.Pad {mode}", nn.Pad(((1, 1), (2, 2)), mode=mode)(x2))
for mode in ["constant", "reflect", "replicate", "circular"]:
    show(f"ops.pad {mode}", ops.pad(x4, (2, 1, 1, 2), mode=mode))
