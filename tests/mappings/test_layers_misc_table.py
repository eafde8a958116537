"""Proofs of mappings/layers_misc.toml (Unflatten, ChannelShuffle, Bilinear, MaxUnpool,
ParameterList, _pair and friends, and the classes marked for want of a MindSpore counterpart):
see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Expr, Layer, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

# max-pooling indices (flat into the unpooled spatial size), one per 2-wide window
UNPOOL = (("p2", "rs.randn(2, 3, 2, 3).astype(np.float32)"),
          ("i2", "(np.array([[0, 3, 5], [13, 14, 23]]) + np.zeros((2, 3, 1, 1), np.int64))"),
          ("p1", "rs.randn(2, 3, 4).astype(np.float32)"),
          ("i1", "(np.array([1, 2, 5, 6]) + np.zeros((2, 3, 1), np.int64))"),
          ("p3", "rs.randn(1, 2, 2, 1, 2).astype(np.float32)"),
          ("i3", "(np.array([0, 3, 24, 30]).reshape(2, 1, 2) + np.zeros((1, 2, 1, 1, 1), np.int64))"))
BI = (("x1", "rs.randn(3, 4).astype(np.float32)"), ("x2", "rs.randn(3, 6).astype(np.float32)"))

CASES = [
    Layer("torch.nn.Unflatten", "nn.Unflatten(2, (2, 2))"),
    Layer("torch.nn.Unflatten", "nn.Unflatten(-1, (2, -1))"),
    Layer("torch.nn.ChannelShuffle", "nn.ChannelShuffle(3)", input="c6",
          arrays=(("c6", "rs.randn(2, 6, 2, 3).astype(np.float32)"),)),
    Layer("torch.nn.Bilinear", "nn.Bilinear(4, 6, 5)", input=("x1", "x2"), arrays=BI),
    Layer("torch.nn.Bilinear", "nn.Bilinear(4, 6, 2, bias=False)", input=("x1", "x2"), arrays=BI),
    Layer("torch.nn.MaxUnpool2d", "nn.MaxUnpool2d(2)", input=("p2", "i2"), arrays=UNPOOL),
    Layer("torch.nn.MaxUnpool1d", "nn.MaxUnpool1d(2, 2)", input=("p1", "i1"), arrays=UNPOOL),
    Layer("torch.nn.MaxUnpool3d", "nn.MaxUnpool3d(2)", input=("p3", "i3"), arrays=UNPOOL),
    Expr("torch.nn.ParameterList", "len(nn.ParameterList([nn.Parameter(x), nn.Parameter(y)]))",
         grad=False),
    Expr("torch.nn.ParameterList", "nn.ParameterList([nn.Parameter(x * 2)])[0]", grad=False),
    ProvenBy("torch.nn.ParameterList", "tests/migrate/convert/rules/test_parameter_list_growing.py::"
                                       "test_growing_parameter_list_is_registered_and_matches_torch"),
    Expr("torch.nn.modules.utils._pair", "torch.nn.modules.utils._pair(3)", grad=False),
    Expr("torch.nn.modules.utils._pair", "torch.nn.modules.utils._pair((2, 5))", grad=False),
    Expr("torch.nn.modules.utils._single", "torch.nn.modules.utils._single(x.shape[0])",
         grad=False),
    Expr("torch.nn.modules.utils._triple", "torch.nn.modules.utils._triple(x.shape[1] + 1)",
         grad=False),
    Expr("torch.nn.modules.utils._quadruple", "torch.nn.modules.utils._quadruple([1, 2, 3, 4])",
         grad=False),
    Layer("torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm(nn.Conv1d(3, 2, 2))"),
    Layer("torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm(nn.Linear(4, 3), dim=None)"),
    Layer("torch.nn.utils.parametrizations.weight_norm",
          "torch.nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 3, padding=1))",
          input="img"),
    Layer("torch.nn.utils.parametrizations.weight_norm",
          "torch.nn.utils.parametrizations.weight_norm(nn.Linear(4, 3), dim=1)"),
    Layer("torch.nn.utils.remove_weight_norm",
          "torch.nn.utils.remove_weight_norm(torch.nn.utils.weight_norm(nn.Linear(4, 3)))"),
    Marked("torch.nn.ParameterDict", "nn.ParameterDict({'a': p})"),
    Layer("torch.nn.EmbeddingBag", "nn.EmbeddingBag(10, 3, mode='sum')", input="bags", constant=("bags",),
          arrays=(("bags", "rs.randint(0, 10, (4, 3))"),)),
    Layer("torch.nn.EmbeddingBag", "nn.EmbeddingBag(10, 3, mode='max', padding_idx=2)", input="bags",
          constant=("bags",), arrays=(("bags", "rs.randint(0, 10, (4, 3))"),)),
    Marked("torch.nn.EmbeddingBag", "nn.EmbeddingBag(10, 3, max_norm=1.0)"),
    ProvenBy("torch.nn.EmbeddingBag.from_pretrained",
             "tests/migrate/convert/training/test_recipe_sample2.py::test_embeddings_from_a_given_table_train_as_torchs"),
    Marked("torch.nn.CosineSimilarity", "nn.CosineSimilarity(dim=1)"),
    Marked("torch.nn.PairwiseDistance", "nn.PairwiseDistance()"),
    *[ProvenBy(q, "tests/migrate/convert/training/test_recipe_gaps.py::"
                  "test_data_parallel_on_one_process_is_the_module_and_its_module_attribute_the_network")
      for q in ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                "torch.nn.parallel.data_parallel.DataParallel")],
]
LAZY = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
        "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
        "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
        "UninitializedParameter", "UninitializedBuffer"]
CASES += [Marked(f"torch.nn.{n}", f"nn.{n}(4)") for n in LAZY]
CASES += [Marked(f"torch.nn.parameter.{n}", f"torch.nn.parameter.{n}()")
          for n in ("UninitializedParameter", "UninitializedBuffer")]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
