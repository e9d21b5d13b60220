"""Order statistics: mode (the most frequent value), nanmedian (the lower median ignoring NaN),
aminmax (min and max together) and msort (sorted along the first dim).

mode and nanmedian gather the value at the index they pick, so the gradient flows there only.
"""

from __future__ import annotations

import jax.numpy as jnp

from .._pure.op import register
from .._tape.args import numpy_names, tensor_arg
from .._tape.record import apply
from .out_arg import takes_out
from .reduce import (
    _evenly_distributed,
    amax,
    amin,
    gathered_at,
    median,
    pick_along,
    return_types,
    sort,
)

__all__ = ["aminmax", "mode", "msort", "nanmedian"]


# ----------------------------------------------------------------------------- mode, nanmedian
def _mode_index(x, dim):
    """The last index of the most frequent value along `dim` (the smallest such value on a
    tie in counts), as PyTorch's CPU kernel."""
    a = jnp.moveaxis(x, dim, -1)
    counts = jnp.sum(a[..., :, None] == a[..., None, :], axis=-1)
    frequent = counts == jnp.max(counts, axis=-1, keepdims=True)
    smallest = jnp.min(jnp.where(frequent, a, jnp.inf), axis=-1, keepdims=True)
    n = a.shape[-1]
    last = n - 1 - jnp.argmax(jnp.flip(a == smallest, -1), axis=-1, keepdims=True)
    return jnp.moveaxis(last, -1, dim)


_MODE = register("mode", gathered_at(_mode_index), node="ModeBackward0")


@takes_out
@numpy_names
def mode(input, dim: int = -1, keepdim: bool = False):
    """`(values, indices)`: the most frequent value along `dim` (the smallest on a tie) and
    the last index where it occurs."""
    tensor_arg(input, "mode")
    return return_types.mode(*pick_along("mode", _MODE, input, dim, keepdim))


def _nan_median_index(x, dim):
    """The index of the lower median of the non-NaN elements along `dim` (a NaN's where all
    are NaN)."""
    order = jnp.argsort(x, axis=dim, stable=True)  # NaN sorts last
    count = jnp.sum(~jnp.isnan(x), axis=dim, keepdims=True)
    position = jnp.maximum((count - 1) // 2, 0)
    return jnp.take_along_axis(order, position, axis=dim)


def _nanmedian_all(x):
    if x.size == 0:
        return jnp.full((), jnp.nan, x.dtype)
    flat = x.reshape(-1)
    return _evenly_distributed(flat, flat[_nan_median_index(flat, 0)[0]])


_NANMEDIAN_ALL = register("nanmedian", _nanmedian_all, node="NanmedianBackward0")
_NANMEDIAN_DIM = register(
    "nanmedian.dim", gathered_at(_nan_median_index), node="NanmedianBackward1"
)


@takes_out
@numpy_names
def nanmedian(input, dim=None, keepdim: bool = False):
    """The lower median ignoring NaN (NaN only where all elements are NaN); with `dim`,
    `(values, indices)` as `median`."""
    tensor_arg(input, "nanmedian")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # integers have no NaN: the same as median
        if dim is None:
            return median(input)
        return return_types.nanmedian(*median(input, dim, keepdim))
    if dim is None:
        return apply(_NANMEDIAN_ALL, input)
    return return_types.nanmedian(*pick_along("nanmedian", _NANMEDIAN_DIM, input, dim, keepdim))


# ----------------------------------------------------------------------------- aminmax, msort
@takes_out
@numpy_names
def aminmax(input, *, dim=None, keepdim: bool = False):
    """`(min, max)` over all elements or along `dim`."""
    tensor_arg(input, "aminmax")
    dims = () if dim is None else dim
    return return_types.aminmax(amin(input, dims, keepdim), amax(input, dims, keepdim))


@takes_out
def msort(input):
    """`input` sorted along its first dim: `sort(input, dim=0).values`."""
    tensor_arg(input, "msort")
    return sort(input, 0).values
