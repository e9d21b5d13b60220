"""`save`'s pickle, as PyTorch's `torch.save` writes it (protocol 2 by default).

A tensor is reduced to `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())` and a Parameter to `torch._utils._rebuild_parameter(data,
requires_grad, OrderedDict())`; a storage is a persistent id ("storage", torch.FloatStorage,
key, location, numel) whose bytes become the record `data/<key>`. Tensors sharing memory (views,
`.data`, tied weights) share one storage, saved once. dtypes, devices, sizes and this library's
classes are written under PyTorch's names, so real PyTorch loads the file.
"""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from types import FunctionType
from typing import Any

import jax
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure.shapes import Size
from .._pure.strides import contiguous_strides
from .._state.tensor import Tensor
from ..nn.parameter import Parameter
from . import storages
from .names import torch_name


class SavedStorage:
    """The memory of one or more saved tensors: the key of its record and its value."""

    __slots__ = ("key", "value", "location")

    def __init__(self, key: str, value) -> None:
        self.key = key
        self.value = value  # a jax.Array: all the storage's elements, in its shape
        self.location = str(_device.of_array(value))

    def data(self) -> memoryview:
        """The storage's bytes (copied to the host), as PyTorch stores them."""
        return np.asarray(self.value).reshape(-1).view(np.uint8).data


class _Data:
    """A Parameter's tensor, reduced like a tensor that does not require grad (PyTorch
    reduces a Parameter to `_rebuild_parameter(self.data, ...)`)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


# Python's own pickler (not the C one): its save_global can be overridden (typeshed has no
# stub of it)
_PythonPickler: Any = pickle._Pickler


class _Pickler(_PythonPickler):
    """A pickler writing PyTorch's reductions, persistent ids and global names."""

    def __init__(self, file, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, SavedStorage] = {}

    def persistent_id(self, obj):
        if type(obj) is SavedStorage:
            dtype = _dtypes.from_jax(obj.value.dtype)
            numel = int(obj.value.size)
            if dtype not in storages.STORAGE_TYPES:  # PyTorch writes their bytes untyped
                raise RuntimeError(
                    f"torch.save of a {dtype} tensor is not yet supported by autograd_compat"
                )
            return ("storage", storages.STORAGE_TYPES[dtype], obj.key, obj.location, numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return storages.rebuild_parameter, (_Data(obj), obj.requires_grad, OrderedDict())
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj, obj.requires_grad)
        if type(obj) is _Data:
            return self._reduce_tensor(obj.tensor, False)
        if isinstance(obj, (_dtypes.dtype, storages.StorageType)):
            return obj.name
        if isinstance(obj, _device.device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return _device.device, args
        if isinstance(obj, Size):
            return Size, (tuple(obj),)
        return NotImplemented

    def _reduce_tensor(self, t: Tensor, requires_grad: bool):
        if isinstance(t._value, jax.core.Tracer):
            raise RuntimeError("autograd_compat.save: cannot save a tensor inside jax.jit")
        rec = t._storage
        if rec is None or rec.layout is None:  # the tensor's value is all of its memory
            owner, value = (t if rec is None else rec.buffer), t._value
            shape = tuple(value.shape)
            layout = (shape, contiguous_strides(shape), 0)
        else:
            owner, value, layout = rec.buffer, rec.buffer.value, rec.layout
        storage = self.storages.get(id(owner))
        if storage is None:
            storage = SavedStorage(str(len(self.storages)), value)
            self.storages[id(owner)] = storage
        sizes, strides, offset = layout
        args: tuple = (storage, offset, tuple(sizes), tuple(strides), requires_grad, OrderedDict())
        return storages.rebuild_tensor_v2, args

    def save_global(self, obj, name=None) -> None:
        names = torch_name(obj)
        if names is None:
            super().save_global(obj, name)
            return
        module, qualname = names
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode())
        self.memoize(obj)

    # functions and classes are saved through the dispatch table, which holds the base class's
    # save_global: point it at the one above
    dispatch = {**_PythonPickler.dispatch, FunctionType: save_global, type: save_global}


def dump(obj, protocol: int) -> tuple[bytes, list[SavedStorage]]:
    """The pickle of `obj` and the storages it refers to, in key order."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol)
    pickler.dump(obj)
    return buffer.getvalue(), list(pickler.storages.values())
