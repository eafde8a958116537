"""More elementwise primitives: inverse trigonometric and hyperbolic functions, base-2/10
logarithms and powers, the error function's complement and inverse, the gamma family, atan2 and
the two remainders (floor and truncated).

Each forward keeps the input's float dtype; each backward is written with ms_core ops
(`ops.<name>`, looked up by name in ms_core._registry when it runs), so that it is recorded and
differentiable again.
"""
import math

import numpy as np

from . import math as _math
from .._engine import Primitive, apply
from .._registry import ops


_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _quiet():
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _scalar_map(fn, x, at_pole=math.inf):
    """``fn`` (a scalar function of the math module) on every element, at float64 accuracy;
    ``at_pole`` where the math module refuses the value (lgamma(0) is +inf, as MindSpore's)."""
    flat = x.astype(np.float64).ravel()
    out = np.fromiter((_safe(fn, v, at_pole) for v in flat), dtype=np.float64, count=flat.size)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _safe(fn, v, at_pole):
    try:
        return fn(v)
    except ValueError:
        return math.nan if math.isnan(v) else at_pole
    except OverflowError:
        return math.inf


class _Unary(Primitive):
    """out = f(x); backward dout * f'(x), with f' written in ops (``derivative``)."""

    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.asarray(self.fn(x)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        return (dout * self.derivative(ctx.inputs[0], ctx.out),)


class Tan(_Unary):
    fn = staticmethod(np.tan)

    def derivative(self, x, out):
        return 1 + out * out


class Asin(_Unary):
    fn = staticmethod(np.arcsin)

    def derivative(self, x, out):
        return ops.rsqrt(1 - x * x)


class Acos(_Unary):
    fn = staticmethod(np.arccos)

    def derivative(self, x, out):
        return ops.neg(ops.rsqrt(1 - x * x))


class Atan(_Unary):
    fn = staticmethod(np.arctan)

    def derivative(self, x, out):
        return ops.reciprocal(1 + x * x)


class Sinh(_Unary):
    fn = staticmethod(np.sinh)

    def derivative(self, x, out):
        return apply(Cosh(), x)


class Cosh(_Unary):
    fn = staticmethod(np.cosh)

    def derivative(self, x, out):
        return apply(Sinh(), x)


class Asinh(_Unary):
    fn = staticmethod(np.arcsinh)

    def derivative(self, x, out):
        return ops.rsqrt(x * x + 1)


class Acosh(_Unary):
    fn = staticmethod(np.arccosh)

    def derivative(self, x, out):
        return ops.rsqrt(x * x - 1)


class Atanh(_Unary):
    fn = staticmethod(np.arctanh)

    def derivative(self, x, out):
        return ops.reciprocal(1 - x * x)


class Log2(_Unary):
    fn = staticmethod(np.log2)

    def derivative(self, x, out):
        return ops.reciprocal(x * _LN2)


class Log10(_Unary):
    fn = staticmethod(np.log10)

    def derivative(self, x, out):
        return ops.reciprocal(x * _LN10)


class Exp2(_Unary):
    fn = staticmethod(np.exp2)

    def derivative(self, x, out):
        return out * _LN2


class Erfc(_Unary):
    @staticmethod
    def fn(x):
        return _scalar_map(math.erfc, x)

    def derivative(self, x, out):
        return ops.exp(ops.neg(x * x)) * (-2.0 / math.sqrt(math.pi))


def _erfinv(x):
    """The inverse error function at float64 accuracy: Giles' single-precision approximation,
    then two Newton steps on math.erf (NumPy has no erfinv; SciPy is not a dependency)."""
    y = x.astype(np.float64)
    with _quiet():
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws, wl = w - 2.5, np.sqrt(w) - 3.0
        p_small = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                              0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], ws)
        p_large = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                              0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], wl)
        r = np.where(small, p_small, p_large) * y
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(2):
            inside = np.isfinite(r)
            step = (erf(np.where(inside, r, 0.0)) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-r * r))
            r = np.where(inside, r - step, r)
        r = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, r))
        r = np.where(np.abs(y) > 1.0, np.nan, r)
    return r.astype(x.dtype, copy=False)


class Erfinv(_Unary):
    fn = staticmethod(_erfinv)

    def derivative(self, x, out):
        return ops.exp(out * out) * (math.sqrt(math.pi) / 2.0)


# --- the gamma family ---------------------------------------------------------------------

_BERNOULLI = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6)


def _digamma(x):
    """psi(x): upward recurrence to x >= 10, then the asymptotic series; reflection below 0.5."""
    x = np.asarray(x, dtype=np.float64)
    with _quiet():
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        acc = np.zeros_like(z)
        while True:
            low = z < 10.0
            if not low.any():
                break
            acc = acc - np.where(low, 1.0 / z, 0.0)
            z = np.where(low, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = np.log(z) - 0.5 / z
        power = inv2
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series - b / (2 * k) * power
            power = power * inv2
        out = acc + series
        out = np.where(reflect, out - np.pi / np.tan(np.pi * x), out)
        out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
        return np.where(x == 0, np.copysign(np.inf, -x), out)   # -inf at +0, +inf at -0


def _polygamma(n, x):
    """The n-th derivative of psi (n >= 1): recurrence to x >= 10, then the asymptotic series."""
    x = np.asarray(x, dtype=np.float64)
    sign = 1.0 if n % 2 else -1.0
    fact = math.factorial(n)
    with _quiet():
        z, acc = x.copy(), np.zeros_like(x)
        while True:
            low = z < 10.0
            if not low.any():
                break
            acc = acc + np.where(low, sign * fact / z ** (n + 1), 0.0)
            z = np.where(low, z + 1.0, z)
        series = math.factorial(n - 1) / z ** n + fact / (2.0 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (2 * k + n)
        out = acc + sign * series
        return np.where((x <= 0) & (x == np.floor(x)), np.nan, out)


class Lgamma(_Unary):
    @staticmethod
    def fn(x):
        return _scalar_map(math.lgamma, x)

    def derivative(self, x, out):
        return apply(Polygamma(0), x)


class Polygamma(Primitive):
    """psi^(n)(x); n = 0 is digamma."""

    def __init__(self, n):
        self.n = int(n)

    def forward(self, ctx, x):
        out = _digamma(x) if self.n == 0 else _polygamma(self.n, x)
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        return (dout * apply(Polygamma(self.n + 1), ctx.inputs[0]),)


# --- modified Bessel functions of the first kind -----------------------------------------

def _bessel_i0(x):
    return np.i0(np.asarray(x, dtype=np.float64))


def _bessel_i1(x):
    """I1(x) by its power series, sum of (x/2)^(2k+1) / (k! (k+1)!), in float64 until a term no
    longer changes the sum (NumPy has i0 only; SciPy is not a dependency)."""
    half = np.asarray(x, dtype=np.float64) / 2.0
    square = half * half
    term = half.copy()
    total = term.copy()
    for k in range(1, 4000):
        term = term * square / (k * (k + 1))
        total = total + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
            break
    return total


class BesselI0(_Unary):
    """I0(x) (NumPy's i0, float64); its derivative is I1(x)."""

    holomorphic = False
    fn = staticmethod(_bessel_i0)

    def derivative(self, x, out):
        return apply(BesselI1(), x)


class BesselI1(_Unary):
    """I1(x); its derivative is I0(x) - I1(x) / x (1/2 at 0)."""

    holomorphic = False
    fn = staticmethod(_bessel_i1)

    def derivative(self, x, out):
        at_zero = x == 0
        ratio = out / ops.where(at_zero, ops.ones_like(x), x)
        return ops.where(at_zero, ops.full_like(x, 0.5), apply(BesselI0(), x) - ratio)


# --- binary -------------------------------------------------------------------------------

Atan2 = _math.Atan2  # one primitive for ops.atan2 and Tensor.atan2


class TruncateMod(Primitive):
    """x - trunc(x / y) * y (the sign of x), as torch.fmod and MindSpore's Mod."""

    def forward(self, ctx, x, y):
        with _quiet():
            return np.fmod(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        if ctx.out._data.dtype.kind != "f":
            return None, None
        q = ops.div(x, y)
        return dout, ops.neg(dout * ops.sign(q) * ops.floor(ops.abs(q)))


# --- scans ------------------------------------------------------------------------------------

class CumProd(Primitive):
    """Cumulative product along ``axis``; the backward divides by x, as MindSpore's (so an input
    with zeros has no finite gradient there)."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x):
        return np.cumprod(x, axis=self.axis, dtype=x.dtype)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        flip = (self.axis,)
        summed = ops.flip(ops.cumsum(ops.flip(dout * ctx.out, flip), self.axis), flip)
        return (summed / x,)


class LogCumSumExp(Primitive):
    """log(cumsum(exp(x))) along ``axis``, accumulated with logaddexp (exact for any range)."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x):
        with _quiet():
            return np.logaddexp.accumulate(x, axis=self.axis).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        # grad_i = sum_{j >= i} dout_j exp(x_i - out_j), summed in log space for the positive and
        # the negative parts of dout apart (as torch does), so no exponential overflows
        x, out = ctx.inputs[0], ctx.out
        flip = (self.axis,)

        def part(d):
            # -inf (log 0) is put in after the subtraction: -inf - (-inf) would be nan and poison
            # every later term of the accumulation
            given = d > 0
            terms = ops.where(given, ops.log(ops.where(given, d, ops.ones_like(d))) - out, ops.full_like(d, -np.inf))
            rev = ops.flip(apply(LogCumSumExp(self.axis), ops.flip(terms, flip)), flip)
            return ops.exp(x + rev)

        return (part(ops.relu(dout)) - part(ops.relu(ops.neg(dout))),)
