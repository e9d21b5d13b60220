"""torch.nn.utils.fusion: fold an eval-mode BatchNorm into the convolution or linear layer
before it (one layer computing both), as PyTorch's inference conversions do."""

from __future__ import annotations

import copy

from ..._ops.factories import ones_like, zeros_like
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def _eval_statistics(layer, bn) -> None:
    """Fusion uses running statistics: both layers in eval mode, the statistics present."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of `conv` computing `bn(conv(x))` (both in eval mode).

    Args:
        conv: a convolution module.
        bn: the BatchNorm module applied to its output.
        transpose: whether `conv` is a transposed convolution (weight (C_in, C_out, ...)).
    """
    _eval_statistics(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by a BatchNorm with these statistics."""
    bias_dtype = conv_b.dtype if conv_b is not None else conv_w.dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    scale = (bn_rv + bn_eps).rsqrt()
    shape = [1, -1] if transpose else [-1, 1]
    shape += [1] * (conv_w.dim() - 2)
    weight = (conv_w * (bn_w * scale).reshape(shape)).to(dtype=conv_w.dtype)
    bias = ((conv_b - bn_rm) * scale * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` computing `bn(linear(x))` (both in eval mode); the BatchNorm has
    `linear.out_features` features, or one."""
    _eval_statistics(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer followed by a BatchNorm with these statistics."""
    bias_dtype = linear_b.dtype if linear_b is not None else linear_w.dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
