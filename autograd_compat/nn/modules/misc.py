"""Padding and upsampling modules."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "Upsample",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


class _PadNd(Module):
    _mode = "constant"
    _n = 2

    def __init__(self, padding, value: float = 0.0) -> None:
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self._n)
        self.padding = tuple(padding)
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        if self._mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


class ConstantPad1d(_PadNd):
    _n = 1


class ConstantPad2d(_PadNd):
    _n = 2


class ConstantPad3d(_PadNd):
    _n = 3


class _ZeroPadNd(_PadNd):
    """Constant padding with zeros; its repr shows the padding only."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _n = 1


class ZeroPad2d(_ZeroPadNd):
    _n = 2


class ZeroPad3d(_ZeroPadNd):
    _n = 3


class ReflectionPad1d(_PadNd):
    _mode = "reflect"
    _n = 1


class ReflectionPad2d(_PadNd):
    _mode = "reflect"
    _n = 2


class ReflectionPad3d(_PadNd):
    _mode = "reflect"
    _n = 3


class ReplicationPad1d(_PadNd):
    _mode = "replicate"
    _n = 1


class ReplicationPad2d(_PadNd):
    _mode = "replicate"
    _n = 2


class ReplicationPad3d(_PadNd):
    _mode = "replicate"
    _n = 3


class _CircularPadNd(_PadNd):
    """Circular padding of a batched or unbatched input of `_n` spatial dimensions; other
    ranks raise PyTorch's ValueError before padding."""

    _mode = "circular"

    def forward(self, input):
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(
                f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)"
            )
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _n = 1


class CircularPad2d(_CircularPadNd):
    _n = 2


class CircularPad3d(_CircularPadNd):
    _n = 3


class Upsample(Module):
    """Resize by `size` or `scale_factor` (nearest, linear, bilinear)."""

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode: str = "nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor: tuple[float, ...] | float | None
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)
