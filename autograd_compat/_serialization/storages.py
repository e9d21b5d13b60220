"""Storages and the tensors over them, as PyTorch's checkpoints hold them.

A checkpoint's pickle names each storage by a persistent id, ("storage", storage type, key,
location, numel), whose bytes are the archive record `data/<key>`; a tensor is rebuilt by
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`.
Here are the storage types (which name a dtype), the loaded storage, and the rebuild functions
that turn a storage into tensors: tensors over one storage share its memory as in PyTorch
(writes through one are seen by the others) wherever their layout is a view of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import memory as _memory
from .._state.modes import no_grad
from .._state.tensor import Tensor
from ..nn.parameter import Parameter


class StorageType:
    """A PyTorch storage class (`torch.FloatStorage`, `torch.UntypedStorage`): in a
    checkpoint it gives the dtype of a storage."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype: _dtypes.dtype) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype!r})"


STORAGE_TYPES = {
    d: StorageType(_dtypes.LEGACY_TYPE_NAMES[d].replace("Tensor", "Storage"), d)
    for d in _dtypes.ALL
    if d not in _dtypes.STORAGE_ONLY
}
UNTYPED_STORAGE = StorageType("UntypedStorage", _dtypes.uint8)


class LoadedStorage:
    """One storage of a checkpoint: its bytes are read from the archive once (by `read`), and
    the tensors rebuilt over it share memory through `root`, a tensor of all its elements."""

    __slots__ = ("dtype", "numel", "_read", "device", "_array", "root")

    def __init__(self, dtype: _dtypes.dtype, numel: int, read: Callable, device) -> None:
        self.dtype = dtype
        self.numel = numel
        self._read = read  # () -> the storage's bytes, checked against numel * itemsize
        self.device = device  # a device, or None for the default one
        self._array: np.ndarray | None = None
        self.root: Tensor | None = None

    def array(self) -> np.ndarray:
        """The storage's elements, a 1-D host array."""
        if self._array is None:
            self._array = np.frombuffer(self._read(), self.dtype.jax)
        return self._array

    def tensor(self, array: np.ndarray) -> Tensor:
        """A new tensor holding a copy of `array` (elements of this storage), on its device."""
        array = np.ascontiguousarray(array)
        if self.device is None:
            value = _device.host_to_device(array)
        else:
            value = _device.commit(array, _device.to_jax(self.device))
        return Tensor._wrap(value)


def _shape(values, what: str) -> tuple:
    if not isinstance(values, (tuple, list)) or not all(type(v) is int and v >= 0 for v in values):
        raise ValueError(f"a tensor's {what} must be non-negative ints, got {values!r}")
    return tuple(values)


def _check_layout(storage, offset, size, stride) -> tuple:
    """(size, stride, offset) of a tensor rebuilt over `storage`, refused unless it lies inside
    it (the checkpoint might be corrupt or crafted)."""
    if not isinstance(storage, LoadedStorage):
        raise TypeError(f"a tensor must be rebuilt from a storage, got {type(storage).__name__}")
    size, stride = _shape(size, "size"), _shape(stride, "stride")
    if type(offset) is not int or offset < 0 or len(size) != len(stride):
        raise ValueError(f"invalid tensor layout: offset {offset!r}, size {size}, stride {stride}")
    if math.prod(size) and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= max(
        storage.numel, 1
    ):
        raise ValueError(
            f"a tensor of size {list(size)} and stride {list(stride)} at offset {offset} does "
            f"not fit in its storage of {storage.numel} elements"
        )
    nbytes = math.prod(size) * storage.dtype.itemsize  # more than its storage when expanded
    if nbytes > _memory.host_bytes():
        raise ValueError(
            f"a tensor of size {list(size)} takes {nbytes} bytes, more than this machine's "
            f"memory ({_memory.host_bytes()} bytes)"
        )
    return size, stride, offset


def rebuild_tensor(storage, storage_offset, size, stride) -> Tensor:
    """`torch._utils._rebuild_tensor`: the tensor of layout (size, stride, storage_offset)
    over `storage`; it shares memory with the other tensors over the storage."""
    size, stride, offset = _check_layout(storage, storage_offset, size, stride)
    numel = math.prod(size)
    if numel == 0:
        return storage.tensor(np.zeros(size, storage.dtype.jax))
    whole = offset == 0 and numel == storage.numel and _contiguous(size, stride)
    if storage.root is None and whole:  # the common case: one tensor per storage
        storage.root = storage.tensor(storage.array().reshape(size))
        return storage.root
    if storage.root is None:
        storage.root = storage.tensor(storage.array())
    with no_grad():
        view = _view(storage.root.reshape(-1), size, stride, offset)
    if view is None:  # no view of the storage has this layout: a copy (not shared)
        itemsize = storage.dtype.itemsize
        elements = np.lib.stride_tricks.as_strided(
            storage.array()[offset:], size, tuple(s * itemsize for s in stride), writeable=False
        )
        return storage.tensor(elements)
    return view.data  # a tensor of its own (not a view) over the storage's memory


def _contiguous(size: tuple, stride: tuple) -> bool:
    expected = 1
    for n, s in zip(reversed(size), reversed(stride)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _view(flat: Tensor, size: tuple, stride: tuple, offset: int) -> Tensor | None:
    """A view of the 1-D `flat` with layout (size, stride, offset), made of reshape, slices,
    select, permute and expand; None where no such view has it (overlapping or interleaved
    strides, a window past the storage's end)."""
    dims = sorted(
        (i for i, (n, s) in enumerate(zip(size, stride)) if n != 1 and s != 0),
        key=lambda i: -stride[i],
    )
    if not dims:
        view = flat[offset : offset + 1].reshape(())
    elif len(dims) == 1:  # a strided slice (a row, a column, a diagonal)
        (d,) = dims
        view = flat[offset : offset + (size[d] - 1) * stride[d] + 1 : stride[d]]
    else:
        # a window of whole outer rows, reshaped to the box that the strides span, then
        # sliced to the sizes; the offset's digits in that box are where the slices start
        strides = [stride[d] for d in dims]
        box = [size[dims[0]]] + [a // b for a, b in zip(strides, strides[1:])] + [strides[-1]]
        if any(a % b for a, b in zip(strides, strides[1:])):
            return None
        start = offset - offset % strides[0]
        if start + box[0] * strides[0] > flat.shape[0]:
            return None
        view = flat[start : start + box[0] * strides[0]].reshape(box)
        rest = offset % strides[0]
        for axis, (d, s) in enumerate(zip(dims[1:], strides[1:]), start=1):
            first, rest = divmod(rest, s)
            if first + size[d] > box[axis]:
                return None
            view = view.narrow(axis, first, size[d])
        view = view.select(len(dims), rest)
    # the sorted real dims back in their order, then the size-1 and broadcast dims
    if len(dims) > 1:
        view = view.permute(*sorted(range(len(dims)), key=lambda k: dims[k]))
    real = sorted(dims)
    for i in range(len(size)):
        if i not in real:
            view = view.unsqueeze(i)
    if any(s == 0 and n != 1 for n, s in zip(size, stride)):
        view = view.expand(*size)
    return view


def rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
) -> Tensor:
    """`torch._utils._rebuild_tensor_v2`, PyTorch's reduction of a tensor. `backward_hooks`
    are never saved (PyTorch saves an empty OrderedDict); `metadata` holds conj/neg bits."""
    t = rebuild_tensor(storage, storage_offset, size, stride)
    if metadata:
        t = _apply_metadata(t, metadata)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
) -> Tensor:
    """`torch._utils._rebuild_tensor_v3`: v2 with the dtype given (it is the storage's)."""
    if dtype is not storage.dtype:
        raise ValueError(f"a tensor of dtype {dtype} over a storage of {storage.dtype}")
    return rebuild_tensor_v2(
        storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata
    )


def _apply_metadata(t: Tensor, metadata) -> Tensor:
    """A tensor saved with PyTorch's lazy conjugate or negative bit, made plain (a copy)."""
    if not isinstance(metadata, dict) or not set(metadata) <= {"conj", "neg"}:
        raise ValueError(f"unknown tensor metadata {metadata!r}")
    if metadata.get("conj"):
        t = t.conj().clone()
    if metadata.get("neg"):
        t = -t
    return t


def rebuild_parameter(data, requires_grad, backward_hooks) -> Parameter:
    """`torch._utils._rebuild_parameter`: a Parameter over `data`'s memory."""
    if not isinstance(data, Tensor):
        raise TypeError(f"a Parameter must be rebuilt from a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state) -> Parameter:
    """`torch._utils._rebuild_parameter_with_state`: a Parameter with Python attributes."""
    param = rebuild_parameter(data, requires_grad, backward_hooks)
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
        if slots:
            raise ValueError("a Parameter's saved state has slots, which are not restored")
    if state:
        if not isinstance(state, dict):
            raise ValueError(f"a Parameter's saved state must be a dict, got {state!r}")
        param.__dict__.update(state)
    return param


def rebuild_from_type_v2(func, new_type, args, state):
    """`torch._tensor._rebuild_from_type_v2`, PyTorch's reduction of a tensor subclass or of a
    tensor with Python attributes: `func(*args)`, then its type and attributes."""
    if not any(func is f for f in (rebuild_tensor, rebuild_tensor_v2, rebuild_tensor_v3)):
        raise ValueError(f"_rebuild_from_type_v2 of {type(func).__name__}")
    if new_type is not Tensor and new_type is not Parameter:
        raise ValueError(f"_rebuild_from_type_v2 to {type(new_type).__name__}")
    if not isinstance(args, tuple):
        raise ValueError("_rebuild_from_type_v2 arguments must be a tuple")
    result = func(*args)
    if new_type is Parameter:
        result = Parameter(result, result.requires_grad)
    if state:
        if not isinstance(result, Parameter):
            names = ", ".join(map(str, state)) if isinstance(state, dict) else repr(state)
            raise RuntimeError(
                f"autograd_compat.load: a tensor saved with Python attributes ({names}) cannot "
                "be loaded: autograd_compat tensors have none (Parameters can)"
            )
        if not isinstance(state, dict):
            raise ValueError(f"a Parameter's saved state must be a dict, got {state!r}")
        result.__dict__.update(state)
    return result
