"""Proofs of mappings/torch.toml (torch.* functions, dtypes, creation, math, shapes, linear algebra):
see tests/mappings/proof.py. Grouped as the table is."""
import numpy as np
import pytest

from tests.mappings.proof import Expr, ProvenBy, case_id, run

pytest.importorskip("torch")

I32 = "MindSpore 2.10 gives Int32 indices here (checked on CPU); they index and compare like int64"

CASES = [
    # --- tensor constructors and dtypes -----------------------------------------------------
    Expr("torch.Tensor", "torch.Tensor([1, 2]) + x[0, 0, :2]"),
    Expr("torch.Tensor", "torch.Tensor(2, 3).shape", grad=False),
    Expr("torch.FloatTensor", "torch.FloatTensor([1, 2, 3])", grad=False),
    Expr("torch.LongTensor", "torch.LongTensor([1, 2, 3])", grad=False),
    Expr("torch.float32", "torch.zeros(2, dtype=torch.float32)", grad=False),
    Expr("torch.float", "torch.ones(2, dtype=torch.float)", grad=False),
    Expr("torch.float16", "torch.ones(2, dtype=torch.float16)", grad=False),
    Expr("torch.half", "torch.ones(2, dtype=torch.half)", grad=False),
    Expr("torch.float64", "torch.ones(2, dtype=torch.float64)", grad=False),
    Expr("torch.double", "torch.ones(2, dtype=torch.double)", grad=False),
    Expr("torch.int64", "torch.ones(2, dtype=torch.int64)", grad=False),
    Expr("torch.long", "torch.ones(2, dtype=torch.long)", grad=False),
    Expr("torch.int32", "torch.ones(2, dtype=torch.int32)", grad=False),
    Expr("torch.int", "torch.ones(2, dtype=torch.int)", grad=False),
    Expr("torch.uint8", "torch.ones(2, dtype=torch.uint8)", grad=False),
    Expr("torch.bool", "torch.ones(2, dtype=torch.bool)", grad=False),
    Expr("torch.tensor", "torch.tensor([[1.0, 2.0]]) * x[0, :1, :2]"),
    Expr("torch.tensor", "torch.tensor([1, 2], dtype=torch.float64)", grad=False),
    Expr("torch.as_tensor", "torch.as_tensor([1, 2, 3])", grad=False),
    Expr("torch.from_numpy", "torch.from_numpy(x.numpy() * 2)", grad=False),
    Expr("torch.zeros", "torch.zeros(2, 3)", grad=False),
    Expr("torch.zeros", "torch.zeros((2, 3), dtype=torch.int64)", grad=False),
    Expr("torch.ones", "torch.ones(2, 3)", grad=False),
    Expr("torch.ones", "torch.ones([4], device='cpu')", grad=False),
    Expr("torch.full", "torch.full((2, 2), 3.0)", grad=False),
    Expr("torch.full", "torch.full((2,), 7, dtype=torch.int32)", grad=False),
    Expr("torch.arange", "torch.arange(5)", grad=False),
    Expr("torch.arange", "torch.arange(1, 4, 0.5)", grad=False),
    Expr("torch.arange", "torch.arange(0, 6, 2, dtype=torch.float32)", grad=False),
    Expr("torch.linspace", "torch.linspace(0, 1, 5)", grad=False),
    Expr("torch.eye", "torch.eye(3)", grad=False),
    Expr("torch.eye", "torch.eye(2, 3, dtype=torch.int64)", grad=False),
    Expr("torch.ones_like", "torch.ones_like(x)", grad=False),
    Expr("torch.ones_like", "torch.ones_like(x, dtype=torch.int64)", grad=False),
    Expr("torch.zeros_like", "torch.zeros_like(n)", grad=False),
    Expr("torch.randn", "torch.randn(200, 50)", check="stats", rtol=0.05, atol=0.02,
         why="a random sample: its moments match torch's"),
    Expr("torch.rand", "torch.rand(200, 50)", check="stats", rtol=0.05, atol=0.01,
         why="a random sample: its moments match torch's"),
    # --- elementwise math -------------------------------------------------------------------
    Expr("torch.exp", "torch.exp(x)"),
    Expr("torch.log", "torch.log(pos)"),
    Expr("torch.sqrt", "torch.sqrt(pos)"),
    Expr("torch.rsqrt", "torch.rsqrt(pos)"),
    Expr("torch.abs", "torch.abs(x)"),
    Expr("torch.abs", "torch.abs(n)", grad=False),
    Expr("torch.square", "torch.square(x)"),
    Expr("torch.sin", "torch.sin(x)"),
    Expr("torch.cos", "torch.cos(x)"),
    Expr("torch.floor", "torch.floor(x * 3)"),
    Expr("torch.erf", "torch.erf(x)"),
    Expr("torch.pow", "torch.pow(pos, 2.5)"),
    Expr("torch.pow", "torch.pow(pos, y)"),
    Expr("torch.mul", "torch.mul(x, y)"),
    Expr("torch.multiply", "torch.multiply(x, 3.0)"),
    Expr("torch.div", "torch.div(x, pos)"),
    Expr("torch.div", "torch.div(n, 2, rounding_mode='floor')", grad=False),
    Expr("torch.divide", "torch.divide(x, 2.0)"),
    Expr("torch.add", "torch.add(x, y)"),
    Expr("torch.sub", "torch.sub(x, y)"),
    Expr("torch.subtract", "torch.subtract(x, 1.5)"),
    Expr("torch.clamp", "torch.clamp(x, -0.5, 0.5)"),
    Expr("torch.clamp", "torch.clamp(x, min=0.0)"),
    Expr("torch.clip", "torch.clip(x, max=0.2)"),
    Expr("torch.where", "torch.where(x > 0, x, y)"),
    Expr("torch.where", "torch.where(mask, x, 0.0)"),
    # --- reductions -------------------------------------------------------------------------
    Expr("torch.sum", "torch.sum(x)"),
    Expr("torch.sum", "torch.sum(x, dim=1, keepdim=True)"),
    Expr("torch.sum", "torch.sum(x, (0, 2))"),
    Expr("torch.mean", "torch.mean(x, 1)"),
    Expr("torch.mean", "torch.mean(x, dim=(1, 2), keepdim=True)"),
    Expr("torch.max", "torch.max(x)"),
    Expr("torch.max", "torch.max(x, 1)"),
    Expr("torch.max", "torch.max(x, dim=2, keepdim=True)"),
    Expr("torch.max", "torch.max(x, y)"),
    Expr("torch.min", "torch.min(x)"),
    Expr("torch.min", "torch.min(x, -1)"),
    Expr("torch.argmax", "torch.argmax(x, 1)", grad=False),
    Expr("torch.argmax", "torch.argmax(x)", grad=False),
    Expr("torch.argmin", "torch.argmin(x, dim=2, keepdim=True)", grad=False, dtype="int32", why=I32),
    Expr("torch.logsumexp", "torch.logsumexp(x, 1)"),
    Expr("torch.logsumexp", "torch.logsumexp(x, dim=-1, keepdim=True)"),
    Expr("torch.norm", "torch.norm(x)"),
    Expr("torch.norm", "torch.norm(x, dim=1, keepdim=True)"),
    Expr("torch.norm", "torch.norm(x, p=2, dim=-1)"),
    Expr("torch.sort", "torch.sort(x, dim=1)", dtype=(None, "int32"), why=I32),
    Expr("torch.sort", "torch.sort(x, descending=True)", dtype=(None, "int32"), why=I32),
    Expr("torch.argsort", "torch.argsort(x, dim=1)", grad=False, dtype="int32", why=I32),
    Expr("torch.topk", "torch.topk(x, 2)", dtype=(None, "int32"), why=I32),
    Expr("torch.topk", "torch.topk(x, 2, dim=1, largest=False)", dtype=(None, "int32"), why=I32),
    # --- shapes -----------------------------------------------------------------------------
    Expr("torch.cat", "torch.cat([x, y], dim=1)"),
    Expr("torch.concat", "torch.concat((x, y))"),
    Expr("torch.stack", "torch.stack([x, y], 1)"),
    Expr("torch.flatten", "torch.flatten(x)"),
    Expr("torch.flatten", "torch.flatten(x, 1)"),
    Expr("torch.flatten", "torch.flatten(vol, start_dim=1, end_dim=2)"),
    Expr("torch.transpose", "torch.transpose(x, 0, 2)"),
    Expr("torch.swapaxes", "torch.swapaxes(x, 1, 2)"),
    Expr("torch.permute", "torch.permute(x, (2, 0, 1))"),
    Expr("torch.reshape", "torch.reshape(x, (6, -1))"),
    Expr("torch.chunk", "torch.chunk(x, 3, 1)"),
    Expr("torch.chunk", "torch.chunk(x, 2, dim=2)"),
    Expr("torch.split", "torch.split(x, 2, dim=2)"),
    Expr("torch.split", "torch.split(x, [1, 2], 1)"),
    Expr("torch.unsqueeze", "torch.unsqueeze(x, 0)"),
    Expr("torch.squeeze", "torch.squeeze(x[:, :1], 1)"),
    Expr("torch.squeeze", "torch.squeeze(x[:1])"),
    Expr("torch.gather", "torch.gather(x, 1, idx)"),
    Expr("torch.tril", "torch.tril(sq)"),
    Expr("torch.tril", "torch.tril(x, diagonal=-1)"),
    Expr("torch.triu", "torch.triu(sq, 1)"),
    # --- linear algebra ---------------------------------------------------------------------
    Expr("torch.matmul", "torch.matmul(x, w.T)"),
    Expr("torch.mm", "torch.mm(m, sq)"),
    Expr("torch.bmm", "torch.bmm(x, y.transpose(1, 2))"),
    # --- utilities: seeds, devices, checkpoints ---------------------------------------------
    Expr("torch.cuda.is_available", "torch.cuda.is_available()", grad=False),
    ProvenBy("torch.device", "tests/migrate/convert/test_handlers.py::test_device_code_removed"),
    ProvenBy("torch.manual_seed", "tests/mappings/test_torch_table.py::test_manual_seed_repeats_random_streams"),
    ProvenBy("torch.random.manual_seed",
             "tests/mappings/test_torch_table.py::test_manual_seed_repeats_random_streams"),
    ProvenBy("torch.save", "tests/mappings/test_torch_table.py::test_save_and_load_round_trip_a_state_dict"),
    ProvenBy("torch.load", "tests/mappings/test_torch_table.py::test_save_and_load_round_trip_a_state_dict"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)


def _converted(code: str) -> dict:
    from migrate import convert_source
    res = convert_source(code)
    assert res.error is None and "# migrate: MS9" not in res.code, res.code
    ns: dict = {}
    exec(compile(res.code, "<converted>", "exec"), ns)
    return ns


def test_manual_seed_repeats_random_streams():
    ns = _converted("import torch\n\ndef draw(seed):\n    torch.manual_seed(seed)\n    a = torch.rand(4)\n"
                    "    torch.random.manual_seed(seed)\n    return a, torch.rand(4)\n")
    a, b = ns["draw"](3)
    c, _ = ns["draw"](3)
    d, _ = ns["draw"](4)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())   # same seed, same stream
    np.testing.assert_array_equal(a.asnumpy(), c.asnumpy())
    assert not np.array_equal(a.asnumpy(), d.asnumpy())       # another seed, another stream


def test_save_and_load_round_trip_a_state_dict(tmp_path):
    import torch
    code = ("import torch\nimport torch.nn as nn\n\n"
            "def round_trip(net, path):\n    torch.save(net.state_dict(), path)\n"
            "    return torch.load(path, map_location='cpu')\n"
            "def build():\n    return nn.Linear(3, 2)\n")
    ns = _converted(code)
    net = ns["build"]()
    loaded = ns["round_trip"](net, str(tmp_path / "net.ckpt"))
    for name, p in net.parameters_and_names():
        np.testing.assert_array_equal(loaded[name].asnumpy(), p.asnumpy())
    torch_ns: dict = {}
    exec(code, torch_ns)
    ref = torch_ns["round_trip"](torch_ns["build"](), str(tmp_path / "net.pt"))
    assert sorted(ref) == sorted(loaded)   # the same names as torch's state dict

RANDOM = "a random sample: its moments match torch's"
CASES += [
    # --- creation (new) ---------------------------------------------------------------------
    Expr("torch.empty", "torch.empty(2, 3).shape", grad=False),
    Expr("torch.empty", "torch.empty((4,), dtype=torch.int64).shape", grad=False),
    Expr("torch.empty", "torch.empty(2, 3, device='cpu', requires_grad=False).dtype == torch.float32", grad=False),
    Expr("torch.empty_like", "torch.empty_like(x).shape", grad=False),
    Expr("torch.empty_like", "torch.empty_like(x, dtype=torch.float64).dtype == torch.float64", grad=False),
    Expr("torch.full_like", "torch.full_like(x, 2.5)", grad=False),
    Expr("torch.full_like", "torch.full_like(n, 7)", grad=False),
    Expr("torch.full_like", "torch.full_like(x, 3, dtype=torch.int32)", grad=False),
    Expr("torch.scalar_tensor", "torch.scalar_tensor(3)", grad=False),
    Expr("torch.randint", "torch.randint(10, (500, 40))", check="stats", rtol=0.05, why=RANDOM),
    Expr("torch.randint", "torch.randint(-3, 4, size=(500, 40))", check="stats", rtol=0.05, atol=0.05,
         why=RANDOM),
    Expr("torch.randint", "torch.randint(2, 9, (500, 40), dtype=torch.int32)", check="stats", rtol=0.05,
         why=RANDOM),
    Expr("torch.randint", "torch.randint(low=0, high=5, size=(500, 40))", check="stats", rtol=0.05,
         why=RANDOM),
    Expr("torch.randperm", "torch.randperm(50).sort()[0]", grad=False),
    Expr("torch.randperm", "torch.randperm(7, dtype=torch.int32).shape", grad=False),
    Expr("torch.randn_like", "torch.randn_like(torch.ones(200, 50))", check="stats", rtol=0.05, atol=0.02,
         why=RANDOM),
    Expr("torch.rand_like", "torch.rand_like(torch.ones(200, 50, dtype=torch.float64))", check="stats",
         rtol=0.05, atol=0.01, why=RANDOM),
    Expr("torch.multinomial", "torch.multinomial(torch.tensor([[0.1, 0.2, 0.7]] * 3000), 1)", check="stats",
         rtol=0.05, dtype="int32", why="sampled indices: their moments match torch's; MindSpore 2.10 gives Int32"),
    Expr("torch.multinomial", "torch.multinomial(torch.ones(2000, 5), 5).sort(1)[0]", grad=False,
         dtype="int32", why="without replacement every index appears once; MindSpore 2.10 gives Int32"),
    Expr("torch.normal", "torch.normal(2.0, 3.0, size=(200, 50))", check="stats", rtol=0.05, atol=0.05,
         why=RANDOM),
    Expr("torch.normal", "torch.normal(torch.full((200, 50), 1.5), 0.5)", check="stats", rtol=0.05, atol=0.02,
         why=RANDOM),
    Expr("torch.normal", "torch.normal(0.0, torch.full((200, 50), 2.0))", check="stats", rtol=0.05, atol=0.05,
         why=RANDOM),
    Expr("torch.normal", "torch.normal(torch.zeros(200, 50) + 1, torch.ones(200, 1))", check="stats",
         rtol=0.05, atol=0.05, why=RANDOM),
    Expr("torch.bernoulli", "torch.bernoulli(torch.full((200, 50), 0.3))", check="stats", rtol=0.05,
         atol=0.01, why=RANDOM),
    Expr("torch.bernoulli", "torch.bernoulli(u.detach() * 0 + 0.8)", check="shape",
         why="sampled: a 0/1 tensor of the input's shape (the values are random)"),
    # --- types, shapes, dtype information ---------------------------------------------------
    Expr("torch.Size", "torch.Size([2, 3])", grad=False),
    Expr("torch.Size", "x.shape == torch.Size((2, 3, 4))", grad=False),
    Expr("torch.is_tensor", "torch.is_tensor(x)", grad=False),
    Expr("torch.is_tensor", "torch.is_tensor([1.0])", grad=False),
    Expr("torch.is_floating_point", "torch.is_floating_point(x)", grad=False),
    Expr("torch.is_floating_point", "torch.is_floating_point(n)", grad=False),
    Expr("torch.is_complex", "torch.is_complex(x)", grad=False),
    Expr("torch.numel", "torch.numel(x)", grad=False),
    Expr("torch.finfo", "torch.finfo(torch.float32).eps", grad=False),
    Expr("torch.finfo", "torch.finfo(x.dtype).min", grad=False),
    Expr("torch.finfo", "torch.finfo(torch.float16).max", grad=False),
    Expr("torch.finfo", "torch.finfo().tiny", grad=False),
    Expr("torch.iinfo", "torch.iinfo(torch.int32).max", grad=False),
    Expr("torch.iinfo", "torch.iinfo(n.dtype).min", grad=False),
    Expr("torch.get_default_dtype", "torch.ones(1, dtype=torch.get_default_dtype())", grad=False),
    Expr("torch.broadcast_shapes", "torch.broadcast_shapes((2, 1, 4), (3, 1))", grad=False),
    Expr("torch.broadcast_shapes", "torch.broadcast_shapes(x.shape, (1, 4))", grad=False),
    # --- comparisons and logical reductions -------------------------------------------------
    Expr("torch.equal", "torch.equal(x, x)", grad=False),
    Expr("torch.equal", "torch.equal(x, y)", grad=False),
    Expr("torch.equal", "torch.equal(x, x[0])", grad=False),
    Expr("torch.equal", "torch.equal(x * 2, x + x)", grad=False),
    Expr("torch.allclose", "torch.allclose(x, x + 1e-7)", grad=False),
    Expr("torch.allclose", "torch.allclose(x, y, rtol=0.1, atol=10.0)", grad=False),
    Expr("torch.allclose", "torch.allclose(x, x + 0.01)", grad=False),
    Expr("torch.isclose", "torch.isclose(x, x + 1e-3 * y, atol=1e-3)", grad=False),
    Expr("torch.all", "torch.all(x > -1)", grad=False),
    Expr("torch.all", "torch.all(x > 0, dim=1)", grad=False),
    Expr("torch.all", "torch.all(n, 2, keepdim=True)", grad=False),
    Expr("torch.any", "torch.any(mask)", grad=False),
    Expr("torch.any", "torch.any(x > 1, 0)", grad=False),
]
