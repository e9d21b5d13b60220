"""`torch.PyTorchFileReader`: the records of a `torch.save` archive by name (`data.pkl`,
`data/0`, `byteorder`), as PyTorch's reader gives them (Lightning's lazy loading reads them)."""

from __future__ import annotations

import os
import zipfile

import numpy as np

from .._ops.factories import from_numpy
from .._pure import dtypes as _dtypes
from .._state.tensor import Tensor
from .reader import folder_of

__all__ = ["PyTorchFileReader"]


class PyTorchFileReader:
    """Reads the records of a PyTorch checkpoint archive (a path or a binary file object)."""

    def __init__(self, name_or_buffer) -> None:
        source = (
            os.fspath(name_or_buffer) if isinstance(name_or_buffer, os.PathLike) else name_or_buffer
        )
        self._archive = zipfile.ZipFile(source)
        self._folder = folder_of(self._archive)

    def _info(self, name: str) -> zipfile.ZipInfo:
        try:
            return self._archive.getinfo(f"{self._folder}/{name}")
        except KeyError:
            raise RuntimeError(f"[enforce fail] record {name} not found in the archive") from None

    def get_all_records(self) -> list[str]:
        start = len(self._folder) + 1
        return [info.filename[start:] for info in self._archive.infolist()]

    def has_record(self, name: str) -> bool:
        return f"{self._folder}/{name}" in self._archive.NameToInfo

    def get_record(self, name: str) -> bytes:
        return self._archive.read(self._info(name))

    def get_record_size(self, name: str) -> int:
        return self._info(name).file_size

    def serialization_id(self) -> str:
        if not self.has_record(".data/serialization_id"):
            return ""
        return self.get_record(".data/serialization_id").decode()

    def get_storage_from_record(self, name: str, numel: int, dtype) -> Tensor:
        """The first `numel` elements of `dtype` in record `name`, as a 1-D tensor."""
        dtype = _dtypes.as_dtype(dtype)
        values = np.frombuffer(self.get_record(name), dtype.jax, count=numel)
        return from_numpy(values.copy())
