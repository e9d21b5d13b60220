"""torch.signal: signal-processing helpers (the `windows` module)."""

from . import windows

__all__ = ["windows"]
