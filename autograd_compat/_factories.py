"""Tensor factories with PyTorch's dtype inference: float32 for floats, int64 for ints."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import _device, _dtypes, _errors, _random
from ._shapes import Size, shape_args
from ._tensor import Tensor


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


def _infer_array(data) -> np.ndarray | jax.Array:
    """An array for `data` with PyTorch's inference: Python floats become the default dtype."""
    if isinstance(data, Tensor):
        return data._value
    if isinstance(data, (jax.Array, np.ndarray, np.generic)):
        return data
    array = np.asarray(data)
    if array.dtype == np.float64:
        return array.astype(_dtypes.get_default_dtype().jax)
    if array.dtype == np.complex128:
        return array.astype(_dtypes.get_default_dtype().to_complex().jax)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
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
    array = _infer_array(data)
    if dtype is not None:
        array = array.astype(_dtypes.as_dtype(dtype).jax)
    return _finish(_place(jnp.array(array, copy=True), device), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a Tensor; a Tensor already of that dtype and device is returned as is."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    array = _infer_array(data)
    if dtype is not None:
        array = array.astype(_dtypes.as_dtype(dtype).jax)
    return Tensor._wrap(_place(jnp.asarray(array), device))


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor with the array's dtype. It holds a copy: JAX arrays cannot share numpy memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtypes.from_jax(array.dtype)
    return Tensor._wrap(jnp.asarray(array))


def from_jax(array, requires_grad: bool = False) -> Tensor:
    """Wrap a jax.Array (or tracer) as a leaf Tensor, without copying."""
    return _finish(jnp.asarray(array), requires_grad)


def _filled(shape, fill, dtype, device, requires_grad) -> Tensor:
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
    return _finish(_place(jnp.asarray(value), device), requires_grad)


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


_uniform = jax.jit(jax.random.uniform, static_argnums=(1, 2))
_normal = jax.jit(jax.random.normal, static_argnums=(1, 2))


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform samples in [0, 1) from the global (or given) generator."""
    value = _uniform(_random.key(generator), shape_args(size), _float_dtype(dtype).jax)
    return _finish(_place(value, device), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples from the global (or given) generator."""
    value = _normal(_random.key(generator), shape_args(size), _float_dtype(dtype).jax)
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


class _LegacyTensorType(type):
    """`isinstance(t, FloatTensor)` is true for tensors of that dtype, as in PyTorch."""

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
