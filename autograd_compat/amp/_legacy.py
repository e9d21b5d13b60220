"""The device-specific spellings `torch.cpu.amp` and `torch.cuda.amp`: autocast and GradScaler
for one device, deprecated in PyTorch with a FutureWarning naming the torch.amp call."""

from __future__ import annotations

import warnings

from .._pure import dtypes as _dtypes
from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["legacy_autocast", "legacy_grad_scaler"]


def _warn(old: str, device: str) -> None:
    warnings.warn(
        f"`torch.{device}.amp.{old}(args...)` is deprecated. Please use "
        f"`torch.amp.{old}('{device}', args...)` instead.",
        FutureWarning,
        stacklevel=3,
    )


def legacy_autocast(device: str, default_dtype: _dtypes.dtype) -> type:
    """`torch.<device>.amp.autocast(enabled=True, dtype=<default>, cache_enabled=True)`."""

    class autocast(_autocast):
        __doc__ = f"""``torch.{device}.amp.autocast(args...)`` is deprecated: it is
        ``torch.amp.autocast("{device}", args...)``."""

        def __init__(
            self,
            enabled: bool = True,
            dtype: _dtypes.dtype = default_dtype,
            cache_enabled: bool = True,
        ) -> None:
            _warn("autocast", device)
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    autocast.__module__ = f"autograd_compat.{device}.amp"
    autocast.__qualname__ = "autocast"
    return autocast


def legacy_grad_scaler(device: str) -> type:
    """`torch.<device>.amp.GradScaler(init_scale, growth_factor, backoff_factor,
    growth_interval, enabled)`."""

    class GradScaler(_GradScaler):
        __doc__ = f"""``torch.{device}.amp.GradScaler(args...)`` is deprecated: it is
        ``torch.amp.GradScaler("{device}", args...)``."""

        def __init__(self, *args, **kwargs) -> None:
            """torch.amp.GradScaler's arguments after `device`, in the same order."""
            _warn("GradScaler", device)
            super().__init__(device, *args, **kwargs)

    GradScaler.__module__ = f"autograd_compat.{device}.amp"
    GradScaler.__qualname__ = "GradScaler"
    return GradScaler
