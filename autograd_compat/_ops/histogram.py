"""torch.histogram: counts (or weights, or a density) of a float tensor's elements in bins
given by their number (equal bins over a range, the data's by default) or by their edges.
Each element falls in the bin whose left edge is the last one at or below it, the last bin
closed; elements outside the edges (and NaN) are not counted. Not differentiable."""

from __future__ import annotations

import jax.numpy as jnp

from .._pure.op import register
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from .reduce import return_types

__all__ = ["histogram"]


def _counts(x, edges, weight, density):
    bins = edges.shape[0] - 1
    flat = x.reshape(-1)
    position = jnp.searchsorted(edges, flat, side="right") - 1
    position = jnp.where(flat == edges[-1], bins - 1, position)
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    amounts = jnp.ones_like(flat) if weight is None else weight.reshape(-1).astype(x.dtype)
    target = jnp.where(inside, position, bins)
    hist = jnp.zeros(bins, x.dtype).at[target].add(amounts, mode="drop")
    if density:
        hist = hist / (jnp.sum(hist) * jnp.diff(edges))
    return hist


def _uniform_fn(x, *weight, bins, low, high, density):
    if low is None:
        lo, hi = (jnp.min(x), jnp.max(x)) if x.size else (jnp.zeros((), x.dtype),) * 2
    else:
        lo, hi = jnp.asarray(low, x.dtype), jnp.asarray(high, x.dtype)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
    edges = jnp.linspace(lo, hi, bins + 1, dtype=x.dtype)
    return _counts(x, edges, weight[0] if weight else None, density), edges


def _edges_fn(x, edges, *weight, density):
    edges = edges.astype(x.dtype)
    return _counts(x, edges, weight[0] if weight else None, density), edges


_UNIFORM = register("histogram", _uniform_fn, node="HistogramBackward0", differentiable=False)
_EDGES = register("histogram.bin_ct", _edges_fn, node="HistogramBackward0", differentiable=False)


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False, out=None):
    """The histogram of `input` in `bins` (a count of equal bins over `range`, the data's
    range by default, or a 1-D tensor of increasing edges): (hist, bin_edges).

    Example::

        >>> torch.histogram(torch.tensor([1.0, 2.0, 1.0, 4.0]), 3)
        torch.return_types.histogram(
        hist=tensor([2., 1., 1.]),
        bin_edges=tensor([1., 2., 3., 4.]))
    """
    tensor_arg(input, "histogram")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    extra = [] if weight is None else [weight]
    if isinstance(bins, Tensor):
        hist, edges = apply(_EDGES, input, bins, *extra, density=bool(density))
        return return_types.histogram(hist, edges)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low = high = None
    if range is not None:
        low, high = float(range[0]), float(range[1])
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max "
                f"{high:g} for dimension 0"
            )
    hist, edges = apply(
        _UNIFORM, input, *extra, bins=int(bins), low=low, high=high, density=bool(density)
    )
    return return_types.histogram(hist, edges)
