"""torch._unsafe_masked_index and torch._unsafe_masked_index_put_accumulate: advanced indexing
(one index tensor per leading dim) read or accumulated only where a mask is true, so that the
indices may be out of range where it is false. The indices are clamped into [-size, size - 1]
of their dims first, as in PyTorch, so an out-of-range entry reads or writes an edge element
that the mask then discards."""

from __future__ import annotations

import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from .._pure.op import register, scalar_input
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply

__all__ = ["_unsafe_masked_index", "_unsafe_masked_index_put_accumulate"]


def _clamped(x, indices) -> tuple:
    return tuple(jnp.clip(i, -n, n - 1) for i, n in zip(indices, x.shape))


def _masked_index_fn(x, mask, fill, *indices):
    fill = fill.astype(x.dtype)
    if x.size == 0:  # PyTorch's shape: the indices' broadcast shape, then 0 per other dim
        shape = jnp.broadcast_shapes(*(i.shape for i in indices))
        return jnp.full(shape + (0,) * (x.ndim - len(indices)), fill)
    return jnp.where(mask, x[_clamped(x, indices)], fill)


def _masked_index_put_fn(x, values, mask, *indices):
    if x.size == 0:
        return x
    return x.at[_clamped(x, indices)].add(jnp.where(mask, values, jnp.zeros((), values.dtype)))


_MASKED_INDEX = register(
    "_unsafe_masked_index",
    _masked_index_fn,
    node="UnsafeMaskedIndexBackward0",
    shown_inputs=(0,),
    saves="others",
)
_MASKED_INDEX_PUT = register(
    "_unsafe_masked_index_put_accumulate",
    _masked_index_put_fn,
    node="UnsafeMaskedIndexPutAccumulateBackward0",
    shown_inputs=(0, 1),
    saves="others",
)


def _index_args(input, mask, indices, name: str) -> list:
    """The checked index tensors; the mask as bool."""
    tensor_arg(input, name)
    tensor_arg(mask, name)
    indices = list(indices)
    for position, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {position} in argument 2, but got "
                f"{type(index).__name__}"
            )
        if index.dtype not in (_dtypes.int64, _dtypes.int32):
            raise RuntimeError(
                f"_unsafe_masked_index found unexpected index type {scalar_type_name(index.dtype)}"
            )
    if len(indices) > max(input.ndim, 1):
        raise IndexError(
            f"too many indices for tensor of dimension {input.ndim} (got {len(indices)})"
        )
    return indices


def _unsafe_masked_index(input, mask, indices, fill):
    """`where(mask, input[indices], fill)`, reading `input` only where `mask` is true (an index
    may be out of range where it is false)."""
    indices = _index_args(input, mask, indices, "_unsafe_masked_index")
    if isinstance(fill, Tensor):
        fill = fill.item()
    return apply(_MASKED_INDEX, input, mask.bool(), scalar_input(fill), *indices)


def _unsafe_masked_index_put_accumulate(input, mask, indices, values):
    """A copy of `input` with `values` added at `indices` where `mask` is true (an index may
    be out of range where it is false); repeated indices accumulate."""
    indices = _index_args(input, mask, indices, "_unsafe_masked_index_put_accumulate")
    tensor_arg(values, "_unsafe_masked_index_put_accumulate")
    if values.dtype != input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(input.dtype)} for the destination and "
            f"{scalar_type_name(values.dtype)} for the source."
        )
    return apply(_MASKED_INDEX_PUT, input, values, mask.bool(), *indices)
