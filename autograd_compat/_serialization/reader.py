"""Reading a PyTorch checkpoint archive (`torch.save`'s zip format, PyTorch >= 1.6).

The archive holds one folder, `<name>/`: `data.pkl` (the pickled object), `data/<key>` (the
raw bytes of each storage), `byteorder`, `version`, `.format_version`, `.storage_alignment`
and `.data/serialization_id`. The pickle is unpickled by the weights-only unpickler (the
default) or, with `weights_only=False`, by Python's full unpickler, which can run code.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import cuda
from .._ops.storage import UntypedStorage
from .._pure import device as _device
from . import weights_only as _weights_only
from .names import TORCH_GLOBALS, library_module
from .storages import LoadedStorage, StorageType


def folder_of(archive: zipfile.ZipFile) -> str:
    """The one folder every record of a PyTorch archive is in."""
    names = archive.namelist()
    folder = names[0].split("/")[0] if names and "/" in names[0] else None
    if folder is None or any(not n.startswith(f"{folder}/") for n in names):
        raise ValueError("the archive's records are not all in one folder")
    return folder


def _byteorder(archive: zipfile.ZipFile, folder: str) -> str:
    try:
        info = archive.getinfo(f"{folder}/byteorder")
    except KeyError:
        return "little"  # PyTorch's default for files without the record
    order = archive.read(info) if info.file_size <= 8 else b""
    if order not in (b"little", b"big"):
        raise ValueError(f"Unknown endianness type: {order[:8].decode(errors='replace')}")
    return order.decode()


class _FullUnpickler(pickle.Unpickler):
    """Python's unpickler (it imports and calls what the pickle names: trusted files only),
    with PyTorch's names read as this library's."""

    def __init__(self, file, persistent_load: Callable, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self._storage = persistent_load

    def persistent_load(self, pid):
        return self._storage(pid)

    def find_class(self, module: str, name: str):
        found = TORCH_GLOBALS.get(f"{module}.{name}")
        if found is not None:
            return found
        return super().find_class(library_module(module), name)


def load(archive: zipfile.ZipFile, read_record: Callable, locate: Callable, options: dict):
    """The object of PyTorch checkpoint `archive`. `read_record(info, size)` reads a record
    with its size checked, `locate(location, read)` places a storage saved at `location`
    whose bytes `read()` gives (`locator`), `options` are `weights_only` and the full
    unpickler's arguments."""
    folder = folder_of(archive)
    if f"{folder}/constants.pkl" in archive.namelist():
        raise RuntimeError(
            "autograd_compat.load: this is a TorchScript archive (torch.jit.save), which "
            "autograd_compat cannot load"
        )
    order = _byteorder(archive, folder)
    loaded: dict[str, LoadedStorage] = {}

    def persistent_load(pid) -> LoadedStorage:
        if not isinstance(pid, tuple) or len(pid) != 5:
            raise ValueError(f"unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise ValueError(f"{storage_type!r} is not a storage type")
        if type(key) is not str or type(location) is not str or type(numel) is not int:
            raise ValueError(f"invalid storage id {pid!r}")
        storage = loaded.get(key)
        if storage is not None:
            if storage.dtype is not storage_type.dtype or storage.numel != numel:
                raise ValueError(f"storage {key} is used with two dtypes or sizes")
            return storage
        dtype = storage_type.dtype
        info = archive.getinfo(f"{folder}/data/{key}")

        def read() -> bytes:
            data = read_record(info, numel * dtype.itemsize)
            if order != "little" and dtype.itemsize > 1:
                swapped = np.frombuffer(data, dtype.jax.newbyteorder(">")).astype(dtype.jax)
                data = swapped.tobytes()
            return data

        placed = locate(location, read)
        storage = LoadedStorage(dtype, numel, placed.read, placed.device)
        loaded[key] = storage
        return storage

    data = read_record(archive.getinfo(f"{folder}/data.pkl"), None)
    if options["weights_only"]:
        try:
            return _weights_only.load(data, persistent_load, options["encoding"])
        except pickle.UnpicklingError as error:
            raise pickle.UnpicklingError(_weights_only.failure_message(str(error))) from None
    arguments = {k: v for k, v in options.items() if k != "weights_only"}
    return _FullUnpickler(io.BytesIO(data), persistent_load, **arguments).load()


_NO_CUDA = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU."
)


def _saved_device(location: str) -> _device.device | None:
    """The device a storage saved at `location` is restored to (None: the default device)."""
    if location == "cpu":
        return None
    target = _device.device(location)
    if target.type == "cuda" and not cuda.is_available():
        raise RuntimeError(_NO_CUDA)
    return target


class Placed(NamedTuple):
    """Where a storage's tensors go (None: the default device) and how its bytes are read."""

    device: Any
    read: Callable[[], bytes]


def locator(map_location) -> Callable[[str, Callable], Placed]:
    """`map_location` as a function of a storage's saved location ("cpu", "cuda:0") and its
    bytes' reader to where its tensors go. A callable `map_location(storage, location)` is
    given the storage (its bytes, on the CPU) and returns a storage, whose bytes the tensors
    get on the CPU (storages here are host memory), or None for the saved location."""
    if map_location is None:
        return lambda location, read: Placed(_saved_device(location), read)
    if isinstance(map_location, (str, _device.device)):
        target = _device.device(map_location)
        return lambda location, read: Placed(target, read)
    if isinstance(map_location, dict):
        mapping = {str(k): _device.device(v) for k, v in map_location.items()}
        return lambda location, read: Placed(mapping.get(location) or _saved_device(location), read)
    if callable(map_location):
        return lambda location, read: _mapped(map_location, location, read)
    raise TypeError(
        "map_location must be None, a device, a string, a dict or a callable, got "
        f"{type(map_location).__name__}"
    )


def _mapped(map_location: Callable, location: str, read: Callable) -> Placed:
    """Where a callable `map_location` puts the storage saved at `location`."""
    data = np.frombuffer(read(), np.uint8).copy()
    given = UntypedStorage._over(data, 0, data.size)
    result = map_location(given, location)
    if result is None:
        return Placed(_saved_device(location), lambda: data.tobytes())
    if not isinstance(result, UntypedStorage):
        raise TypeError(
            f"map_location returned {type(result).__name__}; it must return a storage or None"
        )
    return Placed(result.device, lambda: result._bytes().tobytes())
