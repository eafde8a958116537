"""migrate.runtime.optim.TorchOptimizer: optimizers written as torch.optim.Optimizer subclasses
(Lion, LARS, a hand-written AdamW, Lookahead over another optimizer, SAM's two steps) run on it
as their torch originals do: parameters after several steps against torch (float32: rtol 1e-5,
atol 1e-6), state in state_dict() and loaded back to continue, LR schedulers driving it."""
# ruff: noqa: C408  (the optimizers build their defaults with dict(...), as libraries write them)
import math

import numpy as np
import pytest

from migrate.runtime.optim import TorchOptimizer, torch_optimizer_step

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")
from ms_core import ops  # noqa: E402 (after the importorskip that guards it)

# ---- the torch originals, as libraries write them ---------------------------------------------


class TLion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data.mul_(1 - group["lr"] * group["weight_decay"])
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                beta1, beta2 = group["betas"]
                update = exp_avg * beta1 + p.grad * (1 - beta1)
                p.add_(torch.sign(update), alpha=-group["lr"])
                exp_avg.mul_(beta2).add_(p.grad, alpha=1 - beta2)


class TLARS(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, eta=0.001):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad.add(p, alpha=group["weight_decay"])
                w_norm, g_norm = torch.norm(p), torch.norm(d_p)
                trust = torch.where((w_norm > 0) & (g_norm > 0), group["eta"] * w_norm / g_norm,
                                    torch.ones_like(w_norm))
                d_p = d_p.mul(trust)
                state = self.state[p]
                if "mu" not in state:
                    state["mu"] = torch.clone(d_p).detach()
                else:
                    state["mu"].mul_(group["momentum"]).add_(d_p)
                p.add_(state["mu"], alpha=-group["lr"])


class TAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                bias1, bias2 = 1 - beta1 ** state["step"], 1 - beta2 ** state["step"]
                denom = (state["exp_avg_sq"].sqrt() / math.sqrt(bias2)).add_(group["eps"])
                p.addcdiv_(state["exp_avg"], denom, value=-group["lr"] / bias1)


class TLookahead(torch.optim.Optimizer):
    def __init__(self, base_optimizer, alpha=0.5, k=2):
        self.base_optimizer = base_optimizer
        super().__init__(base_optimizer.param_groups, dict(lookahead_alpha=alpha, lookahead_k=k, lookahead_step=0))

    @torch.no_grad()
    def step(self, closure=None):
        loss = self.base_optimizer.step(closure)
        for group in self.param_groups:
            group["lookahead_step"] += 1
            if group["lookahead_step"] % group["lookahead_k"] == 0:
                for p in group["params"]:
                    state = self.state[p]
                    if "slow" not in state:
                        state["slow"] = torch.empty_like(p).copy_(p)
                    state["slow"].add_(p - state["slow"], alpha=group["lookahead_alpha"])
                    p.copy_(state["slow"])
        return loss


class TSAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self):
        norm = torch.norm(torch.stack([p.grad.norm(p=2) for g in self.param_groups for p in g["params"]
                                       if p.grad is not None]), p=2)
        for group in self.param_groups:
            scale = group["rho"] / (norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * scale)

    @torch.no_grad()
    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data = self.state[p]["old_p"]
        self.base_optimizer.step()


# ---- the same optimizers on TorchOptimizer, as the converter writes them ----------------------


class Lion(TorchOptimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                lr = float(group["lr"])
                p.set_data(p * (1 - lr * group["weight_decay"]))
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = ops.zeros_like(p)
                beta1, beta2 = group["betas"]
                update = state["exp_avg"] * beta1 + p.grad * (1 - beta1)
                p.set_data(p - lr * ops.sign(update))
                state["exp_avg"] = state["exp_avg"] * beta2 + p.grad * (1 - beta2)


class LARS(TorchOptimizer):
    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, eta=0.001):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad + p * group["weight_decay"]
                w_norm, g_norm = ops.norm(p), ops.norm(d_p)
                trust = ops.where((w_norm > 0) & (g_norm > 0), group["eta"] * w_norm / g_norm, ops.ones_like(w_norm))
                d_p = d_p * trust
                state = self.state[p]
                state["mu"] = d_p if "mu" not in state else state["mu"] * group["momentum"] + d_p
                p.set_data(p - float(group["lr"]) * state["mu"])


class AdamW(TorchOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = float(group["lr"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = ops.zeros_like(p)
                    state["exp_avg_sq"] = ops.zeros_like(p)
                state["step"] += 1
                p.set_data(p * (1 - lr * group["weight_decay"]))
                state["exp_avg"] = state["exp_avg"] * beta1 + p.grad * (1 - beta1)
                state["exp_avg_sq"] = state["exp_avg_sq"] * beta2 + p.grad * p.grad * (1 - beta2)
                bias1, bias2 = 1 - beta1 ** state["step"], 1 - beta2 ** state["step"]
                denom = state["exp_avg_sq"].sqrt() / math.sqrt(bias2) + group["eps"]
                p.set_data(p - (lr / bias1) * (state["exp_avg"] / denom))


class Lookahead(TorchOptimizer):
    def __init__(self, base_optimizer, alpha=0.5, k=2):
        self.__dict__["base_optimizer"] = base_optimizer
        super().__init__(base_optimizer.param_groups, dict(lookahead_alpha=alpha, lookahead_k=k, lookahead_step=0))

    def step(self, closure=None):
        loss = torch_optimizer_step(self.base_optimizer, closure)
        for group in self.param_groups:
            group["lookahead_step"] += 1
            if group["lookahead_step"] % group["lookahead_k"] == 0:
                for p in group["params"]:
                    state = self.state[p]
                    if "slow" not in state:
                        state["slow"] = p.copy()
                    state["slow"] = state["slow"] + (p - state["slow"]) * group["lookahead_alpha"]
                    p.set_data(state["slow"])
        return loss


class SAM(TorchOptimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.__dict__["base_optimizer"] = base_optimizer(self.param_groups, **kwargs)

    def first_step(self):
        norm = ops.norm(ops.stack([ops.norm(p.grad) for g in self.param_groups for p in g["params"]
                                   if p.grad is not None]))
        for group in self.param_groups:
            scale = group["rho"] / (norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.copy()
                p.set_data(p + p.grad * scale)

    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.set_data(self.state[p]["old_p"])
        torch_optimizer_step(self.base_optimizer)


# ---- running both ------------------------------------------------------------------------------

RNG = np.random.default_rng(7)
W1, B1, W2 = RNG.standard_normal((5, 4)).astype(np.float32), RNG.standard_normal(5).astype(np.float32), \
    RNG.standard_normal((1, 5)).astype(np.float32)
DATA = [(RNG.standard_normal((6, 4)).astype(np.float32), RNG.standard_normal((6, 1)).astype(np.float32))
        for _ in range(6)]


def _torch_net():
    net = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1, bias=False))
    with torch.no_grad():
        for p, v in zip(net.parameters(), (W1, B1, W2)):
            p.copy_(torch.tensor(v))
    return net


def _ms_net():
    net = ms.nn.SequentialCell([ms.nn.Dense(4, 5), ms.nn.Tanh(), ms.nn.Dense(5, 1, has_bias=False)])
    for p, v in zip(net.trainable_params(), (W1, B1, W2)):
        p.set_data(ms.Tensor(v))
    return net


def _torch_loss(net, x, y):
    return torch.nn.functional.mse_loss(net(torch.tensor(x)), torch.tensor(y))


def _ms_grad(net, opt):
    return ms.value_and_grad(lambda x, y: ops.mse_loss(net(x), y), None, opt.parameters)


def _close(ms_net, torch_net):
    for p, q in zip(ms_net.trainable_params(), torch_net.parameters()):
        np.testing.assert_allclose(p.asnumpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


CASES = {
    "lion": (lambda p: TLion(p, lr=0.01, weight_decay=0.1), lambda p: Lion(p, lr=0.01, weight_decay=0.1)),
    "lars": (lambda p: TLARS(p, lr=0.5, eta=0.02), lambda p: LARS(p, lr=0.5, eta=0.02)),
    "adamw": (lambda p: TAdamW(p, lr=0.05, weight_decay=0.1), lambda p: AdamW(p, lr=0.05, weight_decay=0.1)),
    "lookahead(sgd)": (lambda p: TLookahead(torch.optim.SGD(p, lr=0.1, momentum=0.9)),
                       lambda p: Lookahead(ms.experimental.optim.SGD(p, lr=0.1, momentum=0.9))),
    "lookahead(lion)": (lambda p: TLookahead(TLion(p, lr=0.01)), lambda p: Lookahead(Lion(p, lr=0.01))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_torch_optimizer_subclass_steps_as_torch(name):
    make_torch, make_ms = CASES[name]
    tnet, mnet = _torch_net(), _ms_net()
    topt, mopt = make_torch(tnet.parameters()), make_ms(mnet.trainable_params())
    grad_fn = _ms_grad(mnet, mopt)
    for x, y in DATA:
        topt.zero_grad()
        want = _torch_loss(tnet, x, y)
        want.backward()
        topt.step()
        loss, grads = grad_fn(ms.Tensor(x), ms.Tensor(y))
        mopt(grads)
        np.testing.assert_allclose(loss.asnumpy(), want.item(), rtol=1e-5)
    _close(mnet, tnet)


def test_a_frozen_parameter_given_to_a_subclass_gets_no_gradient_as_in_torch():
    # parameters() lists frozen parameters too (torch_parameters on a Cell): torch's step() sees
    # p.grad None for them and skips them, so weight decay leaves them alone
    tnet, mnet = _torch_net(), _ms_net()
    tnet[0].bias.requires_grad_(False)
    list(mnet.trainable_params())[1].requires_grad = False
    topt = TAdamW(tnet.parameters(), lr=0.05, weight_decay=0.1)
    mopt = AdamW(list(mnet.get_parameters()), lr=0.05, weight_decay=0.1)
    grad_fn = _ms_grad(mnet, mopt)
    for x, y in DATA:
        topt.zero_grad()
        _torch_loss(tnet, x, y).backward()
        topt.step()
        mopt(grad_fn(ms.Tensor(x), ms.Tensor(y))[1])
    assert mopt.parameters[1].grad is None
    np.testing.assert_array_equal(mnet[0].bias.asnumpy(), B1)
    for p, q in zip(mnet.get_parameters(), tnet.parameters()):
        np.testing.assert_allclose(p.asnumpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_sam_two_gradients_per_step_as_torch():
    tnet, mnet = _torch_net(), _ms_net()
    topt = TSAM(tnet.parameters(), torch.optim.SGD, rho=0.1, lr=0.1, momentum=0.9)
    mopt = SAM(mnet.trainable_params(), ms.experimental.optim.SGD, rho=0.1, lr=0.1, momentum=0.9)
    grad_fn = _ms_grad(mnet, mopt)
    for x, y in DATA:
        _torch_loss(tnet, x, y).backward()
        topt.first_step()
        topt.zero_grad()
        _torch_loss(tnet, x, y).backward()
        topt.second_step()
        topt.zero_grad()
        for step in (mopt.first_step, mopt.second_step):
            _, grads = grad_fn(ms.Tensor(x), ms.Tensor(y))
            for p, g in zip(mopt.parameters, grads):
                p.grad = g
            step()
    _close(mnet, tnet)


def test_state_dict_carries_the_state_and_a_loaded_optimizer_continues():
    tnet = _torch_net()
    topt = TAdamW(tnet.parameters(), lr=0.05, weight_decay=0.1)
    mnet = _ms_net()
    mopt = AdamW(mnet.trainable_params(), lr=0.05, weight_decay=0.1)
    grad_fn = _ms_grad(mnet, mopt)
    for x, y in DATA[:3]:
        topt.zero_grad()
        _torch_loss(tnet, x, y).backward()
        topt.step()
        mopt(grad_fn(ms.Tensor(x), ms.Tensor(y))[1])
    sd = mopt.state_dict()
    want = topt.state_dict()
    assert sd["param_groups"] == [{**g, "lr": 0.05} for g in want["param_groups"]]
    assert sorted(sd["state"]) == sorted(want["state"]) == [0, 1, 2]
    for i, s in want["state"].items():
        assert sd["state"][i]["step"] == s["step"] == 3
        np.testing.assert_allclose(sd["state"][i]["exp_avg"].asnumpy(), s["exp_avg"].numpy(), rtol=1e-5, atol=1e-6)
    # a fresh optimizer, loaded from the state (as arrays, as a checkpoint gives them back), continues
    again = AdamW(mnet.trainable_params(), lr=0.5)
    again.load_state_dict({"state": {i: {k: (v.asnumpy() if isinstance(v, ms.Tensor) else v) for k, v in s.items()}
                                     for i, s in sd["state"].items()}, "param_groups": sd["param_groups"]})
    assert float(again.param_groups[0]["lr"]) == pytest.approx(0.05)
    grad_fn = _ms_grad(mnet, again)
    for x, y in DATA[3:]:
        topt.zero_grad()
        _torch_loss(tnet, x, y).backward()
        topt.step()
        again(grad_fn(ms.Tensor(x), ms.Tensor(y))[1])
    _close(mnet, tnet)


def test_an_lr_scheduler_drives_it_and_groups_keep_their_options():
    tnet, mnet = _torch_net(), _ms_net()
    tp, mp = list(tnet.parameters()), mnet.trainable_params()
    topt = TLion([{"params": tp[:2]}, {"params": tp[2:], "lr": 0.003, "weight_decay": 0.5}], lr=0.01)
    mopt = Lion([{"params": mp[:2]}, {"params": mp[2:], "lr": 0.003, "weight_decay": 0.5}], lr=0.01)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5)
    msched = ms.experimental.optim.lr_scheduler.StepLR(mopt, step_size=2, gamma=0.5)
    grad_fn = _ms_grad(mnet, mopt)
    for x, y in DATA:
        topt.zero_grad()
        _torch_loss(tnet, x, y).backward()
        topt.step()
        tsched.step()
        mopt(grad_fn(ms.Tensor(x), ms.Tensor(y))[1])
        msched.step()
        assert [float(g["lr"]) for g in mopt.param_groups] == pytest.approx([g["lr"] for g in topt.param_groups])
    assert mopt.param_groups[1]["weight_decay"] == 0.5 and mopt.param_groups[0]["weight_decay"] == 0.0
    _close(mnet, tnet)


def test_misuse_is_an_error_that_says_what_to_do():
    class NoStep(TorchOptimizer):
        def __init__(self, params):
            super().__init__(params, {})
    mnet = _ms_net()
    opt = NoStep(mnet.trainable_params())
    with pytest.raises(NotImplementedError, match="defines step"):
        opt(tuple(ops.zeros_like(p) for p in opt.parameters))
    with pytest.raises(ValueError, match="number of gradients must equal .* 3"):
        opt((ops.zeros_like(opt.parameters[0]),))
    opt.zero_grad()
    assert all(p.grad is None for p in opt.parameters)
