"""Special and extra pointwise math: exp2, logit, xlogy, erfc/erfinv, lgamma/digamma, inverse
hyperbolics, hypot, logaddexp, copysign, frac, sinc, degree conversions, heaviside,
float_power, fmax/fmin, sgn, positive, nan_to_num.

Each op is one pure JAX function differentiated by jax.vjp. Where JAX's derivative at an edge
point differs from PyTorch's, the pure function follows PyTorch: with `where` (sinc at 0,
fmax/fmin at ties and NaN) or with `jax.custom_jvp` carrying PyTorch's derivative formula
(xlogy at x == 0, logit outside [0, 1] or its eps band, copysign at 0, hypot at the origin,
logaddexp at equal infinities, lgamma/digamma at 0).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from .elementwise import _inplace, pow
from .pointwise import (
    _arrays,
    _float_dtype,
    _float_unary,
    _no_derivative,
    _not_implemented,
    _operand,
    _promote2,
    _result_type,
    _tensor_pair,
)

__all__ = [
    "acosh",
    "arccosh",
    "arcsinh",
    "arctanh",
    "asinh",
    "atanh",
    "copysign",
    "deg2rad",
    "digamma",
    "erfc",
    "erfinv",
    "exp2",
    "float_power",
    "fmax",
    "fmin",
    "frac",
    "heaviside",
    "hypot",
    "lgamma",
    "logaddexp",
    "logaddexp2",
    "logit",
    "nan_to_num",
    "positive",
    "rad2deg",
    "sgn",
    "sinc",
    "xlogy",
]

_special = jax.scipy.special

# ----------------------------------------------------------------------------- unary
exp2 = _float_unary("exp2", "Exp2Backward0", jnp.exp2)
erfc = _float_unary("erfc", "ErfcBackward0", _special.erfc)
erfinv = _float_unary("erfinv", "ErfinvBackward0", _special.erfinv)


@jax.custom_jvp
def _digamma(x):
    """digamma with PyTorch's value at +-0: -+inf (JAX's gives NaN)."""
    return jnp.where(x == 0, jnp.copysign(jnp.inf, -x).astype(x.dtype), _special.digamma(x))


@_digamma.defjvp
def _digamma_jvp(primals, tangents):
    """d digamma = trigamma, inf at 0 as in PyTorch."""
    (x,), (t,) = primals, tangents
    slope = jnp.where(x == 0, jnp.inf, _special.polygamma(1, x)).astype(x.dtype)
    return _digamma(x), t * slope


@jax.custom_jvp
def _lgamma(x):
    return _special.gammaln(x)


@_lgamma.defjvp
def _lgamma_jvp(primals, tangents):
    """d lgamma = digamma, with PyTorch's value at 0."""
    (x,), (t,) = primals, tangents
    return _lgamma(x), t * _digamma(x)


lgamma = _float_unary("lgamma", "LgammaBackward0", _lgamma)
digamma = _float_unary("digamma", "DigammaBackward0", _digamma)
acosh = arccosh = _float_unary("acosh", "AcoshBackward0", jnp.arccosh)
asinh = arcsinh = _float_unary("asinh", "AsinhBackward0", jnp.arcsinh)
atanh = arctanh = _float_unary("atanh", "AtanhBackward0", jnp.arctanh)
deg2rad = _float_unary("deg2rad", "Deg2RadBackward0", lambda x: x * (math.pi / 180))
rad2deg = _float_unary("rad2deg", "Rad2DegBackward0", lambda x: x * (180 / math.pi))


def _sinc(x):
    """sin(pi x) / (pi x), 1 at 0 with PyTorch's gradient there (0; the formula gives 0/0)."""
    zero = x == 0
    px = jnp.pi * jnp.where(zero, 1.0, x)
    return jnp.where(zero, jnp.ones((), x.dtype), jnp.sin(px) / px)


sinc = _float_unary("sinc", "SincBackward0", _sinc)

_FRAC = register("frac", lambda x: x - jnp.trunc(x), node="FracBackward0")


def frac(input):
    """`input - trunc(input)`: the fractional part, with the sign of `input` (floats only)."""
    tensor_arg(input, "frac")
    if not input.dtype.is_floating_point:
        raise _not_implemented("frac_cpu", input.dtype)
    return apply(_FRAC, input)


_SGN = register("sgn", lambda x: jnp.sign(x) if x.dtype != jnp.bool_ else x, node="SgnBackward0")


def sgn(input):
    """The sign of each element (x / |x| for complex); real inputs as `torch.sign`."""
    tensor_arg(input, "sgn")
    return apply(_SGN, input)


def positive(input):
    """`input` itself, as PyTorch's `+x`; bool tensors raise, as in PyTorch."""
    tensor_arg(input, "positive")
    if input.dtype is _dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _logit_raw(x, eps):
    if eps is not None:
        x = jnp.clip(x, eps, 1 - eps)
    return jnp.log(x / (1 - x))


@_logit_raw.defjvp
def _logit_jvp(eps, primals, tangents):
    """PyTorch's derivative 1 / (x (1 - x)): NaN outside [0, 1] without `eps`; with `eps`, 0
    outside [eps, 1 - eps] (bounds included in the band)."""
    (x,), (t,) = primals, tangents
    if eps is None:
        outside, fill = (x < 0) | (x > 1), jnp.nan
    else:
        outside, fill = (x < eps) | (x > 1 - eps), 0.0
    slope = jnp.where(outside, jnp.asarray(fill, x.dtype), 1 / (x * (1 - x)))
    return _logit_raw(x, eps), t * slope


def _logit(x, *, dtype, eps):
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when `eps` is given."""
    return _logit_raw(x.astype(dtype), eps)


_LOGIT = register("logit", _logit, node="LogitBackward0")


def logit(input, eps=None):
    """The inverse of sigmoid, log(p / (1 - p)); `eps` clamps p to [eps, 1 - eps] first."""
    tensor_arg(input, "logit")
    dtype = _float_dtype(input.dtype)
    return apply(_LOGIT, input, dtype=dtype.jax, eps=None if eps is None else float(eps))


def _nan_to_num(x, nan, posinf, neginf):
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    x = jnp.where(jnp.isnan(x), nan, x)
    return jnp.where(x == jnp.inf, posinf, jnp.where(x == -jnp.inf, neginf, x))


_NAN_TO_NUM = register("nan_to_num", _nan_to_num, node="NanToNumBackward0")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by `nan` and +/-inf by `posinf`/`neginf` (default: the dtype's largest and
    smallest finite values); the gradient is 0 at replaced elements."""
    tensor_arg(input, "nan_to_num")
    d = input.dtype
    jd = d.jax if d.is_floating_point else jnp.float64
    info = jnp.finfo(jd)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    with np.errstate(over="ignore"):  # as in PyTorch, a too-large replacement becomes inf
        values = [constant(np.float64(v).astype(jd), jd) for v in (nan, posinf, neginf)]
    return apply(_NAN_TO_NUM, input, *values)


# ----------------------------------------------------------------------------- binary
@jax.custom_jvp
def _xlogy(x, y):
    """x * log(y), 0 where x == 0 (unless y is NaN)."""
    zero = (x == 0) & ~jnp.isnan(y)
    safe_y = jnp.where(zero, jnp.ones((), y.dtype), y)
    return jnp.where(zero, jnp.zeros((), x.dtype), x * jnp.log(safe_y))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    """PyTorch's derivatives: log(y) for x (0 where x == 0 and y <= 0), x / y for y."""
    (x, y), (tx, ty) = primals, tangents
    dx = jnp.where((x == 0) & (y <= 0), jnp.zeros((), y.dtype), jnp.log(y))
    return _xlogy(x, y), tx * dx + ty * (x / y)


@jax.custom_jvp
def _copysign(a, b):
    return jnp.copysign(a, b)


@_copysign.defjvp
def _copysign_jvp(primals, tangents):
    """PyTorch's derivatives: result / a for `a` (0 where a == 0), none for the sign source."""
    (a, b), (ta, _) = primals, tangents
    y = _copysign(a, b)
    slope = jnp.where(a == 0, jnp.zeros((), y.dtype), y / jnp.where(a == 0, 1, a))
    return y, jnp.broadcast_to(ta * slope, y.shape)


@jax.custom_jvp
def _hypot(a, b):
    return jnp.hypot(a, b)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    """PyTorch's derivatives a / hypot and b / hypot (NaN at the origin)."""
    (a, b), (ta, tb) = primals, tangents
    y = _hypot(a, b)
    return y, ta * (a / y) + tb * (b / y)


def _logaddexp_like(fn, base):
    """logaddexp (base e) / logaddexp2 with PyTorch's derivatives 1 / (1 + base^(other - self)),
    which are NaN where both operands are the same infinity."""

    @jax.custom_jvp
    def raw(a, b):
        return fn(a, b)

    @raw.defjvp
    def _jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        return raw(a, b), ta / (1 + base ** (b - a)) + tb / (1 + base ** (a - b))

    return raw


def _fmax_like(pick):
    """fmax/fmin: the other operand where one is NaN; the whole gradient to `a` at ties."""

    def fn(a, b):
        chosen = (a >= b if pick == "max" else a <= b) | jnp.isnan(b)
        return jnp.where(chosen, a, b)

    return fn


_FLOAT_BINARY = {
    # name: (pure function, node names for (tensor, tensor), (number, tensor), (tensor, number))
    "xlogy": (_xlogy, ("XlogyBackward0", "XlogyBackward1", "XlogyBackward2")),
    "hypot": (_hypot, ("HypotBackward0",) * 3),
    "logaddexp": (_logaddexp_like(jnp.logaddexp, math.e), ("LogaddexpBackward0",) * 3),
    "logaddexp2": (_logaddexp_like(jnp.logaddexp2, 2.0), ("Logaddexp2Backward0",) * 3),
    "copysign": (_copysign, ("CopysignBackward0", "CopysignBackward0", "CopysignBackward1")),
}


def _xlogy_signature_error(a, b) -> TypeError:
    return TypeError(
        f"xlogy() received an invalid combination of arguments - got ({type(a).__name__}, "
        f"{type(b).__name__}), but expected one of:\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Number self, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, Number other, *, Tensor out = None)\n"
    )


def _float_binary(name: str):
    """A binary op computing in floating point, broadcast. xlogy and copysign also take
    numbers (`other`; for xlogy `input` too) and integers (giving the default float); the
    others take float tensors only, as PyTorch's kernels do."""
    fn, nodes = _FLOAT_BINARY[name]
    ops = [
        register(f"{name}.{variant}", _promote2(fn), node=node)
        for variant, node in zip(("tensor", "scalar_self", "scalar_other"), nodes)
    ]
    scalar_first = name == "xlogy"
    integers_ok = numbers_ok = name in ("xlogy", "copysign")

    def binary(input, other):
        if not scalar_first or isinstance(input, Tensor):
            tensor_arg(input, name)
        if not numbers_ok:
            tensor_arg(other, name, "other", 2)
        a = _operand(input, name, "input", 1)
        b = _operand(other, name, "other", 2)
        if not isinstance(b, Tensor) and not isinstance(a, Tensor):
            raise _xlogy_signature_error(a, b)
        dtype = _result_type(a, b)
        if not integers_ok and not (dtype.is_floating_point or dtype.is_complex):
            raise _not_implemented(f"{name}_cpu", dtype)
        dtype = _float_dtype(dtype)
        x, y = _arrays(dtype, a, b)
        kind = (isinstance(a, Tensor) and isinstance(b, Tensor), not isinstance(b, Tensor))
        op = ops[0] if kind[0] else ops[2] if kind[1] else ops[1]
        return apply(op, x, y, dtype=dtype.jax)

    binary.__name__ = name
    binary.__doc__ = f"Elementwise `{name}`, broadcast; integer inputs give the default float."
    return binary


xlogy = _float_binary("xlogy")
hypot = _float_binary("hypot")
logaddexp = _float_binary("logaddexp")
logaddexp2 = _float_binary("logaddexp2")
copysign = _float_binary("copysign")

_FMAX = register("fmax", _promote2(_fmax_like("max")), node="FmaxBackward0")
_FMIN = register("fmin", _promote2(_fmax_like("min")), node="FminBackward0")
_HEAVISIDE = register(
    "heaviside",
    _no_derivative("heaviside", lambda x, v: jnp.where(x == 0, v, (x > 0).astype(x.dtype))),
    node="torch::autograd::NotImplemented",
)


def fmax(input, other):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    x, y, dtype = _tensor_pair("fmax", input, other)
    return apply(_FMAX, x, y, dtype=dtype.jax)


def fmin(input, other):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    x, y, dtype = _tensor_pair("fmin", input, other)
    return apply(_FMIN, x, y, dtype=dtype.jax)


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, `values` where input == 0. Both tensors must
    have one dtype; like PyTorch, it has no derivative."""
    tensor_arg(input, "heaviside")
    tensor_arg(values, "heaviside", "values", 2)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x, v = _arrays(input.dtype, input, values)
    return apply(_HEAVISIDE, x, v)


def _float_power_dtype(*operands) -> _dtypes.dtype:
    """float_power's result dtype: complex128 if an operand is complex, else float64."""
    for o in operands:
        if o.dtype.is_complex if isinstance(o, Tensor) else isinstance(o, complex):
            return _dtypes.complex128
    return _dtypes.float64


def float_power(input, exponent):
    """`input ** exponent` computed in double precision (complex128 for complex operands)."""
    if not isinstance(input, Tensor):
        tensor_arg(exponent, "float_power", "exponent", 2)
    target = _float_power_dtype(input, exponent)
    scalar = complex if target.is_complex else float
    base, exp = [o.to(target) if isinstance(o, Tensor) else scalar(o) for o in (input, exponent)]
    return pow(base, exp)


def _float_power_(self, exponent):
    """In-place `float_power`: `self` must already have the result's dtype (double)."""
    target = _float_power_dtype(self, exponent)
    if self.dtype is not target:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but the "
            f"operation's result requires dtype {scalar_type_name(target)}"
        )
    return _inplace(float_power)(self, exponent)
