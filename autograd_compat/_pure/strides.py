"""PyTorch's strided layout on ints and tuples: a tensor's (sizes, strides, storage offset),
how each primitive view op changes it (`layout_op`, with ATen's `computeStride` and
`inferExpandGeometry` rules), and the questions asked of it (contiguous, overlapping, dense).

The arrays themselves have no strides (XLA picks its own physical layouts): `_tape/views`
keeps these layouts beside the values so `stride()`, `is_contiguous()`, `view` and in-place
overlap checks answer as PyTorch's do.
"""

from __future__ import annotations

import functools
import math


def contiguous_strides(shape: tuple) -> tuple:
    """The row-major strides of `shape` (a size-0 dimension counts as 1, as in PyTorch)."""
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return tuple(reversed(strides))


@functools.lru_cache(maxsize=1024)
def plain_layout(shape: tuple) -> tuple:
    """The layout (sizes, strides, offset) of a tensor that owns its memory: contiguous."""
    return shape, contiguous_strides(shape), 0


def is_contiguous(layout: tuple) -> bool:
    """PyTorch's is_contiguous(): strides are the row-major ones, ignoring size-1 dims."""
    shape, strides, _ = layout
    if 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def overlapping(layout: tuple) -> bool:
    """True when two elements share memory (a broadcast dim), as after expand()."""
    return any(stride == 0 and size > 1 for size, stride in zip(layout[0], layout[1]))


def dense(layout: tuple) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill one block of memory."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(layout[0], layout[1]) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


@functools.lru_cache(maxsize=1024)
def compute_stride(oldshape: tuple, oldstride: tuple, newshape: tuple):
    """Strides viewing `oldshape/oldstride` as `newshape`, or None (ATen's computeStride);
    cached: every view and reshape asks it, ~200 bytecodes a call, of a few shapes."""
    if not oldshape:
        return (1,) * len(newshape)
    numel = math.prod(oldshape)
    if numel == 0 and tuple(oldshape) == tuple(newshape):
        return tuple(oldstride)
    newstride = [0] * len(newshape)
    if numel == 0:
        for d in range(len(newshape) - 1, -1, -1):
            if d == len(newshape) - 1:
                newstride[d] = 1
            else:
                newstride[d] = max(newshape[d + 1], 1) * newstride[d + 1]
        return tuple(newstride)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (
            oldshape[tensor_d - 1] != 1
            and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def layout_op(layout: tuple, op: tuple) -> tuple:
    """The layout after one primitive view op, with PyTorch's stride rules."""
    shape, strides, offset = layout
    kind = op[0]
    if kind == "select":
        _, d, i = op
        return shape[:d] + shape[d + 1 :], strides[:d] + strides[d + 1 :], offset + i * strides[d]
    if kind == "slice":
        _, d, start, stop, step = op
        n = len(range(start, stop, step))
        return (
            shape[:d] + (n,) + shape[d + 1 :],
            strides[:d] + (strides[d] * step,) + strides[d + 1 :],
            offset + start * strides[d],
        )
    if kind == "unsqueeze":
        d = op[1]
        stride = 1 if d >= len(shape) else shape[d] * strides[d]
        return shape[:d] + (1,) + shape[d:], strides[:d] + (stride,) + strides[d:], offset
    if kind == "squeeze":
        keep = [i for i in range(len(shape)) if i not in op[1]]
        return tuple(shape[i] for i in keep), tuple(strides[i] for i in keep), offset
    if kind == "view":
        new = compute_stride(shape, strides, op[1])
        if new is None:  # callers check first; a copy would be contiguous
            new = contiguous_strides(op[1])
        return tuple(op[1]), new, offset
    if kind == "permute":
        return tuple(shape[i] for i in op[1]), tuple(strides[i] for i in op[1]), offset
    if kind == "expand":
        return expand_geometry(shape, strides, op[1]) + (offset,)
    if kind == "bitcast":  # counted in elements of the new dtype, as PyTorch does
        old, new = op[1].itemsize, op[2].itemsize
        if old == new:
            return layout
        scaled = tuple(s * old // new for s in strides[:-1])
        return (*shape[:-1], shape[-1] * old // new), (*scaled, 1), offset * old // new
    if kind == "diagonal":
        _, off, d1, d2 = op
        if off >= 0:
            n = max(min(shape[d1], shape[d2] - off), 0)
        else:
            n = max(min(shape[d1] + off, shape[d2]), 0)
        if n > 0:
            offset += off * strides[d2] if off >= 0 else -off * strides[d1]
        keep = [i for i in range(len(shape)) if i not in (d1, d2)]
        return (
            tuple(shape[i] for i in keep) + (n,),
            tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],),
            offset,
        )
    if kind == "unfold":
        _, d, size, step = op
        count = (shape[d] - size) // step + 1
        return (
            shape[:d] + (count,) + shape[d + 1 :] + (size,),
            strides[:d] + (strides[d] * step,) + strides[d + 1 :] + (strides[d],),
            offset,
        )
    if kind == "strided":  # as_strided: the layout it names, in root elements
        return op[1], op[2], op[3]
    raise ValueError(f"unknown view op {op!r}")


def expand_geometry(shape: tuple, strides: tuple, sizes: tuple, type_name: str = "") -> tuple:
    """The sizes and strides of `expand(sizes)` (ATen's inferExpandGeometry, with its errors):
    -1 keeps a size, broadcast dims get stride 0."""
    ndim, tensor_dim = len(sizes), len(shape)
    if ndim < tensor_dim:
        raise RuntimeError(
            f"expand(torch.{type_name}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({ndim}) must be greater or equal to the number of dimensions in the "
            f"tensor ({tensor_dim})"
        )
    out_sizes, out_strides = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tensor_dim - 1 - (ndim - 1 - i)
        size = shape[dim] if dim >= 0 else 1
        if dim >= 0:
            stride = strides[dim]
        else:
            stride = out_sizes[i + 1] * out_strides[i + 1] if i + 1 < ndim else 1
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(shape)}"
                )
            size, stride = target, 0
        out_sizes[i], out_strides[i] = size, stride
    return tuple(out_sizes), tuple(out_strides)
