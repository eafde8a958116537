"""Gradient checkpointing and reversible blocks written as torch.autograd.Functions (rules.recompute,
MS230/MS231): fixtures of our own with the structure of guided-diffusion's CheckpointFunction and of
the RevNet/Reformer reversible blocks, converted for both targets and run against torch (forward and
every gradient; the --target mindspore output runs here on ms_core, and on MindSpore 2.10 in
tests/oracle/test_oracle_recompute.py). Functions without that structure keep the other rules."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

# a hand-written checkpoint: forward runs the function without recording it, backward runs it again
# with grad on and differentiates it for the inputs and the parameters the function reads
CHECKPOINT = '''
def checkpoint(func, inputs, params, flag):
    if flag:
        args = tuple(inputs) + tuple(params)
        return Recompute.apply(func, len(inputs), *args)
    return func(*inputs)


class Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, n, *args):
        ctx.fn = fn
        ctx.inputs = list(args[:n])
        ctx.params = list(args[n:])
        ctx.save_for_backward(*args)
        with torch.no_grad():  # nothing recorded: recomputed in backward
            out = ctx.fn(*ctx.inputs)
        return out

    @staticmethod
    def backward(ctx, *grads):
        inputs = [x.detach().requires_grad_(True) for x in ctx.inputs]
        with torch.enable_grad():
            out = ctx.fn(*[x.view_as(x) for x in inputs])
        got = torch.autograd.grad(out, inputs + ctx.params, grads, allow_unused=True)
        return (None, None) + got


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.fc = nn.Linear(c, c)

    def forward(self, x, scale):
        return checkpoint(self._forward, (x, scale), self.parameters(), True)

    def _forward(self, x, scale):
        return x + torch.tanh(self.fc(self.norm(x))) * scale
'''

# a reversible coupling: forward without recording, backward_pass recomputes f and g from the output
# (inverting the block) and differentiates them; the RNG state is kept so that recomputation repeats
# random ops
REVERSIBLE = '''
class Keep(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.state = None

    def forward(self, x, record=False, replay=False):
        if record:
            self.state = torch.get_rng_state()
            if torch.cuda._initialized:
                self.on_gpu = True
        if not replay:
            return self.net(x)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(self.state)
            return self.net(x)


class Coupling(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f, self.g = Keep(f), Keep(g)

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=-1)

        with torch.no_grad():
            y1 = x1 + self.f(x2, record=True)
            y2 = x2 + self.g(y1, record=True)
        return torch.cat([y1, y2], dim=-1)

    def backward_pass(self, y, dy):
        y1, y2 = torch.chunk(y, 2, dim=-1)
        dy1, dy2 = torch.chunk(dy, 2, dim=-1)
        with torch.enable_grad():
            y1.requires_grad = True
            gy1 = self.g(y1, replay=True)
            torch.autograd.backward(gy1, dy2)
        with torch.no_grad():
            x2 = y2 - gy1
            dx1 = dy1 + y1.grad
        with torch.enable_grad():
            x2.requires_grad = True
            fx2 = self.f(x2, replay=True)
            torch.autograd.backward(fx2, dx1)
        with torch.no_grad():
            x1 = y1 - fx2
            dx2 = dy2 + x2.grad
        return torch.cat([x1, x2.detach()], dim=-1), torch.cat([dx1, dx2], dim=-1)


class _Reversible(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, blocks):
        for block in blocks:
            x = block(x)
        ctx.y = x.detach()
        ctx.blocks = blocks
        return x

    @staticmethod
    def backward(ctx, dy):
        y = ctx.y
        for block in ctx.blocks[::-1]:
            y, dy = block.backward_pass(y, dy)
        return dy, None


class RevNet(nn.Module):
    def __init__(self, c, depth):
        super().__init__()
        half = c // 2
        self.blocks = nn.ModuleList([
            Coupling(nn.Sequential(nn.Linear(half, half), nn.GELU()), nn.Sequential(nn.LayerNorm(half), nn.Tanh()))
            for _ in range(depth)])

    def forward(self, x):
        return _Reversible.apply(x, self.blocks) * 2
'''


def on_ms_core(code: str) -> str:
    """--target mindspore output made to import ms_core: the same ops, one import apart."""
    return code.replace("import mindspore as ms", "import ms_core as ms").replace("from mindspore", "from ms_core")


def torch_reference(net, arrays, cot):
    """net's output, and the gradients of <output, cot> for the inputs and every parameter (by name),
    through loss.backward(): a reversible block's backward accumulates the parameters' .grad itself."""
    inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = net(*inputs)
    (out * torch.tensor(cot)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in inputs], \
        {n: p.grad.numpy() for n, p in net.named_parameters()}


def ms_run(cell, arrays, cot):
    """The converted cell's output, and its input and parameter gradients (by name) for <output, cot>."""
    names, params = zip(*cell.parameters_and_names())

    def scalar(*args):
        return (cell(*args) * ms.Tensor(cot)).sum()
    inputs = [ms.Tensor(a) for a in arrays]
    grads, weight_grads = ms.grad(scalar, grad_position=tuple(range(len(arrays))), weights=list(params))(*inputs)
    grads = grads if isinstance(grads, tuple) else (grads,)
    return cell(*inputs).asnumpy(), [g.asnumpy() for g in grads], \
        {n: g.asnumpy() for n, g in zip(names, weight_grads)}


def assert_as_torch(code, build, arrays, train, target):
    out = convert_source(HEAD + code, target=target).code
    assert "# migrate: MS9" not in out, out
    torch_ns, ms_ns = {}, {}
    exec(HEAD + code, torch_ns)  # noqa: S102
    exec(on_ms_core(out), ms_ns)  # noqa: S102 (running the converted code is the test)
    torch.manual_seed(0)
    net, cell = eval(build, torch_ns), eval(build, ms_ns)  # noqa: S307
    net.train(train)
    cell.set_train(train)
    assert copy_weights(net, cell) == set()
    with torch.no_grad():
        cot = np.random.RandomState(1).randn(*net(*map(torch.tensor, arrays)).shape).astype(np.float32)
    want, want_grads, want_params = torch_reference(net, arrays, cot)
    got, grads, params = ms_run(cell, arrays, cot)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=target)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=target)
    assert_same_parameter_grads(params, want_params, target)
    return out


def assert_same_parameter_grads(params, want_params, target):
    """Every torch parameter's gradient is the converted parameter's of the same path (LayerNorm's
    weight/bias are gamma/beta there)."""
    assert len(params) == len(want_params)
    for name, w in want_params.items():
        matched = [np.asarray(g) for n, g in params.items() if n.split(".")[:-1] == name.split(".")[:-1]
                   and np.shape(g) == w.shape
                   and (n.split(".")[-1] == name.split(".")[-1] or n.split(".")[-1] in ("gamma", "beta"))]
        assert any(np.allclose(g, w, rtol=1e-5, atol=1e-6) for g in matched), (target, name)


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_checkpoint_function_becomes_a_plain_call_with_torchs_gradients(target):
    rng = np.random.RandomState(0)
    arrays = [rng.randn(2, 3, 8).astype(np.float32), rng.rand(2, 3, 1).astype(np.float32)]
    out = assert_as_torch(CHECKPOINT, "Block(8)", arrays, True, target)
    assert "class Recompute:\n    @staticmethod\n    def apply(fn, n, *args):\n" in out
    assert "inputs = list(args[:n])\n" in out and "params" not in out.split("class Recompute")[1].split("class")[0]
    assert "out = fn(*inputs)  # nothing recorded: recomputed in backward" not in out
    assert "        # nothing recorded: recomputed in backward\n        out = fn(*inputs)\n" in out
    assert "def backward" not in out and "TorchFunction" not in out and "no_grad" not in out


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_reversible_sequence_is_differentiated_as_its_forward_composition(target):
    arrays = [np.random.RandomState(0).randn(2, 5, 8).astype(np.float32)]
    out = assert_as_torch(REVERSIBLE, "RevNet(8, 3)", arrays, True, target)
    assert "class _Reversible:\n    @staticmethod\n    def apply(x, blocks):\n" in out
    assert "backward_pass" not in out and "no_grad" not in out and "ctx" not in out
    assert "x1, x2 = ops.chunk(x, 2, axis=-1)\n\n        y1 = x1 + self.f(x2, record=True)" in out
    assert "self.state = ms.get_rng_state()" in out and "torch_fork_rng(devices=[])" in out


def test_the_notes_say_what_changed():
    res = convert_source(HEAD + REVERSIBLE)
    notes = {c.rule: c for c in res.changes if c.rule in ("MS230", "MS231")}
    assert notes["MS230"].label == notes["MS231"].label == "approximate"
    assert "same values and gradients" in notes["MS230"].note and "more memory" in notes["MS230"].note
    assert "backward_pass(), which only that Function's backward called, is removed" in notes["MS231"].note


# what is not a recomputation keeps the other autograd.Function rules
NOT_RECOMPUTED = '''
class Straight(torch.autograd.Function):  # its own gradient: backward differentiates nothing
    @staticmethod
    def forward(ctx, fn, x):
        with torch.no_grad():
            return fn(x).round()

    @staticmethod
    def backward(ctx, g):
        return None, g


class Other(torch.autograd.Function):  # differentiates a function forward never called
    @staticmethod
    def forward(ctx, fn, x):
        ctx.x = x
        with torch.no_grad():
            return fn(x)

    @staticmethod
    def backward(ctx, g):
        x = ctx.x.detach().requires_grad_(True)
        with torch.enable_grad():
            y = torch.sin(x)
        return None, torch.autograd.grad(y, x, g)[0]


class Kept(nn.Module):  # a backward method called from elsewhere too stays
    def __init__(self):
        super().__init__()
        self.f = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            return self.f(x)

    def backward_pass(self, y, dy):
        with torch.enable_grad():
            y.requires_grad = True
            self.f(y).backward(dy)
        return y.grad


class Rev(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, block):
        ctx.block = block
        return block(x)

    @staticmethod
    def backward(ctx, dy):
        return ctx.block.backward_pass(None, dy), None


def again(block, y, dy):
    return block.backward_pass(y, dy)
'''


def test_what_is_not_a_recomputation_keeps_the_other_rules():
    res = convert_source(HEAD + NOT_RECOMPUTED)
    out = res.code
    assert "class Straight(nn.Cell):" in out and "class Other(TorchFunction):" in out
    assert "class Rev:" in out and "def backward_pass" in out  # Kept's backward_pass is called by again()
    assert "MS230" in {c.rule for c in res.changes}
    # Kept.forward calls itself in backward_pass: its no-grad region goes, its other caller stays
    assert "    def construct(self, x):\n        return self.f(x)\n" in out


# torch's own checkpointing helpers: already a plain call (checkpoint), and the sequential one
SEQUENTIAL = '''
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Tower(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(c, c), nn.Tanh(), nn.Linear(c, c), nn.LayerNorm(c))
        self.head = nn.Linear(c, 2)

    def forward(self, x):
        h = checkpoint_sequential(self.body, 2, x, use_reentrant=False)
        return checkpoint(self.head, h, use_reentrant=False)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_torchs_checkpoint_helpers_are_plain_calls(target):
    arrays = [np.random.RandomState(0).randn(3, 6).astype(np.float32)]
    out = assert_as_torch(SEQUENTIAL, "Tower(6)", arrays, True, target)
    assert "h = torch_checkpoint_sequential(self.body, 2, x, use_reentrant=False)" in out
    assert "return self.head(h)" in out
