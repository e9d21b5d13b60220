"""Floating-point representation, number theory and special functions: angle, signbit,
isposinf/isneginf/isreal, gcd/lcm, ldexp/frexp/nextafter, i0, polygamma, mvlgamma,
igamma/igammac, and torch.special's ndtr/ndtri/log_ndtr, i0e/i1/i1e, erfcx, entr, xlog1py and
zeta (their torch.special names are bound in autograd_compat/special.py).

Each op is one pure JAX function (jax.numpy's or jax.scipy.special's). Where PyTorch has no
derivative (gcd, lcm, the predicates) the op is registered non-differentiable; where
its derivative is a constant zero (angle of a real number) the pure function says so.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._state.tensor import Tensor
from .._tape.args import floating, scalar_type_name, tensor_arg
from .._tape.record import apply
from .comparison import _predicate
from .elementwise import _binary, _float_dtype, _named
from .out_arg import takes_out
from .reduce import return_types
from .unary import _digamma, _float_unary, _lgamma, _with_derivative, polygamma_value

__all__ = [
    "angle",
    "frexp",
    "gcd",
    "i0",
    "igamma",
    "igammac",
    "isneginf",
    "isposinf",
    "isreal",
    "lcm",
    "ldexp",
    "mvlgamma",
    "nextafter",
    "polygamma",
    "signbit",
]

_special = jax.scipy.special


# ----------------------------------------------------------------------------- predicates
def _angle(x):
    """The argument of a complex number; pi for negative reals, 0 otherwise (NaN stays NaN),
    with PyTorch's zero derivative for real inputs."""
    if jnp.iscomplexobj(x):
        return jnp.angle(x)
    constant = jnp.where(x < 0, jnp.asarray(math.pi, x.dtype), jnp.zeros((), x.dtype))
    return jnp.where(jnp.isnan(x), lax.stop_gradient(x), constant)


angle = _float_unary("angle", "AngleBackward0", _angle)
signbit = _predicate("signbit", jnp.signbit)
isreal = _predicate("isreal", jnp.isreal)


def _real_predicate(name: str, fn):
    """A predicate of real inputs only, as PyTorch's isposinf/isneginf."""
    predicate = _predicate(name, fn)

    def real_only(input):
        tensor_arg(input, name)
        if input.dtype.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
        return predicate(input)

    return takes_out(_named(real_only, name, predicate.__doc__ or ""))


isposinf = _real_predicate("isposinf", jnp.isposinf)
isneginf = _real_predicate("isneginf", jnp.isneginf)


# ----------------------------------------------------------------------------- binary ops
def _tensor_operands(fname: str, input, other) -> None:
    tensor_arg(input, fname)
    tensor_arg(other, fname, "other", 2)


def _promoted(input: Tensor, other: Tensor) -> _dtypes.dtype:
    return _dtypes.binary_result_type(input, other)


def _integer_binary(name: str, fn):
    """gcd/lcm: integer operands only (PyTorch's NotImplementedError otherwise)."""
    op = register(
        name,
        lambda a, b, *, dtype: fn(a.astype(dtype), b.astype(dtype)),
        node=f"{name.capitalize()}Backward0",
        differentiable=False,
    )

    def integer_binary(input, other):
        _tensor_operands(name, input, other)
        dtype = _promoted(input, other)
        if dtype.is_floating_point or dtype.is_complex or dtype is _dtypes.bool:
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{scalar_type_name(dtype)}'"
            )
        return _binary(op, input, other, name, dtype=dtype)

    return takes_out(_named(integer_binary, name, f"Elementwise `{name}` of integers."))


gcd = _integer_binary("gcd", jnp.gcd)
lcm = _integer_binary("lcm", jnp.lcm)


def _float_binary(name: str, node: str, fn, differentiable: bool = True, integral_error=False):
    """A binary op computed in floating point: integral operands give the default float, or
    PyTorch's NotImplementedError where `integral_error`."""
    op = register(
        name,
        lambda a, b, *, dtype: fn(a.astype(dtype), b.astype(dtype)),
        node=node,
        differentiable=differentiable,
    )

    def float_binary(input, other):
        _tensor_operands(name, input, other)
        dtype = _promoted(input, other)
        if integral_error and not (dtype.is_floating_point or dtype.is_complex):
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{scalar_type_name(dtype)}'"
            )
        return _binary(op, input, other, name, dtype=_float_dtype(dtype))

    return takes_out(_named(float_binary, name, f"Elementwise `{name}` in floating point."))


ldexp = _float_binary("ldexp", "LdexpBackward0", lambda a, b: a * jnp.exp2(b))
# PyTorch's derivatives: 1 in input (the step is below rounding), 0 in other.
_nextafter = jax.custom_jvp(jnp.nextafter)
_nextafter.defjvps(
    lambda t, y, a, b: jnp.broadcast_to(t, y.shape),
    lambda t, y, a, b: jnp.zeros(y.shape, y.dtype),
)
nextafter = _float_binary("nextafter", "NextafterBackward0", _nextafter, integral_error=True)
igamma = _float_binary("igamma", "IgammaBackward0", _special.gammainc, integral_error=True)
igammac = _float_binary("igammac", "IgammacBackward0", _special.gammaincc, integral_error=True)


# ----------------------------------------------------------------------------- frexp
def _frexp(x):
    """(mantissa, int32 exponent) with x = mantissa * 2**exponent; the mantissa is x times an
    exact power of two, so its derivative is that power (PyTorch's)."""
    _, exponent = jnp.frexp(x)
    return x * lax.stop_gradient(jnp.exp2(-exponent.astype(x.dtype))), exponent


_FREXP = register("frexp", _frexp, node="FrexpBackward0")


@takes_out
def frexp(input):
    """`(mantissa, exponent)`: the mantissa in [0.5, 1) in magnitude and the int32 exponent."""
    tensor_arg(input, "frexp")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*apply(_FREXP, input))


# ----------------------------------------------------------------------------- special functions
i0 = _float_unary("i0", "I0Backward0", _with_derivative(_special.i0, _special.i1))
special_ndtr = _float_unary("special.ndtr", "MulBackward1", _special.ndtr)
special_ndtri = _float_unary("special.ndtri", "SpecialNdtriBackward0", _special.ndtri)
special_log_ndtr = _float_unary("special.log_ndtr", "SpecialLogNdtrBackward0", _special.log_ndtr)
special_i0e = _float_unary("special.i0e", "SpecialI0EBackward0", _special.i0e)
special_i1 = _float_unary("special.i1", "SpecialI1Backward0", _special.i1)
special_i1e = _float_unary("special.i1e", "SpecialI1EBackward0", _special.i1e)
special_erfcx = _float_unary("special.erfcx", "SpecialErfcxBackward0", _special.erfcx)
special_entr = _float_unary("special.entr", "SpecialEntrBackward0", _special.entr)
special_xlog1py = _float_binary("special.xlog1py", "SpecialXlog1PyBackward0", _special.xlog1py)
special_zeta = _float_binary("special.zeta", "SpecialZetaBackward0", _special.zeta)


def _polygamma(x, *, n, dtype):
    x = x.astype(dtype)
    return _digamma(x) if n == 0 else polygamma_value(n, x)


_POLYGAMMA = register("polygamma", _polygamma, node="PolygammaBackward0")


@takes_out
def polygamma(n: int, input):
    """The n-th derivative of digamma."""
    tensor_arg(input, "polygamma", "input", 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(_POLYGAMMA, input, n=int(n), dtype=_float_dtype(input.dtype).jax)


def tensor_polygamma(self, n: int):
    """`Tensor.polygamma(n)`: `torch.polygamma(n, self)`."""
    return polygamma(n, self)


tensor_polygamma.__name__ = "polygamma"


def _mvlgamma(x, *, p):
    """log of the multivariate gamma function of dimension p."""
    offsets = jnp.arange(p, dtype=x.dtype) / 2
    terms = _lgamma(x[..., None] - offsets)
    return jnp.sum(terms, axis=-1) + (p * (p - 1) / 4 * math.log(math.pi))


_MVLGAMMA = register("mvlgamma", _mvlgamma, node="MvlgammaBackward0")


@takes_out
def mvlgamma(input, p: int):
    """The multivariate log-gamma function of dimension `p` (>= 1), elementwise."""
    tensor_arg(input, "mvlgamma")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return apply(_MVLGAMMA, floating(input), p=int(p))
