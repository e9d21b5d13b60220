"""Creation from host data, with PyTorch's dtype inference (float32 for floats, int64 for
ints): tensor/as_tensor/from_numpy/from_jax, zeros/ones/empty/full and their *_like and new_*
forms, arange/linspace/logspace/eye, tril_indices/triu_indices, and the legacy
FloatTensor-style constructors. Sampling ops live in random.py.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.op import lru_get, lru_put
from .._pure.shapes import Size, shape_args
from .._state.tensor import Tensor

__all__ = [
    "BoolTensor",
    "ByteTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "arange",
    "as_tensor",
    "empty",
    "empty_like",
    "eye",
    "from_jax",
    "from_numpy",
    "full",
    "full_like",
    "linspace",
    "logspace",
    "ones",
    "ones_like",
    "tensor",
    "tril_indices",
    "triu_indices",
    "zeros",
    "zeros_like",
]


def _device_array(value, copy: bool = False) -> jax.Array:
    """`value` as a jax.Array. Host (numpy) data is transferred (`_device.host_to_device`),
    not compiled: `jnp.asarray` and `jnp.full` compile once per shape (30-80 ms), which every
    new batch shape would pay. On CPU the transfer may alias the numpy buffer, so the user's
    arrays are copied first (`copy`): a later write to them must not reach the tensor. Tracers
    and jax arrays pass through."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _device.host_to_device(np.array(value, copy=True) if copy else np.asarray(value))
    return jnp.asarray(value)


def _place(value, device) -> jax.Array:
    if device is not None:
        return jax.device_put(value, _device.to_jax(device))
    return value


def _finish(value, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(value)
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError(_errors.FLOAT_REQUIRES_GRAD)
        t._requires_grad = True
    return t


def _infer_array(data, dtype=None) -> np.ndarray | jax.Array:
    """An array for `data`, cast to `dtype` when given, else with PyTorch's inference for Python
    data (floats become the default dtype, ints int64). Python numbers are cast once, straight
    to `dtype`, so float64 keeps every digit of 1/3."""
    if isinstance(data, Tensor):
        array = data._value
    elif isinstance(data, (jax.Array, np.ndarray, np.generic)):
        array = data
    else:
        array = np.asarray(data)
        if array.dtype == object:
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
        if dtype is None:
            return _python_default_dtype(array)
    return array if dtype is None else array.astype(_dtypes.as_dtype(dtype).jax)


def _python_default_dtype(array: np.ndarray) -> np.ndarray:
    """PyTorch's dtype for data given as Python numbers (numpy infers float64 and int64)."""
    if array.dtype == np.float64:
        return array.astype(_dtypes.get_default_dtype().jax)
    if array.dtype == np.complex128:
        return array.astype(_dtypes.get_default_dtype().to_complex().jax)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    return array


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new leaf tensor holding a copy of `data` (a number, nested lists, arrays, a Tensor).

    Example::

        >>> torch.tensor([[1, 2], [3, 4]]).dtype
        torch.int64
        >>> torch.tensor([0.5, 1.0])
        tensor([0.5000, 1.0000])
    """
    array = _infer_array(data, dtype)
    # No copy is needed for a jax array: it is immutable, and the new Tensor has its own state.
    return _finish(_place(_device_array(array, copy=True), device), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a Tensor; a Tensor already of that dtype and device is returned as is."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    array = _infer_array(data, dtype)
    return Tensor._wrap(_place(_device_array(array, copy=True), device))


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor with the array's dtype. It holds a copy: JAX arrays cannot share numpy memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtypes.from_jax(array.dtype)
    return Tensor._wrap(_device_array(array, copy=True))


def from_jax(array, requires_grad: bool = False) -> Tensor:
    """Wrap a jax.Array (or tracer) as a leaf Tensor, without copying."""
    return _finish(jnp.asarray(array), requires_grad)


# Small filled arrays are made once and shared: JAX arrays are immutable and an in-place op
# rebinds a tensor's value, never changes an array, so `torch.ones(2, 2)` in a loop need not
# pay a host-to-device copy (~40 us) per call. Bounded: at most this many arrays of at most
# this many elements each.
_SHARED_FILLS = 256
_SHARED_FILL_ELEMENTS = 4096
_shared_fills: OrderedDict = OrderedDict()  # an LRU


def _filled_array(shape: tuple, fill, dtype: _dtypes.dtype) -> jax.Array:
    key = (shape, fill, type(fill), dtype)
    value = lru_get(_shared_fills, key)
    if value is None:
        value = _device_array(np.full(shape, fill, dtype.jax))
        if math.prod(shape) <= _SHARED_FILL_ELEMENTS:
            lru_put(_shared_fills, key, value, _SHARED_FILLS)
    return value


def _filled(shape, fill, dtype, device, requires_grad) -> Tensor:
    if isinstance(fill, (bool, int, float, complex, np.generic)):
        value = _filled_array(tuple(shape), fill, dtype)
    else:  # a traced fill value (inside jax.jit)
        value = jnp.full(shape, fill, dtype.jax)
    return _finish(_place(value, device), requires_grad)


def _float_dtype(dtype) -> _dtypes.dtype:
    return _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()


def zeros(
    *size, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None
) -> Tensor:
    """A tensor of zeros of the given size (default dtype float32)."""
    return _filled(shape_args(size), 0, _float_dtype(dtype), device, requires_grad)


def ones(
    *size, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None
) -> Tensor:
    """A tensor of ones of the given size (default dtype float32)."""
    return _filled(shape_args(size), 1, _float_dtype(dtype), device, requires_grad)


def empty(
    *size,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    out=None,
    layout=None,
    memory_format=None,
    pin_memory: bool = False,
) -> Tensor:
    """An 'uninitialized' tensor: JAX has no such thing, so it holds zeros."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with `fill_value`; the dtype follows the value as in PyTorch."""
    if dtype is None:
        if isinstance(fill_value, Tensor):
            fill_value = fill_value.item()
        dtype = _dtypes.scalar_dtype(fill_value)
    return _filled(shape_args((size,)), fill_value, _dtypes.as_dtype(dtype), device, requires_grad)


def _like(input: Tensor, dtype):
    return tuple(input.shape), _dtypes.as_dtype(dtype) if dtype is not None else input.dtype


def zeros_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, 0, dtype, device, requires_grad)


def ones_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, 1, dtype, device, requires_grad)


def empty_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(
    input, fill_value, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, fill_value, dtype, device, requires_grad)


def arange(
    start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """Values from `start` to `end` (exclusive) by `step`; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    bounds = [b.item() if isinstance(b, Tensor) else b for b in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        is_float = any(isinstance(b, float) for b in bounds)
        dtype = _dtypes.get_default_dtype() if is_float else _dtypes.int64
    dtype = _dtypes.as_dtype(dtype)
    start, end, step = bounds
    count = max(0, int(np.ceil((end - start) / step)))
    value = (start + np.arange(count, dtype=np.float64) * step).astype(dtype.jax)
    if not (dtype.is_floating_point or dtype.is_complex):
        value = np.arange(int(start), int(start) + count * int(step), int(step), dtype=dtype.jax)[
            :count
        ]
    return _finish(_place(_device_array(value), device), requires_grad)


def linspace(
    start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` inclusive."""
    dtype = _float_dtype(dtype)
    value = jnp.linspace(start, end, int(steps), dtype=dtype.jax)
    return _finish(_place(value, device), requires_grad)


def eye(
    n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The identity matrix (n x m)."""
    value = jnp.eye(n, m, dtype=_float_dtype(dtype).jax)
    return _finish(_place(value, device), requires_grad)


def legacy_new(dtype: _dtypes.dtype, args: tuple) -> Tensor:
    """The legacy constructors: `FloatTensor(data)` or `FloatTensor(*sizes)`."""
    if not args:
        return zeros(0, dtype=dtype)
    if isinstance(args[0], Size) or all(isinstance(a, int) for a in args):
        return zeros(*args, dtype=dtype)
    if len(args) != 1:
        raise TypeError(f"new() received an invalid combination of arguments: {args!r}")
    return tensor(args[0], dtype=dtype)


def legacy_init(self: Tensor, *args) -> None:
    """`Tensor(data)` or `Tensor(*sizes)`: the legacy constructor, always the default dtype."""
    self._init_fields(legacy_new(_dtypes.get_default_dtype(), args)._value)


class _LegacyTensorType(type):
    """`isinstance(t, FloatTensor)` is true for tensors of that dtype, as in PyTorch."""

    dtype: _dtypes.dtype  # each class's own, set by _legacy_type

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args) -> Tensor:
        return legacy_new(cls.dtype, args)


def _legacy_type(name: str, d: _dtypes.dtype):
    return _LegacyTensorType(name, (), {"dtype": d, "__doc__": f"Legacy constructor for {d}."})


FloatTensor = _legacy_type("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", _dtypes.float16)
LongTensor = _legacy_type("LongTensor", _dtypes.int64)
IntTensor = _legacy_type("IntTensor", _dtypes.int32)
ByteTensor = _legacy_type("ByteTensor", _dtypes.uint8)
BoolTensor = _legacy_type("BoolTensor", _dtypes.bool)


def logspace(
    start,
    end,
    steps: int,
    base: float = 10.0,
    *,
    dtype=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` values from base**start to base**end, evenly spaced in the exponent."""
    dtype = _float_dtype(dtype)
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    exponents = np.linspace(float(start), float(end), steps, dtype=np.float64)
    values = np.power(float(base), exponents)
    if not (dtype.is_floating_point or dtype.is_complex):
        values = np.round(values)
    value = _device_array(values.astype(dtype.jax))
    return _finish(_place(value, device), requires_grad)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, device, upper: bool):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.int64
    if upper:
        rows, cols = np.triu_indices(row, int(offset), col)
    else:
        rows, cols = np.tril_indices(row, int(offset), col)
    value = np.stack([rows, cols]).astype(dtype.jax)
    return _finish(_place(_device_array(value), device), False)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The (2, N) row/column indices of the lower triangle of a row x col matrix."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, upper=False)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The (2, N) row/column indices of the upper triangle of a row x col matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, upper=True)


# ----------------------------------------------------------------------------- new_* factories
def _new_dtype(self: Tensor, dtype) -> _dtypes.dtype:
    return self.dtype if dtype is None else _dtypes.as_dtype(dtype)


def new_zeros(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """Zeros of `size`, with self's dtype unless `dtype` is given."""
    return zeros(*size, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


def new_ones(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """Ones of `size`, with self's dtype unless `dtype` is given."""
    return ones(*size, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


def new_empty(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """An 'uninitialized' tensor of `size` (zeros), with self's dtype unless `dtype` is given."""
    return new_zeros(self, *size, dtype=dtype, requires_grad=requires_grad)


def new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`fill_value` everywhere, with self's dtype unless `dtype` is given."""
    return full(size, fill_value, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor copying `data`, with self's dtype unless `dtype` is given."""
    if isinstance(data, Tensor):
        data = data.detach()
    return tensor(data, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)
