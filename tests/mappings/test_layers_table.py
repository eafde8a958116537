"""Proofs of mappings/layers.toml (torch.nn layers): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Expr, Layer, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

CLS = (("z23", "rs.randn(2, 3).astype(np.float32)"),)          # logits for BANK's targets t
PROB = (("p", "rs.uniform(0.05, 0.95, (2, 3, 4)).astype(np.float32)"),
        ("q", "rs.uniform(0.05, 0.95, (2, 3, 4)).astype(np.float32)"))
SIG = (("sig", "rs.randn(2, 3, 9).astype(np.float32)"),)
IDS = (("ids", "np.array([[0, 2, 4], [3, 3, 1]], np.int64)"),)

CASES = [
    ProvenBy("torch.nn.Module",
             "tests/migrate/convert/test_fixtures_numeric.py::test_converted_fixture_matches_torch"),
    Layer("torch.nn.Conv2d", "nn.Conv2d(2, 3, 3, padding=1)", input="img"),
    Layer("torch.nn.Conv2d", "nn.Conv2d(2, 4, (3, 2), stride=2, padding=(1, 0), dilation=(1, 2), "
          "groups=2, bias=False)", input="img"),
    Layer("torch.nn.Conv2d", "nn.Conv2d(2, 3, 4, padding='same')", input="img"),
    Layer("torch.nn.Conv1d", "nn.Conv1d(3, 4, 3, padding=1)", input="sig", arrays=SIG),
    Layer("torch.nn.Conv1d", "nn.Conv1d(3, 6, (2,), stride=(2,), dilation=2, groups=3)",
          input="sig", arrays=SIG),
    Layer("torch.nn.ConvTranspose2d", "nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, "
          "output_padding=1)", input="img"),
    Layer("torch.nn.ConvTranspose2d", "nn.ConvTranspose2d(2, 4, 1, stride=2, groups=2)",
          input="img"),
    Layer("torch.nn.BatchNorm2d", "nn.BatchNorm2d(2)", input="img", train=True),
    Layer("torch.nn.BatchNorm2d", "nn.BatchNorm2d(2, momentum=0.3, affine=False)", input="img"),
    Layer("torch.nn.BatchNorm1d", "nn.BatchNorm1d(3)", input="sig", arrays=SIG, train=True),
    Layer("torch.nn.BatchNorm1d", "nn.BatchNorm1d(4, eps=1e-3)", input="m"),
    Layer("torch.nn.Linear", "nn.Linear(4, 3)"),
    # torch ignores Identity's arguments (placeholders built with another layer's arguments)
    Layer("torch.nn.Identity", "nn.Identity(54, unused_argument1=0.1, **{'unused_argument2': 3})"),
    Layer("torch.nn.Linear", "nn.Linear(4, 2, bias=False)", input="m"),
    Layer("torch.nn.modules.linear.NonDynamicallyQuantizableLinear",
          "nn.modules.linear.NonDynamicallyQuantizableLinear(4, 3)"),
    Layer("torch.nn.Dropout", "nn.Dropout(0.3)"),
    Layer("torch.nn.Dropout2d", "nn.Dropout2d(0.4, inplace=False)", input="img"),
    Layer("torch.nn.MaxPool2d", "nn.MaxPool2d(2)", input="img"),
    Layer("torch.nn.MaxPool2d", "nn.MaxPool2d(3, 2, 1, ceil_mode=True)", input="img"),
    Layer("torch.nn.AvgPool2d", "nn.AvgPool2d(2)", input="img"),
    Layer("torch.nn.AvgPool2d", "nn.AvgPool2d(3, 2, 1, count_include_pad=False)", input="img"),
    Layer("torch.nn.MaxPool1d", "nn.MaxPool1d(3, 2, 1)", input="sig", arrays=SIG),
    Layer("torch.nn.AvgPool1d", "nn.AvgPool1d(2)", input="sig", arrays=SIG),
    Layer("torch.nn.AdaptiveAvgPool2d", "nn.AdaptiveAvgPool2d((4, 3))", input="img"),
    Layer("torch.nn.AdaptiveAvgPool2d", "nn.AdaptiveAvgPool2d(1)", input="img"),
    Layer("torch.nn.AdaptiveMaxPool2d", "nn.AdaptiveMaxPool2d(4)", input="img"),
    Layer("torch.nn.AdaptiveAvgPool1d", "nn.AdaptiveAvgPool1d(4)", input="sig", arrays=SIG),
    Layer("torch.nn.ReLU", "nn.ReLU(inplace=False)"),
    Layer("torch.nn.ReLU6", "nn.ReLU6()", input="big", arrays=(("big", "rs.randn(3, 4) * 5"),)),
    Layer("torch.nn.Hardswish", "nn.Hardswish()", input="big",
          arrays=(("big", "(rs.randn(3, 5) * 3).astype(np.float32)"),)),
    Layer("torch.nn.Hardsigmoid", "nn.Hardsigmoid()", input="big",
          arrays=(("big", "(rs.randn(3, 5) * 3).astype(np.float32)"),)),
    Layer("torch.nn.SiLU", "nn.SiLU()"),
    Layer("torch.nn.Sigmoid", "nn.Sigmoid()"),
    Layer("torch.nn.Tanh", "nn.Tanh()"),
    Layer("torch.nn.GELU", "nn.GELU()"),
    Layer("torch.nn.GELU", "nn.GELU(approximate='tanh')"),
    Layer("torch.nn.LeakyReLU", "nn.LeakyReLU()"),
    Layer("torch.nn.LeakyReLU", "nn.LeakyReLU(0.2, True)", grad=False),   # in-place on a leaf
    Layer("torch.nn.ELU", "nn.ELU(0.5)"),
    Layer("torch.nn.PReLU", "nn.PReLU()"),
    Layer("torch.nn.PReLU", "nn.PReLU(3, init=0.1)"),
    Layer("torch.nn.Softmax", "nn.Softmax(dim=1)"),
    Layer("torch.nn.Softmax", "nn.Softmax()", input="m"),   # implicit dim of 2-D input: 1 == -1
    Layer("torch.nn.LogSoftmax", "nn.LogSoftmax(-1)"),
    Layer("torch.nn.Softplus", "nn.Softplus(2.0, 5.0)", input="big",
          arrays=(("big", "(rs.randn(3, 5) * 4).astype(np.float32)"),)),
    Layer("torch.nn.Mish", "nn.Mish()"),
    Layer("torch.nn.Hardtanh", "nn.Hardtanh(-0.5, 0.8)"),
    Layer("torch.nn.SELU", "nn.SELU()"),
    Layer("torch.nn.LogSigmoid", "nn.LogSigmoid()"),
    Layer("torch.nn.Softsign", "nn.Softsign()"),
    Layer("torch.nn.Flatten", "nn.Flatten()", input="img"),
    Layer("torch.nn.Flatten", "nn.Flatten(0, 1)"),
    Layer("torch.nn.Identity", "nn.Identity(54, unused='x')"),
    Layer("torch.nn.Embedding", "nn.Embedding(5, 3)", input="ids", arrays=IDS),
    # forward only: MindSpore 2.10 trains the padding row (torch masks its gradient); the
    # conversion is labelled approximate for it
    Layer("torch.nn.Embedding", "nn.Embedding(5, 3, padding_idx=3)", input="ids", arrays=IDS,
          grad=False),
    Marked("torch.nn.Embedding", "nn.Embedding(5, 3, max_norm=1.0)"),
    ProvenBy("torch.nn.Embedding.from_pretrained",
             "tests/migrate/convert/training/test_recipe_sample2.py::test_embeddings_from_a_given_table_train_as_torchs"),
    Layer("torch.nn.LayerNorm", "nn.LayerNorm(4)"),
    Layer("torch.nn.LayerNorm", "nn.LayerNorm([4], eps=1e-3)"),
    # MindSpore 2.10's LayerNorm takes begin_norm_axis in [-1, rank): a 2-axis shape is marked
    Marked("torch.nn.LayerNorm", "nn.LayerNorm((3, 4))"),
    Layer("torch.nn.GroupNorm", "nn.GroupNorm(2, 4)", input="g4",
          arrays=(("g4", "rs.randn(2, 4, 3, 2).astype(np.float32)"),)),
    Layer("torch.nn.Upsample", "nn.Upsample(scale_factor=2)", input="img"),
    Layer("torch.nn.Upsample", "nn.Upsample(scale_factor=(1, 3), mode='bilinear')", input="img"),
    Layer("torch.nn.Upsample", "nn.Upsample(size=(9, 4), mode='bilinear', align_corners=True)",
          input="img"),
    Layer("torch.nn.Sequential", "nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))"),
    Layer("torch.nn.ModuleList", "nn.Sequential(*nn.ModuleList([nn.Linear(4, 4), nn.Tanh()]))"),
    Layer("torch.nn.ModuleDict", "nn.ModuleDict({'fc': nn.Linear(4, 2), 'act': nn.ReLU()})['fc']"),
    Expr("torch.nn.Parameter", "nn.Parameter(x) * 2.0"),
    Expr("torch.nn.Parameter", "nn.Parameter(x, requires_grad=False) + y", grad=False),
    Expr("torch.nn.parameter.Parameter", "torch.nn.parameter.Parameter(x) * 2.0"),
    Layer("torch.nn.CrossEntropyLoss", "nn.CrossEntropyLoss()", input=("z23", "t"), arrays=CLS),
    Layer("torch.nn.CrossEntropyLoss", "nn.CrossEntropyLoss(torch.tensor([0.2, 1.0, 3.0]), "
          "label_smoothing=0.1, reduction='sum')", input=("z23", "t"), arrays=CLS),
    Layer("torch.nn.CrossEntropyLoss", "nn.CrossEntropyLoss(size_average=False)", input=("z23", "t"), arrays=CLS),
    Layer("torch.nn.NLLLoss", "nn.NLLLoss(reduce=False)", input=("z23", "t"), arrays=CLS),
    Marked("torch.nn.CrossEntropyLoss", "nn.CrossEntropyLoss(size_average=flag)"),
    Layer("torch.nn.NLLLoss", "nn.NLLLoss()", input=("z23", "t"), arrays=CLS),
    Layer("torch.nn.MSELoss", "nn.MSELoss()", input=("x", "y")),
    Layer("torch.nn.MSELoss", "nn.MSELoss(reduction='none')", input=("x", "y")),
    Layer("torch.nn.L1Loss", "nn.L1Loss(reduction='sum')", input=("x", "y")),
    Layer("torch.nn.BCEWithLogitsLoss", "nn.BCEWithLogitsLoss()", input=("x", "q"), arrays=PROB),
    Layer("torch.nn.BCEWithLogitsLoss", "nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, "
          "3.0, 0.5]))", input=("x", "q"), arrays=PROB),
    Layer("torch.nn.BCELoss", "nn.BCELoss()", input=("p", "q"), arrays=PROB),
    Layer("torch.nn.SmoothL1Loss", "nn.SmoothL1Loss()", input=("x", "y")),
    Layer("torch.nn.SmoothL1Loss", "nn.SmoothL1Loss(beta=0.5, reduction='sum')", input=("x", "y")),
    Layer("torch.nn.HuberLoss", "nn.HuberLoss(delta=0.7)", input=("x", "y")),
    Layer("torch.nn.KLDivLoss", "nn.KLDivLoss(reduction='batchmean')", input=("x", "q"),
          arrays=PROB),
    Marked("torch.nn.KLDivLoss", "nn.KLDivLoss(log_target=True)"),
    Layer("torch.nn.InstanceNorm2d", "nn.InstanceNorm2d(2)", input="img"),
    Layer("torch.nn.InstanceNorm2d", "nn.InstanceNorm2d(2, affine=True)", input="img"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
