"""An optimizer written as a torch.optim.Optimizer subclass that wraps another (SAM: two gradients
per step, the weights perturbed and restored with ``p.data = ...``, the wrapped SGD stepped from
inside) converts without a marker in the class, and the converted class, handed the gradients
value_and_grad returns as ``p.grad``, trains as torch's: 5 steps, losses and parameters at float32
rtol 1e-5 / atol 1e-6. Its loop, backward() followed by first_step() and backward() again by
second_step(), becomes two value_and_grad calls whose grads the optimizer gets by set_grads()
before each step method (trained against torch in tests/fixtures/training/optimizer_subclasses.py)."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")

SAM = '''
import torch


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * scale.to(p))
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm(p=2) for group in self.param_groups
                                       for p in group["params"] if p.grad is not None]), p=2)


def make(params):
    return SAM(params, torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9)
'''


def _module(code: str, name: str):
    namespace = {"__name__": name}
    exec(compile(code, name, "exec"), namespace)
    return namespace


def test_sam_converts_and_steps_as_torch():
    import ms_core as ms
    res = convert_source(SAM)
    assert res.error is None and res.unsupported == 0, res.code
    assert "class SAM(TorchOptimizer)" in res.code and "torch_optimizer_step(self.base_optimizer)" in res.code
    assert "p.copy_(self.state[p][\"old_p\"])" in res.code and "import torch" not in res.code
    t, m = _module(SAM, "sam_torch"), _module(res.code, "sam_ms")
    rng = np.random.default_rng(3)
    w0, x, y = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (8, 4), (8, 3)))
    tw, mw = torch.nn.Parameter(torch.tensor(w0)), ms.Parameter(ms.Tensor(w0), name="w")
    topt, mopt = t["make"]([tw]), m["make"]([mw])
    grad_fn = ms.value_and_grad(lambda: ((ms.Tensor(x) @ mw.T - ms.Tensor(y)) ** 2).mean(), None, mopt.parameters)
    for _ in range(5):
        tloss = ((torch.tensor(x) @ tw.T - torch.tensor(y)) ** 2).mean()
        tloss.backward()
        topt.first_step(zero_grad=True)
        ((torch.tensor(x) @ tw.T - torch.tensor(y)) ** 2).mean().backward()
        topt.second_step(zero_grad=True)
        mloss, grads = grad_fn()
        mw.grad = grads[0]
        mopt.first_step(zero_grad=True)
        mw.grad = grad_fn()[1][0]
        mopt.second_step(zero_grad=True)
        np.testing.assert_allclose(float(mloss), tloss.item(), rtol=1e-5)
        np.testing.assert_allclose(mw.asnumpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert mopt.state[mw]["old_p"].shape == (3, 4) and mw.grad is None


def test_a_sam_loop_hands_each_gradient_to_its_step_method():
    loop = SAM + '''
model = torch.nn.Linear(4, 3)
optimizer = make(model.parameters())
for x, y in [(torch.ones(2, 4), torch.zeros(2, 3))]:
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.first_step(zero_grad=True)
    ((model(x) - y) ** 2).mean().backward()
    optimizer.second_step(zero_grad=True)
'''
    res = convert_source(loop)
    assert res.unsupported == 0 and "# migrate:" not in res.code, res.code
    body = res.code.split("for x, y in")[1]
    assert body.index("optimizer.set_grads(grads)") < body.index("optimizer.first_step(zero_grad=True)") \
        < body.index("optimizer.set_grads(grads_1)") < body.index("optimizer.second_step(zero_grad=True)")
    assert ".backward(" not in body


def test_an_optimizer_class_from_another_file_gets_its_gradients_too():
    """davda54/sam's train.py imports SAM from sam.py: a method besides torch's optimizer API,
    called on the optimizer after backward(), reads p.grad there as well."""
    res = convert_source('''
import torch
from sam import SAM

model = torch.nn.Linear(4, 3)
optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.1)
for x, y in [(torch.ones(2, 4), torch.zeros(2, 3))]:
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.first_step(zero_grad=True)
    ((model(x) - y) ** 2).mean().backward()
    optimizer.second_step(zero_grad=True)
    optimizer.zero_grad()
''')
    assert res.unsupported == 0 and "# migrate:" not in res.code, res.code
    body = res.code.split("for x, y in")[1]
    assert body.index("optimizer.set_grads(grads)") < body.index("optimizer.first_step(zero_grad=True)") \
        < body.index("optimizer.set_grads(grads_1)") < body.index("optimizer.second_step(zero_grad=True)")
