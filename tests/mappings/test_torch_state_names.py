"""ms_core's table of torch state-dict names is generated from the layer tables and up to date."""
import subprocess
import sys

from mappings import load_attributes
from mappings.torch_state_names import OUTS, source
from ms_core._torch_renames import TORCH_RENAMES
from tests.migrate.convert.helpers import REPO


def test_the_committed_table_is_the_generated_one():
    for out in OUTS:
        assert out.read_text() == source(), f"{out}: run python -m mappings.torch_state_names"
    proc = subprocess.run([sys.executable, "-m", "mappings.torch_state_names", "--check"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_every_state_rename_of_the_tables_is_in_it_and_nothing_else():
    for qual, attrs in load_attributes().items():
        table = TORCH_RENAMES.get(qual.rsplit(".", 1)[-1], {})
        state = set(attrs.parameters) | set(attrs.buffers) | set(attrs.children)
        for torch_name, ms_name in attrs.rename.items():
            assert table.get(torch_name, "-") == (ms_name if torch_name in state else "-"), (qual, torch_name)
        for torch_name in attrs.absent:
            assert table.get(torch_name, "-") == (None if torch_name in state else "-"), (qual, torch_name)
    assert TORCH_RENAMES["TransformerEncoderLayer"] == {"linear1": "dense1", "linear2": "dense2"}
    assert TORCH_RENAMES["_BatchNorm"]["running_var"] == "moving_variance"
    assert "groups" not in TORCH_RENAMES.get("Conv2d", {}) and "eps" not in TORCH_RENAMES["LayerNorm"]


def test_the_parameters_listed_are_torchs():
    import torch
    made = {"BatchNorm2d": torch.nn.BatchNorm2d(3), "LayerNorm": torch.nn.LayerNorm(3),
            "GroupNorm": torch.nn.GroupNorm(1, 3), "InstanceNorm2d": torch.nn.InstanceNorm2d(3, affine=True),
            "Embedding": torch.nn.Embedding(3, 2), "PReLU": torch.nn.PReLU()}
    for name, layer in made.items():
        listed = next(a.parameters for q, a in load_attributes().items() if q.endswith("." + name))
        assert set(listed) == {n for n, _ in layer.named_parameters()}, name
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8)
    children = load_attributes()["torch.nn.TransformerEncoderLayer"].children
    assert {n for n in children} <= {n for n, _ in layer.named_children()}


def test_the_buffers_listed_are_torchs():
    import torch

    from ms_core._torch_renames import TORCH_BUFFERS
    made = {"BatchNorm1d": torch.nn.BatchNorm1d(3), "BatchNorm2d": torch.nn.BatchNorm2d(3),
            "BatchNorm3d": torch.nn.BatchNorm3d(3), "SyncBatchNorm": torch.nn.SyncBatchNorm(3),
            "InstanceNorm1d": torch.nn.InstanceNorm1d(3, track_running_stats=True),
            "InstanceNorm2d": torch.nn.InstanceNorm2d(3, track_running_stats=True),
            "InstanceNorm3d": torch.nn.InstanceNorm3d(3, track_running_stats=True)}
    assert set(made) == {k for k in TORCH_BUFFERS if not k.startswith("_")}
    for name, layer in made.items():
        assert set(TORCH_BUFFERS[name]) == {n for n, _ in layer.named_buffers()}, name
