"""Elementwise ops: arithmetic with PyTorch's promotion, unary math, comparisons, in-place."""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes
from .._state import modes as _grad_mode
from .._state.tensor import Tensor
from .._tape.args import (
    SCALAR_TYPES,
    check_inplace,
    check_integer_divisor,
    commit_inplace,
    floating,
    operands,
    tensor_arg,
)
from .._tape.record import apply
from .factories import tensor

__all__ = [
    "abs",
    "absolute",
    "add",
    "cos",
    "div",
    "divide",
    "eq",
    "exp",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "le",
    "less",
    "less_equal",
    "log",
    "lt",
    "mul",
    "multiply",
    "ne",
    "neg",
    "negative",
    "not_equal",
    "pow",
    "relu",
    "rsub",
    "sigmoid",
    "sin",
    "sqrt",
    "sub",
    "subtract",
    "tanh",
    "true_divide",
]


def as_operand(x):
    """A Tensor, a Python scalar, or (for arrays) a new Tensor; None if `x` is no operand."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, SCALAR_TYPES) and not hasattr(x, "shape"):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        from .._ops.factories import as_tensor

        return as_tensor(x)
    return None


def _promoted(fn):
    """A binary jnp function computing in the promoted dtype (a static argument)."""

    def promoted(a, b, *, dtype):
        return fn(a.astype(dtype), b.astype(dtype))

    return promoted


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


def _pow_scalar(x, *, exponent, dtype):
    x = x.astype(dtype)
    if float(exponent).is_integer() and builtins.abs(exponent) < 2**31:
        return lax.integer_pow(x, int(exponent))
    return _pow(x, jnp.asarray(exponent, dtype))


_ADD = register("add", _promoted(jnp.add), node="AddBackward0", saves="none")
_SUB = register("sub", _promoted(jnp.subtract), node="SubBackward0", saves="none")


# `add`/`sub` with alpha, when recorded: one node as in PyTorch (see _with_alpha).
def _scaled(fn):
    """`fn(a, alpha * b)` in the promoted dtype, alpha a static argument."""

    def scaled(a, b, *, dtype, alpha):
        return fn(a.astype(dtype), alpha * b.astype(dtype))

    return scaled


_ADD_SCALED = register("add.alpha", _scaled(jnp.add), node="AddBackward0", saves="none")
_SUB_SCALED = register("sub.alpha", _scaled(jnp.subtract), node="SubBackward0", saves="none")
_RSUB_TENSOR = register("rsub", _promoted(lambda a, b: b - a), node="RsubBackward0", saves="none")
_RSUB = register(
    "rsub.scalar",
    _promoted(lambda a, b: b - a),
    node="RsubBackward1",
    shown_inputs=(0,),
    saves="none",
)  # scalar other
_MUL = register("mul", _promoted(jnp.multiply), node="MulBackward0", saves="others")
_DIV = register("div", _promoted(jnp.divide), node="DivBackward0")
_POW_TENSOR = register("pow", _promoted(_pow), node="PowBackward1")
_POW_SCALAR = register("pow.scalar_exponent", _pow_scalar, node="PowBackward0")
_RPOW = register(
    "pow.scalar_base",
    _promoted(lambda exponent, base: _pow(base, exponent)),
    node="PowBackward2",
    shown_inputs=(0,),
)
_COMPARE = {
    name: register(name, _promoted(fn), node=f"{name}Backward", differentiable=False)
    for name, fn in [
        ("lt", jnp.less),
        ("le", jnp.less_equal),
        ("gt", jnp.greater),
        ("ge", jnp.greater_equal),
        ("eq", jnp.equal),
        ("ne", jnp.not_equal),
    ]
}


def _binary(op, a, b, fname: str, dtype=None, **static):
    a_operand, b_operand = as_operand(a), as_operand(b)
    if a_operand is None or b_operand is None:
        bad = b if b_operand is None else a
        raise TypeError(f"{fname}(): unsupported operand type {type(bad).__name__}")
    if dtype is None:
        if isinstance(a_operand, Tensor):
            dtype = _dtypes.binary_result_type(a_operand, b_operand)
        else:
            dtype = _dtypes.result_type(a_operand, b_operand)
    x, y = operands(a_operand, b_operand, dtype)
    return apply(op, x, y, dtype=dtype.jax, **static)


def _recorded(*operands) -> bool:
    return _grad_mode._state.enabled and any(
        isinstance(o, Tensor) and o._requires_grad for o in operands
    )


def _with_alpha(op, scaled_op, input, other, alpha, fname: str):
    """`op(input, alpha * other)`: one scaled node when recorded, as PyTorch's; else a mul
    by the (array) constant alpha first, so a new alpha never compiles."""
    tensor_arg(input, fname)
    if alpha != 1:
        if isinstance(other, Tensor) and _recorded(input, other):
            return _binary(scaled_op, input, other, fname, alpha=alpha)
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return _binary(op, input, other, fname)


def add(input, other, *, alpha=1):
    """`input + alpha * other`, with broadcasting and PyTorch's type promotion."""
    return _with_alpha(_ADD, _ADD_SCALED, input, other, alpha, "add")


def sub(input, other, *, alpha=1):
    """`input - alpha * other`."""
    return _with_alpha(_SUB, _SUB_SCALED, input, other, alpha, "sub")


def rsub(input, other, *, alpha=1):
    """`other - alpha * input`."""
    if alpha != 1:
        input = mul(input, alpha)
    return _binary(_RSUB_TENSOR if isinstance(other, Tensor) else _RSUB, input, other, "rsub")


def mul(input, other):
    """Elementwise product, with broadcasting."""
    tensor_arg(input, "mul")
    return _binary(_MUL, input, other, "mul")


def _rounded_divide(a, b, *, dtype, rounding_mode):
    """PyTorch's rounded division; "floor" on floats is Python's `//` (1.0 // 0.1 == 9.0)."""
    a, b = a.astype(dtype), b.astype(dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        return jnp.floor_divide(a, b) if rounding_mode == "floor" else lax.div(a, b)
    if rounding_mode == "floor":
        return jnp.floor_divide(a, b)
    return jnp.trunc(a / b)


_ROUNDED_DIV = register("div.rounding_mode", _rounded_divide, node="DivBackward2", saves="none")


def _true_divide(a, b):
    dtype = _dtypes.result_type(as_operand(a), as_operand(b))
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _dtypes.get_default_dtype()
    return _binary(_DIV, a, b, "div", dtype)


def div(input, other, *, rounding_mode=None):
    """True division (integers give the default float dtype), or rounded with rounding_mode
    ("trunc" or "floor"; the result keeps the promoted dtype and has zero gradient)."""
    tensor_arg(input, "div")
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
    """`number / tensor`: PyTorch computes reciprocal(tensor) * number (two nodes)."""
    if isinstance(other, Tensor):
        return _true_divide(other, self)
    return mul(self.reciprocal(), other)


true_divide = divide = div
multiply = mul
subtract = sub


def pow(input, exponent):
    """`input ** exponent` for tensor or scalar base and exponent."""
    if not isinstance(input, Tensor):
        return _binary(_RPOW, tensor_arg(exponent, "pow", "exponent", 2), input, "pow")
    if isinstance(exponent, Tensor):
        return _binary(_POW_TENSOR, input, exponent, "pow")
    dtype = _dtypes.result_type(input, exponent)
    if (
        not (dtype.is_floating_point or dtype.is_complex)
        and isinstance(exponent, int)
        and exponent < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return apply(_POW_SCALAR, input, exponent=exponent, dtype=dtype.jax)


@jax.custom_jvp
def _real_abs(x):
    return jnp.abs(x)


@_real_abs.defjvp
def _real_abs_jvp(primals, tangents):
    """PyTorch's abs derivative is sign(x): 0 at 0 (JAX's is 1 there) and at NaN."""
    (x,), (x_dot,) = primals, tangents
    sign = jnp.where(x > 0, 1, jnp.where(x < 0, -1, 0)).astype(x.dtype)
    return jnp.abs(x), sign * x_dot


def _abs(x):
    return jnp.abs(x) if jnp.iscomplexobj(x) else _real_abs(x)


def _unary(name: str, fn, saves: str = "all", promote_to_float: bool = True, bool_error=None):
    op = register(name, fn, node=f"{name.capitalize()}Backward0", saves=saves)

    def unary(input):
        tensor_arg(input, name)
        if bool_error is not None and input.dtype is _dtypes.bool:
            raise bool_error()
        return apply(op, floating(input) if promote_to_float else input)

    unary.__name__ = name
    unary.__doc__ = f"Elementwise `{name}` (jax.numpy's, differentiated by jax.vjp)."
    return unary


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
_HALF = frozenset({jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)})


def opmath(fn):
    """`fn` computed in float32 when an input array is float16/bfloat16, its float32 results
    rounded back once, as PyTorch's half-precision kernels do (their "opmath" type); its vjp
    then also runs in float32."""

    def computed(*arrays, **static):
        half = next((a.dtype for a in arrays if getattr(a, "dtype", None) in _HALF), None)
        if half is None:
            return fn(*arrays, **static)
        up = [a.astype(jnp.float32) if getattr(a, "dtype", None) in _HALF else a for a in arrays]
        out = fn(*up, **static)

        def down(o):
            return o.astype(half) if o.dtype == jnp.float32 else o

        return tuple(down(o) for o in out) if isinstance(out, tuple) else down(out)

    computed.__name__ = getattr(fn, "__name__", "opmath")
    return computed


def _output_derivative(fn, derivative):
    """`fn` for half inputs computed in float32, whose derivative reads the *rounded* output,
    as PyTorch's backward of ops that save their result (tanh, sigmoid, exp, sqrt) does:
    `derivative(y)` in float32 from the half-precision y, times the tangent, rounded once."""

    @jax.custom_jvp
    def half(x):
        return fn(x.astype(jnp.float32)).astype(x.dtype)

    @half.defjvp
    def _jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        y = half(x)
        slope = derivative(y.astype(jnp.float32))
        return y, (slope * x_dot.astype(jnp.float32)).astype(x.dtype)

    def computed(x):
        return half(x) if x.dtype in _HALF else fn(x)

    computed.__name__ = getattr(fn, "__name__", "computed")
    return computed


exp = _unary("exp", _output_derivative(jnp.exp, lambda y: y), saves="output")
log = _unary("log", opmath(jnp.log))
sqrt = _unary("sqrt", _output_derivative(jnp.sqrt, lambda y: 0.5 / y), saves="output")
sin = _unary("sin", opmath(jnp.sin))
cos = _unary("cos", opmath(jnp.cos))
tanh = _unary("tanh", _output_derivative(jnp.tanh, lambda y: 1 - y * y), saves="output")
sigmoid = _unary(
    "sigmoid", _output_derivative(jax.nn.sigmoid, lambda y: y * (1 - y)), saves="output"
)
relu = _unary("relu", jax.nn.relu, promote_to_float=False, saves="output")


def _comparison(name: str):
    op = _COMPARE[name]

    def compare(input, other):
        tensor_arg(input, name)
        return _binary(op, input, other, name)

    compare.__name__ = name
    compare.__doc__ = f"Elementwise `{name}` comparison; a bool tensor, not differentiable."
    return compare


lt, le, gt, ge, eq, ne = (_comparison(n) for n in ("lt", "le", "gt", "ge", "eq", "ne"))
less, less_equal, greater, greater_equal, not_equal = lt, le, gt, ge, ne


def _reflected(fn):
    """A dunder: NotImplemented for operands we do not know, so Python tries the other side."""

    def dunder(self, other):
        if as_operand(other) is None:
            return NotImplemented
        return fn(self, other)

    return dunder


def _inplace(fn):
    """The in-place method of an out-of-place op: compute, then commit into self."""

    def method(self, *args, **kwargs):
        check_inplace(self, args)
        return commit_inplace(self, fn(self, *args, **kwargs))

    method.__name__ = f"{fn.__name__}_"
    method.__doc__ = f"In-place `{fn.__name__}`; returns self."
    return method


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
    if (self._requires_grad and _grad_mode.is_grad_enabled()) or self._fw_grad is not None:
        fill = constant(value, self._value.dtype)
        return commit_inplace(self, apply(_FILL_SCALAR, self, fill))
    self._set_value(jnp.full(self._value.shape, value, self._value.dtype))
    self._bump_version()
    return self


_COPY = register(
    "copy_",
    lambda dst, src: jnp.broadcast_to(src.astype(dst.dtype), dst.shape),
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
    return commit_inplace(self, apply(_COPY, self, src))


def _rpow(self, other):
    """`number ** tensor`."""
    return pow(other, self)
