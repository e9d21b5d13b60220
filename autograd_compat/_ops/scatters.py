"""Writes into a copy of a tensor: the view scatters (select/slice/diagonal_scatter, the inverse
of a view), scatter_reduce and index_reduce (sum, prod, mean, amax, amin of the written
values, optionally with the old value), index_put with accumulation, and put (flat indices).

Every one is a pure JAX function, so its gradient is jax.vjp: amax/amin share the gradient
evenly between the tied elements (JAX's scatter-max rule is PyTorch's), and prod runs as a
segmented product scan (exact at zeros; XLA's scatter-multiply has no gradient).
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._pure.strides import layout_op, plain_layout
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace, numpy_names, scalar_type_name, tensor_arg
from .._tape.record import apply
from .._tape.views import scatter, shaped
from . import index as _index

__all__ = [
    "diagonal_scatter",
    "index_put",
    "index_put_",
    "index_reduce",
    "put",
    "scatter_reduce",
    "select_scatter",
    "slice_scatter",
]


# ----------------------------------------------------------------------------- view scatters
def _view_scatter(x, src, starts, *, ops):
    return scatter(x, src.astype(x.dtype), starts, ops)


def _view_scatter_op(op_id: str, node: str):
    return register(op_id, _view_scatter, node=node, saves="positions", shown_inputs=(0, 1))


_SELECT_SCATTER = _view_scatter_op("select_scatter", "SelectScatterBackward0")
_SLICE_SCATTER = _view_scatter_op("slice_scatter", "SliceScatterBackward0")
_DIAGONAL_SCATTER = _view_scatter_op("diagonal_scatter", "DiagonalScatterBackward0")


def _scatter_into_view(op, input: Tensor, src, view_op: tuple, fname: str) -> Tensor:
    """`input` with the elements its view `view_op` sees replaced by `src` (same shape)."""
    tensor_arg(src, fname, "src", 2)
    shape = tuple(input.shape)
    expected = layout_op(plain_layout(shape), view_op)[0]
    if tuple(src.shape) != expected:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(expected)}"
        )
    static, starts = shaped((view_op,))
    return apply(op, input, src, starts, ops=static)


def select_scatter(input, src, dim: int, index: int):
    """A copy of `input` with `input.select(dim, index)` replaced by `src`."""
    tensor_arg(input, "select_scatter")
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    return _scatter_into_view(
        _SELECT_SCATTER, input, src, ("select", d, index % size), "select_scatter"
    )


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    """A copy of `input` with the slice `start:end:step` along `dim` replaced by `src`."""
    tensor_arg(input, "slice_scatter")
    d = normalize_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, stop, _ = slice(start, end).indices(input.shape[d])
    stop = max(stop, start)
    return _scatter_into_view(
        _SLICE_SCATTER, input, src, ("slice", d, start, stop, step), "slice_scatter"
    )


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """A copy of `input` with `input.diagonal(offset, dim1, dim2)` replaced by `src`."""
    tensor_arg(input, "diagonal_scatter")
    d1, d2 = normalize_dim(dim1, input.ndim), normalize_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter_into_view(
        _DIAGONAL_SCATTER, input, src, ("diagonal", int(offset), d1, d2), "diagonal_scatter"
    )


# ----------------------------------------------------------------------------- scatter_reduce
def _lowest(dtype, highest: bool):
    """The identity of amax (highest=False) or amin (highest=True) in `dtype`."""
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.array(np.inf if highest else -np.inf, dtype)
    if dtype == jnp.bool_:
        return jnp.array(highest, dtype)
    info = jnp.iinfo(dtype)
    return jnp.array(info.max if highest else info.min, dtype)


def _segment_prod(x, where, src, include_self: bool):
    """`x` with each written position replaced by the product of the values written there
    (and its old value when `include_self`): a stable sort by position, then a segmented
    product scan, whose gradient is exact where values are zero."""
    n = x.size
    targets = jnp.ravel_multi_index(
        tuple(jnp.broadcast_to(w, src.shape) for w in where), x.shape, mode="clip"
    ).reshape(-1)
    values = src.reshape(-1)
    if include_self:
        targets = jnp.concatenate([jnp.arange(n, dtype=targets.dtype), targets])
        values = jnp.concatenate([x.reshape(-1), values])
    order = jnp.argsort(targets, stable=True)
    targets, values = targets[order], values[order]
    starts = jnp.concatenate([jnp.ones(1, bool), targets[1:] != targets[:-1]])
    lasts = jnp.concatenate([targets[1:] != targets[:-1], jnp.ones(1, bool)])

    def combine(left, right):
        return left[0] | right[0], jnp.where(right[0], right[1], left[1] * right[1])

    _, products = lax.associative_scan(combine, (starts, values))
    slots = jnp.where(lasts, targets, n)  # the non-final partial products go to a spare slot
    flat = jnp.concatenate([x.reshape(-1), jnp.zeros(1, x.dtype)])
    return flat.at[slots].set(products)[:n].reshape(x.shape)


def _reduce_at(x, where, src, reduce: str, include_self: bool):
    """`x` with the values `src` reduced into the positions `where` (index arrays)."""
    src = src.astype(x.dtype)
    if reduce == "prod":
        return _segment_prod(x, where, src, include_self)
    if reduce in ("amax", "amin"):
        base = x if include_self else x.at[where].set(_lowest(x.dtype, reduce == "amin"))
        return base.at[where].max(src) if reduce == "amax" else base.at[where].min(src)
    base = x if include_self else x.at[where].set(0)
    total = base.at[where].add(src)
    if reduce == "sum":
        return total
    count = jnp.zeros(x.shape, x.dtype).at[where].add(jnp.ones_like(src))
    count = jnp.maximum(count + (1 if include_self else 0), 1)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return total / count
    return jnp.floor_divide(total, count)


def _scatter_reduce(x, index, src, *, dim, reduce, include_self):
    if x.ndim == 0:  # a 0-d tensor acts as a 1-element vector (and so do index and src)
        x, index, src = x.reshape(1), index.reshape(-1), src.reshape(-1)
        return _scatter_reduce(x, index, src, dim=0, reduce=reduce, include_self=include_self)[0]
    src = src[tuple(slice(0, s) for s in index.shape)]
    return _reduce_at(x, _index._full_index(index, dim), src, reduce, include_self)


def _reduce_op(op_id: str, fn, node: str):
    """A reduction into a copy of its first input; the index (input 1) gets no gradient."""
    return register(op_id, fn, node=node, shown_inputs=(0, 2), saves="all")


_SCATTER_REDUCE_TWO = _reduce_op("scatter_reduce.two", _scatter_reduce, "ScatterReduceBackward0")


@functools.cache
def _without_gradient(dim: int, reduce: str, include_self: bool, name: str):
    """scatter_reduce under an older reduction name: PyTorch computes it, but its backward
    refuses the name; so does this function's derivative."""

    @jax.custom_jvp
    def raw(x, index, src):
        return _scatter_reduce(x, index, src, dim=dim, reduce=reduce, include_self=include_self)

    @raw.defjvp
    def _jvp(primals, tangents):
        raise RuntimeError(
            f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {name}."
        )

    return raw


def _scatter_reduce_legacy(x, index, src, *, dim, reduce, include_self, name):
    return _without_gradient(dim, reduce, include_self, name)(x, index, src)


_SCATTER_REDUCE_LEGACY = _reduce_op(
    "scatter_reduce.legacy_name", _scatter_reduce_legacy, "ScatterReduceBackward0"
)
_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin"}
_LEGACY_REDUCTIONS = {"max": "amax", "min": "amin"}  # PyTorch's forward takes them


@numpy_names
def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """Reduce the values of `src` into a copy of `input` at `index` along `dim`: "sum",
    "prod", "mean", "amax" or "amin", with the old value of each written position when
    `include_self` (positions nothing is written to keep their value)."""
    tensor_arg(input, "scatter_reduce")
    tensor_arg(src, "scatter_reduce", "src", 4)
    if reduce not in _REDUCTIONS and reduce not in _LEGACY_REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d = _index._gather_checks("scatter_reduce", input, dim, index, src)
    if reduce in _LEGACY_REDUCTIONS:
        return apply(
            _SCATTER_REDUCE_LEGACY,
            input,
            index,
            src,
            dim=d,
            reduce=_LEGACY_REDUCTIONS[reduce],
            include_self=bool(include_self),
            name=reduce,
        )
    return apply(
        _SCATTER_REDUCE_TWO,
        input,
        index,
        src,
        dim=d,
        reduce=reduce,
        include_self=bool(include_self),
    )


# ----------------------------------------------------------------------------- index_reduce
def _index_reduce(x, index, source, *, dim, reduce, include_self):
    if x.ndim == 0:  # a 0-d tensor acts as a 1-element vector (and so does source)
        x, source = x.reshape(1), source.reshape(-1)
        return _index_reduce(x, index, source, dim=0, reduce=reduce, include_self=include_self)[0]
    along = [1] * source.ndim
    along[dim] = index.shape[0]
    full = jnp.broadcast_to(index.reshape(along), source.shape)
    return _reduce_at(x, _index._full_index(full, dim), source, reduce, include_self)


_INDEX_REDUCE = _reduce_op("index_reduce", _index_reduce, "IndexReduceBackward0")


@functools.cache
def _warn_beta_once() -> None:
    """PyTorch's warning that index_reduce is in beta, once per process (TORCH_WARN_ONCE)."""
    warnings.warn(
        "index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3
    )


def index_reduce(input, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """Reduce the slices of `source` into a copy of `input` at the positions `index` lists
    along `dim`: "prod", "mean", "amax" or "amin" (beta in PyTorch, which warns once)."""
    tensor_arg(input, "index_reduce")
    tensor_arg(source, "index_reduce", "source", 4)
    _warn_beta_once()
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({scalar_type_name(input.dtype)}) and source "
            f"({scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    tensor_arg(index, "index_reduce", "index", 3)
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{scalar_type_name(index.dtype)}"
        )
    d = normalize_dim(dim, input.ndim)
    index = index.reshape(-1)
    others = [(shape[:d] + shape[d + 1 :]) for shape in (tuple(input.shape), tuple(source.shape))]
    if input.ndim != source.ndim or others[0] != others[1]:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = "
            f"{list(source.shape)}"
        )
    count = source.shape[d] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({count}), for dim: {d}"
        )
    size = input.shape[d] if input.ndim else 1
    if _index._first_out_of_range(index, 0, size) is not None:
        raise IndexError("index out of range in self")
    return apply(
        _INDEX_REDUCE, input, index, source, dim=d, reduce=reduce, include_self=include_self
    )


# ----------------------------------------------------------------------------- index_put, put
def _index_put_add(x, value, *arrays, dims, shape):
    _, key = _index._advanced_key(x, (), *arrays, ops=(), dims=dims)
    return x.at[key].add(jnp.reshape(value, shape).astype(x.dtype))


_INDEX_PUT_ACCUMULATE = register(
    "index_put.accumulate",
    _index_put_add,
    node="IndexPutBackward0",
    shown_inputs=(0, 1),
    saves="others",
)


def _index_put_args(fname: str, input, indices, values) -> tuple:
    tensor_arg(input, fname)
    if not isinstance(values, Tensor):
        raise TypeError(
            f"{fname}(): argument 'values' (position 3) must be Tensor, not {type(values).__name__}"
        )
    return tuple(indices)


def index_put(input, indices, values, accumulate: bool = False):
    """A copy of `input` with `values` written (or added, with `accumulate`) at the positions
    the tuple of index tensors `indices` selects, as `input[indices] = values` writes."""
    key = _index_put_args("index_put", input, indices, values)
    if not accumulate:
        out = input.clone()
        _index.setitem(out, key, values)
        return out
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(input.dtype)} for the destination and "
            f"{scalar_type_name(values.dtype)} for the source."
        )
    _, advanced, _ = _index._parse_index(tuple(input.shape), key, optimize_single_slice=False)
    dims, arrays, shape = _index._index_put_plan(tuple(input.shape), advanced, values)
    return apply(_INDEX_PUT_ACCUMULATE, input, values, *arrays, dims=dims, shape=shape)


def index_put_(input, indices, values, accumulate: bool = False):
    """`index_put` in place; returns `input`."""
    key = _index_put_args("index_put_", input, indices, values)
    if not accumulate:
        _index.setitem(input, key, values)
        return input
    check_inplace(input, (values,))
    return commit_inplace(input, index_put(input, key, values, accumulate=True))


def _put(x, index, source, *, accumulate):
    flat = x.reshape(-1)
    positions, values = index.reshape(-1), source.reshape(-1).astype(x.dtype)
    out = flat.at[positions].add(values) if accumulate else flat.at[positions].set(values)
    return out.reshape(x.shape)


_PUT = register("put", _put, node="PutBackward0", shown_inputs=(0, 2), saves="others")


def put(input, index, source, accumulate: bool = False):
    """A copy of `input` with the elements of `source` written (or added, with `accumulate`)
    at the flat positions `index` (negative positions count from the end)."""
    tensor_arg(input, "put")
    tensor_arg(index, "put", "index", 2)
    tensor_arg(source, "put", "source", 3)
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_type_name(input.dtype)} and source.dtype = "
            f"{scalar_type_name(source.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    _index._check_flat_index(index, input.numel())
    return apply(_PUT, input, index, source, accumulate=bool(accumulate))
