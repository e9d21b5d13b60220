"""Max unpooling: each value written back to the position its max pooling recorded, zeros
elsewhere (the partial inverse of max_pool with return_indices)."""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp

from ..._pure import dtypes as _dtypes
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ._common import _ntuple, _tensor, register
from .loss import host_ints

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def _scatter(values, positions, size: int):
    """Each row's values written at its positions of a zero row of `size`."""
    rows = jnp.arange(values.shape[0])[:, None]
    return jnp.zeros((values.shape[0], size), values.dtype).at[rows, positions].set(values)


@_scatter.defjvp
def _scatter_jvp(size, primals, tangents):
    """The tangent adds where positions repeat (overlapping windows), so the gradient, its
    transpose, is PyTorch's: every input reads its position's output gradient."""
    values, positions = primals
    rows = jnp.arange(values.shape[0])[:, None]
    zeros = jnp.zeros((values.shape[0], size), values.dtype)
    return _scatter(values, positions, size), zeros.at[rows, positions].add(tangents[0])


def _max_unpool_fn(x, indices, *, out):
    lead = x.shape[: x.ndim - len(out)]
    rows = math.prod(lead)
    positions = indices.reshape(rows, -1).astype(jnp.int32)
    return _scatter(x.reshape(rows, -1), positions, math.prod(out)).reshape(*lead, *out)


_MAX_UNPOOL = {
    2: register("max_unpool2d", _max_unpool_fn, node="MaxUnpool2DBackward0", shown_inputs=(0,)),
    3: register("max_unpool3d", _max_unpool_fn, node="MaxUnpool3DBackward0", shown_inputs=(0,)),
}


def _output_size(input, kernel, stride, padding, output_size) -> tuple:
    """PyTorch's `_unpool_output_size`: the default (in - 1) * stride + kernel - 2 * padding,
    or `output_size` (its last len(kernel) entries) within a stride of it."""
    nd = len(kernel)
    default = [
        (tuple(input.shape)[-nd + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
        for d in range(nd)
    ]
    if output_size is None:
        size = default
    else:
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(
                f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it "
                f"has a length of '{len(output_size)}'"
            )
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {low} and '
                    f"{high})"
                )
        size = output_size
    for d in range(nd):
        if size[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size[d]}"
            )
    return tuple(int(s) for s in size)


def _max_unpool(input, indices, out: tuple):
    """The unpooling op of len(out) spatial dims, after PyTorch's checks of the indices."""
    nd = len(out)
    _tensor(input, f"max_unpool{nd}d")
    if indices.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {scalar_type_name(indices.dtype)}"
        )
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a "
            f"tensor with {input.ndim} dimensions."
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    values = host_ints(indices)
    if values is not None:
        bad = values[(values < 0) | (values >= math.prod(out))]
        if bad.size:
            raise RuntimeError(
                f"Found an invalid max index: {int(bad.flat[0])} (output volumes are of size "
                f"{'x'.join(map(str, out))})"
            )
    return apply(_MAX_UNPOOL[nd], input, indices, out=out)


def _arguments(nd, input, kernel_size, stride, padding, output_size) -> tuple:
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None else _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    return _output_size(input, kernel, stride, padding, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: values back at their indices, zeros elsewhere."""
    out = _arguments(1, input, kernel_size, stride, padding, output_size)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), (*out, 1)).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: values back at their indices, zeros elsewhere.

    Example::

        >>> y, i = F.max_pool2d(torch.arange(16.0).view(1, 1, 4, 4), 2, return_indices=True)
        >>> F.max_unpool2d(y, i, 2)[0, 0, :2]
        tensor([[0., 0., 0., 0.],
                [0., 5., 0., 7.]])
    """
    out = _arguments(2, input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, out)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: values back at their indices, zeros elsewhere."""
    out = _arguments(3, input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, out)
