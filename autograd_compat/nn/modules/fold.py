"""Fold and Unfold: sliding blocks of an image as columns (im2col) and back (col2im)."""

from __future__ import annotations

from .. import functional as F
from .module import Module, store_constants

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum columns of sliding blocks into an image of `output_size` (the adjoint of Unfold).

    Example::

        >>> nn.Fold(output_size=(4, 4), kernel_size=2)(torch.randn(1, 8, 9)).shape
        torch.Size([1, 2, 4, 4])
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        store_constants(self, locals())

    def forward(self, input):
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            "output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
            "padding={padding}, stride={stride}".format(**self.__dict__)
        )


class Unfold(Module):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * prod(kernel_size), L).

    Example::

        >>> nn.Unfold(kernel_size=2, stride=2)(torch.randn(1, 3, 4, 4)).shape
        torch.Size([1, 12, 4])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        store_constants(self, locals())

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
            "stride={stride}".format(**self.__dict__)
        )
