"""Binary elementwise arithmetic and the machinery every elementwise op shares.

The machinery: operand conversion and PyTorch's promotion (`as_operand`; `_pure/opmath`), the
reflected and in-place method wrappers, `_no_derivative`. The ops: add/sub/rsub/mul/div/pow
and float_power, floor_divide/remainder/fmod, lerp/addcmul/addcdiv, binary float math (atan2,
xlogy, hypot, logaddexp/logaddexp2, copysign, heaviside), and the in-place writes
zero_/fill_/copy_.

Each op is one pure JAX function (promotion to the result dtype happens inside it, from a
static `dtype`), differentiated by jax.vjp. Where JAX's derivative at an edge point differs
from PyTorch's, the pure function follows PyTorch: with `where` (atan2 at the origin) or with
`jax.custom_jvp` carrying PyTorch's derivative formula (pow at 0, xlogy at x == 0, copysign
at 0, hypot at the origin, logaddexp at equal infinities).
"""

from __future__ import annotations

import builtins
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure import float8
from .._pure.division import ieee_divide
from .._pure.op import constant, register, scalar_input
from .._pure.opmath import REDUCED, in_opmath, opmath_dtype
from .._pure.shapes import broadcast_shapes
from .._state import modes as _grad_mode
from .._state.tensor import MetaTensor, Tensor
from .._tape import host_items
from .._tape.args import (
    SCALAR_TYPES,
    check_inplace,
    check_integer_divisor,
    commit_inplace,
    operands,
    scalar_type_name,
    tensor_arg,
    tensor_or_number_arg,
)
from .._tape.record import apply
from .factories import as_tensor, tensor
from .out_arg import takes_out, without_out

__all__ = [
    "add",
    "addcdiv",
    "addcmul",
    "arctan2",
    "atan2",
    "copysign",
    "div",
    "divide",
    "float_power",
    "floor_divide",
    "fmod",
    "heaviside",
    "hypot",
    "lerp",
    "logaddexp",
    "logaddexp2",
    "mul",
    "multiply",
    "pow",
    "remainder",
    "rsub",
    "sub",
    "subtract",
    "true_divide",
    "xlogy",
]


_NUMBERS = (int, float)  # Python numbers, not bool (a subclass of int, promoting as bool)


def as_operand(x):
    """A Tensor, a Python scalar, or (for arrays) a new Tensor; None if `x` is no operand."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, SCALAR_TYPES) and not hasattr(x, "shape"):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return as_tensor(x)
    return None


def _promoted(fn):
    """A binary jnp function computing in the promoted dtype (a static argument)."""

    def promoted(a, b, *, dtype):
        return fn(a.astype(dtype), b.astype(dtype))

    return promoted


def _arithmetic(fn):
    """A binary jnp function computing in the promoted dtype's opmath (`_pure/opmath`: float32
    for float16 and bfloat16, rounded once to the promoted dtype)."""

    def arithmetic(a, b, *, dtype):
        math = opmath_dtype(dtype)
        return fn(a.astype(math), b.astype(math)).astype(dtype)

    return arithmetic


@jax.custom_jvp
def _pow(base, exponent):
    return jnp.power(base, exponent)


@_pow.defjvp
def _pow_jvp(primals, tangents):
    """PyTorch's pow derivative: 0 (not NaN) for a zero exponent and, in the exponent, at base 0."""
    base, exponent = primals
    base_dot, exponent_dot = tangents
    out = _pow(base, exponent)
    d_base = jnp.where(exponent == 0, 0.0, exponent * _pow(base, exponent - 1))
    safe_base = jnp.where(base == 0, 1.0, base)
    d_exponent = jnp.where((base == 0) & (exponent >= 0), 0.0, out * jnp.log(safe_base))
    return out, d_base * base_dot + d_exponent * exponent_dot


def _pow_scalar(x, exponent, *, special, dtype):
    """`x ** exponent`: a small integer or +-0.5 exponent is `special` (static: multiplications,
    as PyTorch special-cases them), any other a runtime input, so a new exponent never compiles."""
    x = x.astype(dtype)
    if special is not None:
        if float(special).is_integer():
            return lax.integer_pow(x, int(special))
        return _pow(x, jnp.asarray(special, dtype))
    return _pow(x, exponent.astype(dtype))


# Exponents kept static (compiled once each): the small integers and +-0.5.
_POW_SPECIAL = frozenset([*range(-8, 9), 0.5, -0.5])


_ADD = register("add", _arithmetic(jnp.add), node="AddBackward0", saves="none")
_SUB = register("sub", _arithmetic(jnp.subtract), node="SubBackward0", saves="none")


# `add`/`sub` with alpha, when recorded: one node as in PyTorch (see _with_alpha).
def _scaled(fn):
    """`fn(a, alpha * b)` in the promoted dtype's opmath, rounded once, alpha a runtime
    input (a new alpha never compiles) cast to that dtype first, as PyTorch casts it. Linear
    in a and b: the op saves only alpha, its last input (saves="positions")."""

    def scaled(a, b, alpha, *, dtype):
        math = opmath_dtype(dtype)
        alpha = alpha.astype(dtype).astype(math)
        return fn(a.astype(math), alpha * b.astype(math)).astype(dtype)

    return scaled


_ADD_SCALED = register(
    "add.alpha", _scaled(jnp.add), node="AddBackward0", saves="positions", shown_inputs=(0, 1)
)
_SUB_SCALED = register(
    "sub.alpha", _scaled(jnp.subtract), node="SubBackward0", saves="positions", shown_inputs=(0, 1)
)
_RSUB_TENSOR = register("rsub", _arithmetic(lambda a, b: b - a), node="RsubBackward0", saves="none")
_RSUB = register(
    "rsub.scalar",
    _arithmetic(lambda a, b: b - a),
    node="RsubBackward1",
    shown_inputs=(0,),
    saves="none",
)  # scalar other
_MUL = register("mul", _arithmetic(jnp.multiply), node="MulBackward0", saves="others")
_DIV = register("div", _arithmetic(ieee_divide), node="DivBackward0")
_POW_TENSOR = register("pow", _promoted(_pow), node="PowBackward1")
_POW_SCALAR = register("pow.scalar_exponent", _pow_scalar, node="PowBackward0", shown_inputs=(0,))
_RPOW = register(
    "pow.scalar_base",
    _promoted(lambda exponent, base: _pow(base, exponent)),
    node="PowBackward2",
    shown_inputs=(0,),
)
# The ops whose number operand PyTorch holds in opmath (float32 for float16 and bfloat16);
# add and sub round it to the tensor's dtype first.
_OPMATH = frozenset([_MUL, _DIV])


def _binary(op, a, b, fname: str, dtype=None, **static):
    """`op` on two operands, a number among them made a constant: of the result dtype, or of
    its opmath for multiply and divide (`_OPMATH`: `half * 0.1` multiplies by float32's 0.1)."""
    if type(b) in _NUMBERS and isinstance(a, Tensor):  # the common case, `y * 2`, in short
        if dtype is None:
            dtype = _dtypes.binary_result_type(a, b)
        return apply(op, a, constant(b, _scalar_dtype(op, dtype)), dtype=dtype.jax, **static)
    a_operand, b_operand = as_operand(a), as_operand(b)
    if a_operand is None or b_operand is None:
        bad = b if b_operand is None else a
        raise TypeError(f"{fname}(): unsupported operand type {type(bad).__name__}")
    if dtype is None:
        if isinstance(a_operand, Tensor):
            dtype = _dtypes.binary_result_type(a_operand, b_operand)
        else:
            dtype = _dtypes.result_type(a_operand, b_operand)
    x, y = operands(a_operand, b_operand, dtype, _scalar_dtype(op, dtype))
    return apply(op, x, y, dtype=dtype.jax, **static)


def _scalar_dtype(op, dtype: _dtypes.dtype) -> np.dtype:
    """The dtype of `op`'s number operand: its opmath for multiply and divide, else `dtype`."""
    return opmath_dtype(dtype.jax) if op in _OPMATH else dtype.jax


def _recorded(*operands) -> bool:
    return _grad_mode._state.enabled and any(
        isinstance(o, Tensor) and o._requires_grad for o in operands
    )


def _reduced(*operands) -> bool:
    """Whether a tensor among these operands is float16 or bfloat16."""
    return any(isinstance(o, Tensor) and o._stored.dtype in REDUCED for o in operands)


def _with_alpha(op, scaled_op, input, other, alpha, fname: str):
    """`op(input, alpha * other)`: one scaled op when recorded, as PyTorch's node, or on
    float16/bfloat16, which it rounds once; else a mul by the (array) constant alpha first, so
    a new alpha never compiles."""
    tensor_or_number_arg(input, fname)
    if alpha != 1:
        if isinstance(other, Tensor) and (_recorded(input, other) or _reduced(input, other)):
            dtype = _dtypes.result_type(input, other)
            x, y = operands(input, other, dtype)
            return apply(scaled_op, x, y, scalar_input(alpha), dtype=dtype.jax)
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return _binary(op, input, other, fname)


@takes_out
def add(input, other, *, alpha=1):
    """`input + alpha * other`, with broadcasting and PyTorch's type promotion."""
    return _with_alpha(_ADD, _ADD_SCALED, input, other, alpha, "add")


@takes_out
def sub(input, other, *, alpha=1):
    """`input - alpha * other`."""
    return _with_alpha(_SUB, _SUB_SCALED, input, other, alpha, "sub")


def rsub(input, other, *, alpha=1):
    """`other - alpha * input`."""
    if isinstance(other, Tensor):
        broadcast_shapes(other.shape, input.shape)  # PyTorch's error reads `other - input`
    if alpha != 1:
        input = mul(input, alpha)
    return _binary(_RSUB_TENSOR if isinstance(other, Tensor) else _RSUB, input, other, "rsub")


@takes_out
def mul(input, other):
    """Elementwise product, with broadcasting."""
    tensor_or_number_arg(input, "mul")
    return _binary(_MUL, input, other, "mul")


def _rounded_divide(a, b, *, dtype, rounding_mode):
    """PyTorch's rounded division; "floor" on floats is Python's `//` (1.0 // 0.1 == 9.0)."""
    a, b = a.astype(dtype), b.astype(dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return jnp.floor_divide(a, b) if rounding_mode == "floor" else lax.div(a, b)
    if rounding_mode == "floor":
        return jnp.floor_divide(a, b)
    return jnp.trunc(ieee_divide(a, b))


_ROUNDED_DIV = register("div.rounding_mode", _rounded_divide, node="DivBackward2", saves="none")


def _true_divide(a, b):
    dtype = _dtypes.result_type(as_operand(a), as_operand(b))
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _dtypes.get_default_dtype()
    return _binary(_DIV, a, b, "div", dtype)


@takes_out
def div(input, other, *, rounding_mode=None):
    """True division (integers give the default float dtype), or rounded with rounding_mode
    ("trunc" or "floor"; the result keeps the promoted dtype and has zero gradient)."""
    tensor_or_number_arg(input, "div")
    if rounding_mode is None:
        return _true_divide(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    a, b = as_operand(input), as_operand(other)
    dtype = _dtypes.result_type(a, b)
    if not (dtype.is_floating_point or dtype.is_complex):
        check_integer_divisor(b, dtype)
    x, y = operands(a, b, dtype)
    return apply(_ROUNDED_DIV, x, y, dtype=dtype.jax, rounding_mode=rounding_mode)


def _rtruediv(self, other):
    """`other / tensor` (`number / tensor`, `Tensor.__rdiv__`): PyTorch computes
    reciprocal(tensor) * other (two nodes, two roundings)."""
    return mul(self.reciprocal(), other)


true_divide = divide = div
multiply = mul
subtract = sub


@takes_out
def pow(input, exponent):
    """`input ** exponent` for tensor or scalar base and exponent."""
    if not isinstance(input, Tensor):
        return _binary(_RPOW, tensor_arg(exponent, "pow", "exponent", 2), input, "pow")
    if isinstance(exponent, Tensor):
        return _binary(_POW_TENSOR, input, exponent, "pow")
    dtype = _dtypes.binary_result_type(input, exponent)
    if (
        not (dtype.is_floating_point or dtype.is_complex)
        and isinstance(exponent, int)
        and exponent < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    special = exponent if _is_special_exponent(exponent) else None
    value = _NO_EXPONENT if special is not None else scalar_input(exponent)
    return apply(_POW_SCALAR, input, value, special=special, dtype=dtype.jax)


_NO_EXPONENT = np.zeros((), np.float64)  # the unused exponent input of a special exponent


def _is_special_exponent(exponent) -> bool:
    if isinstance(exponent, complex):
        return False
    return exponent in _POW_SPECIAL and not isinstance(exponent, bool)


def _named(fn, name: str, doc: str):
    """`fn`, a front end made by a factory function, under its public name and docstring."""
    fn.__name__ = name
    fn.__doc__ = doc
    return fn


def _reflected(fn, op=None):
    """A dunder: NotImplemented for operands we do not know, so Python tries the other side.
    `op`: the op `fn` applies through `_binary` to a tensor and a Python number (`y * 2`),
    which then goes to `_binary` at once: two calls of the front end fewer (`fn`'s and its
    tensor check: `self` is a tensor), ~6% of a deferred op's Python. Dunders take no `out=`:
    `fn` is the front end under `takes_out`'s wrapper."""
    name = fn.__name__
    fn = without_out(fn)

    def dunder(self, other):
        if type(other) in _NUMBERS:
            if op is not None:
                return _binary(op, self, other, name)
        elif as_operand(other) is None:
            return NotImplemented
        return fn(self, other)

    return dunder


def _inplace(fn):
    """The in-place method of an out-of-place op: compute, then commit into self."""
    fn = without_out(fn)

    def method(self, *args, **kwargs):
        check_inplace(self, args)
        return commit_inplace(self, fn(self, *args, **kwargs))

    return _named(method, f"{fn.__name__}_", f"In-place `{fn.__name__}`; returns self.")


def _host_first(method, sign: int):
    """`method`, the in-place add_ (`sign` 1) or sub_ (-1) and so `+=`/`-=`, where a Python
    number added to a tensor held on the host (`N[i, j] += 1`, `_tape/host_items`) is added
    there first."""

    def inplace(self, *args, **kwargs):
        if type(self) in host_items.HOST_TYPES or self._storage is not None:  # (else: no)
            if len(args) == 1 and not kwargs and host_items.add_number(self, args[0], sign):
                return self
        return method(self, *args, **kwargs)

    return _named(inplace, method.__name__, method.__doc__)


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (recorded as PyTorch's ZeroBackward0 on a tensor in the graph)."""
    check_inplace(self)
    if self._requires_grad and _grad_mode.is_grad_enabled():
        return commit_inplace(self, apply(_ZERO, self))
    return fill_(self, 0)


def _fill(x, value):
    return jnp.broadcast_to(value.astype(x.dtype), x.shape)


_FILL_SCALAR = register("fill_", _fill, node="FillBackward2", saves="none")
_FILL_TENSOR = register("fill_.tensor", _fill, node="FillBackward3", saves="none")
_ZERO = register("zero_", jnp.zeros_like, node="ZeroBackward0", saves="none")


def fill_(self: Tensor, value) -> Tensor:
    """Fill with `value` (a number or a 0-dim tensor) in place.

    On a tensor in the graph the fill is recorded (its old value gets a zero gradient), and a
    0-dim `value` that requires grad receives the summed gradient, as in PyTorch.
    """
    check_inplace(self)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions."
            )
        if value._requires_grad and _grad_mode.is_grad_enabled():
            return commit_inplace(self, apply(_FILL_TENSOR, self, value))
        value = value.item()
    value = _dtypes.fit_scalar(value, self.dtype)
    filled = apply(_FILL_SCALAR, self, constant(value, self._stored.dtype))
    shared = self._storage is not None or bool(_grad_mode.modes.tracing and _grad_mode.modes.traces)
    if filled._grad_fn is None and self._fw_grad is None and shared:
        # Unrecorded, through a view (an expanded one too: PyTorch fills overlapping memory)
        # or in a trace: a plain write, which every tensor sharing the memory sees.
        self._set_value(filled._value)
        self._bump_version()
        return self
    return commit_inplace(self, filled)  # (`w.grad.zero_()`: deferred, no XLA call of its own)


_COPY = register(
    "copy_",
    lambda dst, src: jnp.broadcast_to(float8.convert(src, dst.dtype), dst.shape),
    node="CopyBackwards",
    saves="none",
)


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Copy `src` (broadcast and cast) into self in place; differentiable in `src`."""
    src = as_operand(src)
    if not isinstance(src, Tensor):
        src = tensor(src)
    check_inplace(self, (src,))
    if src.shape != self.shape:
        if broadcast_shapes(self.shape, src.shape) != tuple(self.shape):
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                f"{list(broadcast_shapes(self.shape, src.shape))}"
            )
    if isinstance(self, MetaTensor):  # from any device: nothing to write
        return commit_inplace(self, self)
    return commit_inplace(self, apply(_COPY, self, src))


def _rpow(self, other):
    """`number ** tensor`."""
    return pow(other, self)


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


# ------------------------------------------------- atan2, integer division, lerp, addcmul / addcdiv
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


def _no_derivative(name: str, fn, text: str | None = None, error: type = RuntimeError):
    """`fn` whose derivative raises PyTorch's 'not implemented' error (or `error(text)`) when
    a backward needs it."""

    @jax.custom_jvp
    def raw(*args):
        return fn(*args)

    @raw.defjvp
    def _jvp(primals, tangents):
        raise error(text or f"derivative for aten::{name} is not implemented")

    return raw


_floor_divide_raw = _no_derivative("floor_divide", jnp.floor_divide)
_rremainder_raw = _no_derivative("remainder", lambda a, b: jnp.remainder(b, a))


def _floor_divide(a, b, *, dtype):
    a, b = a.astype(dtype), b.astype(dtype)
    return _floor_divide_raw(a, b)


_ATAN2 = register("atan2", _promote2(_atan2), node="Atan2Backward0")


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


@takes_out
def atan2(input, other):
    """Elementwise arctangent of input/other, with the quadrant; integers give floats."""
    tensor_arg(input, "atan2")
    tensor_arg(other, "atan2", "other", 2)
    dtype = _float_dtype(_result_type(input, other))
    a, b = _arrays(dtype, input, other)
    return apply(_ATAN2, a, b, dtype=dtype.jax)


arctan2 = atan2


def _apply_pair(fname: str, op, input, other):
    """Apply `op` to two tensors, promoted to their result dtype (a static argument)."""
    tensor_arg(input, fname)
    tensor_arg(other, fname, "other", 2)
    dtype = _result_type(input, other)
    a, b = _arrays(dtype, input, other)
    return apply(op, a, b, dtype=dtype.jax)


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


@takes_out
def floor_divide(input, other):
    """Division rounded toward negative infinity (Python's `//`). Like PyTorch, it has no
    derivative: a backward through it raises."""
    tensor_or_number_arg(input, "floor_divide")
    x, y, dtype = _division_operands("floor_divide", input, other)
    return apply(_FLOOR_DIVIDE, x, y, dtype=dtype.jax)


def _rfloor_divide(self, other):
    x, y, dtype = _division_operands("floor_divide", other, self, reflected=True)
    return apply(_FLOOR_DIVIDE, x, y, dtype=dtype.jax)


@takes_out
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


@takes_out
def fmod(input, other):
    """C's fmod: the remainder of truncated division, with the sign of the dividend."""
    tensor_arg(input, "fmod")
    x, y, dtype = _division_operands("fmod", input, other)
    op = _FMOD if isinstance(other, Tensor) else _FMOD_SCALAR
    return apply(op, x, y, dtype=dtype.jax)


@in_opmath
def _lerp(start, end, weight):
    """PyTorch's lerp formula: from `start` for |weight| < 0.5, from `end` otherwise."""
    diff = end - start
    return jnp.where(jnp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


_LERP_SCALAR = register("lerp.scalar", _lerp, node="LerpBackward0")
_LERP_TENSOR = register("lerp", _lerp, node="LerpBackward1")


@takes_out
def lerp(input, end, weight):
    """`input + weight * (end - input)`: tensors of one floating dtype; `weight` a number or a
    tensor of that dtype."""
    tensor_arg(input, "lerp")
    tensor_arg(end, "lerp", "end", 2)
    d = input.dtype  # (an integral one: the op's dtype rule refuses it, naming the kernel)
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
    return apply(_LERP_SCALAR, a, b, constant(operand, opmath_dtype(d.jax)))


def _short(d: _dtypes.dtype) -> str:
    """The dtype name lerp's errors print: the C type of a floating dtype, else its name.
    (PyTorch prints the C type for every dtype, "long int" for int64: see _ctype.)"""
    return _ctype(d) if d.is_floating_point else d.name


def _ctype(d: _dtypes.dtype) -> str:
    """The C++ type name PyTorch prints in some dtype checks."""
    return {
        _dtypes.float32: "float",
        _dtypes.float64: "double",
        _dtypes.float16: "c10::Half",
        _dtypes.bfloat16: "c10::BFloat16",
        _dtypes.uint8: "unsigned char",
        _dtypes.int8: "signed char",
        _dtypes.int16: "short int",
        _dtypes.int32: "int",
        _dtypes.int64: "long int",
        _dtypes.complex64: "c10::complex<float>",
        _dtypes.complex128: "c10::complex<double>",
        _dtypes.bool: "bool",
    }[d]


def _addcmul(x, t1, t2, value, *, dtype):
    m = opmath_dtype(dtype)
    return (x.astype(m) + value.astype(m) * (t1.astype(m) * t2.astype(m))).astype(dtype)


def _addcdiv(x, t1, t2, value, *, dtype):
    m = opmath_dtype(dtype)
    return (x.astype(m) + value.astype(m) * ieee_divide(t1.astype(m), t2.astype(m))).astype(dtype)


_ADDCMUL = register("addcmul", _addcmul, node="AddcmulBackward0")
_ADDCDIV = register("addcdiv", _addcdiv, node="AddcdivBackward0")


def _value_constant(value, dtype: _dtypes.dtype):
    """The scalar `value` of addcmul/addcdiv, cast to the result dtype's opmath as PyTorch
    does."""
    if isinstance(value, Tensor):
        value = value.item()
    if not (dtype.is_floating_point or dtype.is_complex):
        value = builtins.int(value)
    return constant(value, opmath_dtype(dtype.jax))


@takes_out
def addcmul(input, tensor1, tensor2, *, value=1):
    """`input + value * tensor1 * tensor2`, broadcast, with PyTorch's promotion."""
    tensor_arg(input, "addcmul")
    tensor_arg(tensor1, "addcmul", "tensor1", 2)
    tensor_arg(tensor2, "addcmul", "tensor2", 3)
    dtype = _result_type(input, tensor1, tensor2)
    arrays = _arrays(dtype, input, tensor1, tensor2)
    return apply(_ADDCMUL, *arrays, _value_constant(value, dtype), dtype=dtype.jax)


@takes_out
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


# ----------------------------------------------------------------------------- Tensor methods
def _dunder(fn, reflected: bool = False):
    """A binary dunder: NotImplemented for operands we do not know, so Python tries the other."""

    def dunder(self, other):
        if as_operand(other) is None:
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    return dunder


def _rfloordiv_method(self, other):
    """`other // tensor` (NotImplemented for operands we do not know)."""
    return NotImplemented if as_operand(other) is None else _rfloor_divide(self, other)


def _rmod_method(self, other):
    """`other % tensor` (NotImplemented for operands we do not know); a tensor `other` (an
    explicit `__rmod__` call) is `remainder(other, self)`, with its derivative."""
    if isinstance(other, Tensor):
        return remainder(other, self)
    return NotImplemented if as_operand(other) is None else _rremainder(self, other)


# ---------------------------------- binary float math: xlogy, hypot, logaddexp, copysign, heaviside
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


def _copysign_jvp(ta, y, a, b):
    """PyTorch's derivative in `a`: result / a, 0 where a == 0 (none in the sign source)."""
    slope = jnp.where(a == 0, jnp.zeros((), y.dtype), y / jnp.where(a == 0, 1, a))
    return jnp.broadcast_to(ta * slope, y.shape)


_copysign = jax.custom_jvp(jnp.copysign)
_copysign.defjvps(_copysign_jvp, None)
# PyTorch's derivatives a / hypot and b / hypot (NaN at the origin).
_hypot = jax.custom_jvp(jnp.hypot)
_hypot.defjvps(lambda ta, y, a, b: ta * (a / y), lambda tb, y, a, b: tb * (b / y))


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
    scalar_first = name == "xlogy"
    integers_ok = numbers_ok = name in ("xlogy", "copysign")
    accepted = (True, scalar_first, numbers_ok)  # tensor-tensor, number-tensor, tensor-number
    ops = [
        register(f"{name}.{variant}", _promote2(fn), node=node) if ok else None
        for variant, node, ok in zip(("tensor", "scalar_self", "scalar_other"), nodes, accepted)
    ]

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

    return takes_out(
        _named(
            binary, name, f"Elementwise `{name}`, broadcast; integer inputs give the default float."
        )
    )


xlogy = _float_binary("xlogy")
hypot = _float_binary("hypot")
logaddexp = _float_binary("logaddexp")
logaddexp2 = _float_binary("logaddexp2")
copysign = _float_binary("copysign")


_HEAVISIDE = register(
    "heaviside",
    _no_derivative("heaviside", lambda x, v: jnp.where(x == 0, v, (x > 0).astype(x.dtype))),
    node="torch::autograd::NotImplemented",
)


@takes_out
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


@takes_out
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
