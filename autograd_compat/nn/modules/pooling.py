"""Pooling layers: max, average and adaptive average pooling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import functional as F
from .module import Module, store_constants

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        stride = stride if (stride is not None) else kernel_size
        store_constants(self, locals())

    _pool: Callable[..., Any]

    def forward(self, input):
        return type(self)._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            "kernel_size={kernel_size}, stride={stride}, padding={padding}"
            ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__)
        )


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over (N, C, L) input."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over (N, C, H, W) input; the gradient goes to each window's maximum.

    Example::

        >>> nn.MaxPool2d(2)(torch.randn(1, 1, 4, 4)).shape
        torch.Size([1, 1, 2, 2])
    """

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over (N, C, D, H, W) input."""

    _pool = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride, padding, ceil_mode, count_include_pad) -> None:
        super().__init__()
        store_constants(self, locals())

    def _options(self) -> tuple:
        """The functional op's arguments after `input`."""
        return tuple(getattr(self, name) for name in _AvgPoolNd.__constants__)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling."""

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__(
            _single(kernel_size),
            _single(stride if stride is not None else kernel_size),
            _single(padding),
            ceil_mode,
            count_include_pad,
        )

    def forward(self, input):
        return F.avg_pool1d(input, *self._options())


def _single(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class _AvgPoolWithDivisor(_AvgPoolNd):
    """2-D and 3-D average pooling: PyTorch's count_include_pad, ceil_mode and
    divisor_override divisors."""

    _pool = staticmethod(F.avg_pool2d)

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ) -> None:
        stride = stride if (stride is not None) else kernel_size
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._pool(input, *self._options(), self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    """2-D average pooling, with PyTorch's count_include_pad and ceil_mode divisors."""


class AvgPool3d(_AvgPoolWithDivisor):
    """3-D average pooling over (N, C, D, H, W) input."""

    _pool = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (each window spans floor..ceil of the ratio)."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, D, H, W) input to a fixed output size."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        store_constants(self, locals())

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length (each window spans floor..ceil of the ratio)."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size; None in `output_size` keeps that input size."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, D, H, W) input to a fixed output size."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


def _repeated(value, n: int) -> tuple:
    """PyTorch's _single/_pair/_triple: a sequence as a tuple, a number repeated n times."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


class _MaxUnpoolNd(Module):
    _nd: int
    _unpool: Callable[..., Any]

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        nd = self._nd
        self.kernel_size = _repeated(kernel_size, nd)
        self.stride = _repeated(stride if stride is not None else kernel_size, nd)
        self.padding = _repeated(padding, nd)

    def forward(self, input, indices, output_size=None):
        return type(self)._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d (values back at the pooled indices, zeros elsewhere)."""

    _nd = 1
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d (values back at the pooled indices, zeros elsewhere)."""

    _nd = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d (values back at the pooled indices, zeros elsewhere)."""

    _nd = 3
    _unpool = staticmethod(F.max_unpool3d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _pool: Callable[..., Any]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        store_constants(self, locals())

    def forward(self, input):
        return type(self)._pool(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (
            "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
            "ceil_mode={ceil_mode}".format(**self.__dict__)
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over (N, C, L) input."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W) input."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W) input."""

    _pool = staticmethod(F.lp_pool3d)


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _nd: int
    _pool: Callable[..., Any]

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices: bool = False,
        _random_samples=None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, type(self).__name__
        if nd == 3 and not all(k > 0 for k in _repeated(kernel_size, nd)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _repeated(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _repeated(output_size, nd) if output_size is not None else None
        self.output_ratio = _repeated(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over (N, C, H, W) windows at random fractional steps (Graham, 2014), to
    `output_size` or `output_ratio` of the input; `_random_samples` fixes the steps."""

    _nd = 2
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling over (N, C, T, H, W) windows at random fractional steps (see
    FractionalMaxPool2d)."""

    _nd = 3
    _pool = staticmethod(F.fractional_max_pool3d)
