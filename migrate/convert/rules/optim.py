"""Argument rules for optimizers: the ``rule`` names that mappings/training.toml gives its
torch.optim entries. Every rule has one signature, ``apply(edit) -> None``."""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import primary
from migrate.convert.registry import argument_rule


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
     "        self.fc1 = nn.Dense(3, 8, has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(3)))\n"
     "        self.fc2 = nn.Dense(8, 1, has_bias=True, "
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
