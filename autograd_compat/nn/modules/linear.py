"""Linear layers: Identity, Linear, Bilinear, with PyTorch's default initialization."""

from __future__ import annotations

import math

from .. import functional as F
from .. import init
from ._weights import add_weight_and_bias, reset_kaiming
from .module import Module, store_constants

__all__ = ["Bilinear", "Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x A^T + b.

    Weight and bias start as U(-1/sqrt(in_features), 1/sqrt(in_features)), as in PyTorch
    (kaiming_uniform_ with a = sqrt(5)).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: True.

    Example::

        >>> m = nn.Linear(20, 30)
        >>> m(torch.randn(128, 20)).shape
        torch.Size([128, 30])
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        store_constants(self, locals())
        bias_shape = out_features if bias else None
        add_weight_and_bias(self, (out_features, in_features), bias_shape, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_kaiming(self.weight, self.bias, bias_without_fan_in=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """y = x1^T A x2 + b, one bilinear form per output feature.

    Args:
        in1_features (int), in2_features (int), out_features (int), bias (bool).
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        store_constants(self, locals())
        shape = (out_features, in1_features, in2_features)
        add_weight_and_bias(self, shape, out_features if bias else None, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
