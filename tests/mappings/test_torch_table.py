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
