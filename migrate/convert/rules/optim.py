"""Argument rules for optimizers: the ``rule`` names that mappings/training.toml gives its
torch.optim entries. Every rule has one signature, ``apply(edit) -> None``."""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import primary
from migrate.convert.cst import dotted
from migrate.convert.registry import argument_rule, node_rule
from migrate.convert.training.bindings import OPTIMIZER_BASES

OPTIMIZER_SUBCLASS = node_rule(
    "MS247", "optimizer_subclass",
    "Replace the base torch.optim.Optimizer of an optimizer class (Lion, LARS, an AdamW variant, "
    "Lookahead, SAM) with the generated TorchOptimizer: torch's param_groups, state, defaults and "
    "state_dict() over the target's experimental Optimizer; the class's own step() runs as written "
    "and reads p.grad, which the training step's optimizer(grads) sets; the step() of an optimizer it wraps "
    "goes through torch_optimizer_step.", needs=["TorchOptimizer", "torch_optimizer_step"], examples=[
    ("class SignSGD(torch.optim.Optimizer):\n"
     "    def __init__(self, params, lr=0.01):\n"
     "        super().__init__(params, dict(lr=lr))\n"
     "\n"
     "    def step(self, closure=None):\n"
     "        for group in self.param_groups:\n"
     "            for p in group['params']:\n"
     "                if p.grad is not None:\n"
     "                    p.add_(torch.sign(p.grad), alpha=-group['lr'])\n",
     "class SignSGD(TorchOptimizer):\n"
     "    def __init__(self, params, lr=0.01):\n"
     "        super().__init__(params, dict(lr=lr))\n"
     "\n"
     "    def step(self, closure=None):\n"
     "        for group in self.param_groups:\n"
     "            for p in group['params']:\n"
     "                if p.grad is not None:\n"
     "                    p.copy_(p.add(ops.sign(p.grad), alpha=-float(group['lr'])))\n"),
])


class _WrappedSteps(cst.CSTTransformer):
    """``self.base_optimizer.step(closure)`` (any receiver but ``self`` and ``super()``) in an
    optimizer class -> ``torch_optimizer_step(self.base_optimizer, closure)``."""

    def __init__(self, helper):
        self.helper, self.changed = helper, []

    def leave_Call(self, original, updated):
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "step") or \
                (isinstance(func.value, cst.Name) and func.value.value == "self") or \
                (isinstance(func.value, cst.Call) and dotted(func.value.func) == "super"):
            return updated
        new = cst.Call(cst.Name(self.helper()), [cst.Arg(func.value), *updated.args])
        self.changed.append((original, new))
        return new


def optimizer_bases(converter, node: cst.ClassDef) -> cst.ClassDef:
    """Apply MS247 to a class whose base is torch.optim.Optimizer (before its body is walked, so the
    base is not marked as a torch name without a mapping); the steps of an optimizer it wraps go
    through ``torch_optimizer_step``."""
    if not converter.allows(OPTIMIZER_SUBCLASS.id):
        return node
    steps = _WrappedSteps(lambda: converter.output.signatures.helper("torch_optimizer_step"))
    node = node.with_changes(body=node.body.visit(steps))
    for before, after in steps.changed:
        converter.record(before, after, OPTIMIZER_SUBCLASS.id, "exact",
                         "the wrapped optimizer's step: torch's own, or a MindSpore optimizer called "
                         "with its parameters' p.grad")
    bases = []
    for base in node.bases:
        if converter.qual(base.value) in OPTIMIZER_BASES:
            new = cst.Name(converter.output.signatures.helper("TorchOptimizer"))
            converter.record(base.value, new, OPTIMIZER_SUBCLASS.id, "exact",
                             "torch's Optimizer API over the target's experimental Optimizer; "
                             "optimizer(grads) sets p.grad and runs step()")
            base = base.with_changes(value=new)
        bases.append(base)
    return node.with_changes(bases=bases)


@argument_rule("MS220", "asgd_floats", examples=[
    ("opt = torch.optim.ASGD(model.parameters(), lr=0.1)\n",
     "opt = ms.experimental.optim.ASGD(model.trainable_params(), lr=0.1)\n"),
])
def asgd_floats(edit) -> None:
    """Replace ASGD's int lambd/t0 (t0=1) with floats (t0=1.0): MindSpore 2.10's ASGD refuses ints."""
    for key in ("lambd", "t0"):
        value = edit.get(key)
        if value is None or isinstance(value, cst.Float):
            continue
        if isinstance(value, cst.Integer):
            edit.set(key, f"{value.value}.0")
        else:
            edit.set(key, f"float({primary(value)})")


@argument_rule("MS236", "lbfgs", needs=["TorchLBFGS"], examples=[
    ("import torch.optim as optim\n"
     "\n"
     "\n"
     "class Net(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.fc1 = nn.Linear(3, 8)\n"
     "        self.fc2 = nn.Linear(8, 1)\n"
     "\n"
     "    def forward(self, x):\n"
     "        return self.fc2(torch.tanh(self.fc1(x)))\n"
     "\n"
     "\n"
     "def train(model, input, target, steps):\n"
     "    criterion = nn.MSELoss()\n"
     "    optimizer = optim.LBFGS(model.parameters(), lr=0.8)\n"
     "    losses = []\n"
     "    for i in range(steps):\n"
     "        def closure():\n"
     "            optimizer.zero_grad()\n"
     "            out = model(input)\n"
     "            loss = criterion(out, target)\n"
     "            losses.append(loss.item())\n"
     "            loss.backward()\n"
     "            return loss\n"
     "        first = optimizer.step(closure)\n"
     "        losses.append(first.item())\n"
     "    return losses\n",
     "class Net(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.fc1 = nn.Dense(3, 8, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(3)))\n"
     "        self.fc2 = nn.Dense(8, 1, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(8)))\n"
     "\n"
     "    def construct(self, x):\n"
     "        return self.fc2(ops.tanh(self.fc1(x)))\n"
     "\n"
     "\n"
     "def train(model, input, target, steps):\n"
     "    criterion = nn.MSELoss()\n"
     "    optimizer = TorchLBFGS(model.trainable_params(), lr=0.8)\n"
     "    losses = []\n"
     "    for i in range(steps):\n"
     "        def closure():\n"
     "            def forward_fn():\n"
     "                out = model(input)\n"
     "                loss = criterion(out, target)\n"
     "                return loss\n"
     "\n"
     "            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "            loss, grads = grad_fn()\n"
     "            losses.append(loss.item())\n"
     "            return loss, grads\n"
     "        first = optimizer.step(closure)\n"
     "        losses.append(first.item())\n"
     "    return losses\n"),
])
def lbfgs(edit) -> None:
    """Replace optim.LBFGS(params, lr=...) with the generated TorchLBFGS(params, lr=...) (torch's
    algorithm without a line search; its step(closure) takes the closure the training pass writes,
    which returns (loss, grads))."""
    search = edit.get("line_search_fn")
    if search is not None and not (isinstance(search, cst.Name) and search.value == "None"):
        edit.unsupported("line_search_fn='strong_wolfe': the generated LBFGS steps by lr only (torch's default)")
        return
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in edit.call.args]
    edit.result = cst.Call(cst.Name(edit.helper("TorchLBFGS")), args)
