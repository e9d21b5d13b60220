"""torch._chunk_cat (FSDP's gradient packing): each tensor split into `num_chunks` equal chunks
along a dim (zero-padded to a multiple of it), the chunks laid side by side. Composed of
constant padding, reshape and cat, as PyTorch's decomposition is."""

from __future__ import annotations

from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from .nn.padding import constant_pad_nd
from .out_arg import takes_out
from .shape import _tensor_list, cat

__all__ = ["_chunk_cat"]


def _check(tensors: tuple, dim: int, num_chunks: int) -> int:
    """PyTorch's checks of _chunk_cat's arguments, in its order; the dim as an index."""
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    first = tensors[0]
    for t in tensors:
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t.dtype != first.dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if t.device != first.device:
            raise RuntimeError("_chunk_cat expects all inputs tensors on the same device")
    if all(t.ndim == first.ndim for t in tensors):
        dim = normalize_dim(dim, first.ndim)
    else:
        if dim < 0:
            raise RuntimeError(
                "_chunk_cat expects non-negative dim when input tensors have different ndims"
            )
        if any(dim >= t.ndim for t in tensors):
            raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if any(t.shape[:dim] != first.shape[:dim] for t in tensors):
        raise RuntimeError(
            "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors"
        )
    return dim


def _chunked(t: Tensor, dim: int, num_chunks: int) -> Tensor:
    """`t` zero-padded along `dim` to a multiple of `num_chunks`, viewed as
    (*t.shape[:dim], num_chunks, -1)."""
    size = t.shape[dim]
    padded = -(-size // num_chunks) * num_chunks
    if padded != size:
        t = constant_pad_nd(t, [0, 0] * (t.ndim - dim - 1) + [0, padded - size])
    return t.reshape(*t.shape[:dim], num_chunks, -1)


@takes_out
def _chunk_cat(tensors, dim: int, num_chunks: int) -> Tensor:
    """Each tensor's `num_chunks` chunks along `dim` (zero-padded to equal size), flattened
    past `dim` and concatenated chunk by chunk: shape (*leading, num_chunks, total).

    Example::

        >>> torch._chunk_cat([torch.arange(3.0), torch.arange(4.0)], 0, 2)
        tensor([[0., 1., 0., 1.],
                [2., 0., 2., 3.]])
    """
    tensors = _tensor_list("_chunk_cat", tensors)
    dim = _check(tensors, dim, num_chunks)
    return cat([_chunked(t, dim, num_chunks) for t in tensors], dim + 1)
