"""Power-average (LP) pooling, PyTorch's composite of avg_pool and pow (max_pool of |x| for
an infinite norm), so its values, gradients and nodes are PyTorch's."""

from __future__ import annotations

import math

from ._common import _ntuple
from .activation import relu
from .pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]

_POOLS = {1: (avg_pool1d, max_pool1d), 2: (avg_pool2d, max_pool2d), 3: (avg_pool3d, max_pool3d)}


def _lp_pool(nd: int, input, norm_type, kernel_size, stride, ceil_mode: bool):
    avg_pool, max_pool = _POOLS[nd]
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    window = math.prod(_ntuple(kernel_size, nd, "kernel_size"))
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last dimension."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last two dimensions."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last three dimensions."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
