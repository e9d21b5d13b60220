"""Shape and movement ops: reshape/view, transpose, indexing, unbind, clone and casts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device, _dtypes, _errors
from .._shapes import infer_shape, normalize_dim, shape_args
from .._tensor import Tensor
from . import apply, register
from ._args import tensor_arg

_VIEW = register("ViewBackward0", lambda x, *, shape: jnp.reshape(x, shape), saves="none")
_TRANSPOSE = register(
    "TransposeBackward0", lambda x, *, dim0, dim1: jnp.swapaxes(x, dim0, dim1), saves="none"
)
_T = register("TBackward0", lambda x: x.T, saves="none")
_PERMUTE = register("PermuteBackward0", lambda x, *, dims: jnp.transpose(x, dims), saves="none")
_CLONE = register("CloneBackward0", lambda x: jnp.array(x, copy=True), saves="none")
_CAST = register("ToCopyBackward0", lambda x, *, dtype: x.astype(dtype), saves="none")
_TO_DEVICE = register(
    "ToCopyBackward0",
    lambda x, *, device, dtype: jax.device_put(x.astype(dtype), device),
    saves="none",
)
_UNBIND = register(
    "UnbindBackward0", lambda x, *, dim: tuple(jnp.moveaxis(x, dim, 0)), saves="none"
)

__all__ = ["clone", "reshape", "t", "transpose", "unbind"]


def reshape(input, *shape):
    """The same elements in a new shape (one dimension may be -1)."""
    tensor_arg(input, "reshape")
    shape = infer_shape(shape_args(shape), input.numel())
    return apply(_VIEW, input, shape=shape)


def view(input, *shape):
    """Like reshape; values are shared only until either side is written in place."""
    if len(shape) == 1 and isinstance(shape[0], (_dtypes.dtype, type)):
        raise NotImplementedError("view(dtype) is not supported; use .to(dtype)")
    return reshape(input, *shape)


def view_as(input, other):
    return reshape(input, other.shape)


def transpose(input, dim0: int, dim1: int):
    """Swap two dimensions."""
    tensor_arg(input, "transpose")
    dim0, dim1 = normalize_dim(dim0, input.ndim), normalize_dim(dim1, input.ndim)
    return apply(_TRANSPOSE, input, dim0=dim0, dim1=dim1)


def t(input):
    """Transpose a tensor of at most two dimensions."""
    tensor_arg(input, "t")
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return apply(_T, input)


def _T_property(self):
    return apply(_PERMUTE, self, dims=tuple(reversed(range(self.ndim))))


def unbind(input, dim: int = 0):
    """The slices along `dim`, as a tuple of tensors."""
    tensor_arg(input, "unbind")
    dim = normalize_dim(dim, input.ndim)
    return apply(_UNBIND, input, dim=dim)


def clone(input, *, memory_format=None):
    """A copy that stays connected to the graph."""
    tensor_arg(input, "clone")
    return apply(_CLONE, input)


def contiguous(self, memory_format=None):
    """Tensors here have no strides; every tensor is contiguous."""
    return self


def _parse_to_args(self, args, kwargs):
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (_dtypes.dtype, type, np.dtype)):
            dtype = arg
        elif isinstance(arg, (str, int, _device.device)):
            device = arg
        elif isinstance(arg, bool):
            continue
        else:
            raise TypeError(f"to() received an invalid argument of type {type(arg).__name__}")
    return dtype, device, copy


def to(self, *args, **kwargs):
    """Cast to a dtype and/or move to a device; returns self when nothing changes."""
    dtype, device, copy = _parse_to_args(self, args, dict(kwargs))
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
    if device is not None:
        target = _device.to_jax(device)
        if _device.from_jax(target) != self.device or copy:
            return apply(_TO_DEVICE, self, device=target, dtype=dtype.jax)
    if dtype is self.dtype:
        return self.clone() if copy else self
    return apply(_CAST, self, dtype=dtype.jax)


def _cast_method(d):
    def cast(self, memory_format=None):
        return to(self, d)

    cast.__name__ = d.name
    return cast


# ----------------------------------------------------------------------------- indexing
def _check_int_index(index: int, size: int, dim: int) -> int:
    if not -size <= index < size:
        raise IndexError(_errors.INDEX_OUT_OF_RANGE.format(index=index, dim=dim, size=size))
    return index % size


def _index_array(item, size: int, dim: int) -> np.ndarray | jax.Array:
    """An advanced index as an integer array; booleans become positions, bounds are checked."""
    if isinstance(item, Tensor):
        item = item._value
    if isinstance(item, jax.core.Tracer):
        if item.dtype == jnp.bool_:
            raise IndexError("boolean mask indexing needs concrete values (not inside jax.jit)")
        return item
    array = np.asarray(item)
    if array.dtype == np.bool_:
        return array  # expanded to positions by the caller, over as many dims as it has
    if array.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    bad = array[(array >= size) | (array < -size)]
    if bad.size:
        raise IndexError(
            _errors.INDEX_OUT_OF_RANGE.format(index=int(bad.flat[0]), dim=dim, size=size)
        )
    return array.astype(np.int64)


def _is_mask(item) -> bool:
    if isinstance(item, Tensor):
        return item.dtype is _dtypes.bool
    return isinstance(item, np.ndarray) and item.dtype == np.bool_


def _parse_index(index, shape: tuple):
    """A hashable spec of an index, plus its array parts (passed to the op as inputs).

    Spec items: ("int", i), ("slice", start, stop, step), ("none",), ("array",).
    """
    items = index if isinstance(index, tuple) else (index,)
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        consumed += item.ndim if _is_mask(item) else 1
    if consumed > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    spec, arrays, dim = [], [], 0
    for item in items:
        if item is Ellipsis:
            skip = len(shape) - consumed
            spec.extend([("slice", None, None, None)] * skip)
            dim += skip
        elif item is None:
            spec.append(("none",))
        elif isinstance(item, slice):
            step = item.step
            if step is not None and int(step) <= 0:
                raise ValueError("step must be greater than zero")
            spec.append(
                ("slice", _int_or_none(item.start), _int_or_none(item.stop), _int_or_none(step))
            )
            dim += 1
        elif isinstance(item, (int, np.integer)) or (
            isinstance(item, Tensor)
            and item.ndim == 0
            and not item.dtype.is_floating_point
            and item.dtype is not _dtypes.bool
            and not isinstance(item._value, jax.core.Tracer)
        ):
            spec.append(("int", _check_int_index(int(item), shape[dim], dim)))
            dim += 1
        elif isinstance(item, (Tensor, np.ndarray, list, tuple, jax.Array)):
            array = _index_array(item, shape[dim], dim)
            if array.dtype == np.bool_:
                indexed = list(shape[dim : dim + array.ndim])
                if list(array.shape) != indexed:
                    raise IndexError(
                        f"The shape of the mask {list(array.shape)} at index {dim} does not "
                        f"match the shape of the indexed tensor {indexed}"
                    )
                for positions in np.nonzero(array):
                    spec.append(("array",))
                    arrays.append(positions.astype(np.int64))
                dim += array.ndim
            else:
                spec.append(("array",))
                arrays.append(array)
                dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type(item).__name__})"
            )
    return tuple(spec), arrays


def _int_or_none(value):
    return None if value is None else int(value)


def _getitem(x, *arrays, spec):
    arrays = iter(arrays)
    index = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            index.append(item[1])
        elif kind == "slice":
            index.append(slice(item[1], item[2], item[3]))
        elif kind == "none":
            index.append(None)
        else:
            index.append(next(arrays))
    return x[tuple(index)]


_SELECT = register("SelectBackward0", _getitem, saves="none")
_SLICE = register("SliceBackward0", _getitem, saves="none")
_INDEX = register("IndexBackward0", _getitem, saves="none")


def getitem(self, index):
    """`tensor[index]` with NumPy/PyTorch semantics (ints, slices, None, ..., masks, arrays)."""
    spec, arrays = _parse_index(index, tuple(self.shape))
    kinds = {item[0] for item in spec}
    op = _INDEX if "array" in kinds else _SELECT if "int" in kinds else _SLICE
    return apply(op, self, *arrays, spec=spec)


_METHODS = {
    "reshape": reshape,
    "view": view,
    "view_as": view_as,
    "transpose": transpose,
    "t": t,
    "T": property(_T_property),
    "unbind": unbind,
    "clone": clone,
    "contiguous": contiguous,
    "to": to,
    "__getitem__": getitem,
    "float": _cast_method(_dtypes.float32),
    "double": _cast_method(_dtypes.float64),
    "half": _cast_method(_dtypes.float16),
    "bfloat16": _cast_method(_dtypes.bfloat16),
    "long": _cast_method(_dtypes.int64),
    "int": _cast_method(_dtypes.int32),
    "short": _cast_method(_dtypes.int16),
    "bool": _cast_method(_dtypes.bool),
    "byte": _cast_method(_dtypes.uint8),
    "char": _cast_method(_dtypes.int8),
    "cpu": lambda self, memory_format=None: to(self, "cpu"),
    "cuda": lambda self, device=None, non_blocking=False, memory_format=None: to(
        self,
        "cuda"
        if device is None
        else _device.device("cuda", int(device))
        if isinstance(device, int)
        else device,
    ),
}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
