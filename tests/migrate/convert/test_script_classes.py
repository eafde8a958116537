"""Training-script classes seen on real code (nanoGPT, minGPT): converted before/after pairs and
runs against torch."""
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def _run(code: str) -> dict:
    ns = {"__name__": "converted"}
    exec(code, ns)
    return ns


def test_bfloat16_in_a_dtype_table_converts_and_the_float32_path_runs():
    """nanoGPT: {'float32': torch.float32, 'bfloat16': torch.bfloat16, ...}[dtype] builds; the
    float32 entry computes as torch does; bfloat16 is named, not computed in on ms_core."""
    src = ("import torch\n"
           "def pick(dtype):\n"
           "    table = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}\n"
           "    return torch.ones(2, dtype=table[dtype]) * 1.5\n")
    res = convert_source(src)
    assert "'bfloat16': ms.bfloat16" in res.code and "MS9" not in res.code, res.code
    ns = _run(res.code)
    assert ns["pick"]("float32").asnumpy().tolist() == torch.ones(2).mul(1.5).tolist()
    assert ns["pick"]("float32").dtype == ms.float32
    with pytest.raises(TypeError, match="no bfloat16"):
        ns["pick"]("bfloat16")


GENERATOR_SRC = ("import torch\n"
                 "def draw(num, seed):\n"
                 "    rng = torch.Generator()\n"
                 "    rng.manual_seed(seed)\n"
                 "    perm = torch.randperm(num, generator=rng)\n"
                 "    ints = torch.randint(0, 5, (64,), generator=rng)\n"
                 "    return perm, ints, rng.initial_seed()\n")


def test_torch_generator_becomes_a_seeded_stream_of_its_own():
    """minGPT's adder: torch.Generator() + manual_seed + randperm(n, generator=g). The converted
    draws are permutations / in-range integers, repeat for the same seed, and follow the
    generator, not the global stream."""
    res = convert_source(GENERATOR_SRC)
    assert "rng = TorchGenerator()" in res.code and "MS9" not in res.code, res.code
    assert "ops.randperm(num, seed=torch_seed(rng, 0))" in res.code
    assert "ops.randint(0, 5, (64,), seed=torch_seed(rng, None))" in res.code
    draw = _run(res.code)["draw"]
    tperm, tints, tseed = _run(GENERATOR_SRC)["draw"](50, 1337)
    perm, ints, seed = draw(50, 1337)
    assert seed == tseed == 1337
    assert sorted(perm.asnumpy().tolist()) == sorted(tperm.tolist()) == list(range(50))
    assert perm.dtype == ms.int64 and ints.dtype == ms.int64
    assert ints.asnumpy().min() >= 0 and ints.asnumpy().max() < 5
    ms.set_seed(1)
    again = draw(50, 1337)
    assert (again[0].asnumpy() == perm.asnumpy()).all() and (again[1].asnumpy() == ints.asnumpy()).all()
    assert not (draw(50, 7)[0].asnumpy() == perm.asnumpy()).all()

    # one generator's successive calls differ: its stream advances
    ns = _run(res.code)
    gen = ns["TorchGenerator"]().manual_seed(3)
    first, second = (ms.ops.randperm(50, seed=ns["torch_seed"](gen, 0)).asnumpy() for _ in range(2))
    assert not (first == second).all()


def test_converted_generator_is_idempotent_and_none_keeps_the_global_stream():
    res = convert_source(GENERATOR_SRC)
    assert convert_source(res.code).code == res.code
    code = convert_source("import torch\nx = torch.randperm(4, generator=None)\n").code
    assert "ops.randperm(4)" in code and "torch_seed" not in code, code


class _Rows:
    """A map-style dataset of 5 rows (index, 10 * index)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return self.tensor([i, i]), self.tensor(10 * i)


SAMPLER_SRC = ("import torch\nfrom torch.utils.data import DataLoader\n"
               "def loaders(ds):\n"
               "    a = DataLoader(ds, sampler=torch.utils.data.RandomSampler(ds, replacement=True, "
               "num_samples=int(1e10)), shuffle=False, pin_memory=True, batch_size=2, num_workers=0)\n"
               "    b = DataLoader(ds, sampler=torch.utils.data.SequentialSampler(ds), batch_size=2)\n"
               "    return a, b\n")


def test_random_and_sequential_samplers_pass_to_the_dataset():
    """minGPT's chargpt: DataLoader(ds, sampler=RandomSampler(ds, replacement=True,
    num_samples=int(1e10))). The converted loader draws rows of the dataset with replacement,
    in batches of torch's shape; a SequentialSampler reads them in order, as torch does."""
    res = convert_source(SAMPLER_SRC)
    assert "MS9" not in res.code, res.code
    assert "sampler=ms.dataset.RandomSampler(replacement=True, num_samples=int(1e10))" in res.code
    assert "sampler=ms.dataset.SequentialSampler()" in res.code
    a, b = _run(res.code)["loaders"](_Rows(ms.Tensor))
    ta, tb = _run(SAMPLER_SRC)["loaders"](_Rows(torch.tensor))
    ms.dataset.config.set_seed(0)
    batches = [[t.asnumpy() for t in batch] for batch in a]
    assert sum(len(x) for x, _ in batches) == 5  # one epoch: the dataset's length (see the note)
    first = next(iter(ta))
    assert batches[0][0].shape == tuple(first[0].shape) and batches[0][1].shape == tuple(first[1].shape)
    for x, y in batches:
        assert set(x[:, 0].tolist()) <= set(range(5)) and (y == 10 * x[:, 0]).all()
    ordered = [[t.asnumpy().tolist() for t in batch] for batch in b]
    assert ordered == [[t.tolist() for t in batch] for batch in tb]
