"""The `*_copy` functions: a view op's result as a new tensor that shares no memory
(`torch.permute_copy(x, dims)` is `x.permute(dims).clone()`; PyTorch names their nodes
`PermuteBackward0_copy`, here the node is the clone's).
"""

from __future__ import annotations

from .._pure.shapes import normalize_dim
from . import shape as _shape
from . import splits as _splits
from . import strided as _strided

__all__ = [
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
]


def _copies(pieces) -> tuple:
    return tuple(_shape.clone(p) for p in pieces)


def alias_copy(input):
    """A copy of `input` (the copy of `torch.alias`)."""
    return _shape.clone(_shape.view_as(input, input))


def as_strided_copy(input, size, stride, storage_offset=None):
    """`as_strided`, as a new tensor."""
    return _shape.clone(_strided.as_strided(input, size, stride, storage_offset))


def detach_copy(input):
    """A copy of `input` cut from the graph."""
    return _shape.clone(input.detach())


def diagonal_copy(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """`diagonal`, as a new tensor."""
    return _shape.clone(_shape.diagonal(input, offset, dim1, dim2))


def permute_copy(input, dims):
    """`permute`, as a new tensor."""
    return _shape.clone(_shape.permute(input, dims))


def select_copy(input, dim: int, index: int):
    """`select`, as a new tensor."""
    return _shape.clone(_shape.select(input, dim, index))


def slice_copy(input, dim: int = 0, start=None, end=None, step: int = 1):
    """`input[start:end:step]` along `dim`, as a new tensor."""
    index = (slice(None),) * normalize_dim(dim, input.ndim) + (slice(start, end, step),)
    return _shape.clone(input[index])


def split_copy(tensor, split_size, dim: int = 0):
    """`split`, the pieces new tensors."""
    return _copies(_shape.split(tensor, split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim: int = 0):
    """`split_with_sizes`, the pieces new tensors."""
    return _copies(_splits.split_with_sizes(input, split_sizes, dim))


def squeeze_copy(input, dim=None):
    """`squeeze`, as a new tensor."""
    return _shape.clone(_shape.squeeze(input, dim))


def t_copy(input):
    """`t`, as a new tensor."""
    return _shape.clone(_shape.t(input))


def transpose_copy(input, dim0: int, dim1: int):
    """`transpose`, as a new tensor."""
    return _shape.clone(_shape.transpose(input, dim0, dim1))


def unbind_copy(input, dim: int = 0):
    """`unbind`, the slices new tensors."""
    return _copies(_shape.unbind(input, dim))


def unfold_copy(input, dimension: int, size: int, step: int):
    """`Tensor.unfold`, as a new tensor."""
    return _shape.clone(_splits.unfold(input, dimension, size, step))


def unsqueeze_copy(input, dim: int):
    """`unsqueeze`, as a new tensor."""
    return _shape.clone(_shape.unsqueeze(input, dim))


def view_copy(input, size):
    """`view(size)`, as a new tensor."""
    return _shape.clone(_shape.view(input, size))
