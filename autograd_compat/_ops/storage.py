"""A tensor's memory as bytes on the host: `Tensor.data_ptr()`, `untyped_storage()` and
`storage()`, `torch.UntypedStorage` (over a tensor's memory, a file or host bytes), and
`torch.frombuffer`. Code reading weights through ctypes (safetensors) gets the real bytes.

A tensor's value is a JAX array, immutable and possibly shared by tensors with no memory in
common (small filled arrays are made once). `data_ptr()` therefore first gives the tensor's
memory (its `_tape/views.Buffer`) a private copy of its root array, once (`Buffer.pinned`),
and answers that copy's host address plus the tensor's offset, as PyTorch does. The address
is stable until the memory is written: an in-place op binds a new array (with a new address,
which the next `data_ptr()` gives) and releases the pinned one, so that a checkpoint saved
during training keeps no second copy of the parameters. Memory that has no host address (an
accelerator's, a traced value inside torch.compile or torch.func, a donated buffer) raises a
RuntimeError naming why.
"""

from __future__ import annotations

import builtins
import mmap
import os
import warnings

import jax
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._state.tensor import META_NO_DATA, MetaTensor, MetaValueError, Tensor
from .._tape import views as _views
from .._tape.args import is_tracer
from . import factories as _factories

__all__ = ["TypedStorage", "UntypedStorage", "frombuffer", "is_storage"]


def _host_value(value, what: str) -> jax.Array:
    """`value` when its bytes lie in host memory; a RuntimeError naming why not otherwise."""
    if is_tracer(value):
        raise RuntimeError(
            f"{what}: this tensor is traced (inside torch.compile, torch.func or jax.jit) and "
            "has no memory address; call it outside the traced function."
        )
    if value.is_deleted():
        raise RuntimeError(
            f"{what}: this tensor's memory was donated to a compiled step and freed."
        )
    devices = value.sharding.device_set
    if len(devices) != 1:
        raise RuntimeError(
            f"{what}: this tensor is laid out over {len(devices)} devices and has no single "
            "memory address; gather it first (`full_tensor()` or `.cpu()`)."
        )
    placed = next(iter(devices))
    if placed.platform != "cpu":
        raise RuntimeError(
            f"{what}: this tensor is on {_device.from_jax(placed)}, whose memory has no host "
            "address here; move it to the host first (`.cpu()`)."
        )
    return value


def pinned_root(buffer: _views.Buffer, what: str) -> jax.Array:
    """The root array of `buffer`, made a private copy the first time (see the module's
    docstring), computed and held so that its host address stays valid."""
    value = buffer.value
    if buffer.pinned is value:
        return value
    copy = jax.device_put(_host_value(value, what), may_alias=False)
    copy.block_until_ready()
    for member in buffer.members:  # the non-views holding the root take the copy
        if member._stored is value:
            member._value = copy
    buffer.value = buffer.pinned = copy
    return copy


def data_ptr(self: Tensor) -> int:
    """`Tensor.data_ptr()`: the host address of this tensor's first element (0 when its
    memory is empty), as PyTorch gives; see the module's docstring for how long it holds."""
    if isinstance(self, MetaTensor):  # no memory
        return 0
    rec = _views.record_of(self)
    root = pinned_root(rec.buffer, "data_ptr")
    if root.size == 0:
        return 0
    return root.unsafe_buffer_pointer() + rec.layout[2] * self.element_size()


class UntypedStorage:
    """PyTorch's untyped storage: a run of bytes on the host, indexed by byte.

    Over a tensor's memory (`Tensor.untyped_storage()`), over a memory-mapped file
    (`UntypedStorage.from_file`) or over bytes of its own (`UntypedStorage(n)`). Slicing gives
    a storage over the same bytes; `torch.asarray(storage, dtype=...)` reads them as a tensor.
    """

    __slots__ = ("_owner", "_offset", "_nbytes")

    def __init__(self, *args, device=None) -> None:
        if device is not None and _device.device(device).type != "cpu":
            raise RuntimeError(
                f"UntypedStorage: storages on {device} are not available here; only cpu."
            )
        if not args:
            data = np.zeros(0, np.uint8)
        elif len(args) == 1 and isinstance(args[0], int):
            data = np.zeros(args[0], np.uint8)
        elif len(args) == 1:
            data = np.array(list(args[0]), np.uint8)
        else:
            raise TypeError(f"UntypedStorage(): expected at most 1 argument, got {len(args)}")
        self._set(data, 0, data.size)

    def _set(self, owner, offset: int, nbytes: int) -> None:
        # a views.Buffer (a tensor's memory), a numpy uint8 array, or None (the meta device)
        self._owner = owner
        self._offset = offset
        self._nbytes = nbytes

    @classmethod
    def _over(cls, owner, offset: int, nbytes: int) -> UntypedStorage:
        storage = object.__new__(cls)
        storage._set(owner, offset, nbytes)
        return storage

    @classmethod
    def from_file(cls, filename, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """A storage over the first `nbytes` bytes of a file, mapped copy-on-write
        (`shared=False`: writes do not reach the file). `shared=True` raises: tensors here
        hold their own copy of the bytes, so no write through them could reach the file."""
        if shared:
            raise RuntimeError(
                "UntypedStorage.from_file(shared=True): tensors here hold their own copy of "
                "the bytes, so writes through them cannot reach the file; use shared=False."
            )
        size = os.path.getsize(filename)
        if nbytes > size:
            raise RuntimeError(
                f"unable to mmap {nbytes} bytes from file <{filename}>: file is {size} bytes"
            )
        if nbytes == 0:
            return cls._over(np.zeros(0, np.uint8), 0, 0)
        with open(filename, "rb") as file:
            mapped = mmap.mmap(file.fileno(), nbytes, access=mmap.ACCESS_COPY)
        return cls._over(np.frombuffer(mapped, np.uint8), 0, nbytes)

    def _bytes(self) -> np.ndarray:
        """The storage's bytes as a numpy uint8 array (read-only over a tensor's memory)."""
        owner = self._owner
        if owner is None:
            raise MetaValueError(META_NO_DATA)
        if isinstance(owner, np.ndarray):
            whole = owner
        else:
            root = np.asarray(pinned_root(owner, "UntypedStorage"))
            whole = root.reshape(-1).view(np.uint8)
        return whole[self._offset : self._offset + self._nbytes]

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The host address of the first byte (0 for an empty storage)."""
        if self._nbytes == 0 or self._owner is None:
            return 0
        return self._bytes().ctypes.data

    @property
    def _cdata(self) -> int:
        """An integer naming the memory (equal for storages over the same memory)."""
        return id(self._owner)

    @property
    def device(self) -> _device.device:
        return _device.device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    def is_shared(self) -> bool:
        return False

    def cpu(self) -> UntypedStorage:
        return self

    def untyped(self) -> UntypedStorage:
        return self

    def tolist(self) -> list:
        return self._bytes().tolist()

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(self._nbytes)
            if step != 1:
                raise RuntimeError("slices with steps are not supported")
            return UntypedStorage._over(self._owner, self._offset + start, max(stop - start, 0))
        if not isinstance(index, int):
            raise TypeError(f"can't index a UntypedStorage with {type(index).__name__}")
        if not -self._nbytes <= index < self._nbytes:
            raise IndexError(f"index {index} out of range for storage of size {self._nbytes}")
        return int(self._bytes()[index])

    def __setitem__(self, index, value) -> None:
        if not isinstance(self._owner, np.ndarray):
            raise RuntimeError(
                "UntypedStorage: writing bytes into a tensor's memory through its storage is "
                "not supported here; write through the tensor (or `tensor.view(torch.uint8)`)."
            )
        self._bytes()[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        lines = [f" {b}" for b in self.tolist()]
        lines.append(f"[torch.storage.UntypedStorage(device=cpu) of size {self._nbytes}]")
        return "\n".join(lines)

    def as_tensor(self, dtype: _dtypes.dtype) -> Tensor:
        """The bytes read as a 1-d tensor of `dtype` (`torch.asarray(storage, dtype=...)`):
        a view of the tensor whose memory this is, or a copy of bytes of the storage's own."""
        if self._nbytes % dtype.itemsize:
            raise RuntimeError(
                f"storage of {self._nbytes} bytes cannot be read as {dtype}: not a multiple "
                f"of its element size {dtype.itemsize}"
            )
        owner = self._owner
        if isinstance(owner, np.ndarray):
            return _factories.from_numpy(np.array(self._bytes()).view(dtype.jax))
        flat = _views.root_member(owner).reshape(-1).view(_dtypes.uint8)
        return flat[self._offset : self._offset + self._nbytes].view(dtype)


class TypedStorage:
    """`Tensor.storage()` (deprecated in PyTorch): the memory counted in elements of a dtype."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype: _dtypes.dtype) -> None:
        self._untyped_storage = untyped
        self.dtype = dtype

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    @property
    def device(self) -> _device.device:
        return self._untyped_storage.device


def is_storage(obj) -> bool:
    """Whether `obj` is a storage object (what `untyped_storage()`/`storage()` return)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The memory this tensor (and its views) lie in, as bytes (none on the meta device)."""
    if isinstance(self, MetaTensor):
        return UntypedStorage._over(None, 0, self.numel() * self.element_size())
    buffer = _views.record_of(self).buffer
    value = buffer.value
    return UntypedStorage._over(buffer, 0, int(value.size) * value.dtype.itemsize)


_TYPED_STORAGE = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"
)


def storage(self: Tensor) -> TypedStorage:
    """The memory this tensor lies in, typed by its dtype (PyTorch's deprecation warning)."""
    warnings.warn(_TYPED_STORAGE, UserWarning, stacklevel=2)
    return TypedStorage(untyped_storage(self), self.dtype)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False):
    """A 1-d tensor of the bytes of `buffer` (any object with the buffer protocol) from byte
    `offset`, read as `count` elements of `dtype` (all that remain for -1).

    PyTorch's tensor shares the buffer's memory; here it holds a copy (JAX arrays cannot alias
    host memory): later writes to the buffer do not reach the tensor, nor the reverse.
    """
    dtype = _dtypes.as_dtype(dtype)
    data = memoryview(buffer).cast("B")
    length, size = data.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    values = np.frombuffer(data, np.dtype(dtype.jax), count, offset).copy()
    return _factories.from_numpy(values).requires_grad_(builtins.bool(requires_grad))
