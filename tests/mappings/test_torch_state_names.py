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


def test_every_layer_rename_of_the_tables_is_in_it():
    for qual, attrs in load_attributes().items():
        table = TORCH_RENAMES.get(qual.rsplit(".", 1)[-1], {})
        for torch_name, ms_name in attrs.rename.items():
            assert table[torch_name] == ms_name, (qual, torch_name)
        for torch_name in attrs.absent:
            assert table[torch_name] is None, (qual, torch_name)
    assert TORCH_RENAMES["TransformerEncoderLayer"] == {"linear1": "dense1", "linear2": "dense2"}
    assert TORCH_RENAMES["_BatchNorm"]["running_var"] == "moving_variance"


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
