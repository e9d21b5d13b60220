"""Strided views of memory: `as_strided`/`as_strided_` (a view with the sizes, strides and
storage offset given, over the memory of the input: its root value read flat) and
`as_strided_scatter` (a copy of the input with such a view of it replaced).

The arrays have no strides of their own (XLA lays them out), so a strided view is a gather
from the flat root value at the positions the layout names (`_tape/views.strided_positions`);
its gradient is the gather's vjp, a scatter-add, as in PyTorch's AsStridedBackward0. The
result is a view: writes through it reach the input and every other view of that memory.
"""

from __future__ import annotations

import jax.numpy as jnp

from .._pure.op import register
from .._pure.shapes import shape_args
from .._tape.args import check_inplace, tensor_arg
from .._tape.record import apply
from .._tape.views import (
    NO_STARTS,
    layout_of,
    make_view,
    scatter,
    shaped,
    strided_positions,
    view_of,
)
from . import shape as _shape

__all__ = ["as_strided", "as_strided_", "as_strided_scatter"]


def _as_strided(x, storage, starts, *, inner, ops):
    """The view `ops` of the memory `x` lies in: `storage` (its root value) with `x` written
    at its view `inner` (None: `x` is the whole memory, and `storage` is unused)."""
    memory = x if inner is None else scatter(storage, x, starts, inner)
    return view_of(memory, NO_STARTS, ops=ops)


def _as_strided_scatter(x, src, *, view):
    flat = jnp.reshape(x, (-1,)).at[strided_positions(view)].set(src.astype(x.dtype))
    return jnp.reshape(flat, x.shape)


def _strided_op_of(op_id: str, node: str):
    return register(op_id, _as_strided, node=node, saves="positions", shown_inputs=(0,))


_AS_STRIDED = _strided_op_of("as_strided", "AsStridedBackward0")
_AS_STRIDED_INPLACE = _strided_op_of("as_strided_", "AsStridedBackward1")
_AS_STRIDED_SCATTER = register(
    "as_strided_scatter", _as_strided_scatter, node="AsStridedScatterBackward0", saves="none"
)


def _strided_op(input, size, stride, storage_offset, storage_numel: int) -> tuple:
    """The view op ("strided", size, stride, offset), checked as PyTorch's setStorage does
    against a memory of `storage_numel` elements."""
    size = shape_args((size,), "as_strided")
    stride = shape_args((stride,), "as_strided", "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    offset = layout_of(input)[2] if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = input.element_size()
    extent = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if extent > storage_numel:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {extent * itemsize} are out "
            f"of bounds for storage of size {storage_numel * itemsize}"
        )
    return ("strided", size, stride, offset)


def _memory(input):
    """(root value or None, input's static view spec or None, its positions) of the memory
    `input` lies in; a tensor read as another dtype (`view(dtype)`) is refused."""
    rec = input._storage
    if rec is None or not rec.spec:
        return None, None, NO_STARTS
    root = rec.buffer.value
    if root.dtype != input._value.dtype:
        raise NotImplementedError(
            f"as_strided of a tensor viewed as another dtype ({input.dtype}) is not supported "
            "here: take the strided view first, then view(dtype)"
        )
    inner, starts = shaped(rec.spec)
    return root, inner, starts


def _strided_view(input, size, stride, storage_offset, recorded=_AS_STRIDED):
    """The strided view of `input`'s memory (recorded as `recorded`) and its view op."""
    root, inner, starts = _memory(input)
    numel = input.numel() if root is None else root.size
    op = _strided_op(input, size, stride, storage_offset, numel)
    storage = NO_STARTS if root is None else root
    out = apply(recorded, input, storage, starts, inner=inner, ops=(op,))
    return out, op


def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s memory with the given `size`, `stride` and `storage_offset` (in
    elements; default `input`'s own offset). The view may read memory outside `input` when
    `input` is itself a view of a larger tensor, as in PyTorch.

    Example::

        >>> torch.as_strided(torch.arange(9.), (2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    tensor_arg(input, "as_strided")
    out, op = _strided_view(input, size, stride, storage_offset)
    return make_view(input, out, (op,), op[1:], absolute=True)


def as_strided_(self, size, stride, storage_offset=None):
    """`as_strided` in place: `self` becomes the strided view of its memory."""
    check_inplace(self)
    out, op = _strided_view(self, size, stride, storage_offset, _AS_STRIDED_INPLACE)
    return _shape.rebind_view(self, out, (op,), absolute=True)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of `input` whose `as_strided(size, stride, storage_offset)` view holds `src`
    (a new tensor: no memory is shared).

    Example::

        >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
    """
    tensor_arg(input, "as_strided_scatter")
    tensor_arg(src, "as_strided_scatter", "src", 2)
    offset = 0 if storage_offset is None else storage_offset
    op = _strided_op(input, size, stride, offset, input.numel())
    if tuple(src.shape) != op[1]:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(op[1])}"
        )
    return apply(_AS_STRIDED_SCATTER, input, src, view=op)
