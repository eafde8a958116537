"""Golden outputs of the training fixtures that have one (tests/fixtures/training/expected): the
exact conversion, reviewed and committed; the fixture tests run it against torch.

To accept new output on purpose: ``MIGRATE_UPDATE_GOLDEN=1 python -m pytest
tests/migrate/convert/training/test_training_golden.py``.
"""
import os

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

HERE = FIXTURE_ROOT / "training"
GOLDEN = sorted((HERE / "expected").glob("*.out.py"))


def test_new_fixtures_have_golden_outputs():
    assert {"sampler_branches", "manual_sgd", "grad_smoke", "accumulation_loop", "trainer_attr_loss", "gan_two_steps",
            "param_groups", "grad_penalty_chain"} <= {g.name[:-len(".out.py")] for g in GOLDEN}


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.name)
def test_golden_output(golden):
    src = HERE / golden.name.replace(".out.py", ".py")
    out = convert_source(src.read_text()).code
    if os.environ.get("MIGRATE_UPDATE_GOLDEN"):
        golden.write_text(out)
    assert out == golden.read_text()
    assert convert_source(out).code == out
