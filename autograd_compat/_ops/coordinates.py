"""unravel_index: flat indices as coordinates in a shape (PyTorch's floor-divide and
remainder by the shape's strides, so negative indices wrap as PyTorch's)."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from .._pure.dtypes import bool as bool_
from .._pure.dtypes import int64
from .._state.tensor import Tensor
from .factories import tensor

__all__ = ["unravel_index"]


def unravel_index(indices: Tensor, shape) -> tuple[Tensor, ...]:
    """The coordinates in `shape` of each flat index, one tensor per dimension.

    Example::

        >>> torch.unravel_index(torch.tensor([4, 1, 7]), (3, 3))
        (tensor([1, 0, 2]), tensor([1, 1, 1]))
    """
    dtype = indices.dtype
    if dtype.is_complex or dtype.is_floating_point or dtype is bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for dim in shape:
        if not isinstance(dim, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
    shape = tuple(shape)
    if any(dim < 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = list(itertools.accumulate(reversed(shape[1:] + (1,)), operator.mul))[::-1]
    device = indices.device
    stride_tensor = tensor(strides, dtype=int64, device=device)
    coordinates = indices.unsqueeze(-1).floor_divide(stride_tensor)
    return (coordinates % tensor(shape, dtype=int64, device=device)).unbind(-1)
