"""The weight and bias Parameters that conv, linear and normalization layers create and reset
the same way, in one place."""

from __future__ import annotations

import math

from .. import _arrays, init
from ..parameter import Parameter
from .module import Module


def add_weight_and_bias(module: Module, weight_shape, bias_shape, device, dtype) -> None:
    """`module.weight` and `module.bias` as Parameters of these shapes (None where a shape is)."""
    for name, shape in (("weight", weight_shape), ("bias", bias_shape)):
        if shape is None:
            module.register_parameter(name, None)
        else:
            setattr(module, name, Parameter(_arrays.empty(shape, device=device, dtype=dtype)))


def add_affine(module: Module, shape, affine: bool, bias: bool, device, dtype) -> None:
    """A normalization layer's elementwise weight and bias of `shape`: none unless `affine`,
    no bias unless `bias`."""
    shape = shape if affine else None
    add_weight_and_bias(module, shape, shape if bias else None, device, dtype)


def reset_affine(module: Module) -> None:
    """A normalization layer's affine weight to 1 and bias to 0 (where present)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


def reset_kaiming(weight, bias, *, bias_without_fan_in: bool) -> None:
    """PyTorch's Linear/Conv default: weight kaiming_uniform_(a=sqrt(5)), bias
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)); with fan_in 0, bias U(0, 0) if `bias_without_fan_in`
    (Linear) or left as it is (Conv)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        if fan_in != 0:
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(bias, -bound, bound)
        elif bias_without_fan_in:
            init.uniform_(bias, 0, 0)
