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
from .._pure import executables, float8
from .._pure import memory as _memory
from .._pure.dtype_rules import REAL_NOT_BOOL, require_kernel
from .._pure.op import INEXACT, lru_get, lru_put
from .._pure.shapes import Size, factory_shape, new_shape, type_name
from .._state.tensor import MetaTensor, Tensor, hold_on_host
from .out_arg import takes_out

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
    "empty_strided",
    "empty_permuted",
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


def _device_array(value) -> jax.Array:
    """`value` as a jax.Array. Host (numpy) data is transferred (`_device.host_to_device`, a
    copy: a later write to the user's array reaches no tensor), not compiled: `jnp.asarray` and
    `jnp.full` compile once per shape (30-80 ms), which every new batch shape would pay. Tracers
    and jax arrays pass through."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _device.host_to_device(np.asarray(value))
    return jnp.asarray(value)


def _check_byte_order(array: np.ndarray | np.generic) -> None:
    """PyTorch's error for numpy data in the other byte order (a big-endian '>f8' array)."""
    if not array.dtype.isnative:
        raise ValueError(_errors.BYTE_ORDER)


def _place(value, device):
    """`value` on `device`: a jax.Array, or its shape and dtype on the meta device."""
    if is_meta_device(device):
        return jax.ShapeDtypeStruct(value.shape, value.dtype)
    if device is not None:
        return _device.commit(value, _device.to_jax(device))
    return value


def is_meta_device(device) -> bool:
    """Whether `device` names the meta device (shapes and dtypes, no data), or is None inside
    a `with torch.device("meta")` block."""
    if device is None:
        return _device.meta_by_default()
    return _device.device(device).type == _device.META


def meta(shape: tuple, dtype: _dtypes.dtype, requires_grad: bool = False) -> Tensor:
    """A tensor on the meta device of this shape and dtype."""
    return _finish(jax.ShapeDtypeStruct(tuple(shape), dtype.jax), requires_grad)


def _finish(value, requires_grad: bool) -> Tensor:
    if isinstance(value, jax.ShapeDtypeStruct):  # on the meta device
        t = MetaTensor._wrap(value)
    else:
        if value.size > _memory.BLOCK_ELEMENTS:  # a big result fails here (see _pure/memory)
            _memory.settle(value)
        t = Tensor._wrap(value)
    if requires_grad:
        inexact = value.dtype in INEXACT or t.dtype.is_floating_point or t.dtype.is_complex
        if not inexact:  # INEXACT first: the common dtypes without a dtype lookup
            raise RuntimeError(_errors.FLOAT_REQUIRES_GRAD)
        t._requires_grad = True
    return t


def _infer_array(data, dtype=None) -> np.ndarray | jax.Array:
    """An array for `data`, cast to `dtype` when given, else with PyTorch's inference for Python
    data (floats become the default dtype, ints int64). Python numbers are cast once, straight
    to `dtype`, so float64 keeps every digit of 1/3."""
    if isinstance(data, Tensor):
        array = data._value
    elif isinstance(data, (np.ndarray, np.generic)):
        _check_byte_order(data)
        array = data
    elif isinstance(data, jax.Array):
        array = data
    else:
        array = _python_array(data)
        if dtype is None:
            return _python_default_dtype(array)
        target = _dtypes.as_dtype(dtype)
        _dtypes.check_array_fits(array, target)
        with np.errstate(over="ignore"):  # a float beyond float32 becomes inf, as in PyTorch
            return float8.convert(array, target.jax)
    return array if dtype is None else float8.convert(array, _dtypes.as_dtype(dtype).jax)


_INT64_MAX = np.iinfo(np.int64).max


def _python_array(data) -> np.ndarray:
    """Python data (numbers, nested lists) as numpy, with PyTorch's errors for what it refuses:
    an int beyond int64, a str, a ragged list."""
    try:
        array = np.asarray(data)
    except ValueError:
        raise ValueError(_ragged_message(data)) from None
    kind = array.dtype.kind
    if kind == "O":
        flat = array.ravel()
        if any(type(v) is int for v in flat):  # beyond int64 either way
            raise ValueError("Overflow when unpacking long long")
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if kind == "u" and array.dtype.itemsize == 8 and array.size and array.max() > _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    if kind in "US":
        leaves = [data]
        while leaves and isinstance(leaves[0], (list, tuple)):
            leaves = [v for seq in leaves for v in seq]
        if array.ndim and all(isinstance(v, str) for v in leaves):
            raise ValueError("too many dimensions 'str'")
        raise TypeError("new(): invalid data type 'str'")
    return array


def _ragged_message(data) -> str:
    """PyTorch's text for nested lists of uneven lengths: the first sequence whose length
    differs from the shape read off the first elements."""
    sizes = []
    probe = data
    while isinstance(probe, (list, tuple)):
        sizes.append(len(probe))
        probe = probe[0] if probe else None

    def walk(seq, dim):
        for item in seq:
            if dim + 1 < len(sizes):
                if not isinstance(item, (list, tuple)):
                    return f"expected sequence of length {sizes[dim + 1]} at dim {dim + 1} (got 1)"
                if len(item) != sizes[dim + 1]:
                    return (
                        f"expected sequence of length {sizes[dim + 1]} at dim {dim + 1} "
                        f"(got {len(item)})"
                    )
                found = walk(item, dim + 1)
                if found:
                    return found
        return None

    return walk(data, 0) or "setting an array element with a sequence"


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
    if device is None and _stays_on_host(array):
        return hold_on_host(_finish(np.array(array, order="C"), requires_grad))
    # No copy is needed for a jax array: it is immutable, and the new Tensor has its own state.
    return _finish(_place(_device_array(array), device), requires_grad)


_HOST_ELEMENTS = 1 << 16  # bigger host data is transferred at once: see _stays_on_host


def _stays_on_host(array) -> bool:
    """Whether a new leaf over `array` may keep it on the host until first used (a
    `HostTensor`): small numpy data of a PyTorch dtype, with JAX's default placement. A big
    array is transferred now: a failed allocation is then the factory's error, and the host
    copy is not held beside the device array."""
    return (
        type(array) is np.ndarray
        and array.size <= _HOST_ELEMENTS
        and _dtypes.has_torch_dtype(array.dtype)
        and jax.config.jax_default_device is None  # type: ignore[attr-defined]
        and not _device.meta_by_default()
    )


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a Tensor; a Tensor already of that dtype and device is returned as is."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    array = _infer_array(data, dtype)
    return _finish(_place(_device_array(array), device), False)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor with the array's dtype. It holds a copy: JAX arrays cannot share numpy memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    _check_byte_order(array)
    _dtypes.from_jax(array.dtype)
    return Tensor._wrap(_device_array(array))


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
        value = _device_array(float8.full(shape, fill, dtype.jax))
        if math.prod(shape) <= _SHARED_FILL_ELEMENTS:
            lru_put(_shared_fills, key, value, _SHARED_FILLS)
    return value


def _filled(shape, fill, dtype, device, requires_grad) -> Tensor:
    if is_meta_device(device):
        return meta(shape, dtype, requires_grad)
    _memory.check_size(shape, dtype.itemsize, device)
    if isinstance(fill, (bool, int, float, complex, np.generic)):
        value = _filled_array(tuple(shape), fill, dtype)
    else:  # a traced fill value (inside jax.jit)
        value = jnp.full(shape, fill, dtype.jax)
    return _finish(_place(value, device), requires_grad)


def _float_dtype(dtype) -> _dtypes.dtype:
    return _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()


@takes_out
def zeros(
    *sizes, size=None, dtype=None, device=None, requires_grad: bool = False, layout=None
) -> Tensor:
    """A tensor of zeros of the given size (default dtype float32)."""
    shape = factory_shape(sizes, size, "zeros")
    return _filled(shape, 0, _float_dtype(dtype), device, requires_grad)


@takes_out
def ones(
    *sizes, size=None, dtype=None, device=None, requires_grad: bool = False, layout=None
) -> Tensor:
    """A tensor of ones of the given size (default dtype float32)."""
    shape = factory_shape(sizes, size, "ones")
    return _filled(shape, 1, _float_dtype(dtype), device, requires_grad)


@takes_out
def empty(
    *sizes,
    size=None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    layout=None,
    memory_format=None,
    pin_memory: bool = False,
) -> Tensor:
    """An 'uninitialized' tensor: JAX has no such thing, so it holds zeros."""
    shape = factory_shape(sizes, size, "empty")
    return _filled(shape, 0, _float_dtype(dtype), device, requires_grad)


@takes_out
def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with `fill_value`; the dtype follows the value as in PyTorch."""
    return _full("full", size, fill_value, dtype, device, requires_grad)


def _full(fn: str, size, fill_value, dtype, device, requires_grad) -> Tensor:
    shape = new_shape((size,), fn, sequence=True)
    if isinstance(fill_value, Tensor):  # a 0-d one is a number (its value, never a graph)
        if fill_value.ndim:
            raise TypeError(f"{fn}(): argument 'fill_value' must be Number, not Tensor")
        fill_value = fill_value.item()
    elif not isinstance(fill_value, (int, float, complex, np.generic, jax.Array)):
        raise TypeError(
            f"{fn}(): argument 'fill_value' (position 2) must be Number, not "
            f"{type_name(fill_value)}"
        )
    dtype = _dtypes.scalar_dtype(fill_value) if dtype is None else _dtypes.as_dtype(dtype)
    fill_value = _dtypes.fit_scalar(fill_value, dtype)
    return _filled(shape, fill_value, dtype, device, requires_grad)


def _like(input: Tensor, dtype, device):
    """The shape, dtype and device of a `*_like` result: the input's unless given."""
    if device is None and isinstance(input, MetaTensor):
        device = _device.META
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    return tuple(input.shape), dtype, device


def zeros_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled(shape, 0, dtype, device, requires_grad)


def ones_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled(shape, 1, dtype, device, requires_grad)


def empty_like(
    input, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(
    input, fill_value, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled(shape, _dtypes.fit_scalar(fill_value, dtype), dtype, device, requires_grad)


@takes_out
def arange(
    start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """Values from `start` to `end` (exclusive) by `step`; int64 unless a bound is a float."""
    named = (("end", start),) if end is None else (("start", start), ("end", end), ("step", step))
    for position, (name, value) in enumerate(named, 1):
        if not isinstance(value, (int, float, np.number, Tensor)):
            raise TypeError(
                f"arange(): argument '{name}' (position {position}) must be Number, not "
                f"{type_name(value)}"
            )
    if end is None:
        start, end = 0, start
    bounds = [b.item() if isinstance(b, Tensor) else b for b in (start, end, step)]
    if dtype is None:
        is_float = any(isinstance(b, float) for b in bounds)
        dtype = _dtypes.get_default_dtype() if is_float else _dtypes.int64
    dtype = _dtypes.as_dtype(dtype)
    require_kernel("arange_cpu", dtype.jax, REAL_NOT_BOOL)
    _check_range(bounds[0], bounds[1], bounds[2], dtype)
    if not (dtype.is_floating_point or dtype.is_complex):  # the bounds are cast first
        bounds = [int(b) for b in bounds]
    start, end, step = bounds
    count = max(0, int(np.ceil((end - start) / step)))
    if dtype.is_floating_point or dtype.is_complex:
        value = (start + np.arange(count, dtype=np.float64) * step).astype(dtype.jax)
    else:
        value = np.arange(start, start + count * step, step, dtype=dtype.jax)[:count]
    return _finish(_place(_device_array(value), device), requires_grad)


def _scalar_text(value) -> str:
    """A number as PyTorch's C++ prints it in an error (`0`, `0.5`, `inf`)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _check_range(start, end, step, dtype: _dtypes.dtype) -> None:
    """PyTorch's arange checks: a nonzero step, finite bounds, a step going towards `end`."""
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(step, float):
        if int(step) == 0 and step == step:  # cast to the integer dtype first, as PyTorch
            raise ValueError("step must be nonzero")
    if not (step > 0 or step < 0):  # zero or NaN
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_scalar_text(start)} -> {_scalar_text(end)}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _steps(steps) -> int:
    """linspace/logspace's `steps`: an int, not negative."""
    if type(steps) is not int and (isinstance(steps, bool) or not hasattr(steps, "__index__")):
        raise TypeError(
            f"linspace() received an invalid combination of arguments - got a "
            f"{type_name(steps)} for 'steps', but expected one of:\n"
            " * (Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype"
            " = None, torch.layout layout = None, torch.device device = None, bool pin_memory"
            " = False, bool requires_grad = False)\n"
        )
    steps = steps.__index__()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return steps


# jnp.linspace is a jitted function of JAX's: called eagerly, it would keep a program per
# length outside the library's bound (`executables`). The same program, compiled here.
_linspace = executables.jit(jnp.linspace, static_argnums=(2,), static_argnames=("dtype",))


def _range_bound(bound, name: str):
    """A start or end of `linspace`: a number, or a 0-d tensor's value (PyTorch's error for
    a tensor of more dimensions)."""
    if not isinstance(bound, Tensor):
        return bound
    if bound.ndim:
        raise RuntimeError(
            "linspace only supports 0-dimensional start and end tensors, but got "
            f"{name} with {bound.ndim} dimension(s)."
        )
    return bound.item()


@takes_out
def linspace(
    start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` inclusive."""
    steps = _steps(steps)
    dtype = _float_dtype(dtype)
    start, end = _range_bound(start, "start"), _range_bound(end, "end")
    for bound in (start, end):
        _dtypes.check_scalar_fits(bound, dtype)
    value = _linspace(start, end, int(steps), dtype=dtype.jax)
    return _finish(_place(value, device), requires_grad)


@takes_out
def eye(
    n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The identity matrix (n x m)."""
    if type(n) is not int and (isinstance(n, bool) or not hasattr(n, "__index__")):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {type_name(n)}")
    if m is not None and type(m) is not int and not hasattr(m, "__index__"):
        raise TypeError(
            f"eye() received an invalid combination of arguments - got (int, {type_name(m)}), "
            "but expected one of:\n * (int n, *, Tensor out = None, ...)\n"
            " * (int n, int m, *, Tensor out = None, ...)\n"
        )
    n = n.__index__()
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None:
        m = m.__index__()
        if m < 0:
            raise RuntimeError(f"m must be greater or equal to 0, got {m}")
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


@takes_out
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
    steps = _steps(steps)
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


def _new_device(self: Tensor, device):
    """The device of a `new_*` result: `device`, or the meta device for a meta `self`."""
    if device is None and isinstance(self, MetaTensor):
        return _device.META
    return device


def _new_filled(fname: str, fill: int, doc: str):
    """`Tensor.new_zeros`/`new_ones`/`new_empty`: `fill` everywhere, self's dtype and device
    unless given."""

    def method(
        self,
        *sizes,
        size=None,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
    ):
        shape, dtype = factory_shape(sizes, size, fname), _new_dtype(self, dtype)
        return _filled(shape, fill, dtype, _new_device(self, device), requires_grad)

    method.__name__ = method.__qualname__ = fname
    method.__doc__ = doc
    return method


new_zeros = _new_filled("new_zeros", 0, "Zeros of `size`, with self's dtype unless given.")
new_ones = _new_filled("new_ones", 1, "Ones of `size`, with self's dtype unless given.")
new_empty = _new_filled(
    "new_empty", 0, "An 'uninitialized' tensor of `size` (zeros), with self's dtype unless given."
)


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
    dtype, device = _new_dtype(self, dtype), _new_device(self, device)
    return _full("new_full", size, fill_value, dtype, device, requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor copying `data`, with self's dtype unless `dtype` is given."""
    if isinstance(data, Tensor):
        data = data.detach()
    dtype, device = _new_dtype(self, dtype), _new_device(self, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def new(self: Tensor, *args, device=None) -> Tensor:
    """`Tensor.new(...)`, the legacy constructor with self's dtype: sizes give zeros (PyTorch:
    uninitialized), data a copy, and a tensor of self's dtype a tensor sharing its memory."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not self.dtype:
            raise TypeError(
                f"new(): expected a tensor of dtype {self.dtype} (self's), got {other.dtype}; "
                "use other.to(self.dtype) or self.new_tensor(other)"
            )
        return other._alias(share_version=False)
    out = legacy_new(self.dtype, args)
    return out if device is None else out.to(device)


def new_empty_strided(
    self,
    size,
    stride,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """An 'uninitialized' tensor (zeros) of `size`, with self's dtype unless `dtype` is given.
    XLA chooses physical layouts itself: the result is contiguous whatever `stride` says."""
    dtype, device = _new_dtype(self, dtype), _new_device(self, device)
    return _strided_zeros("new_empty_strided", size, stride, dtype, device, requires_grad)


def empty_strided(
    size,
    stride,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """An 'uninitialized' tensor (zeros) of `size`; contiguous whatever `stride` says (XLA
    chooses physical layouts itself)."""
    return _strided_zeros("empty_strided", size, stride, _float_dtype(dtype), device, requires_grad)


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """An 'uninitialized' tensor (zeros) of `size` whose dimensions lie in memory in the order
    `physical_layout` (outermost first), as PyTorch's strides say: a dense tensor of the
    permuted size, viewed back in `size`'s order.

    Example::

        >>> torch.empty_permuted((2, 3, 5), (0, 2, 1)).stride()
        (15, 1, 3)
    """
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = [False] * len(order)
    for index, d in enumerate(order):
        if not 0 <= d < len(order):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(order) - 1}, but "
                f"got {d} at index {index}).  NB: negative dims not currently supported; file "
                "an issue if you want it."
            )
        if seen[d]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[d] = True
    # empty's checks (the dtype's, for requires_grad), then a leaf view in `size`'s order
    physical = empty(
        [size[d] for d in order], dtype=dtype, device=device, requires_grad=requires_grad
    )
    inverse = [order.index(d) for d in range(len(order))]
    return physical.permute(inverse).detach().requires_grad_(requires_grad)


def _strided_zeros(fname: str, size, stride, dtype: _dtypes.dtype, device, requires_grad):
    size = new_shape((size,), fname)
    if len(tuple(stride)) != len(size):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(tuple(stride))})"
        )
    return _filled(size, 0, dtype, device, requires_grad)
