"""Pointwise ops beyond the basic arithmetic: unary math, rounding, clamp, maximum/minimum,
where/lerp/addcmul/addcdiv, integer division and remainders, logical and bitwise ops.

Each op is one pure JAX function (promotion to the result dtype happens inside it, from a
static `dtype`), differentiated by jax.vjp. Where JAX's derivative at an edge point differs
from PyTorch's (maximum at NaN, clamp at its bounds, atan2 at the origin), the pure function
is written with `where` so that JAX's derivative *is* PyTorch's.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes
from .._state.tensor import Tensor
from .._tape.args import check_integer_divisor, scalar_type_name, tensor_arg
from .._tape.record import apply
from .elementwise import as_operand, opmath, pow

__all__ = [
    "acos",
    "addcdiv",
    "addcmul",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "asin",
    "atan",
    "atan2",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "cosh",
    "erf",
    "expm1",
    "fix",
    "floor",
    "floor_divide",
    "fmod",
    "isfinite",
    "isinf",
    "isnan",
    "lerp",
    "log10",
    "log1p",
    "log2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "reciprocal",
    "remainder",
    "round",
    "rsqrt",
    "sign",
    "sinh",
    "square",
    "tan",
    "trunc",
    "where",
]


def _inexact(dtype) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


def _operand(x, fname: str, name: str, position: int):
    """`x` as a Tensor or Python scalar; PyTorch's TypeError for anything else."""
    o = as_operand(x)
    if o is None:
        raise TypeError(
            f"{fname}(): argument '{name}' (position {position}) must be Tensor, "
            f"not {type(x).__name__}"
        )
    return o


def _arrays(dtype: _dtypes.dtype, *operands):
    """Tensors pass through; Python scalars become cached constants of `dtype`.

    Tensor shapes are checked to broadcast (PyTorch's error names the mismatching sizes).
    """
    shapes = [tuple(o.shape) for o in operands if isinstance(o, Tensor)]
    if len(shapes) > 1:
        out = shapes[0]
        for s in shapes[1:]:
            if s != out:
                out = broadcast_shapes(out, s)
    return [o if isinstance(o, Tensor) else constant(o, dtype.jax) for o in operands]


def _not_implemented(kernel: str, d: _dtypes.dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(d)}'")


def _float_dtype(d: _dtypes.dtype) -> _dtypes.dtype:
    """The dtype a floating op computes in: integral and bool inputs give the default float."""
    if d.is_floating_point or d.is_complex:
        return d
    return _dtypes.get_default_dtype()


# ----------------------------------------------------------------------------- unary math
def _cast_unary(fn):
    fn = opmath(fn)

    def pure(x, *, dtype):
        return fn(x.astype(dtype))

    return pure


def _float_unary(name: str, node: str, fn, saves: str = "all"):
    """A unary op that computes in floating point (integer inputs give the default float)."""
    op = register(name, _cast_unary(fn), node=node, saves=saves)

    def unary(input):
        tensor_arg(input, name)
        return apply(op, input, dtype=_float_dtype(input.dtype).jax)

    unary.__name__ = name
    unary.__doc__ = f"Elementwise `{name}`; integer inputs are computed in the default float dtype."
    return unary


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

    unary.__name__ = name
    unary.__doc__ = f"Elementwise `{name}`, keeping the input dtype."
    return unary


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


def round(input, *, decimals: int = 0):
    """Round half to even (as PyTorch and NumPy do), optionally to `decimals` decimal places.

    Example::

        >>> torch.round(torch.tensor([0.5, 1.5, 2.567]), decimals=0)
        tensor([0., 2., 3.])
    """
    tensor_arg(input, "round")
    if input.dtype is _dtypes.bool:
        raise _not_implemented("round_vml_cpu", input.dtype)
    if decimals == 0:
        return apply(_ROUND, input)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise _not_implemented("round_cpu", input.dtype)
    return apply(_ROUND_DECIMALS, input, decimals=int(decimals))


def square(input):
    """`input ** 2` (a PowBackward0 node, as in PyTorch); bool inputs give int64."""
    tensor_arg(input, "square")
    if input.dtype is _dtypes.bool:
        input = input.to(_dtypes.int64)
    return pow(input, 2)


def _predicate(name: str, fn):
    op = register(name, fn, node=f"{name}Backward", differentiable=False)

    def predicate(input):
        tensor_arg(input, name)
        return apply(op, input)

    predicate.__name__ = name
    predicate.__doc__ = f"Elementwise `{name}`: a bool tensor (integers are always finite)."
    return predicate


isnan = _predicate("isnan", jnp.isnan)
isinf = _predicate("isinf", jnp.isinf)
isfinite = _predicate("isfinite", jnp.isfinite)


# ----------------------------------------------------------------------------- binary
def _promote2(fn):
    def pure(a, b, *, dtype):
        return fn(a.astype(dtype), b.astype(dtype))

    return pure


def _atan2(a, b):
    """atan2 with PyTorch's gradient at the origin (0, where JAX's formula gives 0/0)."""
    origin = (a == 0) & (b == 0)
    safe_a = jnp.where(origin, 1.0, a)
    safe_b = jnp.where(origin, 1.0, b)
    return jnp.where(
        origin, jnp.arctan2(lax.stop_gradient(a), lax.stop_gradient(b)), jnp.arctan2(safe_a, safe_b)
    )


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


def _no_derivative(name: str, fn):
    """`fn` whose derivative raises PyTorch's 'not implemented' error when a backward needs it."""

    @jax.custom_jvp
    def raw(*args):
        return fn(*args)

    @raw.defjvp
    def _jvp(primals, tangents):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return raw


_floor_divide_raw = _no_derivative("floor_divide", jnp.floor_divide)
_rremainder_raw = _no_derivative("remainder", lambda a, b: jnp.remainder(b, a))


def _floor_divide(a, b, *, dtype):
    a, b = a.astype(dtype), b.astype(dtype)
    return _floor_divide_raw(a, b)


_ATAN2 = register("atan2", _promote2(_atan2), node="Atan2Backward0")
_MAXIMUM = register("maximum", _maximum_like("max"), node="MaximumBackward0")
_MINIMUM = register("minimum", _maximum_like("min"), node="MinimumBackward0")
_FLOOR_DIVIDE = register("floor_divide", _floor_divide, node="torch::autograd::NotImplemented")
_REMAINDER_SCALAR = register(
    "remainder.scalar", _promote2(jnp.remainder), node="RemainderBackward0"
)
_REMAINDER = register("remainder", _promote2(jnp.remainder), node="RemainderBackward1")
_RREMAINDER = register(
    "remainder.scalar_self", _promote2(_rremainder_raw), node="torch::autograd::NotImplemented"
)
_FMOD_SCALAR = register("fmod.scalar", _promote2(jnp.fmod), node="FmodBackward0")
_FMOD = register("fmod", _promote2(jnp.fmod), node="FmodBackward1")


def _result_type(*operands) -> _dtypes.dtype:
    return _dtypes.result_type(*operands)


def atan2(input, other):
    """Elementwise arctangent of input/other, with the quadrant; integers give floats."""
    tensor_arg(input, "atan2")
    tensor_arg(other, "atan2", "other", 2)
    dtype = _float_dtype(_result_type(input, other))
    a, b = _arrays(dtype, input, other)
    return apply(_ATAN2, a, b, dtype=dtype.jax)


arctan2 = atan2


def _tensor_pair(fname: str, input, other):
    tensor_arg(input, fname)
    tensor_arg(other, fname, "other", 2)
    dtype = _result_type(input, other)
    a, b = _arrays(dtype, input, other)
    return a, b, dtype


def maximum(input, other):
    """Elementwise maximum (NaN propagates); at ties the gradient is split evenly, as PyTorch."""
    a, b, dtype = _tensor_pair("maximum", input, other)
    return apply(_MAXIMUM, a, b, dtype=dtype.jax)


def minimum(input, other):
    """Elementwise minimum (NaN propagates); at ties the gradient is split evenly, as PyTorch."""
    a, b, dtype = _tensor_pair("minimum", input, other)
    return apply(_MINIMUM, a, b, dtype=dtype.jax)


def _division_operands(fname: str, input, other, *, reflected: bool = False):
    a = _operand(input, fname, "input", 1)
    b = _operand(other, fname, "other", 2)
    dtype = _result_type(a, b)
    if dtype is _dtypes.bool:
        kernel = {"floor_divide": "div_floor_cpu"}.get(fname, f"{fname}_cpu")
        raise _not_implemented(kernel, dtype)
    check_integer_divisor(a if reflected else b, dtype)
    x, y = _arrays(dtype, a, b)
    return x, y, dtype


def floor_divide(input, other):
    """Division rounded toward negative infinity (Python's `//`). Like PyTorch, it has no
    derivative: a backward through it raises."""
    tensor_arg(input, "floor_divide")
    x, y, dtype = _division_operands("floor_divide", input, other)
    return apply(_FLOOR_DIVIDE, x, y, dtype=dtype.jax)


def _rfloor_divide(self, other):
    x, y, dtype = _division_operands("floor_divide", other, self, reflected=True)
    return apply(_FLOOR_DIVIDE, x, y, dtype=dtype.jax)


def remainder(input, other):
    """Python's modulus: the result has the sign of the divisor."""
    if not isinstance(input, Tensor):
        tensor_arg(other, "remainder", "other", 2)
        return _rremainder(other, input)
    x, y, dtype = _division_operands("remainder", input, other)
    op = _REMAINDER if isinstance(other, Tensor) else _REMAINDER_SCALAR
    return apply(op, x, y, dtype=dtype.jax)


def _rremainder(self, other):
    x, y, dtype = _division_operands("remainder", other, self, reflected=True)
    return apply(_RREMAINDER, y, x, dtype=dtype.jax)


def fmod(input, other):
    """C's fmod: the remainder of truncated division, with the sign of the dividend."""
    tensor_arg(input, "fmod")
    x, y, dtype = _division_operands("fmod", input, other)
    op = _FMOD if isinstance(other, Tensor) else _FMOD_SCALAR
    return apply(op, x, y, dtype=dtype.jax)


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


def clamp(input, min=None, max=None):
    """Clamp every element into [min, max]; bounds are numbers or tensors (not mixed), and
    either may be None. If min > max every element becomes max, as in PyTorch.

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
        raise _clamp_signature_error(input, min, max)
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

    clamp_one.__name__ = name
    clamp_one.__doc__ = f"`clamp` with only the {which} bound."
    return clamp_one


clamp_min = _one_bound("clamp_min", "min", _CLAMP_MIN_SCALAR, _CLAMP_MIN_TENSOR)
clamp_max = _one_bound("clamp_max", "max", _CLAMP_MAX_SCALAR, _CLAMP_MAX_TENSOR)


# ----------------------------------------------------------------------------- where, lerp...
def _where(condition, x, y, *, dtype):
    return jnp.where(condition, x.astype(dtype), y.astype(dtype))


_WHERE = register("where", _where, node="WhereBackward0", saves="others")


def where(condition, input=None, other=None):
    """`input` where `condition` is true, else `other` (tensors or numbers, broadcast).

    With only `condition`, the same as `condition.nonzero(as_tuple=True)`.
    """
    tensor_arg(condition, "where", "condition")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if condition.dtype is not _dtypes.bool:
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


def _lerp(start, end, weight):
    """PyTorch's lerp formula: from `start` for |weight| < 0.5, from `end` otherwise."""
    diff = end - start
    return jnp.where(jnp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


_LERP_SCALAR = register("lerp.scalar", _lerp, node="LerpBackward0")
_LERP_TENSOR = register("lerp", _lerp, node="LerpBackward1")


def lerp(input, end, weight):
    """`input + weight * (end - input)`: tensors of one floating dtype; `weight` a number or a
    tensor of that dtype."""
    tensor_arg(input, "lerp")
    tensor_arg(end, "lerp", "end", 2)
    d = input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise _not_implemented("lerp_kernel_scalar", d)
    if end.dtype is not d:
        raise RuntimeError(
            f"expected dtype {_short(d)} for `end` but got dtype {_short(end.dtype)}"
        )
    if isinstance(weight, Tensor):
        if weight.dtype is not d:
            raise RuntimeError(
                f"expected dtype {_short(d)} for `weight` but got dtype {_short(weight.dtype)}"
            )
        a, b, w = _arrays(d, input, end, weight)
        return apply(_LERP_TENSOR, a, b, w)
    operand = _operand(weight, "lerp", "weight", 3)
    a, b = _arrays(d, input, end)
    return apply(_LERP_SCALAR, a, b, constant(operand, d.jax))


def _short(d: _dtypes.dtype) -> str:
    """The C type name PyTorch prints in some checks ("float", "double")."""
    return {
        _dtypes.float32: "float",
        _dtypes.float64: "double",
        _dtypes.float16: "c10::Half",
        _dtypes.bfloat16: "c10::BFloat16",
    }.get(d, d.name)


def _addcmul(x, t1, t2, value, *, dtype):
    return x.astype(dtype) + value * (t1.astype(dtype) * t2.astype(dtype))


def _addcdiv(x, t1, t2, value, *, dtype):
    return x.astype(dtype) + value * (t1.astype(dtype) / t2.astype(dtype))


_ADDCMUL = register("addcmul", _addcmul, node="AddcmulBackward0")
_ADDCDIV = register("addcdiv", _addcdiv, node="AddcdivBackward0")


def _value_constant(value, dtype: _dtypes.dtype):
    """The scalar `value` of addcmul/addcdiv, cast to the result dtype as PyTorch does."""
    if isinstance(value, Tensor):
        value = value.item()
    if not (dtype.is_floating_point or dtype.is_complex):
        value = builtins.int(value)
    return constant(value, dtype.jax)


def addcmul(input, tensor1, tensor2, *, value=1):
    """`input + value * tensor1 * tensor2`, broadcast, with PyTorch's promotion."""
    tensor_arg(input, "addcmul")
    tensor_arg(tensor1, "addcmul", "tensor1", 2)
    tensor_arg(tensor2, "addcmul", "tensor2", 3)
    dtype = _result_type(input, tensor1, tensor2)
    arrays = _arrays(dtype, input, tensor1, tensor2)
    return apply(_ADDCMUL, *arrays, _value_constant(value, dtype), dtype=dtype.jax)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """`input + value * tensor1 / tensor2`; integer tensor1/tensor2 raise, as in PyTorch."""
    tensor_arg(input, "addcdiv")
    tensor_arg(tensor1, "addcdiv", "tensor1", 2)
    tensor_arg(tensor2, "addcdiv", "tensor2", 3)
    if not (tensor1.dtype.is_floating_point or tensor1.dtype.is_complex) and not (
        tensor2.dtype.is_floating_point or tensor2.dtype.is_complex
    ):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    dtype = _result_type(input, tensor1, tensor2)
    arrays = _arrays(dtype, input, tensor1, tensor2)
    return apply(_ADDCDIV, *arrays, _value_constant(value, dtype), dtype=dtype.jax)


# ----------------------------------------------------------------------------- logical, bitwise
def _logical(fn):
    def pure(a, b):
        return fn(a.astype(jnp.bool_), b.astype(jnp.bool_))

    return pure


_LOGICAL = {
    name: register(name, _logical(fn), node=f"{name}Backward", differentiable=False)
    for name, fn in [
        ("logical_and", jnp.logical_and),
        ("logical_or", jnp.logical_or),
        ("logical_xor", jnp.logical_xor),
    ]
}
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

    logical.__name__ = name
    logical.__doc__ = f"Elementwise `{name}` of the truth values (nonzero is true); bool result."
    return logical


logical_and = _logical_binary("logical_and")
logical_or = _logical_binary("logical_or")
logical_xor = _logical_binary("logical_xor")


def logical_not(input):
    """Elementwise logical not (nonzero is true); a bool tensor."""
    tensor_arg(input, "logical_not")
    return apply(_LOGICAL_NOT, input)


_BITWISE = {
    name: register(name, _promote2(fn), node=f"{name}Backward", differentiable=False)
    for name, fn in [
        ("bitwise_and", jnp.bitwise_and),
        ("bitwise_or", jnp.bitwise_or),
        ("bitwise_xor", jnp.bitwise_xor),
    ]
}
_BITWISE_NOT = register("bitwise_not", jnp.invert, node="bitwise_notBackward", differentiable=False)


def _check_bitwise(kernel: str, dtype: _dtypes.dtype) -> None:
    if dtype.is_floating_point or dtype.is_complex:
        raise _not_implemented(kernel, dtype)


def _bitwise_binary(name: str):
    op = _BITWISE[name]

    def bitwise(input, other):
        a = _operand(input, name, "input", 1)
        b = _operand(other, name, "other", 2)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not int")
        dtype = _result_type(a, b)
        _check_bitwise(f"{name}_cpu", dtype)
        x, y = _arrays(dtype, a, b)
        return apply(op, x, y, dtype=dtype.jax)

    bitwise.__name__ = name
    bitwise.__doc__ = f"Elementwise `{name}` of integer or bool tensors."
    return bitwise


bitwise_and = _bitwise_binary("bitwise_and")
bitwise_or = _bitwise_binary("bitwise_or")
bitwise_xor = _bitwise_binary("bitwise_xor")


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


# ----------------------------------------------------------------------------- Tensor methods
def _dunder(fn, reflected: bool = False):
    """A binary dunder: NotImplemented for operands we do not know, so Python tries the other."""

    def dunder(self, other):
        if as_operand(other) is None:
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    return dunder


_OUT_OF_PLACE = {
    "expm1": expm1,
    "log1p": log1p,
    "log2": log2,
    "log10": log10,
    "rsqrt": rsqrt,
    "reciprocal": reciprocal,
    "tan": tan,
    "asin": asin,
    "acos": acos,
    "atan": atan,
    "arcsin": asin,
    "arccos": acos,
    "arctan": atan,
    "sinh": sinh,
    "cosh": cosh,
    "erf": erf,
    "floor": floor,
    "ceil": ceil,
    "trunc": trunc,
    "fix": trunc,
    "round": round,
    "sign": sign,
    "square": square,
    "atan2": atan2,
    "arctan2": atan2,
    "maximum": maximum,
    "minimum": minimum,
    "floor_divide": floor_divide,
    "remainder": remainder,
    "fmod": fmod,
    "clamp": clamp,
    "clip": clamp,
    "clamp_min": clamp_min,
    "clamp_max": clamp_max,
    "lerp": lerp,
    "addcmul": addcmul,
    "addcdiv": addcdiv,
    "logical_and": logical_and,
    "logical_or": logical_or,
    "logical_xor": logical_xor,
    "logical_not": logical_not,
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "bitwise_not": bitwise_not,
}


def _rfloordiv_method(self, other):
    """`other // tensor` (NotImplemented for operands we do not know)."""
    return NotImplemented if as_operand(other) is None else _rfloor_divide(self, other)


def _rmod_method(self, other):
    """`other % tensor` (NotImplemented for operands we do not know)."""
    return NotImplemented if as_operand(other) is None else _rremainder(self, other)
