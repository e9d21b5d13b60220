"""PyTorch dtypes over JAX dtypes, and PyTorch's type-promotion rules.

Importing autograd_compat turns on JAX's x64 mode (`jax_enable_x64`), because PyTorch's
float64 and int64 must be real 64-bit types. Every array this library creates gets an explicit
dtype, so the default stays float32 for floats and int64 for Python ints, as in PyTorch.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


class dtype:
    """A PyTorch dtype (`torch.float32`, ...) naming one JAX/numpy dtype."""

    __slots__ = ("name", "jax", "is_floating_point", "is_complex", "is_signed", "itemsize")

    def __init__(self, name: str, jax_dtype) -> None:
        self.name = name
        self.jax = np.dtype(jax_dtype)
        self.is_floating_point = builtins.bool(jnp.issubdtype(self.jax, jnp.floating))
        self.is_complex = builtins.bool(jnp.issubdtype(self.jax, jnp.complexfloating))
        self.is_signed = self.jax.kind in "ifc" or (
            self.is_floating_point and builtins.bool(jnp.finfo(self.jax).min < 0)
        )
        self.itemsize = self.jax.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_from_name, (self.name,))

    def to_complex(self) -> dtype:
        return {float64: complex128}.get(self, complex64)

    def to_real(self) -> dtype:
        return {complex128: float64, complex64: float32}.get(self, self)


float16 = half = dtype("float16", jnp.float16)
bfloat16 = dtype("bfloat16", jnp.bfloat16)
float32 = float = dtype("float32", jnp.float32)
float64 = double = dtype("float64", jnp.float64)
complex64 = cfloat = dtype("complex64", jnp.complex64)
complex128 = cdouble = dtype("complex128", jnp.complex128)
uint8 = dtype("uint8", jnp.uint8)
int8 = dtype("int8", jnp.int8)
int16 = short = dtype("int16", jnp.int16)
int32 = int = dtype("int32", jnp.int32)
int64 = long = dtype("int64", jnp.int64)
bool = dtype("bool", jnp.bool_)
# Storage-only dtypes: PyTorch converts to and from them but promotes them with nothing else.
uint16 = dtype("uint16", jnp.uint16)
uint32 = dtype("uint32", jnp.uint32)
uint64 = dtype("uint64", jnp.uint64)
float8_e4m3fn = dtype("float8_e4m3fn", jnp.float8_e4m3fn)
float8_e5m2 = dtype("float8_e5m2", jnp.float8_e5m2)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", jnp.float8_e4m3fnuz)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", jnp.float8_e5m2fnuz)
float8_e8m0fnu = dtype("float8_e8m0fnu", jnp.float8_e8m0fnu)
_WIDE_UNSIGNED = (uint16, uint32, uint64)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
STORAGE_ONLY = (*_WIDE_UNSIGNED, *FLOAT8)  # no typed storage class in PyTorch either

ALL = (
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
    uint8,
    int8,
    int16,
    int32,
    int64,
    bool,
    *STORAGE_ONLY,
)
_BY_JAX = {d.jax: d for d in ALL}
LEGACY_TYPE_NAMES = {
    float16: "HalfTensor",
    bfloat16: "BFloat16Tensor",
    float32: "FloatTensor",
    float64: "DoubleTensor",
    complex64: "ComplexFloatTensor",
    complex128: "ComplexDoubleTensor",
    uint8: "ByteTensor",
    int8: "CharTensor",
    int16: "ShortTensor",
    int32: "IntTensor",
    int64: "LongTensor",
    bool: "BoolTensor",
    uint16: "UInt16Tensor",
    uint32: "UInt32Tensor",
    uint64: "UInt64Tensor",
    **{d: f"F{d.name[1:]}Tensor" for d in FLOAT8},
}
# c10's ScalarType names, which PyTorch's promotion errors print
_SCALAR_TYPE_NAMES = {
    **{d: n.removesuffix("Tensor") for d, n in LEGACY_TYPE_NAMES.items()},
    float16: "Half",
    float32: "Float",
    float64: "Double",
    complex64: "ComplexFloat",
    complex128: "ComplexDouble",
}


def scalar_type_name(d: dtype) -> str:
    """PyTorch's ScalarType name of a dtype ("Float", "Long"), which many errors print."""
    return _SCALAR_TYPE_NAMES[d]


_UNPROMOTABLE = {
    **{d: "uint16, uint32, uint64 types" for d in _WIDE_UNSIGNED},
    **{d: "Float8 Types" for d in FLOAT8},
}
_BY_NAME = {d.name: d for d in ALL}


def _from_name(name: str) -> dtype:
    return _BY_NAME[name]


class _DefaultDtype:
    """The default floating dtype (`torch.set_default_dtype`); float32 unless changed."""

    value = float32


def get_default_dtype() -> dtype:
    """Return the dtype that Python floats and float factories get (float32 by default)."""
    return _DefaultDtype.value


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; PyTorch allows float16, bfloat16, float32 and float64."""
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _DefaultDtype.value = d


def from_jax(jax_dtype) -> dtype:
    """The PyTorch dtype for a JAX/numpy dtype; TypeError for one PyTorch does not have."""
    found = _BY_JAX.get(jax_dtype)  # a numpy dtype object (what arrays carry): no conversion
    if found is not None:
        return found
    try:
        return _BY_JAX[np.dtype(jax_dtype)]
    except KeyError:
        raise TypeError(f"dtype {jax_dtype} has no PyTorch equivalent") from None


def has_torch_dtype(numpy_dtype: np.dtype) -> builtins.bool:
    """Whether a numpy dtype is one of PyTorch's (from_jax would not raise)."""
    return numpy_dtype in _BY_JAX


def as_dtype(d) -> dtype:
    """Accept a PyTorch dtype, a numpy/JAX dtype, or Python's float/int/bool/complex."""
    if isinstance(d, dtype):
        return d
    python_types = {
        builtins.float: float64,
        builtins.int: int64,
        builtins.bool: bool,
        builtins.complex: complex128,
    }
    if d in python_types:
        return python_types[d]
    try:
        return from_jax(d)
    except TypeError:
        raise TypeError(f"expected a torch.dtype, got {d!r}") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's promote_types for two dtypes (float16 with bfloat16 gives float32, as in both)."""
    if a is b:
        return a
    if a in _UNPROMOTABLE or b in _UNPROMOTABLE:
        kind = _UNPROMOTABLE.get(a) or _UNPROMOTABLE[b]
        raise RuntimeError(
            f"Promotion for {kind} is not supported, attempted to promote "
            f"{_SCALAR_TYPE_NAMES[a]} and {_SCALAR_TYPE_NAMES[b]}"
        )
    return from_jax(jnp.promote_types(a.jax, b.jax))


def scalar_dtype(value) -> dtype:
    """The dtype a Python number takes when it meets a tensor (a 'wrapped number')."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.complex):
        return get_default_dtype().to_complex()
    return get_default_dtype()


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """c10's combine_categories: the higher tier wins unless the lower is of a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


_FLOATING = frozenset(d.jax for d in ALL if d.is_floating_point or d.is_complex)
_INTEGRAL = frozenset(d.jax for d in (uint8, int8, int16, int32, int64))


def binary_result_type(a, b) -> dtype:
    """`result_type(a, b)` with a fast path for the common cases (same dtypes, a tensor with a
    Python number of the same or a lower category); `a` is a Tensor."""
    a_jax = a._stored.dtype
    b_type = type(b)
    if a._wrapped_number:  # promotes as a Python number (torch.compile's arguments)
        fast = False
    elif b_type is builtins.float:  # `float`/`int` here name torch.float32/torch.int32
        fast = a_jax in _FLOATING
    elif b_type is builtins.int:
        fast = a_jax in _FLOATING or a_jax in _INTEGRAL
    else:
        fast = hasattr(b, "_stored") and b._stored.dtype == a_jax
    return _BY_JAX[a_jax] if fast else result_type(a, b)


def result_type(*operands) -> dtype:
    """PyTorch's result dtype for an op over tensors and Python scalars.

    Three tiers, as in PyTorch: tensors with dimensions, zero-dimensional tensors, then Python
    numbers. A lower tier only changes the result when its category (bool < int < float <
    complex) is higher, so `int32_tensor * 2` stays int32 and `int_tensor * 2.5` is float32.
    """
    tiers: list[dtype | None] = [None, None, None]
    for operand in operands:
        if hasattr(operand, "_stored"):  # a Tensor (read without computing a deferred value)
            d = operand.dtype
            if operand._wrapped_number:  # a Python number in a 0-d tensor (torch.compile)
                d = scalar_dtype(0.0 if d.is_floating_point else 0)
                tier = 2
            else:
                tier = 0 if operand.ndim else 1
        else:
            d = scalar_dtype(operand)
            tier = 2
        current = tiers[tier]
        tiers[tier] = d if current is None else promote_types(current, d)
    result = _combine(tiers[0], _combine(tiers[1], tiers[2]))
    assert result is not None, "result_type() needs at least one operand"
    return result


class finfo:
    """Machine limits of a floating dtype (`torch.finfo`)."""

    def __init__(self, type: dtype | None = None) -> None:
        info = jnp.finfo((type or get_default_dtype()).jax)
        self.bits = builtins.int(info.bits)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.tiny)
        self.resolution = builtins.float(info.resolution)
        self.dtype = str(info.dtype)


class iinfo:
    """Limits of an integer dtype (`torch.iinfo`)."""

    def __init__(self, type: dtype) -> None:
        info = jnp.iinfo(type.jax)
        self.bits = info.bits
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)
        self.dtype = str(info.dtype)


# ----------------------------------------------------------------------------- overflow checks
# c10::overflows: the range a Python number must fall in to become an element of an integral
# dtype (an unsigned type also takes negatives down to -max, which wrap), and the C++ names
# PyTorch's fill_/full print. tensor(data, dtype=...) prints the dtype's own name instead.
_RANGES = {
    d: (-np.iinfo(d.jax).max if d is uint8 else np.iinfo(d.jax).min, np.iinfo(d.jax).max)
    for d in (uint8, int8, int16, int32, int64)
}
_FINITE_MAX = {float32: builtins.float(np.finfo(np.float32).max), complex64: 3.4028234663852886e38}
# c10::overflows for the float8 dtypes: a number outside [lowest, max], or an infinity where the
# dtype has none (all but float8_e5m2), cannot fill one.
_FLOAT8_RANGES = {
    d: (builtins.float(jnp.finfo(d.jax).min), builtins.float(jnp.finfo(d.jax).max)) for d in FLOAT8
}
CPP_NAMES = {
    uint8: "uint8_t",
    int8: "int8_t",
    int16: "int16_t",
    int32: "int",
    int64: "int64_t",
    float32: "float",
    complex64: "c10::complex<float>",
    **{d: f"c10::F{d.name[1:]}" for d in FLOAT8},
}


def _overflow(d: dtype, cpp: builtins.bool) -> RuntimeError:
    name = CPP_NAMES[d] if cpp else d.name
    return RuntimeError(f"value cannot be converted to type {name} without overflow")


def check_scalar_fits(value, d: dtype) -> None:
    """PyTorch's RuntimeError when a Python number cannot be converted to `d` (fill_, full):
    an integer out of range, or NaN/inf for an integral dtype; a finite float beyond float32's
    range for float32/complex64 (float16/bfloat16 and float64 take anything: inf)."""
    bounds = _RANGES.get(d)
    kind = type(value)
    if bounds is not None:
        if kind is builtins.int or kind is builtins.float:
            if not bounds[0] <= value <= bounds[1]:  # NaN fails both comparisons
                raise _overflow(d, True)
    elif d in _FINITE_MAX and kind is builtins.float:
        if abs(value) > _FINITE_MAX[d] and value != np.inf and value != -np.inf:
            raise _overflow(d, True)
    elif d in _FLOAT8_RANGES and kind in (builtins.int, builtins.float):
        lowest, highest = _FLOAT8_RANGES[d]
        infinite = d is float8_e5m2 and abs(value) == np.inf
        if (value < lowest or value > highest) and not infinite:
            raise _overflow(d, True)


def fit_scalar(value, d: dtype):
    """`value` for a fill of dtype `d`: PyTorch's overflow error (`check_scalar_fits`), and a
    negative int for an unsigned dtype wrapped as PyTorch does (-1 -> 255 for uint8)."""
    check_scalar_fits(value, d)
    if d is uint8 and type(value) is builtins.int and value < 0:
        return value + 256
    return value


def check_array_fits(array: np.ndarray, d: dtype) -> None:
    """`tensor(data, dtype=d)` for Python data (as numpy): PyTorch's RuntimeError when an
    element does not fit an integral `d` (out of range, NaN or inf)."""
    bounds = _RANGES.get(d)
    if bounds is None or array.size == 0 or array.dtype.kind not in "iuf":
        return
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise _overflow(d, False)
    if array.min() < bounds[0] or array.max() > bounds[1]:
        raise _overflow(d, False)
