"""torch.distributions.Categorical, Normal, Uniform and Bernoulli over the target's ``ops``, and
torch.distributions.constraints (TorchConstraints).

MindSpore 2.10 has ``nn.probability.distribution.Categorical`` and ``Normal``, but with other
semantics (checked on MindSpore 2.10 CPU): Categorical takes no ``logits``, does not normalise
``probs`` (``log_prob`` of [1, 3] at 1 is log 3, not log 0.75; the gradient with respect to
``probs`` is 1/p[a], torch's 1/p[a] - 1/sum(p)), and rejects probabilities above one. These
classes compute torch's formulas instead: probabilities normalised over the last axis,
``log_prob`` / ``entropy`` differentiable, ``sample`` by ``ops.multinomial`` / ``ops.randn`` /
``ops.rand`` (int64 indices, float samples of the parameters' dtype; the random numbers are not
torch's).
"""
from .backend import ms, ops


class TorchCategorical:
    """torch.distributions.Categorical(probs=... | logits=...): probs normalised over the last
    axis (or softmax of logits); log_prob, entropy differentiable; sample by ops.multinomial."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("For 'Categorical', exactly one of 'probs' or 'logits' must be given.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdims=True)
            eps = 1.1920928955078125e-07 if self.probs.dtype == ms.float32 else 2.220446049250313e-16
            self.logits = ops.log(ops.clamp(self.probs, eps, 1 - eps))
        else:
            self.logits = ops.log_softmax(logits, -1)
            self.probs = ops.softmax(logits, -1)
        self.batch_shape = tuple(self.probs.shape[:-1])
        self.event_shape = ()

    @property
    def param_shape(self):
        return tuple(self.probs.shape)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape)
        n = 1
        for s in shape:
            n *= s
        flat = ops.stop_gradient(self.probs).reshape((-1, self.probs.shape[-1]))
        drawn = ops.multinomial(flat, n, True)  # (batch, n)
        return ops.cast(drawn.T.reshape(shape + self.batch_shape), ms.int64)

    def log_prob(self, value):
        value = ops.cast(value, ms.int64)
        k = self.logits.shape[-1]
        batch = _broadcast_shape(tuple(value.shape), self.batch_shape)
        logits = ops.broadcast_to(self.logits, batch + (k,))
        index = ops.broadcast_to(ops.expand_dims(value, -1), batch + (1,))
        return ops.gather_elements(logits, len(batch), index).squeeze(-1)

    def entropy(self):
        logits = ops.clamp(self.logits, -3.4028234663852886e38)
        return -(logits * self.probs).sum(-1)


class TorchNormal:
    """torch.distributions.Normal(loc, scale): loc and scale broadcast; log_prob, entropy, cdf
    and rsample differentiable; sample = rsample without gradient (ops.randn)."""

    def __init__(self, loc, scale, validate_args=None):
        dtype = next((v.dtype for v in (loc, scale) if isinstance(v, ms.Tensor)), ms.float32)
        loc = loc if isinstance(loc, ms.Tensor) else ms.Tensor(loc, dtype)
        scale = scale if isinstance(scale, ms.Tensor) else ms.Tensor(scale, dtype)
        self.batch_shape = _broadcast_shape(tuple(loc.shape), tuple(scale.shape))
        self.loc = ops.broadcast_to(loc, self.batch_shape)
        self.scale = ops.broadcast_to(scale, self.batch_shape)
        self.event_shape = ()

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale ** 2

    def rsample(self, sample_shape=()):
        shape = tuple(sample_shape) + self.batch_shape
        return self.loc + self.scale * ops.randn(*shape, dtype=self.loc.dtype)

    def sample(self, sample_shape=()):
        return ops.stop_gradient(self.rsample(sample_shape))

    def log_prob(self, value):
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - ops.log(self.scale) \
            - 0.9189385332046727  # log(sqrt(2 pi))

    def entropy(self):
        return 1.4189385332046727 + ops.log(self.scale)  # 0.5 + 0.5 log(2 pi) + log(scale)

    def cdf(self, value):
        return 0.5 * (1 + ops.erf((value - self.loc) / (self.scale * 1.4142135623730951)))


class TorchUniform:
    """torch.distributions.Uniform(low, high): U[low, high) with low and high broadcast; rsample,
    log_prob (-inf outside), entropy, cdf, icdf differentiable; sample = rsample without gradient."""

    def __init__(self, low, high, validate_args=None):
        dtype = next((v.dtype for v in (low, high) if isinstance(v, ms.Tensor)), ms.float32)
        low = low if isinstance(low, ms.Tensor) else ms.Tensor(low, dtype)
        high = high if isinstance(high, ms.Tensor) else ms.Tensor(high, dtype)
        self.batch_shape = _broadcast_shape(tuple(low.shape), tuple(high.shape))
        self.low = ops.broadcast_to(low, self.batch_shape)
        self.high = ops.broadcast_to(high, self.batch_shape)
        self.event_shape = ()
        self._validate = validate_args is not False  # torch validates unless told not to

    def _check(self, value):
        inside = ops.logical_and(self.low <= value, value < self.high)
        if self._validate and not bool(inside.all()):
            raise ValueError("For 'Uniform', the value must be within [low, high) (torch's support "
                             "check; pass validate_args=False to skip it).")
        return inside

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.low * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 3.4641016151377544  # sqrt(12)

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        shape = tuple(sample_shape) + self.batch_shape
        return self.low + (self.high - self.low) * ops.rand(*shape, dtype=self.low.dtype)

    def sample(self, sample_shape=()):
        return ops.stop_gradient(self.rsample(sample_shape))

    def log_prob(self, value):
        inside = self._check(value)
        log_p = -ops.log(self.high - self.low) + value * 0
        return ops.where(inside, log_p, ops.full_like(log_p, float("-inf")))

    def entropy(self):
        return ops.log(self.high - self.low)

    def cdf(self, value):
        self._check(value)
        return ops.clamp((value - self.low) / (self.high - self.low), 0, 1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)


class TorchBernoulli:
    """torch.distributions.Bernoulli(probs=... | logits=...): log_prob and entropy as torch's
    (binary cross-entropy with logits), differentiable; sample draws 1 with probability probs."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("For 'Bernoulli', exactly one of 'probs' or 'logits' must be given.")
        if probs is not None:
            self.probs = probs if isinstance(probs, ms.Tensor) else ms.Tensor(probs, ms.float32)
            eps = 1.1920928955078125e-07 if self.probs.dtype == ms.float32 else 2.220446049250313e-16
            p = ops.clamp(self.probs, eps, 1 - eps)
            self.logits = ops.log(p) - ops.log1p(-p)
        else:
            self.logits = logits if isinstance(logits, ms.Tensor) else ms.Tensor(logits, ms.float32)
            self.probs = ops.sigmoid(self.logits)
        self.batch_shape = tuple(self.probs.shape)
        self.event_shape = ()
        self._validate = validate_args is not False  # torch validates unless told not to

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return tuple(self.probs.shape)

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape) + self.batch_shape
        drawn = ops.rand(*shape, dtype=self.probs.dtype) < ops.stop_gradient(self.probs)
        return ops.cast(drawn, self.probs.dtype)

    def log_prob(self, value):
        if self._validate and not bool(ops.logical_or(value == 0, value == 1).all()):
            raise ValueError("For 'Bernoulli', the value must be 0 or 1 (torch's support check; "
                             "pass validate_args=False to skip it).")
        # -BCE with logits: value * logits - softplus(logits), written stably
        logits = self.logits + value * 0
        value = value + self.logits * 0
        return value * logits - ops.relu(logits) - ops.log1p(ops.exp(-ops.abs(logits)))

    def entropy(self):
        logits = self.logits
        return ops.relu(logits) + ops.log1p(ops.exp(-ops.abs(logits))) - self.probs * logits


def _broadcast_shape(a, b):
    """The broadcast of two shapes (NumPy's rule), or ValueError."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        raise ValueError(f"For 'Distribution', shapes {a} and {b} cannot be broadcast.")
    return tuple(max(x, y) if 1 in (x, y) else x for x, y in zip(a, b))


# ---- torch.distributions.constraints ----------------------------------------------------------
# The constraint objects that say where a distribution's parameters and values live, with torch's
# check(value) (a boolean tensor over the batch shape), is_discrete and event_dim, and repr.


class _Constraint:
    """torch.distributions.constraints.Constraint: the base of every constraint (subclass it
    and define check, as torch's)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError(f"For '{type(self).__name__}', check() must be defined by the subclass.")

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(_Constraint):
    """A constraint that depends on other parameters (``dependent``, callable with is_discrete= /
    event_dim= for a copy that knows them); check() cannot decide and raises, as torch's."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
                          event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """``@constraints.dependent_property`` (or called with is_discrete= / event_dim=): a property
    that is also a dependent constraint, as torch's."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(_Constraint):
    """``independent(base, n)``: ``base`` over the last ``n`` batch axes as event axes (check is
    all() over them)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, _Constraint):
            raise TypeError(f"For 'independent', the 'base_constraint' must be a constraint, but got "
                            f"{type(base_constraint).__name__}.")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"For 'independent', the 'reinterpreted_batch_ndims' must be an int >= 0, but got "
                             f"{reinterpreted_batch_ndims!r}.")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError(f"Expected value.dim() >= {self.base_constraint.event_dim + n} but got {value.ndim}")
        if n == 0:
            return result
        return result.reshape(tuple(result.shape[:result.ndim - n]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Bounded(_Constraint):
    """A constraint with bounds, shown as torch shows them."""

    _bounds = ()

    def __repr__(self):
        return type(self).__name__[1:] + "(" + ", ".join(f"{b}={getattr(self, b)}" for b in self._bounds) + ")"


class _Boolean(_Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(_Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(_Constraint):
    def check(self, value):
        return value == value  # False for NaN


class _GreaterThan(_Bounded):
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounded):
    _bounds = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(_Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & (ops.abs(value.sum(-1) - 1) < 1e-6)


class _Multinomial(_Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerTriangular(_Constraint):
    event_dim = 2

    def check(self, value):
        return (ops.tril(value) == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _Square(_Constraint):
    event_dim = 2

    def check(self, value):
        return ops.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=ms.bool_)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return ops.isclose(value, value.swapaxes(-1, -2), atol=1e-6).all(-1).all(-1)


class TorchConstraints:
    """torch.distributions.constraints: its constraint objects and classes by torch's names
    (``constraints.interval(0, 1)`` is ``TorchConstraints.interval(0, 1)``). Not here (marked by
    the converter): cat, stack and the Cholesky / positive-definite constraints."""

    Constraint = _Constraint
    dependent = _Dependent()
    dependent_property = _DependentProperty
    independent = _IndependentConstraint
    boolean = _Boolean()
    one_hot = _OneHot()
    nonnegative_integer = _IntegerGreaterThan(0)
    positive_integer = _IntegerGreaterThan(1)
    integer_interval = _IntegerInterval
    real = _Real()
    real_vector = _IndependentConstraint(_Real(), 1)
    positive = _GreaterThan(0.0)
    nonnegative = _GreaterThanEq(0.0)
    greater_than = _GreaterThan
    greater_than_eq = _GreaterThanEq
    less_than = _LessThan
    multinomial = _Multinomial
    unit_interval = _Interval(0.0, 1.0)
    interval = _Interval
    half_open_interval = _HalfOpenInterval
    simplex = _Simplex()
    lower_triangular = _LowerTriangular()
    square = _Square()
    symmetric = _Symmetric()

    @staticmethod
    def is_dependent(constraint):
        return isinstance(constraint, _Dependent)


def _uniform_support(self):
    return _Interval(self.low, self.high)


def _categorical_support(self):
    return _IntegerInterval(0, self.probs.shape[-1] - 1)


# the distributions' constraints, as torch's classes declare them
TorchNormal.arg_constraints = {"loc": TorchConstraints.real, "scale": TorchConstraints.positive}
TorchNormal.support = TorchConstraints.real
TorchUniform.arg_constraints = {"low": TorchConstraints.dependent(is_discrete=False, event_dim=0),
                                "high": TorchConstraints.dependent(is_discrete=False, event_dim=0)}
TorchUniform.support = _DependentProperty(_uniform_support, is_discrete=False, event_dim=0)
TorchBernoulli.arg_constraints = {"probs": TorchConstraints.unit_interval, "logits": TorchConstraints.real}
TorchBernoulli.support = TorchConstraints.boolean
TorchCategorical.arg_constraints = {"probs": TorchConstraints.simplex,
                                    "logits": TorchConstraints.independent(TorchConstraints.real, 1)}
TorchCategorical.support = _DependentProperty(_categorical_support, is_discrete=True, event_dim=0)
