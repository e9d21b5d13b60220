"""Comparisons, predicates and selection: eq/ne/lt/le/gt/ge, isnan/isinf/isfinite,
isclose/allclose/equal, maximum/minimum and fmax/fmin, clamp/clip, where, and the boolean
algebra (logical_* and bitwise_* ops).

Where JAX's derivative differs from PyTorch's (maximum at NaN and at ties, clamp at its
bounds, fmax/fmin at ties and NaN), the pure function is written with `where` so that JAX's
derivative *is* PyTorch's.
"""

from __future__ import annotations

import operator
import warnings

import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.args import (
    check_same_dtype,
    scalar_type_name,
    tensor_arg,
)
from .._tape.record import apply
from .elementwise import (
    _apply_pair,
    _arrays,
    _binary,
    _fmax_like,
    _inexact,
    _named,
    _not_implemented,
    _operand,
    _promote2,
    _promoted,
    _result_type,
    as_operand,
)
from .host_compare import host_compare
from .out_arg import takes_out

__all__ = [
    "allclose",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "eq",
    "equal",
    "fmax",
    "fmin",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "maximum",
    "minimum",
    "ne",
    "not_equal",
    "where",
]


def _not_differentiable(wrap, fns: dict) -> dict:
    """Ops with no derivative, `wrap(fn)` registered under each name with PyTorch's node name
    `{name}Backward`."""
    return {
        name: register(name, wrap(fn), node=f"{name}Backward", differentiable=False)
        for name, fn in fns.items()
    }


_COMPARE = _not_differentiable(
    _promoted,
    {
        "lt": jnp.less,
        "le": jnp.less_equal,
        "gt": jnp.greater,
        "ge": jnp.greater_equal,
        "eq": jnp.equal,
        "ne": jnp.not_equal,
    },
)


def _comparison(name: str):
    op = _COMPARE[name]
    on_host = getattr(operator, name)

    def compare(input, other):
        tensor_arg(input, name)
        result = host_compare(on_host, input, other)
        return result if result is not None else _binary(op, input, other, name)

    return takes_out(
        _named(
            compare, name, f"Elementwise `{name}` comparison; a bool tensor, not differentiable."
        )
    )


lt, le, gt, ge, eq, ne = (_comparison(n) for n in ("lt", "le", "gt", "ge", "eq", "ne"))
less, less_equal, greater, greater_equal, not_equal = lt, le, gt, ge, ne


def _predicate(name: str, fn):
    op = register(name, fn, node=f"{name}Backward", differentiable=False)

    def predicate(input):
        tensor_arg(input, name)
        return apply(op, input)

    return takes_out(
        _named(
            predicate, name, f"Elementwise `{name}`: a bool tensor (integers are always finite)."
        )
    )


isnan = _predicate("isnan", jnp.isnan)
isinf = _predicate("isinf", jnp.isinf)
isfinite = _predicate("isfinite", jnp.isfinite)


def _maximum_like(pick):
    """maximum/minimum with PyTorch's gradient: split 1/2-1/2 at ties, to both at a NaN."""

    def pure(a, b, *, dtype):
        a, b = a.astype(dtype), b.astype(dtype)
        if not _inexact(dtype):
            return jnp.maximum(a, b) if pick == "max" else jnp.minimum(a, b)
        first = a > b if pick == "max" else a < b
        second = a < b if pick == "max" else a > b
        tie = 0.5 * a + 0.5 * b  # exactly a when a == b, and no overflow
        return jnp.where(first, a, jnp.where(second, b, jnp.where(a == b, tie, a + b)))

    return pure


_MAXIMUM = register("maximum", _maximum_like("max"), node="MaximumBackward0")
_MINIMUM = register("minimum", _maximum_like("min"), node="MinimumBackward0")


@takes_out
def maximum(input, other):
    """Elementwise maximum (NaN propagates); at ties the gradient is split evenly, as PyTorch."""
    return _apply_pair("maximum", _MAXIMUM, input, other)


@takes_out
def minimum(input, other):
    """Elementwise minimum (NaN propagates); at ties the gradient is split evenly, as PyTorch."""
    return _apply_pair("minimum", _MINIMUM, input, other)


# ----------------------------------------------------------------------------- clamp
def _clamp(x, *bounds, dtype, which):
    """Clamp with PyTorch's gradients: to `x` where min <= x <= max (bounds included), to a
    bound where it is the value chosen; 0 where `x` is NaN and (min == max) where x < min."""
    x = x.astype(dtype)
    bounds = [b.astype(dtype) for b in bounds]
    if which == "both":
        lo, hi = bounds
        plain = jnp.minimum(jnp.maximum(x, lo), hi)
        if not _inexact(dtype):
            return plain
        fallback = lax.stop_gradient(plain)
        inside = (x >= lo) & (x <= hi)
        to_lo = (x < lo) & (lo < hi)
        to_hi = (x > hi) | (hi < lo)
        out = jnp.where(inside, x, jnp.where(to_lo, lo, jnp.where(to_hi, hi, fallback)))
        return jnp.where(jnp.isnan(lo) | jnp.isnan(hi), fallback, out)
    (bound,) = bounds
    if which == "min":
        plain = jnp.maximum(x, bound)
        if not _inexact(dtype):
            return plain
        keep, replace = x >= bound, x < bound
    else:
        plain = jnp.minimum(x, bound)
        if not _inexact(dtype):
            return plain
        keep, replace = x <= bound, x > bound
    return jnp.where(keep, x, jnp.where(replace, bound, lax.stop_gradient(plain)))


_CLAMP_TENSOR = register("clamp.tensor", _clamp, node="ClampBackward0")
_CLAMP_SCALAR = register("clamp", _clamp, node="ClampBackward1")
_CLAMP_MIN_SCALAR = register("clamp_min", _clamp, node="ClampMinBackward0")
_CLAMP_MIN_TENSOR = register("clamp_min.tensor", _clamp, node="ClampMinBackward1")
_CLAMP_MAX_SCALAR = register("clamp_max", _clamp, node="ClampMaxBackward0")
_CLAMP_MAX_TENSOR = register("clamp_max.tensor", _clamp, node="ClampMaxBackward1")


def _clamp_signature_error(input, min, max) -> TypeError:
    def kind(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    given = ["Tensor"]  # PyTorch lists the keyword arguments in alphabetical order
    if max is not None:
        given.append(f"max={kind(max)}")
    if min is not None:
        given.append(f"min={kind(min)}")
    return TypeError(
        f"clamp() received an invalid combination of arguments - got ({', '.join(given)}), "
        "but expected one of:\n"
        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
    )


def _reads_as_number(value) -> bool:
    """Whether PyTorch's parser takes `value` for a Number argument: a number, or a 0-d
    tensor that needs no gradient."""
    if isinstance(value, Tensor):
        return value.dim() == 0 and not value.requires_grad
    return as_operand(value) is not None


@takes_out
def clamp(input, min=None, max=None):
    """Clamp every element into [min, max]; bounds are numbers or tensors, and either may be
    None. If min > max every element becomes max, as in PyTorch. A number and a tensor
    together take the number overload, where PyTorch's argument parser reads a 0-d tensor
    that needs no gradient as a number (DeBERTa's `clamp(pos, 0, span * 2 - 1)`).

    Example::

        >>> torch.tensor([-2.0, 0.5, 3.0]).clamp(min=0, max=1)
        tensor([0.0000, 0.5000, 1.0000])
    """
    tensor_arg(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    given = [b for b in (min, max) if b is not None]
    tensors = [isinstance(b, Tensor) for b in given]
    if any(tensors) and not all(tensors):
        if not all(_reads_as_number(b) for b in given):
            raise _clamp_signature_error(input, min, max)
        min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
        given = [b for b in (min, max) if b is not None]
        tensors = [False] * len(given)
    for b in given:
        if not isinstance(b, Tensor) and as_operand(b) is None:
            raise _clamp_signature_error(input, min, max)
    which = "both" if len(given) == 2 else "min" if min is not None else "max"
    dtype = _result_type(input, *given)
    arrays = _arrays(dtype, input, *given)
    if all(tensors):
        op = _CLAMP_TENSOR
    else:
        op = _CLAMP_SCALAR
    return apply(op, *arrays, dtype=dtype.jax, which=which)


clip = clamp


def _one_bound(name: str, which: str, scalar_op, tensor_op):
    def clamp_one(input, bound):
        tensor_arg(input, name)
        operand = _operand(bound, name, which, 2)
        dtype = _result_type(input, operand)
        arrays = _arrays(dtype, input, operand)
        op = tensor_op if isinstance(operand, Tensor) else scalar_op
        return apply(op, *arrays, dtype=dtype.jax, which=which)

    return _named(clamp_one, name, f"`clamp` with only the {which} bound.")


clamp_min = _one_bound("clamp_min", "min", _CLAMP_MIN_SCALAR, _CLAMP_MIN_TENSOR)
clamp_max = _one_bound("clamp_max", "max", _CLAMP_MAX_SCALAR, _CLAMP_MAX_TENSOR)


# ----------------------------------------------------------------------------- where
def _where(condition, x, y, *, dtype):
    return jnp.where(condition, x.astype(dtype), y.astype(dtype))


_WHERE = register("where", _where, node="WhereBackward0", saves="others")


@takes_out
def where(condition, input=None, other=None):
    """`input` where `condition` is true, else `other` (tensors or numbers, broadcast).

    With only `condition`, the same as `condition.nonzero(as_tuple=True)`.
    """
    tensor_arg(condition, "where", "condition")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if condition.dtype is _dtypes.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=2,
        )
        condition = condition != 0
    elif condition.dtype is not _dtypes.bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_type_name(condition.dtype)}"
        )
    x = _operand(input, "where", "input", 2)
    y = _operand(other, "where", "other", 3)
    dtype = _result_type(x, y)
    cond, a, b = _arrays(dtype, condition, x, y)
    return apply(_WHERE, cond, a, b, dtype=dtype.jax)


def _tensor_where(self, condition, y):
    return where(condition, self, y)


# ----------------------------------------------------------------------------- logical, bitwise
def _logical(fn):
    def pure(a, b):
        return fn(a.astype(jnp.bool_), b.astype(jnp.bool_))

    return pure


_LOGICAL = _not_differentiable(
    _logical,
    {
        "logical_and": jnp.logical_and,
        "logical_or": jnp.logical_or,
        "logical_xor": jnp.logical_xor,
    },
)
_LOGICAL_NOT = register(
    "logical_not",
    lambda x: jnp.logical_not(x.astype(jnp.bool_)),
    node="logical_notBackward",
    differentiable=False,
)


def _logical_binary(name: str):
    op = _LOGICAL[name]

    def logical(input, other):
        tensor_arg(input, name)
        tensor_arg(other, name, "other", 2)
        a, b = _arrays(_dtypes.bool, input, other)
        return apply(op, a, b)

    return takes_out(
        _named(
            logical,
            name,
            f"Elementwise `{name}` of the truth values (nonzero is true); bool result.",
        )
    )


logical_and = _logical_binary("logical_and")
logical_or = _logical_binary("logical_or")
logical_xor = _logical_binary("logical_xor")


@takes_out
def logical_not(input):
    """Elementwise logical not (nonzero is true); a bool tensor."""
    tensor_arg(input, "logical_not")
    return apply(_LOGICAL_NOT, input)


_BITWISE = _not_differentiable(
    _promote2,
    {
        "bitwise_and": jnp.bitwise_and,
        "bitwise_or": jnp.bitwise_or,
        "bitwise_xor": jnp.bitwise_xor,
        "bitwise_left_shift": jnp.left_shift,
        "bitwise_right_shift": jnp.right_shift,
    },
)
_BITWISE_NOT = register("bitwise_not", jnp.invert, node="bitwise_notBackward", differentiable=False)


def _check_bitwise(kernel: str, dtype: _dtypes.dtype) -> None:
    if dtype.is_floating_point or dtype.is_complex:
        raise _not_implemented(kernel, dtype)


def _bitwise_binary(name: str, kernel: str = ""):
    op = _BITWISE[name]
    kernel = kernel or f"{name}_cpu"

    def bitwise(input, other):
        a = _operand(input, name, "input", 1)
        b = _operand(other, name, "other", 2)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not int")
        dtype = _result_type(a, b)
        _check_bitwise(kernel, dtype)
        if kernel.endswith("shift_cpu") and dtype is _dtypes.bool:
            raise _not_implemented(kernel, dtype)
        x, y = _arrays(dtype, a, b)
        return apply(op, x, y, dtype=dtype.jax)

    return takes_out(_named(bitwise, name, f"Elementwise `{name}` of integer or bool tensors."))


bitwise_and = _bitwise_binary("bitwise_and")
bitwise_or = _bitwise_binary("bitwise_or")
bitwise_xor = _bitwise_binary("bitwise_xor")
# Shifts by a negative amount or by the width or more give 0 (left) or the sign (right), as
# PyTorch's and XLA's shifts both do.
bitwise_left_shift = _bitwise_binary("bitwise_left_shift", "lshift_cpu")
bitwise_right_shift = _bitwise_binary("bitwise_right_shift", "rshift_cpu")


@takes_out
def bitwise_not(input):
    """Elementwise bitwise not of an integer tensor (logical not of a bool tensor)."""
    tensor_arg(input, "bitwise_not")
    _check_bitwise("bitwise_not_cpu", input.dtype)
    return apply(_BITWISE_NOT, input)


def _invert(self):
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(self)


_FMAX = register("fmax", _promote2(_fmax_like("max")), node="FmaxBackward0")
_FMIN = register("fmin", _promote2(_fmax_like("min")), node="FminBackward0")


@takes_out
def fmax(input, other):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    return _apply_pair("fmax", _FMAX, input, other)


@takes_out
def fmin(input, other):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    return _apply_pair("fmin", _FMIN, input, other)


def _isclose(a, b, rtol, atol, *, equal_nan):
    """|a - b| <= atol + rtol * |b| (integers compared in float64), or a == b (infinities)."""
    if a.dtype == jnp.bool_:
        return a == b
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        a, b = a.astype(jnp.float64), b.astype(jnp.float64)
    close = (a == b) | (
        jnp.isfinite(a) & jnp.isfinite(b) & (jnp.abs(a - b) <= atol + rtol * jnp.abs(b))
    )
    if equal_nan:
        close = close | (jnp.isnan(a) & jnp.isnan(b))
    return close


_ISCLOSE = register("isclose", _isclose, node="IscloseBackward", differentiable=False)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (inf only equal to itself)."""
    tensor_arg(input, "isclose")
    tensor_arg(other, "isclose", "other", 2)
    check_same_dtype(input, other, "{a} did not match {b}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    tol = [constant(float(v), jnp.float64) for v in (rtol, atol)]
    return apply(_ISCLOSE, input, other, *tol, equal_nan=bool(equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """True if every element of `input` is close to `other` (see `isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements."""
    tensor_arg(input, "equal")
    tensor_arg(other, "equal", "other", 2)
    if tuple(input.shape) != tuple(other.shape):
        return False
    if modes.captures:  # a Python bool from the values: a compiled trace must see them
        modes.note_read(input)
        modes.note_read(other)
    return bool(jnp.array_equal(input._value, other._value))
