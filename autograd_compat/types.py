"""torch.types: the type aliases PyTorch's signatures are written with (`_device`, `_dtype`,
`_size`, `Number`, `Device`, ...), for code that annotates with them or imports them
(torchvision's `tv_tensors`, hence transformers' Trainer and pipelines)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TypeAlias

from ._pure import device as _devices
from ._pure import dtypes as _dtypes
from ._pure import layouts as _layouts
from ._pure.shapes import Size
from ._state.tensor import Tensor
from ._symbolic import SymBool, SymFloat, SymInt
from .autograd.graph import GradientEdge
from .storage import UntypedStorage as Storage

__all__ = [
    "BoolLikeType",
    "Device",
    "FileLike",
    "FloatLikeType",
    "IntLikeType",
    "Number",
    "PySymType",
    "Storage",
    "SymBool",
    "SymFloat",
    "SymInt",
    "py_sym_types",
]

_device = _devices.device
_dtype = _dtypes.dtype
_layout = _layouts.layout
_bool = bool
_bytes = bytes
_complex = complex
_float = float
_int = int
_str = str

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = (
    Tensor | Sequence[Tensor] | GradientEdge | Sequence[GradientEdge]
)
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int | SymInt]
_dispatchkey: TypeAlias = str
_Number: TypeAlias = int | float | bool
Number: TypeAlias = int | float | bool
Device: TypeAlias = _device | str | int | None
IntLikeType: TypeAlias = int | SymInt
FloatLikeType: TypeAlias = float | SymFloat
BoolLikeType: TypeAlias = bool | SymBool
PySymType: TypeAlias = SymInt | SymFloat | SymBool
py_sym_types = (SymInt, SymFloat, SymBool)
FileLike: TypeAlias = str | os.PathLike | IO[bytes]
