"""torch.cuda.amp: `autocast` and `GradScaler` for CUDA (deprecated in PyTorch for
`torch.amp.autocast("cuda")` and `torch.amp.GradScaler("cuda")`)."""

from .._pure import dtypes as _dtypes
from ..amp._legacy import legacy_autocast, legacy_grad_scaler

__all__ = ["GradScaler", "autocast"]

autocast = legacy_autocast("cuda", _dtypes.float16)
GradScaler = legacy_grad_scaler("cuda")
