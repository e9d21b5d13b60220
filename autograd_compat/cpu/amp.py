"""torch.cpu.amp: `autocast` and `GradScaler` for the CPU (deprecated in PyTorch for
`torch.amp.autocast("cpu")` and `torch.amp.GradScaler("cpu")`)."""

from .._pure import dtypes as _dtypes
from ..amp._legacy import legacy_autocast, legacy_grad_scaler

__all__ = ["GradScaler", "autocast"]

autocast = legacy_autocast("cpu", _dtypes.bfloat16)
GradScaler = legacy_grad_scaler("cpu")
