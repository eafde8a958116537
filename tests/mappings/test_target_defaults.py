"""mappings/target_defaults.toml: the defaults the converter leaves unspelled are ms_core's (read
again from its signatures) and MindSpore 2.10's (read in its interpreter, with the oracle); and a
conversion does not write an argument equal to one, unless the user wrote it so."""
import pytest

from mappings import target_defaults
from tests.migrate.convert.helpers import check
from tests.oracle.test_oracle import ORACLE


def test_the_table_holds_ms_cores_defaults():
    table, ours = target_defaults.load(), target_defaults.read("ms_core")
    assert table, "the table is empty"
    wrong = {(t, k): (v, ours.get(t, {}).get(k)) for t, params in table.items() for k, v in params.items()
             if ours.get(t, {}).get(k) != v}
    assert not wrong, f"ms_core's defaults changed (regenerate: python -m mappings.target_defaults): {wrong}"


@pytest.mark.oracle
@pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available (set MS_ORACLE_PYTHON)")
def test_the_table_holds_mindsporess_defaults():
    table, theirs = target_defaults.load(), target_defaults.read("mindspore", ORACLE)
    wrong = {(t, k): (v, theirs.get(t, {}).get(k)) for t, params in table.items() for k, v in params.items()
             if theirs.get(t, {}).get(k) != v}
    assert not wrong, wrong


def test_defaults_the_conversion_would_write_are_not_spelled():
    check("""\
        fc = nn.Linear(3, 4)
        bn = nn.BatchNorm2d(8)
        ln = nn.LayerNorm(4)
        pool = nn.MaxPool2d(2, 2)
        drop = nn.Dropout()
        """, """\
        fc = nn.Dense(3, 4, weight_init=HeUniform(negative_slope=math.sqrt(5)), \
bias_init=Uniform(scale=1 / math.sqrt(3)))
        bn = nn.BatchNorm2d(8)
        ln = nn.LayerNorm((4,), epsilon=1e-05)
        pool = nn.MaxPool2d(2, 2)
        drop = nn.Dropout()
        """)


def test_a_default_the_user_wrote_or_that_differs_stays():
    check("""\
        fc = nn.Linear(3, 4, bias=True)
        fc2 = nn.Linear(3, 4, False)
        bn = nn.BatchNorm2d(8, momentum=0.2)
        conv = nn.Conv2d(1, 2, 3)
        """, """\
        fc = nn.Dense(3, 4, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), \
bias_init=Uniform(scale=1 / math.sqrt(3)))
        fc2 = nn.Dense(3, 4, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))
        bn = nn.BatchNorm2d(8, momentum=0.8)
        conv = nn.Conv2d(1, 2, 3, pad_mode='valid', has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), \
bias_init=Uniform(scale=1 / math.sqrt(9)))
        """)  # (Conv2d's has_bias is False on MindSpore: torch's True is written)
