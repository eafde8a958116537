"""Golden outputs: the exact conversion of some fixtures, reviewed and committed.

A change in the converter's output shows up here as a diff to review. To accept new output on
purpose: ``MIGRATE_UPDATE_GOLDEN=1 python -m pytest tests/migrate/convert/test_golden.py``.
"""
import os

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

HERE = FIXTURE_ROOT / "convert"
GOLDEN = sorted((HERE / "expected").glob("*.out.py"))


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.name)
def test_golden_output(golden):
    src = HERE / golden.name.replace(".out.py", ".py")
    out = convert_source(src.read_text()).code
    if os.environ.get("MIGRATE_UPDATE_GOLDEN"):
        golden.write_text(out)
    assert out == golden.read_text()
