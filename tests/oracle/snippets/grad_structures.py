import importlib
import os


ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn, ops = ms.nn, ms.ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 1, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        return self.loss(logits, y), logits


net = Net()
net.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))
x, y = ms.Tensor([[1, 2, 3]], ms.float32), ms.Tensor(19, ms.float32)
for gp, w in [(0, None), (1, None), ((0, 1), None), (None, net.trainable_params()),
              (0, net.trainable_params()), ((0, 1), net.trainable_params())]:
    print(ms.grad(net, grad_position=gp, weights=w, has_aux=True)(x, y))
print(ms.grad(net, 0)(x, y))
print(ms.value_and_grad(net, (0, 1), net.trainable_params(), has_aux=True)(x, y))
try:
    ms.grad(net, None, None)
except ValueError as e:
    print("ValueError:", e)
w = ms.Parameter(ms.Tensor([2.0]), name="w")
print(ms.grad(lambda t: (t * w).sum(), None, w)(ms.Tensor([3.0])))
print(ms.grad(lambda t: t * t)(ms.Tensor([1.0, 2.0])))
print(ms.grad(ms.grad(lambda t: (t * t * t).sum()))(ms.Tensor([1.0, 2.0])))
print(ops.clip_by_global_norm((ms.Tensor([[2.0, 4.0, 6.0]]),)))
a, b = ms.Tensor([1.0, 2.0]), ms.Tensor([4.0, 5.0])
out, vjp_fn = ms.vjp(lambda s, t: (s * t, s + t), a, b)
print(out, vjp_fn(ms.Tensor([1.0, 1.0]), ms.Tensor([2.0, 3.0])))
print(vjp_fn(ms.Tensor([0.5, -1.0]), ms.Tensor([1.0, 1.0])))
out, vjp_fn, aux = ms.vjp(lambda s: (s * s * w, s - 1.0), a, weights=w, has_aux=True)
print(out, aux, vjp_fn(ms.Tensor([1.0, 3.0])))
out, vjp_fn, aux = ms.vjp(lambda s: (s * w, s, s + 2.0), a, weights=[w], has_aux=True)
print(out, aux, vjp_fn(ms.Tensor([1.0, 1.0])))
try:
    ms.vjp(lambda s: s, a, has_aux=True)
except ValueError:
    print("ValueError")
