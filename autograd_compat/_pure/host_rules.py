"""The primitives numpy computes as XLA:CPU does, bit for bit, and their numpy rules: what
`host_jaxpr` may evaluate on the host.

An eager op met at input shapes never seen before would compile a program for them (10-300
ms); a sequence grown a token at a time meets a new shape at every token. Where every
primitive of the op's jaxpr (and of the calls in it) is one whose numpy result is XLA:CPU's
bit for bit, `host_jaxpr.evaluate` computes the outputs on the host instead and nothing
compiles; `exact` says where it may.

What is exact: moving data (slices, gathers, concatenation, reshapes, broadcasts, transposes,
pads, selects, iota) of any dtype, and integer and boolean arithmetic, logic and comparisons
(two's complement wraps alike), and conversions between integer and boolean types and from
them to float32/float64. No float arithmetic or comparison: XLA:CPU flushes subnormal floats
to zero (a comparison or a max reads 1e-40 as 0, a widening cast writes 0) and contracts a
multiply feeding an add into one fused multiply-add, so even `neg` inside a fused loop differs
from numpy's. Out-of-range starts are clamped as XLA clamps them; a FILL_OR_DROP gather fills
as JAX lowers it (its indices cast to the operand's index type first).
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np
from jax.lax import GatherScatterMode

from .device import host_buffer
from .jax_internals import ClosedJaxpr, Jaxpr
from .program_options import CALLS

OWNED_BYTES = 1 << 14  # a result this big becomes a device buffer without a copy if it can
_INT32_MAX = 2**31 - 1


class Refused(Exception):
    """A jaxpr holds what numpy does not compute as XLA:CPU does."""


def _clamped(starts, limit):
    """Integer `starts` clamped into [0, limit] as XLA clamps a start index, in their own
    dtype (a huge unsigned start stays huge), as platform integers."""
    starts = np.asarray(starts)
    if starts.dtype.kind == "i":
        starts = np.maximum(starts, 0)
    return np.minimum(starts, limit).astype(np.intp)


def _slice(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * x.ndim
    return x[tuple(map(slice, start_indices, limit_indices, steps))]


def _start(start, limit: int) -> int:
    """An integer start index clamped into [0, limit] as XLA clamps it (a huge unsigned start
    stays huge, and clamps to `limit`)."""
    return min(max(int(start), 0), limit)


def _dynamic_slice(x, *starts, slice_sizes):
    at = [_start(s, d - n) for s, d, n in zip(starts, x.shape, slice_sizes)]
    return x[tuple([slice(a, a + n) for a, n in zip(at, slice_sizes)])]


def _dynamic_update_slice(x, update, *starts):
    at = [_start(s, d - n) for s, d, n in zip(starts, x.shape, update.shape)]
    out = np.array(x)
    out[tuple([slice(a, a + n) for a, n in zip(at, update.shape)])] = update
    return out


def _gather(x, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    """XLA's gather (index vector last, as JAX emits it): every batch position's window of
    `slice_sizes` at its clamped start, collapsed dims dropped, offset dims placed."""
    dnums = dimension_numbers
    if dnums.operand_batching_dims:
        raise Refused("gather with batching dims")
    starts = tuple(dnums.start_index_map)
    batch = indices.shape[:-1]
    if _rows_only(x.shape, dnums, slice_sizes) and _within(indices, x.shape, starts):
        out = _rows(x, indices, starts)  # (an embedding's or `x[i]`'s lookup in range: nothing
    else:  # is clamped or filled, whatever the mode)
        out = _clamped_gather(x, indices, dnums, slice_sizes, mode, fill_value)
    ndim = out.ndim
    if tuple(dnums.offset_dims) != tuple(range(len(batch), ndim)):  # (else already in place)
        batch_at = [i for i in range(ndim) if i not in dnums.offset_dims]
        out = np.moveaxis(out, range(ndim), batch_at + list(dnums.offset_dims))
    return out


def _within(indices, shape: tuple, starts: tuple) -> bool:
    """Whether every index of a gather taking single positions lies in its dimension."""
    if not indices.size:
        return False
    if len(starts) == 1:
        return bool(indices.min() >= 0) and bool(indices.max() < shape[starts[0]])
    flat = indices.reshape(-1, len(starts))
    limits = np.array([shape[d] for d in starts])
    return bool((flat.min(axis=0) >= 0).all()) and bool((flat.max(axis=0) < limits).all())


def _rows(x, indices, starts: tuple):
    """Fancy indexing at `indices` (in range) along the dimensions `starts`: batch dimensions
    first, then the others in the operand's order. Along one dimension (an embedding's
    lookup) the rows go to a `host_buffer`, which a result may become without a copy."""
    lead = x if starts == tuple(range(len(starts))) else np.moveaxis(x, starts, range(len(starts)))
    if len(starts) == 1:
        out = _buffer(indices.shape[:-1] + lead.shape[1:], lead.dtype)
        return np.take(lead, indices[..., 0], axis=0, out=out, mode="clip")
    return lead[tuple([indices[..., k] for k in range(len(starts))])]


def _concatenate(*xs, dimension):
    """XLA's concatenate (one dtype), into a `host_buffer` where it is big (see `_rows`)."""
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return np.concatenate(xs, axis=dimension, out=_buffer(tuple(shape), xs[0].dtype))


def _buffer(shape: tuple, dtype: np.dtype):
    """A `host_buffer` for a result of `OWNED_BYTES` or more, else None (numpy allocates)."""
    return host_buffer(shape, dtype) if prod(shape) * dtype.itemsize >= OWNED_BYTES else None


def _clamped_gather(x, indices, dnums, slice_sizes, mode, fill_value):
    """A gather's windows at their clamped starts, those out of range filled in FILL_OR_DROP
    mode, batch dimensions first (`_gather` places them)."""
    fill = mode == GatherScatterMode.FILL_OR_DROP
    if fill:  # JAX's lowering: indices cast to the index type, a window out of range filled
        index_type = np.int64 if max(x.shape, default=0) > _INT32_MAX else np.int32
        indices = indices.astype(index_type)
        upper = np.array([x.shape[d] - slice_sizes[d] for d in dnums.start_index_map])
        inside = ((indices >= 0) & (indices <= upper.astype(index_type))).all(axis=-1)
    batch = indices.shape[:-1]
    if _rows_only(x.shape, dnums, slice_sizes):
        limits = [x.shape[d] - 1 for d in dnums.start_index_map]
        columns = [_clamped(indices[..., k], limit) for k, limit in enumerate(limits)]
        out = _rows(x, np.stack(columns, axis=-1), tuple(dnums.start_index_map))
    else:
        out = _windows(x, indices, dnums, slice_sizes, batch)
    if fill:
        mask = inside.reshape(batch + (1,) * (out.ndim - len(batch)))
        out = np.where(mask, out, np.asarray(fill_value).astype(out.dtype))
    return out


def _rows_only(shape, dnums, slice_sizes) -> bool:
    """Whether a gather takes single positions along the dimensions it indexes (each then
    collapsed) and every other dimension whole: plain fancy indexing."""
    indexed = set(dnums.start_index_map)
    if indexed != set(dnums.collapsed_slice_dims) or len(indexed) != len(dnums.start_index_map):
        return False
    return all(size == (1 if d in indexed else shape[d]) for d, size in enumerate(slice_sizes))


def _windows(x, indices, dnums, slice_sizes, batch):
    """A gather's windows at their clamped starts, batch dimensions first, collapsed
    dimensions dropped, the others in the operand's order."""
    grids = []
    for d, size in enumerate(slice_sizes):
        start = np.zeros(batch, np.intp)
        if d in dnums.start_index_map:
            column = indices[..., dnums.start_index_map.index(d)]
            start = _clamped(column, x.shape[d] - size)
        window = start[..., None] + np.arange(size)
        grids.append(window.reshape(batch + (1,) * d + (size,) + (1,) * (x.ndim - d - 1)))
    return x[tuple(grids)].squeeze(tuple(len(batch) + d for d in dnums.collapsed_slice_dims))


def _broadcast_in_dim(x, *, shape, broadcast_dimensions, **_):
    kept = [1] * len(shape)
    for axis, d in enumerate(broadcast_dimensions):
        kept[d] = x.shape[axis]
    out = x.reshape(kept)
    return out if out.shape == shape else np.broadcast_to(out, shape)


def _squeeze(x, *, dimensions):
    return x.reshape([n for d, n in enumerate(x.shape) if d not in dimensions])


def _reshape(x, *, new_sizes, dimensions=None, **_):
    if dimensions is not None:
        raise Refused("reshape with dimensions")
    return x.reshape(new_sizes)


def _pad(x, padding_value, *, padding_config):
    """XLA's pad: `interior` values between elements, then edges that may be negative (a
    crop)."""
    grown = [d + max(d - 1, 0) * inner for d, (_, _, inner) in zip(x.shape, padding_config)]
    spread = np.full(grown, padding_value, x.dtype)
    spread[tuple(slice(None, None, inner + 1) for _, _, inner in padding_config)] = x
    edges = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    out = np.pad(spread, edges, constant_values=padding_value)
    crop = [
        slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi, _), n in zip(padding_config, out.shape)
    ]
    return out[tuple(crop)]


def _iota(*, dtype, shape, dimension, **_):
    line = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(
        line.reshape([-1 if d == dimension else 1 for d in range(len(shape))]), shape
    )


def _select_n(which, *cases):
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0])
    return np.choose(which, np.broadcast_arrays(*cases))


def _convertible(source: np.dtype, target: np.dtype) -> bool:
    """Whether numpy casts `source` to `target` as XLA:CPU does: between integer and boolean
    types (wrapping, or `!= 0`), or from one to float32/float64 (rounded to nearest)."""
    return source.kind in "biu" and (target.kind in "biu" or target in (np.float32, np.float64))


def _shift(kind):
    """XLA's shifts: an amount of the bit width or more (or negative) gives 0, or the sign
    for an arithmetic right shift, where numpy's is undefined."""

    def shift(x, amount):
        bits = x.dtype.itemsize * 8
        wide = (amount < 0) | (amount >= bits)
        safe = np.where(wide, 0, amount).astype(x.dtype)
        if kind == "left":
            return np.where(wide, np.zeros_like(x), np.left_shift(x, safe))
        if kind == "arithmetic":
            return np.where(wide, np.where(x < 0, -1, 0).astype(x.dtype), np.right_shift(x, safe))
        unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        return np.where(wide, 0, np.right_shift(unsigned, safe.view(unsigned.dtype))).view(x.dtype)

    return shift


# Primitives that move data: exact on every dtype.
MOVES: dict[str, Callable[..., Any]] = {
    "slice": _slice,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "gather": _gather,
    "concatenate": _concatenate,
    "reshape": _reshape,
    "broadcast_in_dim": _broadcast_in_dim,
    "transpose": lambda x, *, permutation: np.transpose(x, permutation),
    "squeeze": _squeeze,
    "pad": _pad,
    "rev": lambda x, *, dimensions: np.flip(x, tuple(dimensions)),
    "iota": _iota,
    "split": lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis=axis),
    "select_n": _select_n,
    "copy": np.array,
    "convert_element_type": lambda x, *, new_dtype, **_: x.astype(new_dtype),
    "dim_as_value": lambda *, dim: np.asarray(dim, np.int64),  # (a symbolic dimension's int)
}
# Primitives exact on integer and boolean values only (every input and output checked).
INTEGER: dict[str, Callable[..., Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "neg": np.negative,
    "abs": np.abs,
    "max": np.maximum,
    "min": np.minimum,
    "clamp": lambda low, x, high: np.minimum(np.maximum(x, low), high),
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "not": np.invert,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "shift_left": _shift("left"),
    "shift_right_arithmetic": _shift("arithmetic"),
    "shift_right_logical": _shift("logical"),
}
BOOLEAN = frozenset("and or xor not eq ne lt le gt ge max min".split())  # also exact on bool


def body(params) -> ClosedJaxpr:
    """The jaxpr a call primitive runs (as a closed jaxpr)."""
    for value in params.values():
        if isinstance(value, ClosedJaxpr):
            return value
        if isinstance(value, Jaxpr):
            return ClosedJaxpr(value, ())
    raise Refused("a call without a body")


def refusal(jaxpr: Jaxpr) -> str | None:
    """Why numpy may not evaluate `jaxpr` exactly (its first primitive or dtype that is not
    exact), or None where it may. Sizes are checked as it runs (`host_jaxpr.MAX_ELEMENTS`)."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        avals: list[Any] = [v.aval for v in (*eqn.invars, *eqn.outvars)]
        if not all(hasattr(a, "dtype") for a in avals):
            return f"{name} of a value that is no array"
        if name in CALLS:
            try:
                why = refusal(body(eqn.params).jaxpr)
            except Refused as failure:
                return str(failure)
            if why is not None:
                return why
        elif name in INTEGER:
            kinds = "biu" if name in BOOLEAN else "iu"
            if not all(a.dtype.kind in kinds for a in avals):
                return f"{name} of {', '.join(a.str_short() for a in avals)}"
            if any(value is not None for value in eqn.params.values()):  # (mul's out_dtype)
                return f"{name} with {eqn.params}"
        elif name not in MOVES:
            return name
        elif name == "convert_element_type" and not _convertible(avals[0].dtype, avals[1].dtype):
            return f"{name} of {avals[0].str_short()} to {avals[1].dtype}"
    return None


def exact(closed: ClosedJaxpr) -> bool:
    """Whether `evaluate` may compute `closed`: no primitive `refusal` names, no weakly typed
    output (a host array has none)."""
    if any(getattr(v.aval, "weak_type", False) for v in closed.jaxpr.outvars):
        return False
    return refusal(closed.jaxpr) is None
