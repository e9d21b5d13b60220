"""torch.backends: the backend switches scripts set, with PyTorch's defaults.

`cudnn.benchmark`, `cudnn.deterministic`, `cudnn.enabled` and `cudnn.allow_tf32` are settable
module attributes (XLA picks its own kernels: they change nothing here).
`cuda.matmul.allow_tf32` is the float32 matmul precision (`torch.set_float32_matmul_precision`)
as in PyTorch: True means "high". `mps.is_available()` is False; `mkldnn.is_available()` is
True as in PyTorch's CPU builds (XLA:CPU uses oneDNN for some ops; the switch changes nothing).
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from . import cpu, cuda, cudnn, mkldnn, mps
from ._settings import (
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
)

__all__ = [
    "cpu",
    "cuda",
    "cudnn",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "mkldnn",
    "mps",
    "set_float32_matmul_precision",
    "set_num_interop_threads",
    "set_num_threads",
]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
