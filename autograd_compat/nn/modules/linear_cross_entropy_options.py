"""torch.nn.LinearCrossEntropyOptions: the chunking settings of `linear_cross_entropy`,
checked as PyTorch checks them. XLA computes the loss as one program, so they choose no
chunk size here (see `_ops/nn/linear_cross_entropy.py`)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from ..._pure import dtypes as _dtypes

__all__ = ["LinearCrossEntropyOptions"]

_ACC_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Settings of the chunked `linear_cross_entropy`: `allow_retain_graph`,
    `batch_chunk_size` (rows per chunk, None: one chunk), `chunking_method` ("auto",
    "aspect_ratio", "aspect_ratio:N" or None), `acc_policy` ("auto", "accurate",
    "balanced", "compact") and `acc_dtype` (the accumulation dtype, None: automatic)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: _dtypes.dtype | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically."
            )
