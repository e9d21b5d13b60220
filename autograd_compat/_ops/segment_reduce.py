"""`torch.segment_reduce` (also `torch._segment_reduce`): a reduction of consecutive segments
along one axis, the segments given by their lengths or their offsets.

One pure function: a (segments x positions) mask from the offsets, the masked reduction over
the positions, then `initial` (which takes part in every segment's reduction, as in
PyTorch's kernel: a mean adds it before dividing by the length). The gradient is jax.vjp of
it: the mean's is 1/length, the prod's the product of the others; a max or min shares the
gradient among tied maxima, where PyTorch divides only positive gradients among them.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply

__all__ = ["_segment_reduce", "segment_reduce"]

_REDUCTIONS = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "amax": "max"}
_REDUCTIONS.update({"min": "min", "amin": "min"})


def _segment_reduce_fn(x, bounds, *, reduce: str, axis: int, initial, given: str):
    """Segments of `x` along `axis`; `bounds` are the lengths (..., S) or offsets (..., S+1)."""
    if given == "lengths":
        zero = jnp.zeros(bounds.shape[:-1] + (1,), bounds.dtype)
        bounds = jnp.concatenate([zero, jnp.cumsum(bounds, axis=-1)], axis=-1)
    starts, ends = bounds[..., :-1, None], bounds[..., 1:, None]  # (..., S, 1)
    position = jnp.arange(x.shape[axis])
    trailing = (1,) * (x.ndim - axis - 1)
    inside = (starts <= position) & (position < ends)  # (..., S, positions)
    mask = inside.reshape(inside.shape + trailing)
    data = jnp.expand_dims(x, axis)  # (..., 1, positions, ...)
    length = (ends - starts)[..., 0]
    length = length.reshape(length.shape + trailing)
    if reduce in ("sum", "mean"):
        out = jnp.sum(jnp.where(mask, data, 0), axis=axis + 1) + (initial or 0)
        if reduce == "mean":
            empty = initial if initial is not None else jnp.nan
            out = jnp.where(length > 0, out / jnp.maximum(length, 1), empty)
    elif reduce == "prod":
        start = 1 if initial is None else initial
        out = jnp.prod(jnp.where(mask, data, 1), axis=axis + 1) * start
    else:
        pick = jnp.max if reduce == "max" else jnp.min
        both = jnp.maximum if reduce == "max" else jnp.minimum
        fill = -jnp.inf if reduce == "max" else jnp.inf
        out = pick(jnp.where(mask, data, fill), axis=axis + 1)
        if initial is not None:
            out = both(out, initial)
    return out.astype(x.dtype)


_SEGMENT_REDUCE = register(
    "segment_reduce", _segment_reduce_fn, node="SegmentReduceBackward0", shown_inputs=(0,)
)


def _check_values(bounds, given: str, size: int) -> None:
    """PyTorch's checks of the segments (skipped with `unsafe=True`)."""
    values = np.asarray(bounds._value)
    lengths = values if given == "lengths" else np.diff(values, axis=-1)
    if (lengths < 0).any():
        raise RuntimeError("lengths contains negative value!")
    if (lengths.sum(axis=-1) != size).any():
        raise RuntimeError(
            "segment_reduce(): Expected all rows of lengths along axis to sum to "
            "data.size(lengths.dim()-1) when !unsafe."
        )


def segment_reduce(
    data,
    reduce: str,
    *,
    lengths=None,
    indices=None,
    offsets=None,
    axis: int = 0,
    unsafe: bool = False,
    initial=None,
):
    """Reduce (`"sum"`, `"mean"`, `"prod"`, `"max"`/`"amax"`, `"min"`/`"amin"`) the
    consecutive segments of `data` along `axis`, given by `lengths` (shape
    `data.shape[:axis] + (S,)`) or `offsets` (`(S + 1,)` last); an empty segment gives
    `initial`, else the reduction's identity (NaN for a mean).

    Example::

        >>> data = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
        >>> torch.segment_reduce(data, "max", lengths=torch.tensor([2, 0, 3]))
        tensor([2., -inf, 5.])
    """
    tensor_arg(data, "segment_reduce", "data")
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    given = "lengths" if lengths is not None else "offsets"
    bounds = lengths if lengths is not None else offsets
    if bounds.dtype.is_floating_point or bounds.dtype.is_complex:
        raise NotImplementedError(
            f'"_segment_reduce_{given}_cpu_kernel1" not implemented for '
            f"'{scalar_type_name(bounds.dtype)}'"
        )
    axis = normalize_dim(axis, data.ndim)
    if not unsafe:
        _check_values(bounds, given, data.shape[axis])
    return apply(
        _SEGMENT_REDUCE,
        data,
        bounds,
        reduce=_REDUCTIONS[reduce],
        axis=axis,
        initial=None if initial is None else float(initial),
        given=given,
    )


_segment_reduce = segment_reduce
