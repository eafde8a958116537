"""torch.distributions.constraints -> the runtime's TorchConstraints: check(value) (a boolean tensor over
the batch shape), is_discrete, event_dim and repr against torch's on the same values, and the converted
use (zuko: ``domain = constraints.interval(0, math.pi)`` in a class body, run at import; a constraint
read through, ``constraints.positive.check(x)``; a distribution's ``support``)."""
import numpy as np
import pytest

from migrate import convert_source
from migrate.runtime.distributions import TorchConstraints, TorchNormal, TorchUniform
from tests.migrate.convert.helpers import both_sides

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")
C = torch.distributions.constraints

# every value kind the checks tell apart: NaN, inf, bounds, integers, fractions
VALUES = np.array([[-2.0, -1.0, -0.5, 0.0], [0.25, 0.5, 1.0, 1.0], [2.0, 3.0, np.nan, np.inf]], np.float32)
MATRICES = np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [[0.5, 0.5], [0.0, 1.0]]], np.float32)
SIMPLEX = np.array([[0.25, 0.75, 0.0], [0.5, 0.5, 0.1], [1.0, 0.0, 0.0], [-0.5, 1.5, 0.0]], np.float32)

CASES = [
    ("boolean", (), VALUES), ("real", (), VALUES), ("positive", (), VALUES), ("nonnegative", (), VALUES),
    ("unit_interval", (), VALUES), ("nonnegative_integer", (), VALUES), ("positive_integer", (), VALUES),
    ("real_vector", (), VALUES), ("one_hot", (), np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0.5]], np.float32)),
    ("simplex", (), SIMPLEX), ("lower_triangular", (), MATRICES), ("square", (), MATRICES),
    ("symmetric", (), MATRICES), ("interval", (-0.5, 1.0), VALUES), ("half_open_interval", (-0.5, 1.0), VALUES),
    ("greater_than", (0.5,), VALUES), ("greater_than_eq", (0.5,), VALUES), ("less_than", (1.0,), VALUES),
    ("integer_interval", (0, 2), VALUES), ("multinomial", (3,), np.array([[1, 2, 0], [2, 2, 0], [-1, 1, 1]],
                                                                      np.float32)),
]


@pytest.mark.parametrize("name,args,values", CASES, ids=[c[0] for c in CASES])
def test_each_constraint_checks_as_torch_does(name, args, values):
    want = getattr(C, name)(*args) if args else getattr(C, name)
    got = getattr(TorchConstraints, name)(*args) if args else getattr(TorchConstraints, name)
    result = got.check(ms.Tensor(values))
    np.testing.assert_array_equal(result.asnumpy(), want.check(torch.from_numpy(values)).numpy())
    assert result.dtype == ms.bool_
    assert (got.is_discrete, got.event_dim, repr(got)) == (want.is_discrete, want.event_dim, repr(want))


def test_independent_and_dependent_constraints_as_torch():
    """independent(base, n) reduces the last n axes (and refuses too few); a dependent constraint
    cannot check and says so; is_dependent tells them apart."""
    want = C.independent(C.interval(-1.0, 1.0), 2)
    got = TorchConstraints.independent(TorchConstraints.interval(-1.0, 1.0), 2)
    cube = np.array([[[0.5, -0.5], [1.0, 0.0]], [[0.5, 2.0], [0.0, 0.0]]], np.float32)
    np.testing.assert_array_equal(got.check(ms.Tensor(cube)).asnumpy(), want.check(torch.from_numpy(cube)).numpy())
    assert (got.event_dim, got.is_discrete, repr(got)) == (want.event_dim, want.is_discrete, repr(want))
    with pytest.raises(ValueError, match="Expected value.dim\\(\\) >= 2 but got 1"):
        got.check(ms.Tensor(cube[0, 0]))
    with pytest.raises(ValueError, match="dependent"):
        TorchConstraints.dependent.check(ms.Tensor(cube))
    assert TorchConstraints.dependent(is_discrete=True, event_dim=1).event_dim == 1
    assert TorchConstraints.is_dependent(TorchConstraints.dependent) and not TorchConstraints.is_dependent(
        TorchConstraints.real)
    with pytest.raises(TypeError, match="'base_constraint' must be a constraint"):
        TorchConstraints.independent(0.5, 1)


def test_the_runtime_distributions_declare_torch_constraints():
    """support / arg_constraints of the runtime's distributions check as torch's do."""
    x = np.array([-1.0, 0.5, 1.5, np.nan], np.float32)
    want = torch.distributions.Uniform(0.0, 1.0).support.check(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(TorchUniform(0.0, 1.0).support.check(ms.Tensor(x)).asnumpy(), want)
    want = torch.distributions.Normal(0.0, 1.0).support.check(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(TorchNormal(0.0, 1.0).support.check(ms.Tensor(x)).asnumpy(), want)
    assert repr(TorchNormal.arg_constraints["scale"]) == repr(torch.distributions.Normal.arg_constraints["scale"])


SRC = """\
import math
import torch
from torch.distributions import constraints


class Angle:
    domain = constraints.interval(0, math.pi)
    codomain = constraints.interval(-1, 1)
    vectors = constraints.independent(constraints.real, 1)


class Even(constraints.Constraint):
    is_discrete = True

    def check(self, value):
        return value % 2 == 0


class Box:
    def __init__(self, low, high):
        self.low, self.high = low, high

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)


def valid(x):
    return (Angle.domain.check(x) & constraints.positive.check(x), Angle.vectors.check(x), Even().check(x),
            Box(-1.0, 1.0).support.check(x),
            Angle.vectors.event_dim + constraints.real_vector.event_dim,
            constraints.is_dependent(Box.support), constraints.is_dependent(Angle.domain), repr(Even()),
            Box.support.event_dim)
"""


def test_converted_constraints_run_as_torch_without_it():
    """The class body runs at import (zuko's transforms stopped there: MS901); the checks give torch's."""
    code = convert_source(SRC).code
    assert "domain = TorchConstraints.interval(0, math.pi)" in code and "torch" not in code.replace(
        "migrate_runtime", ""), code
    tns, cns = both_sides(SRC, "TorchConstraints.positive.check(x)")
    x = np.array([[0.5, 3.5], [-1.0, 2.0], [np.nan, 1.0], [4.0, -0.5]], np.float32)
    want = tns["valid"](torch.from_numpy(x))
    got = cns["valid"](ms.Tensor(x))
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
    assert got[4:] == want[4:] == (2, True, False, "ven()", 0)
