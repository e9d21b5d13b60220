"""Unary elementwise math: neg/abs, exp/log and their variants (expm1, log1p, log2, log10,
exp2), sqrt/rsqrt/reciprocal/square, trigonometric and hyperbolic functions and their
inverses, sigmoid/relu/logit, erf/erfc/erfinv, lgamma/digamma, rounding (floor, ceil, trunc,
round, frac), sign/sgn/positive, deg2rad/rad2deg, sinc, nan_to_num.

Each op is one pure JAX function differentiated by jax.vjp; where JAX's derivative at an edge
point differs from PyTorch's (|x| and sinc at 0, logit outside [0, 1] or its eps band,
lgamma/digamma at 0), the pure function follows PyTorch with `where` or `jax.custom_jvp`.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._pure.opmath import REDUCED, in_opmath
from .._tape.args import (
    floating,
    tensor_arg,
)
from .._tape.record import apply
from .elementwise import _float_dtype, _inexact, _named, _not_implemented, pow
from .out_arg import takes_out

__all__ = [
    "abs",
    "absolute",
    "acos",
    "acosh",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "cos",
    "cosh",
    "deg2rad",
    "digamma",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "fix",
    "floor",
    "frac",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "logit",
    "nan_to_num",
    "neg",
    "negative",
    "positive",
    "rad2deg",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sgn",
    "sigmoid",
    "sign",
    "sin",
    "sinc",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
]


def _with_derivative(fn, derivative):
    """`fn` of one array, differentiated as `derivative(x) * tangent`: PyTorch's formula where
    JAX's differs."""
    wrapped = jax.custom_jvp(fn)
    wrapped.defjvps(lambda t, y, x: derivative(x) * t)
    return wrapped


def _sign_slope(x):
    """PyTorch's abs derivative is sign(x): 0 at 0 (JAX's is 1 there) and at NaN."""
    return jnp.where(x > 0, 1, jnp.where(x < 0, -1, 0)).astype(x.dtype)


_real_abs = _with_derivative(jnp.abs, _sign_slope)


def _abs(x):
    return jnp.abs(x) if jnp.iscomplexobj(x) else _real_abs(x)


def _unary(
    name: str,
    fn,
    saves: str = "all",
    promote_to_float: bool = True,
    bool_error=None,
    residuals: str | None = None,
):
    op = register(name, fn, node=f"{name.capitalize()}Backward0", saves=saves, residuals=residuals)

    def unary(input):
        tensor_arg(input, name)
        if bool_error is not None and input.dtype is _dtypes.bool:
            raise bool_error()
        return apply(op, floating(input) if promote_to_float else input)

    return takes_out(
        _named(unary, name, f"Elementwise `{name}` (jax.numpy's, differentiated by jax.vjp).")
    )


neg = _unary(
    "neg",
    jnp.negative,
    saves="none",
    promote_to_float=False,
    bool_error=lambda: RuntimeError(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead."
    ),
)
negative = neg
abs = _unary(
    "abs",
    _abs,
    promote_to_float=False,
    bool_error=lambda: NotImplementedError("\"abs_cpu\" not implemented for 'Bool'"),
)
absolute = abs


def _output_derivative(fn, derivative, tangent):
    """`fn` differentiated from its output, as PyTorch's backward of ops that save their
    result (tanh, sigmoid, exp) is: `tangent(y, t)`, linear in the tangent `t`, so the
    pullback's one residual is the result itself (`_pure/residuals`: the node saves the
    output and never computes `fn` again). For half inputs, computed in float32: the
    derivative reads the *rounded* output, `derivative(y)` in float32 from the
    half-precision y, times the tangent, rounded once."""

    @jax.custom_jvp
    def half(x):
        return fn(x.astype(jnp.float32)).astype(x.dtype)

    @half.defjvp
    def _jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        y = half(x)
        slope = derivative(y.astype(jnp.float32))
        return y, (slope * x_dot.astype(jnp.float32)).astype(x.dtype)

    @jax.custom_jvp
    def full(x):
        return fn(x)

    @full.defjvp
    def _full_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        y = full(x)
        return y, tangent(y, x_dot)

    def computed(x):
        return half(x) if x.dtype in REDUCED else full(x)

    computed.__name__ = getattr(fn, "__name__", "computed")
    return computed


def _saving_result(name: str, fn, derivative, tangent):
    """A unary op differentiated from its saved result (`_output_derivative`)."""
    return _unary(
        name, _output_derivative(fn, derivative, tangent), saves="output", residuals="connected"
    )


exp = _saving_result("exp", jnp.exp, lambda y: y, lambda y, t: y * t)
log = _unary("log", in_opmath(jnp.log))
sqrt = _unary(
    "sqrt",
    _output_derivative(jnp.sqrt, lambda y: 0.5 / y, lambda y, t: t / (y + y)),
    saves="output",
)
sin = _unary("sin", in_opmath(jnp.sin))
cos = _unary("cos", in_opmath(jnp.cos))
tanh = _saving_result("tanh", jnp.tanh, lambda y: 1 - y * y, lambda y, t: t - y * (y * t))
sigmoid = _saving_result(
    "sigmoid", jax.nn.sigmoid, lambda y: y * (1 - y), lambda y, t: y * t - y * (y * t)
)


@jax.custom_jvp
def _relu(x):
    """PyTorch's relu: x <= 0 gives 0, so a NaN stays NaN with gradient 1 (jax.nn.relu: 0);
    differentiated from its result, as PyTorch's is (`_relu_jvp`)."""
    return jnp.where(x <= 0, jnp.zeros((), x.dtype), x)


@functools.partial(jax.checkpoint, prevent_cse=False)
def _relu_tangent(y, t):
    """The tangent zeroed where the result is <= 0. Under `jax.checkpoint` the mask is
    recomputed in the pullback from `y`, so the pullback's one residual is the result
    (`_pure/residuals`), not a mask of the input: the node keeps what PyTorch's keeps. (No
    optimization barrier: XLA may fuse the mask into a whole step's program.)"""
    return jnp.where(y <= 0, jnp.zeros((), t.dtype), t)


@_relu.defjvp
def _relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _relu(x)
    return y, _relu_tangent(y, t)


relu = _unary("relu", _relu, promote_to_float=False, saves="output", residuals="connected")


# ----------------------------------------------------------------------------- unary math
def _cast_unary(fn):
    fn = in_opmath(fn)

    def pure(x, *, dtype):
        return fn(x.astype(dtype))

    return pure


def _float_unary(name: str, node: str, fn, saves: str = "all"):
    """A unary op that computes in floating point (integer inputs give the default float)."""
    op = register(name, _cast_unary(fn), node=node, saves=saves)

    def unary(input):
        tensor_arg(input, name)
        return apply(op, input, dtype=_float_dtype(input.dtype).jax)

    return takes_out(
        _named(
            unary,
            name,
            f"Elementwise `{name}`; integer inputs are computed in the default float dtype.",
        )
    )


expm1 = _float_unary("expm1", "Expm1Backward0", jnp.expm1, saves="output")
log1p = _float_unary("log1p", "Log1PBackward0", jnp.log1p)
log2 = _float_unary("log2", "Log2Backward0", jnp.log2)
log10 = _float_unary("log10", "Log10Backward0", jnp.log10)
rsqrt = _float_unary("rsqrt", "RsqrtBackward0", lax.rsqrt, saves="output")
reciprocal = _float_unary("reciprocal", "ReciprocalBackward0", jnp.reciprocal, saves="output")
tan = _float_unary("tan", "TanBackward0", jnp.tan)
asin = arcsin = _float_unary("asin", "AsinBackward0", jnp.arcsin)
acos = arccos = _float_unary("acos", "AcosBackward0", jnp.arccos)
atan = arctan = _float_unary("atan", "AtanBackward0", jnp.arctan)
sinh = _float_unary("sinh", "SinhBackward0", jnp.sinh)
cosh = _float_unary("cosh", "CoshBackward0", jnp.cosh)
erf = _float_unary("erf", "ErfBackward0", jax.scipy.special.erf)


def _same_dtype_unary(name: str, node: str, fn, kernel: str, *, bool_ok: bool = False):
    """A unary op keeping the input dtype (rounding, sign); zero gradient where PyTorch's is.

    Integer inputs pass through `fn` (the identity for the rounding ops); bool inputs raise
    PyTorch's NotImplementedError unless `bool_ok`.
    """
    op = register(name, fn, node=node)

    def unary(input):
        tensor_arg(input, name)
        if input.dtype is _dtypes.bool and not bool_ok:
            raise _not_implemented(kernel, input.dtype)
        return apply(op, input)

    return takes_out(_named(unary, name, f"Elementwise `{name}`, keeping the input dtype."))


def _integral_identity(fn):
    def pure(x):
        return fn(x) if _inexact(x.dtype) else x

    return pure


floor = _same_dtype_unary("floor", "FloorBackward0", _integral_identity(jnp.floor), "floor_vml_cpu")
ceil = _same_dtype_unary("ceil", "CeilBackward0", _integral_identity(jnp.ceil), "ceil_vml_cpu")
trunc = fix = _same_dtype_unary(
    "trunc", "TruncBackward0", _integral_identity(jnp.trunc), "trunc_vml_cpu"
)


def _sign(x):
    """PyTorch's sign: 0 for NaN and for -0.0 (JAX's gives NaN and -0.0)."""
    if x.dtype == jnp.bool_:
        return x
    if not _inexact(x.dtype):
        return jnp.sign(x)
    one = jnp.ones((), x.dtype)
    return jnp.where(x > 0, one, jnp.where(x < 0, -one, jnp.zeros((), x.dtype)))


sign = _same_dtype_unary("sign", "SignBackward0", _sign, "sign", bool_ok=True)


def _round_decimals(x, *, decimals):
    """PyTorch's round with decimals: nearbyint(x * 10^d) / 10^d (x / 10^-d for negative d)."""
    if decimals >= 0:
        scale = jnp.asarray(10.0**decimals, x.dtype)
        return jnp.round(x * scale) / scale
    scale = jnp.asarray(10.0**-decimals, x.dtype)
    return jnp.round(x / scale) * scale


_ROUND = register("round", _integral_identity(jnp.round), node="RoundBackward0")
_ROUND_DECIMALS = register("round.decimals", _round_decimals, node="RoundBackward1")


@takes_out
def round(input, *, decimals: int = 0):
    """Round half to even (as PyTorch and NumPy do), optionally to `decimals` decimal places.

    Example::

        >>> torch.round(torch.tensor([0.5, 1.5, 2.567]), decimals=0)
        tensor([0., 2., 3.])
    """
    tensor_arg(input, "round")
    if decimals == 0:
        return apply(_ROUND, input)
    return apply(_ROUND_DECIMALS, input, decimals=int(decimals))


@takes_out
def square(input):
    """`input ** 2` (a PowBackward0 node, as in PyTorch); bool inputs give int64."""
    tensor_arg(input, "square")
    if input.dtype is _dtypes.bool:
        input = input.to(_dtypes.int64)
    return pow(input, 2)


_special = jax.scipy.special


# ------------------------------------------------------------ special functions and more unary math
exp2 = _float_unary("exp2", "Exp2Backward0", jnp.exp2)
erfc = _float_unary("erfc", "ErfcBackward0", _special.erfc)
erfinv = _float_unary("erfinv", "ErfinvBackward0", _special.erfinv)


def _digamma_value(x):
    """digamma with PyTorch's value at +-0: -+inf (JAX's gives NaN)."""
    return jnp.where(x == 0, jnp.copysign(jnp.inf, -x).astype(x.dtype), _special.digamma(x))


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def polygamma_value(n: int, x):
    """polygamma(n, x) for n >= 1, x below 1 moved up by psi_n(x) = psi_n(x + 1) - (-1)^n n! /
    x^(n+1) (JAX's is inaccurate left of 0: trigamma(-8.478) 7.75 where PyTorch's is 9.81)."""
    scale = (-1) ** n * math.factorial(n)

    def shift(carry):
        y, total = carry
        move = (y < 1) & jnp.isfinite(y)
        term = scale / jnp.where(move, y, 1) ** (n + 1)
        return y + move.astype(y.dtype), total + jnp.where(move, term, 0)

    y, total = lax.while_loop(
        lambda carry: jnp.any((carry[0] < 1) & jnp.isfinite(carry[0])),
        shift,
        (x, jnp.zeros_like(x)),
    )
    return (_special.polygamma(n, y) - total).astype(x.dtype)


@polygamma_value.defjvp
def _polygamma_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return polygamma_value(n, x), polygamma_value(n + 1, x) * t


def _trigamma(x):
    """d digamma = trigamma, inf at 0 as in PyTorch."""
    return jnp.where(x == 0, jnp.inf, polygamma_value(1, x)).astype(x.dtype)


_digamma = _with_derivative(_digamma_value, _trigamma)
_lgamma = _with_derivative(_special.gammaln, _digamma)  # d lgamma = digamma, PyTorch's at 0


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


@takes_out
def frac(input):
    """`input - trunc(input)`: the fractional part, with the sign of `input` (floats only)."""
    tensor_arg(input, "frac")
    if not input.dtype.is_floating_point:
        raise _not_implemented("frac_cpu", input.dtype)
    return apply(_FRAC, input)


_SGN = register("sgn", lambda x: jnp.sign(x) if x.dtype != jnp.bool_ else x, node="SgnBackward0")


@takes_out
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


@takes_out
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


@takes_out
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
