"""Histograms and bins: unique/unique_consecutive (the distinct values, with their counts and
inverse), bincount, histc and histogram (counts per bin; histogram's bins given by a count or
by their edges, with weights or as a density), searchsorted/bucketize (the bin of each value).

unique, unique_consecutive and bincount have output shapes that depend on the values: they run
eagerly on the host (numpy) and raise a DataDependentError under a jax trace, as `nonzero`
does; their results carry no gradient (PyTorch's backward through unique raises). histc has a
fixed output shape and is one pure (non-differentiable) JAX function, as are histogram and
histogramdd (histogram is its one-dimensional case), which find bins as PyTorch's kernel does.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from .out_arg import takes_out
from .reduce import return_types
from .shape import _needs_concrete

__all__ = [
    "bincount",
    "bucketize",
    "histc",
    "histogram",
    "histogramdd",
    "searchsorted",
    "unique",
    "unique_consecutive",
]


def _wrap(array: np.ndarray, dtype=None) -> Tensor:
    return Tensor._wrap(jnp.asarray(array if dtype is None else array.astype(dtype)))


# ----------------------------------------------------------------------------- unique
def _unique_result(values, inverse, counts, return_inverse: bool, return_counts: bool):
    """The values as a tensor, with the int64 inverse and counts tensors asked for."""
    out = [_wrap(values)]
    if return_inverse:
        out.append(_wrap(inverse, np.int64))
    if return_counts:
        out.append(_wrap(counts, np.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique(
    input,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):
    """The distinct elements (or, with `dim`, the distinct slices along `dim`) in ascending
    order, optionally with the inverse indices (int64, the shape of `input`, or of `dim`) and
    the counts. Eager only: the output size depends on the values."""
    tensor_arg(input, "unique")
    _needs_concrete("unique", input)
    array = np.asarray(input._value)
    if dim is None:
        values, inverse, counts = np.unique(
            array, return_inverse=True, return_counts=True, equal_nan=False
        )
        inverse = inverse.reshape(array.shape)
    else:
        d = normalize_dim(dim, input.ndim)
        values, inverse, counts = np.unique(array, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
    return _unique_result(
        values.astype(array.dtype), inverse, counts, return_inverse, return_counts
    )


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Each run of equal consecutive elements (or slices along `dim`) reduced to one, with the
    optional inverse indices and run lengths. Eager only."""
    tensor_arg(input, "unique_consecutive")
    _needs_concrete("unique_consecutive", input)
    array = np.asarray(input._value)
    d = 0 if dim is None else normalize_dim(dim, input.ndim)
    moved = np.moveaxis(array.reshape(-1) if dim is None else array, d, 0)
    n = moved.shape[0]
    if n == 0:
        starts = np.zeros(0, np.int64)
    else:
        rest = moved.reshape(n, -1)
        changed = np.any(rest[1:] != rest[:-1], axis=1)
        starts = np.concatenate([[0], np.flatnonzero(changed) + 1])
    values = np.moveaxis(moved[starts], 0, d)
    inverse = np.cumsum(np.isin(np.arange(n), starts)) - 1
    counts = np.diff(np.append(starts, n))
    if dim is None:
        inverse = inverse.reshape(array.shape)
    return _unique_result(
        values.astype(array.dtype), inverse, counts, return_inverse, return_counts
    )


# ----------------------------------------------------------------------------- bincount, histc
def bincount(input, weights=None, minlength: int = 0):
    """How often each value 0..max occurs in the 1-D non-negative integer `input` (the sum of
    `weights` at those positions, if given), at least `minlength` bins. Eager only."""
    tensor_arg(input, "bincount")
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is _dtypes.bool:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    _needs_concrete("bincount", input, weights)
    array = np.asarray(input._value)
    if array.ndim != 1 or (array.size and array.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(np.bincount(array, minlength=minlength), np.int64)
    tensor_arg(weights, "bincount", "weights", 2)
    if weights.ndim != 1 or weights.shape[0] != array.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = np.asarray(weights._value)
    dtype = w.dtype if weights.dtype.is_floating_point else np.float64
    return _wrap(np.bincount(array, w.astype(np.float64), minlength=minlength), dtype)


def _histc(x, *, bins, low, high):
    """PyTorch's histc: `bins` equal bins over [low, high] (the data's range when both are 0),
    the last bin closed; elements outside (and NaN) are not counted."""
    if low == high == 0.0 and x.size:
        lo, hi = jnp.min(x), jnp.max(x)
    else:
        lo, hi = jnp.asarray(low, x.dtype), jnp.asarray(high, x.dtype)
    lo, hi = jnp.where(lo == hi, lo - 1, lo), jnp.where(lo == hi, hi + 1, hi)
    flat = x.reshape(-1)
    position = jnp.floor((flat - lo) * bins / (hi - lo)).astype(jnp.int32)
    position = jnp.where(flat == hi, bins - 1, position)
    inside = (flat >= lo) & (flat <= hi)
    counts = jnp.zeros(bins, x.dtype).at[jnp.where(inside, position, bins)].add(1, mode="drop")
    return counts


_HISTC = register("histc", _histc, node="HistcBackward0", differentiable=False)


@takes_out
def histc(input, bins: int = 100, min=0, max=0):
    """The histogram of `input` in `bins` equal bins over [min, max] (the data's range when
    both are 0), as a tensor of `input`'s floating dtype."""
    tensor_arg(input, "histc")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if float(min) > float(max):
        raise RuntimeError("torch.histc: max must be larger than min")
    return apply(_HISTC, input, bins=int(bins), low=float(min), high=float(max))


# ----------------------------------------------------------------------------- histogram
def _upper_bound(edges, values, first, last):
    """The index of the first of `edges[first:last]` greater than each value, by the binary
    search of C++'s std::upper_bound (PyTorch's kernel), step for step: its answer for edges
    that are not sorted is PyTorch's too."""
    length = last - first
    for _ in range(int(edges.shape[0]).bit_length()):
        half = length // 2
        middle = first + half
        active = length > 0
        below = values < edges[jnp.clip(middle, 0, edges.shape[0] - 1)]
        first = jnp.where(active & ~below, middle + 1, first)
        length = jnp.where(active, jnp.where(below, half, length - half - 1), length)
    return first


def _bin_positions(points, edges, uniform):
    """Each point's bin along each dim (n_points, dims), and whether it falls in every range;
    `uniform`: the edges are equal steps, found by PyTorch's interpolation and a local search."""
    positions, inside = [], jnp.ones(points.shape[0], bool)
    for d, e in enumerate(edges):
        x = points[:, d]
        count = e.shape[0]
        left, right = e[0], e[-1]
        inside = inside & (x >= left) & (x <= right)
        if uniform:
            guess = ((x - left) * (count - 1) / (right - left)).astype(jnp.int64)
            first, last = jnp.maximum(guess - 1, 0), jnp.minimum(guess + 2, count)
        else:
            first, last = jnp.zeros_like(x, jnp.int64), jnp.full(x.shape, count, jnp.int64)
        position = _upper_bound(e, x, first, last) - 1
        position = jnp.where(position == count - 1, position - 1, position)
        inside = inside & (position >= 0)
        positions.append(position)
    return positions, inside


def _histogramdd_counts(x, edges, weight, density, uniform):
    """The histogram of the points `x` (..., dims) over the bins `edges` (one 1-D array per
    dim), weighted and as a density as PyTorch's kernel computes them."""
    dims = len(edges)
    points = x.reshape(-1, dims)
    shape = tuple(e.shape[0] - 1 for e in edges)
    positions, inside = _bin_positions(points, edges, uniform)
    flat = jnp.zeros(points.shape[0], jnp.int64)
    for position, size in zip(positions, shape):
        flat = flat * size + position
    amounts = jnp.ones(points.shape[0], x.dtype) if weight is None else weight.reshape(-1)
    total = int(np.prod(shape))
    hist = jnp.zeros(total, x.dtype).at[jnp.where(inside, flat, total)].add(amounts, mode="drop")
    hist = hist.reshape(shape)
    if density:
        hist = hist / jnp.sum(hist)
        for d, e in enumerate(edges):
            hist = hist / jnp.diff(e).reshape((1,) * d + (-1,) + (1,) * (dims - d - 1))
    return hist


def _uniform_edges(x, bins, ranges):
    """Per dim, `bins[d] + 1` equal steps over `ranges[d]` (the points' range when None;
    [0, 1] for no points), widened by 0.5 on both sides where it is a single value."""
    points = x.reshape(-1, len(bins))
    edges = []
    for d, count in enumerate(bins):
        if ranges is not None:
            lo, hi = (jnp.asarray(v, x.dtype) for v in ranges[d])
        elif points.shape[0]:
            lo, hi = jnp.min(points[:, d]), jnp.max(points[:, d])
        else:
            lo, hi = jnp.zeros((), x.dtype), jnp.ones((), x.dtype)
        same = lo == hi
        lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
        edges.append(jnp.linspace(lo, hi, count + 1, dtype=x.dtype))
    return edges


def _histogramdd_fn(x, *weight, bins, ranges, density):
    edges = _uniform_edges(x, bins, ranges)
    hist = _histogramdd_counts(x, edges, weight[0] if weight else None, density, True)
    return (hist, *edges)


def _histogramdd_edges_fn(x, *arrays, dims, density):
    edges = [e.astype(x.dtype) for e in arrays[:dims]]
    weight = arrays[dims] if len(arrays) > dims else None
    return (_histogramdd_counts(x, edges, weight, density, False), *edges)


def _uniform_fn(x, *weight, bins, low, high, density):
    ranges = None if low is None else ((low, high),)
    return _histogramdd_fn(x.reshape(-1, 1), *weight, bins=(bins,), ranges=ranges, density=density)


def _edges_fn(x, edges, *weight, density):
    return _histogramdd_edges_fn(x.reshape(-1, 1), edges, *weight, dims=1, density=density)


_UNIFORM = register("histogram", _uniform_fn, node="HistogramBackward0", differentiable=False)
_EDGES = register("histogram.bin_ct", _edges_fn, node="HistogramBackward0", differentiable=False)
_DD = register("histogramdd", _histogramdd_fn, node="HistogramddBackward0", differentiable=False)
_DD_EDGES = register(
    "histogramdd.bin_edges",
    _histogramdd_edges_fn,
    node="HistogramddBackward0",
    differentiable=False,
)


@takes_out
def histogram(input, bins=100, *, range=None, weight=None, density: bool = False):
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


def _type_meta(x: Tensor) -> str:
    """The C++ type name PyTorch's histogramdd messages print ("float", "double")."""
    return scalar_type_name(x.dtype).lower()


def _histogramdd_checks(input, dims: int, weight) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if weight is None:
        return
    fname = "torch.histogramdd"
    if tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(
            f"{fname}: if weight tensor is provided it should have the same shape as the input "
            f"tensor excluding its innermost dimension, but got input with shape "
            f"{list(input.shape)} and weight with shape {list(weight.shape)}"
        )
    if weight.dtype is not input.dtype:
        raise RuntimeError(
            f"{fname}: if weight tensor is provided, input tensor and weight tensor should have "
            f"the same dtype, but got input({_type_meta(input)}), and weight({_type_meta(weight)})"
        )


def _histogramdd_ranges(range, dims: int) -> tuple | None:
    """`range` ([min0, max0, min1, max1, ...]) as one (min, max) pair per dim, checked."""
    if range is None:
        return None
    values = [float(v) for v in range]
    if len(values) != 2 * dims:
        raise RuntimeError(
            f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
            f"{2 * dims} elements, but got {len(values)}"
        )
    pairs = tuple(zip(values[::2], values[1::2]))
    for d, (low, high) in enumerate(pairs):
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{low:g}, {high:g}] is not finite"
            )
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max "
                f"{high:g} for dimension {d}"
            )
    return pairs


def histogramdd(input, bins, *, range=None, weight=None, density: bool = False):
    """The multi-dimensional histogram of the points in `input` (..., D): `bins` is a count of
    equal bins for every dim, one count per dim (over `range`, the points' range by default),
    or one 1-D tensor of edges per dim. Returns `(hist, bin_edges)`, hist of shape (bins...).

    Example::

        >>> torch.histogramdd(torch.tensor([[0.0, 1.0], [1.0, 1.0]]), [2, 1]).hist
        tensor([[1.],
                [1.]])
    """
    tensor_arg(input, "histogramdd")
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    dims = input.shape[-1]
    _histogramdd_checks(input, dims, weight)
    extra = [] if weight is None else [weight]
    if isinstance(bins, int):
        bins = [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    if bins and isinstance(bins[0], Tensor):
        for d, edges in enumerate(bins):
            if edges.ndim != 1:
                raise RuntimeError(
                    f"torch.histogramdd: bins tensor should have one dimension, but got "
                    f"{edges.ndim} dimensions in the bins tensor for dimension {d}"
                )
            if edges.numel() < 2:
                raise RuntimeError(
                    f"torch.histogram(): bins must be > 0, but got {edges.numel() - 1} for "
                    f"dimension {d}"
                )
            if edges.dtype is not input.dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {_type_meta(input)} and bins for "
                    f"dimension {d} with dtype {_type_meta(edges)}"
                )
        out = apply(_DD_EDGES, input, *bins, *extra, dims=dims, density=bool(density))
    else:
        for d, count in enumerate(bins):
            if count <= 0:
                raise RuntimeError(
                    f"torch.histogram(): bins must be > 0, but got {count} for dimension {d}"
                )
        ranges = _histogramdd_ranges(range, dims)
        counts = tuple(int(c) for c in bins)
        out = apply(_DD, input, *extra, bins=counts, ranges=ranges, density=bool(density))
    return return_types.histogramdd(out[0], tuple(out[1:]))


# ----------------------------------------------------------------------------- searchsorted
def _searchsorted(sorted_sequence, values, *, right, dtype):
    """Insertion positions of `values` in each row of `sorted_sequence` (a 1-D sequence is
    shared by all values)."""
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        return jnp.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    flat = values.reshape(rows.shape[0], -1)
    found = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(rows, flat)
    return found.reshape(values.shape).astype(dtype)


_SEARCHSORTED = register(
    "searchsorted", _searchsorted, node="SearchsortedBackward0", differentiable=False
)


@takes_out
def searchsorted(
    sorted_sequence,
    values,
    *,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
):
    """For each value, the index where it would be inserted into the innermost dim of
    `sorted_sequence` to keep it sorted (after equal elements when `right` or side="right")."""
    tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    if not isinstance(values, Tensor):
        values = Tensor._wrap(jnp.asarray(values, sorted_sequence._stored.dtype))
    if sorted_sequence.ndim > 1 and (
        values.ndim != sorted_sequence.ndim
        or tuple(values.shape[:-1]) != tuple(sorted_sequence.shape[:-1])
    ):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
            f"{list(values.shape)}"
        )
    dtype = jnp.int32 if out_int32 else jnp.int64
    return apply(_SEARCHSORTED, sorted_sequence, values, right=bool(right), dtype=dtype)


@takes_out
def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False):
    """The index of the bucket of each element: i with boundaries[i-1] < x <= boundaries[i]
    (boundaries[i-1] <= x < boundaries[i] when `right`)."""
    tensor_arg(boundaries, "bucketize", "boundaries", 2)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
