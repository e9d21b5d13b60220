"""The splits beside shape.py's split/chunk/tensor_split: hsplit/vsplit/dsplit,
split_with_sizes and the unsafe_* splits (pieces that are new tensors, not views); and the
other parts of a tensor: `Tensor.unfold` (sliding windows, a view), narrow_copy (a narrowed
copy) and sum_to_size (the reduction that undoes a broadcast).
"""

from __future__ import annotations

from jax import lax

from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._pure.strides import contiguous_strides, expand_geometry
from .._state.tensor import Tensor
from .._tape.args import tensor_arg
from .._tape.record import apply
from . import reduce as _reduce
from . import shape as _shape
from .out_arg import takes_out

__all__ = [
    "dsplit",
    "hsplit",
    "narrow_copy",
    "split_with_sizes",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "vsplit",
]


def _directional_split(name: str, min_dims: int, dim: int, input, indices_or_sections):
    tensor_arg(input, name)
    if input.ndim < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {input.ndim} dimensions!"
        )
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {indices_or_sections}!"
            )
    return _shape.tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """Split along dimension 1 (dimension 0 of a vector) into equal sections or at indices."""
    dim = 0 if isinstance(input, Tensor) and input.ndim == 1 else 1
    return _directional_split("hsplit", 1, dim, input, indices_or_sections)


def vsplit(input, indices_or_sections):
    """Split along dimension 0 (tensors of at least 2 dimensions)."""
    return _directional_split("vsplit", 2, 0, input, indices_or_sections)


def dsplit(input, indices_or_sections):
    """Split along dimension 2 (tensors of at least 3 dimensions)."""
    return _directional_split("dsplit", 3, 2, input, indices_or_sections)


def split_with_sizes(input, split_sizes, dim: int = 0):
    """Split into pieces of the listed sizes along `dim` (views of `input`)."""
    tensor_arg(input, "split_with_sizes")
    if isinstance(split_sizes, int):
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not int"
        )
    return _shape.split(input, list(split_sizes), dim)


_UNSAFE_SPLIT = register("unsafe_split", _shape._split, node="UnsafeSplitBackward0", saves="none")
_UNSAFE_SPLIT_WITH_SIZES = register(
    "unsafe_split_with_sizes",
    _shape._split,
    node="UnsafeSplitWithSizesBackward0",
    saves="none",
)


def _unsafe_pieces(input, split_size_or_sections, dim: int) -> tuple:
    d, sizes, listed = _shape.split_plan(input, split_size_or_sections, dim)
    op = _UNSAFE_SPLIT_WITH_SIZES if listed else _UNSAFE_SPLIT
    return apply(op, input, sizes=sizes, dim=d)


def unsafe_split(tensor, split_size, dim: int = 0):
    """`split`, but the pieces are new tensors rather than views (PyTorch skips the view
    bookkeeping; here each piece owns its memory)."""
    tensor_arg(tensor, "unsafe_split", "tensor")
    return _unsafe_pieces(tensor, split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0):
    """`split_with_sizes`, the pieces new tensors rather than views."""
    tensor_arg(input, "unsafe_split_with_sizes")
    return _unsafe_pieces(input, list(split_sizes), dim)


def unsafe_chunk(input, chunks: int, dim: int = 0):
    """`chunk`, the pieces new tensors rather than views."""
    tensor_arg(input, "unsafe_chunk")
    d, step = _shape.chunk_plan(input, chunks, dim)
    if step == 0:
        return apply(_UNSAFE_SPLIT, input, sizes=(0,) * chunks, dim=d)
    return _unsafe_pieces(input, step, d)


_UNFOLD = _shape._view_op("unfold.dimension", "UnfoldBackward0")  # F.unfold holds "unfold"


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """`Tensor.unfold`: a view of every window of `size` elements along `dimension`, taken
    every `step` elements; the windows form a new last dimension."""
    d = normalize_dim(dimension, max(self.ndim, 1))
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.ndim == 0:
        return _shape._view(_UNFOLD, self, (("view", (1,)), ("slice", 0, 0, size, 1)))
    return _shape._view(_UNFOLD, self, (("unfold", d, size, step),))


_NARROW_COPY = register(
    "narrow_copy",
    lambda x, *, dim, start, length: lax.slice_in_dim(x, start, start + length, axis=dim),
    node="NarrowCopyBackward0",
    saves="none",
)


_NARROW_COPY_DIM = (
    "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
    "(Could this error message be improved?  If so, please report an enhancement request to "
    "PyTorch.)"
)


@takes_out
def narrow_copy(input, dim: int, start: int, length: int):
    """`narrow`, as a new tensor rather than a view."""
    tensor_arg(input, "narrow_copy")
    if isinstance(dim, int) and dim >= max(input.ndim, 1):
        raise RuntimeError(_NARROW_COPY_DIM)  # PyTorch's kernel asserts before it wraps dim
    _shape.narrow(input, dim, start, length)  # PyTorch's checks and errors
    d = normalize_dim(dim, input.ndim)
    start = _shape._as_int(start)
    start += input.shape[d] if start < 0 else 0
    return apply(_NARROW_COPY, input, dim=d, start=start, length=_shape._as_int(length))


def sum_to_size(self: Tensor, *size) -> Tensor:
    """Sum `self` down to `size`, a shape `self` can be broadcast from: leading dimensions
    are summed away and dimensions of size 1 in `size` keep one summed element."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    try:
        expand_geometry(size, contiguous_strides(size), shape)
    except RuntimeError:
        raise RuntimeError(
            f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}."
        ) from None
    lead = len(shape) - len(size)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1
    )
    if not size:  # PyTorch sums to a 0-d tensor whatever self is, a new tensor
        return _reduce.sum(self)
    if not dims:
        return self
    out = _reduce.sum(self, dims, keepdim=True)
    return _shape.view(out, size) if lead else out
