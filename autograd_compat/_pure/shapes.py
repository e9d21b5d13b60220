"""Shape helpers shared by the ops: torch.Size, dim normalisation, broadcasting checks."""

from __future__ import annotations

import math

from . import errors as _errors


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)


def normalize_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative dim into an index; PyTorch's IndexError when out of range."""
    if not isinstance(dim, int):
        raise TypeError(f"dim must be an int, but got {type(dim).__name__}")
    extent = max(ndim, 1)
    if not -extent <= dim < extent:
        raise IndexError(_errors.DIM_OUT_OF_RANGE.format(low=-extent, high=extent - 1, dim=dim))
    return dim % extent


def unique_dims(dims, ndim: int) -> tuple[int, ...]:
    """`dims` (an int or a sequence) as indices in the given order; PyTorch's errors for an
    out-of-range or a repeated dim. The one check behind every op taking a list of dims."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out: list[int] = []
    for dim in dims:
        d = normalize_dim(dim, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """`dim` (None, an int or a sequence) as a sorted tuple of indices (None stays None:
    reduce over all dims); PyTorch's errors as `unique_dims`."""
    return None if dim is None else tuple(sorted(unique_dims(dim, ndim)))


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes, or PyTorch's error naming the mismatching sizes."""
    if a == b:
        return a
    ndim = max(len(a), len(b))
    pa = (1,) * (ndim - len(a)) + tuple(a)
    pb = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for index, (size_a, size_b) in enumerate(zip(pa, pb)):
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(_errors.BROADCAST.format(size_a=size_a, size_b=size_b, dim=index))
        out.append(size_b if size_a == 1 else size_a)
    return tuple(out)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one -1 in a requested view/reshape shape; PyTorch's error when it cannot fit."""
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if any(s < -1 for s in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(_errors.INVALID_VIEW_SHAPE.format(shape=list(shape), numel=numel))
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    elif known != numel:
        raise RuntimeError(_errors.INVALID_VIEW_SHAPE.format(shape=list(shape), numel=numel))
    return shape


def shape_args(args: tuple) -> tuple:
    """Accept `f(2, 3)`, `f((2, 3))` and `f([2, 3])` (and torch.Size) as the same shape."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)
