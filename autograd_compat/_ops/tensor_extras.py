"""Tensor extras: new_* factories, broadcast_to/ravel/repeat_interleave/take_along_dim,
flips and rot90, diff, comparisons (isclose/allclose/equal), NaN-aware and cumulative
reductions (nansum/nanmean, cummax/cummin, kthvalue, quantile), tensor properties, and small
linear-algebra helpers (inner, kron, baddbmm, addmv, addr, addbmm, diag_embed, diagflat,
matrix_power, cross).

Ops that PyTorch composes from other ops (diff, nanmean, inner, addr...) are composed here
too, so their nodes are PyTorch's; the others are one pure JAX function each.
"""

from __future__ import annotations

import builtins
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._pure.shapes import normalize_dim, shape_args
from .._state.tensor import Tensor
from .._tape.args import is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from . import factories as _factories
from .elementwise import mul, sub
from .linalg import _scalar_constant, inverse, matmul, mm, tensordot
from .movement import _needs_concrete, cat, flip, gather, index_select
from .pointwise import logical_xor
from .reduce import normalize_dims, sum
from .reductions import return_types
from .shape import diagonal, expand, narrow, reshape, unsqueeze

__all__ = [
    "addbmm",
    "addmv",
    "addr",
    "allclose",
    "baddbmm",
    "broadcast_to",
    "conj",
    "corrcoef",
    "count_nonzero",
    "cov",
    "cross",
    "cummax",
    "cummin",
    "diag_embed",
    "diagflat",
    "diff",
    "equal",
    "fliplr",
    "flipud",
    "imag",
    "inner",
    "is_signed",
    "isclose",
    "kron",
    "kthvalue",
    "matrix_power",
    "nanmean",
    "nanquantile",
    "nansum",
    "quantile",
    "ravel",
    "real",
    "repeat_interleave",
    "rot90",
    "take_along_dim",
]


# ----------------------------------------------------------------------------- new_* factories
def _new_dtype(self: Tensor, dtype) -> _dtypes.dtype:
    return self.dtype if dtype is None else _dtypes.as_dtype(dtype)


def new_zeros(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """Zeros of `size`, with self's dtype unless `dtype` is given."""
    return _factories.zeros(*size, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


def new_ones(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """Ones of `size`, with self's dtype unless `dtype` is given."""
    return _factories.ones(*size, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


def new_empty(
    self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """An 'uninitialized' tensor of `size` (zeros), with self's dtype unless `dtype` is given."""
    return new_zeros(self, *size, dtype=dtype, requires_grad=requires_grad)


def new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`fill_value` everywhere, with self's dtype unless `dtype` is given."""
    return _factories.full(
        size, fill_value, dtype=_new_dtype(self, dtype), requires_grad=requires_grad
    )


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor copying `data`, with self's dtype unless `dtype` is given."""
    if isinstance(data, Tensor):
        data = data.detach()
    return _factories.tensor(data, dtype=_new_dtype(self, dtype), requires_grad=requires_grad)


# ----------------------------------------------------------------------------- shape
def broadcast_to(input, size):
    """`input.expand(size)`: a broadcast view."""
    tensor_arg(input, "broadcast_to")
    return expand(input, shape_args((size,)))


def ravel(input):
    """The elements as a 1-D tensor (a view where possible)."""
    tensor_arg(input, "ravel")
    return reshape(input, -1)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (each slice along `dim`) `repeats` times; `repeats` is an int or a
    1-D tensor with one count per slice. `repeat_interleave(counts)` gives the indices
    0, 0, ..., 1, ... repeated by `counts`."""
    tensor_arg(input, "repeat_interleave")
    _needs_concrete("repeat_interleave", input if repeats is None else repeats)
    if repeats is None:
        counts = np.asarray(input._value)
        return _factories.tensor(np.repeat(np.arange(counts.size), counts))
    if dim is None:
        input, dim = reshape(input, -1), 0
    d = normalize_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        counts = np.asarray(repeats._value).reshape(-1)
        if counts.size == 1:
            counts = np.repeat(counts, input.shape[d])
        if counts.size != input.shape[d]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) "
                f"= {counts.size} and input.size({d}) = {input.shape[d]}"
            )
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = _factories.tensor(np.repeat(np.arange(counts.size), counts))
        return index_select(input, d, index)
    r = int(repeats)
    if r < 0:
        raise RuntimeError("repeats can not be negative")
    shape = tuple(input.shape)
    expanded = expand(unsqueeze(input, d + 1), shape[: d + 1] + (r,) + shape[d + 1 :])
    return reshape(expanded, shape[:d] + (shape[d] * r,) + shape[d + 1 :])


def take_along_dim(input, indices, dim=None):
    """The values of `input` at `indices` along `dim` (of the flattened input when None);
    input and indices broadcast over the other dims."""
    tensor_arg(input, "take_along_dim")
    tensor_arg(indices, "take_along_dim", "indices", 2)
    if indices.dtype is not _dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{scalar_type_name(indices.dtype)}"
        )
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = normalize_dim(dim, input.ndim)
    shape = list(jnp.broadcast_shapes(tuple(input.shape), tuple(indices.shape)))
    in_shape, idx_shape = list(shape), list(shape)
    in_shape[d], idx_shape[d] = input.shape[d], indices.shape[d]
    return gather(expand(input, tuple(in_shape)), d, expand(indices, tuple(idx_shape)))


def fliplr(input):
    """Reverse the columns (dim 1) of a tensor of at least 2 dims."""
    tensor_arg(input, "fliplr")
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Reverse the rows (dim 0) of a tensor of at least 1 dim."""
    tensor_arg(input, "flipud")
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


_ROT90 = register(
    "rot90", lambda x, *, k, dims: jnp.rot90(x, k, dims), node="Rot90Backward0", saves="none"
)


def rot90(input, k: int = 1, dims=(0, 1)):
    """Rotate by 90 degrees `k` times in the plane of `dims`, from the first toward the second."""
    tensor_arg(input, "rot90")
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (normalize_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    return apply(_ROT90, input, k=int(k) % 4, dims=(d0, d1))


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None):
    """The n-th forward difference along `dim`, after concatenating `prepend` and `append`
    (a logical xor for bool tensors), composed from narrow and sub as in PyTorch."""
    tensor_arg(input, "diff")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = normalize_dim(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = builtins.max(x.shape[d] - 1, 0)
        hi, lo = narrow(x, d, 1, length), narrow(x, d, 0, length)
        x = logical_xor(hi, lo) if x.dtype is _dtypes.bool else sub(hi, lo)
    return x


# ----------------------------------------------------------------------------- comparisons
def _dims(dim, ndim: int):
    """The reduced dims as a tuple, or None for all."""
    return None if dim is None else normalize_dims(dim, ndim)


def _count_nonzero(x, *, dims):
    return jnp.sum(x != 0, axis=dims, dtype=jnp.int64)


_COUNT_NONZERO = register(
    "count_nonzero", _count_nonzero, node="CountNonzeroBackward", differentiable=False
)


def count_nonzero(input, dim=None):
    """The number of nonzero elements (along `dim`, an int or a tuple): int64."""
    tensor_arg(input, "count_nonzero")
    return apply(_COUNT_NONZERO, input, dims=_dims(dim, input.ndim))


def _isclose(a, b, rtol, atol, *, equal_nan):
    """|a - b| <= atol + rtol * |b| (integers compared in float64), or a == b (infinities)."""
    if a.dtype == jnp.bool_:
        return a == b
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        a, b = a.astype(jnp.float64), b.astype(jnp.float64)
    close = (a == b) | (
        jnp.isfinite(a) & jnp.isfinite(b) & (jnp.abs(a - b) <= atol + rtol * jnp.abs(b))
    )
    if equal_nan:
        close = close | (jnp.isnan(a) & jnp.isnan(b))
    return close


_ISCLOSE = register("isclose", _isclose, node="IscloseBackward", differentiable=False)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (inf only equal to itself)."""
    tensor_arg(input, "isclose")
    tensor_arg(other, "isclose", "other", 2)
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"{scalar_type_name(input.dtype)} did not match {scalar_type_name(other.dtype)}"
        )
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    tol = [constant(float(v), jnp.float64) for v in (rtol, atol)]
    return apply(_ISCLOSE, input, other, *tol, equal_nan=bool(equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """True if every element of `input` is close to `other` (see `isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements."""
    tensor_arg(input, "equal")
    tensor_arg(other, "equal", "other", 2)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(jnp.array_equal(input._value, other._value))


# ----------------------------------------------------------------------------- reductions
@jax.custom_jvp
def _nan_as_zero(x):
    """NaN replaced by 0, with PyTorch's derivative: the tangent times `not isnan(x)` (so an
    infinite cotangent gives NaN there, as in PyTorch, where a `where` would give 0)."""
    return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)


@_nan_as_zero.defjvp
def _nan_as_zero_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _nan_as_zero(x), t * jnp.where(jnp.isnan(x), 0, 1).astype(t.dtype)


def _nansum(x, *, dims, keepdim, dtype):
    x = x.astype(dtype)
    if jnp.issubdtype(dtype, jnp.inexact):
        x = _nan_as_zero(x)
    return jnp.sum(x, axis=dims, keepdims=keepdim)


_NANSUM = register("nansum", _nansum, node="NansumBackward0")


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Sum treating NaN as zero; integers accumulate in int64."""
    tensor_arg(input, "nansum")
    d = input.dtype
    if dtype is None:
        dtype = d if (d.is_floating_point or d.is_complex) else _dtypes.int64
    dtype = _dtypes.as_dtype(dtype)
    return apply(_NANSUM, input, dims=_dims(dim, input.ndim), keepdim=keepdim, dtype=dtype.jax)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Mean of the non-NaN elements (nansum / count, as PyTorch composes it); floats only."""
    tensor_arg(input, "nanmean")
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{scalar_type_name(input.dtype)}"
        )
    count = sum(~input.isnan(), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _cumulative_pick(x, *, dim, pick):
    """Running max/min along `dim` and the index of the latest element equal to it; the values
    are gathered at those indices, so the gradient goes there (as PyTorch's)."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    scan = lax.cummax if pick == "max" else lax.cummin
    work = x.astype(jnp.int8) if x.dtype == jnp.bool_ else x  # lax scans take no bools
    running = scan(work, axis=dim)
    positions = lax.broadcasted_iota(jnp.int64, x.shape, dim)
    hit = (work == running) | jnp.isnan(work)
    indices = lax.cummax(jnp.where(hit, positions, -1), axis=dim)
    nan_seen = lax.cummax(jnp.where(jnp.isnan(work), positions, -1), axis=dim)
    indices = jnp.where(nan_seen >= 0, nan_seen, indices)
    return jnp.take_along_axis(x, indices, axis=dim), indices


_CUMMAX = register("cummax", _cumulative_pick, node="CummaxBackward0")
_CUMMIN = register("cummin", _cumulative_pick, node="CumminBackward0")


def _cumulative(fname: str, op, input, dim: int):
    tensor_arg(input, fname)
    d = normalize_dim(dim, input.ndim)
    values, indices = apply(op, input, dim=d, pick=fname[3:])
    return getattr(return_types, fname)(values, indices)


def cummax(input, dim: int):
    """Running maximum along `dim` and its indices (NaN propagates), as (values, indices)."""
    return _cumulative("cummax", _CUMMAX, input, dim)


def cummin(input, dim: int):
    """Running minimum along `dim` and its indices (NaN propagates), as (values, indices)."""
    return _cumulative("cummin", _CUMMIN, input, dim)


def _kthvalue(x, *, k, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    order = jnp.argsort(x, axis=dim, stable=True)
    indices = lax.slice_in_dim(order, k - 1, k, axis=dim).astype(jnp.int64)
    values = jnp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = jnp.squeeze(values, dim), jnp.squeeze(indices, dim)
    return values, indices


_KTHVALUE = register("kthvalue", _kthvalue, node="KthvalueBackward0")


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """The k-th smallest element along `dim` and its index, as (values, indices)."""
    tensor_arg(input, "kthvalue")
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = apply(_KTHVALUE, input, k=int(k), dim=d, keepdim=keepdim)
    return return_types.kthvalue(values, indices)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, *, dim, keepdim, interpolation, ignore_nan):
    """Quantiles `q` (0-d or 1-D) of `x` along `dim` (sorted, NaN last); q's dim leads.

    As in PyTorch, a slice whose answer is NaN reads a NaN, which gets the gradient: the last
    sorted element for quantile (any NaN in the slice), the first for nanquantile (all NaN)."""
    s = jnp.moveaxis(jnp.sort(x, axis=dim), dim, -1)
    last = s.shape[-1] - 1
    q_shape = q.shape
    q = q.reshape(q_shape + (1,) * s.ndim)
    if ignore_nan:
        valid = jnp.sum(~jnp.isnan(s), axis=-1, keepdims=True)
        rank = q * (jnp.maximum(valid, 1) - 1)
    else:
        rank = jnp.where(jnp.isnan(s[..., -1:]), last, q * last)
    rank = jnp.broadcast_to(rank, q_shape + s.shape[:-1] + (1,))
    if interpolation == "lower":
        rank = jnp.floor(rank)
    elif interpolation == "higher":
        rank = jnp.ceil(rank)
    elif interpolation == "nearest":
        rank = jnp.round(rank)
    lo = jnp.floor(rank).astype(jnp.int64)
    hi = jnp.ceil(rank).astype(jnp.int64)
    s = jnp.broadcast_to(s, q_shape + s.shape)
    below = jnp.take_along_axis(s, lo, axis=-1)
    above = jnp.take_along_axis(s, hi, axis=-1)
    weight = (rank - lo).astype(x.dtype)
    if interpolation == "midpoint":
        weight = jnp.where(hi > lo, 0.5, 0.0).astype(x.dtype)
    gap = above - below
    out = jnp.where(weight < 0.5, below + weight * gap, above - gap * (1 - weight))
    out = jnp.squeeze(out, -1) if not keepdim else jnp.moveaxis(out, -1, dim + len(q_shape))
    return out


_QUANTILE = register("quantile", _quantile, node="QuantileBackward")


def _quantile_front(fname, input, q, dim, keepdim, interpolation, ignore_nan):
    tensor_arg(input, fname)
    if input.dtype not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError(f"{fname}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{fname}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if input.numel() == 0:
        raise RuntimeError(f"{fname}() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{fname}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{fname}() q tensor must be same dtype as the input tensor")
        values = np.asarray(q._value)
    else:
        values = np.asarray(float(q))
        q = constant(float(q), input.dtype.jax)
    bad = values[(values < 0) | (values > 1)]
    if bad.size:
        raise RuntimeError(f"{fname}() q must be in the range [0, 1] but got {bad.flat[0]}")
    if dim is None:
        x = reshape(input, -1)
        d = 0
    else:
        x, d = input, normalize_dim(dim, input.ndim)
    if x.ndim == 0:
        x = reshape(x, 1)
    out = apply(
        _QUANTILE,
        x,
        q,
        dim=d,
        keepdim=keepdim,
        interpolation=interpolation,
        ignore_nan=ignore_nan,
    )
    if keepdim and dim is None:
        out = reshape(out, tuple(out.shape[: out.ndim - 1]) + (1,) * input.ndim)
    return out


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """The q-th quantiles of `input` (along `dim`, else of all elements); NaN if a NaN is
    among them. A 1-D `q` adds a leading dim."""
    return _quantile_front("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """`quantile` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile_front("nanquantile", input, q, dim, keepdim, interpolation, True)


# ----------------------------------------------------------------------------- properties
def is_signed(input) -> bool:
    """True unless the dtype is unsigned (uint8) or bool."""
    return input.dtype not in (_dtypes.uint8, _dtypes.bool)


def _get_device(self) -> int:
    """-1: every tensor lives on the CPU as far as PyTorch code can tell."""
    return -1


_REAL = register("real", jnp.real, node="RealBackward0")
_IMAG = register("imag", jnp.imag, node="ImagBackward0")


def real(input):
    """The real part: `input` itself for real tensors."""
    tensor_arg(input, "real")
    return apply(_REAL, input) if input.dtype.is_complex else input


def imag(input):
    """The imaginary part; real tensors raise, as in PyTorch."""
    tensor_arg(input, "imag")
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_IMAG, input)


_CONJ = register("conj", jnp.conj, node="ConjBackward0", saves="none")


def conj(input):
    """The complex conjugate: `input` itself for real tensors."""
    tensor_arg(input, "conj")
    return apply(_CONJ, input) if input.dtype.is_complex else input


# ----------------------------------------------------------------------------- linear algebra
def _add_product(input, a, b, beta, alpha, *, kind, beta_zero):
    """`beta * input + alpha * product(a, b)`; `input` is ignored (NaN included) when beta
    is 0, as in PyTorch."""
    if kind == "outer":
        product = jnp.outer(a, b)
    elif kind == "bmm_sum":
        product = jnp.einsum("bij,bjk->ik", a, b)
    else:
        product = jnp.matmul(a, b)
    product = alpha * product
    if beta_zero:
        return jnp.broadcast_to(product, jnp.broadcast_shapes(input.shape, product.shape))
    return beta * input + product


_ADD_PRODUCT = {
    "addmv": (register("addmv", _add_product, node="AddmvBackward0"), "mv", (2, 1)),
    "addr": (register("addr", _add_product, node="AddrBackward0"), "outer", (1, 1)),
    "baddbmm": (register("baddbmm", _add_product, node="BaddbmmBackward0"), "bmm", (3, 3)),
    "addbmm": (register("addbmm", _add_product, node="AddbmmBackward0"), "bmm_sum", (3, 3)),
}


def _add_product_front(fname, input, a, b, beta, alpha, names):
    """Checks shared by addmv/addr/baddbmm/addbmm, then one op node."""
    op, kind, ndims = _ADD_PRODUCT[fname]
    tensor_arg(input, fname)
    for position, (name, t, nd) in enumerate(zip(names, (a, b), ndims), start=2):
        tensor_arg(t, fname, name, position)
        if t.ndim != nd:
            raise RuntimeError(f"{name} must be a {nd}D tensor, got {t.ndim}-D tensor")
    if not (input.dtype is a.dtype is b.dtype):
        raise RuntimeError(
            f"{fname}: expected {names[0]}, {names[1]} and input to have the same dtype, but "
            f"got {a.dtype}, {b.dtype} and {input.dtype}"
        )
    (m, *_), (*_, p) = a.shape, b.shape
    if kind != "outer" and a.shape[-1] != b.shape[0 if kind == "mv" else 1]:
        raise RuntimeError(
            f"{fname}: shapes cannot be multiplied ({list(a.shape)} and {list(b.shape)})"
        )
    if kind == "mv":
        product_shape = (m,)
    elif kind == "outer":
        product_shape = (m, p)
    else:
        product_shape = (m, a.shape[1], p) if kind == "bmm" else (a.shape[1], p)
    jnp.broadcast_shapes(tuple(input.shape), product_shape)
    d = input.dtype
    return apply(
        op,
        input,
        a,
        b,
        _scalar_constant(beta, d),
        _scalar_constant(alpha, d),
        kind=kind,
        beta_zero=beta == 0,
    )


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat @ vec)`."""
    return _add_product_front("addmv", input, mat, vec, beta, alpha, ("mat", "vec"))


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """`beta * input + alpha * outer(vec1, vec2)`."""
    return _add_product_front("addr", input, vec1, vec2, beta, alpha, ("vec1", "vec2"))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * (batch1 @ batch2)`, batched."""
    return _add_product_front("baddbmm", input, batch1, batch2, beta, alpha, ("batch1", "batch2"))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]`."""
    return _add_product_front("addbmm", input, batch1, batch2, beta, alpha, ("batch1", "batch2"))


def inner(input, other):
    """The sum of products over the last dims (a product for 0-d operands)."""
    tensor_arg(input, "inner")
    tensor_arg(other, "inner", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([input.ndim - 1], [other.ndim - 1]))


_KRON = register("kron", jnp.kron, node="KronBackward0", saves="others")


def kron(input, other):
    """The Kronecker product (blocks `input[i, j] * other`)."""
    tensor_arg(input, "kron")
    tensor_arg(other, "kron", "other", 2)
    return apply(_KRON, input, other)


def _diag_embed(x, *, offset, dim1, dim2):
    out = jnp.vectorize(lambda v: jnp.diag(v, offset), signature="(n)->(m,m)")(x)
    return jnp.moveaxis(out, (-2, -1), (dim1, dim2))


_DIAG_EMBED = register("diag_embed", _diag_embed, node="DiagEmbedBackward0", saves="none")


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """Matrices (in dims `dim1`, `dim2`) with the last dim of `input` on diagonal `offset`."""
    tensor_arg(input, "diag_embed")
    d1, d2 = (normalize_dim(d, input.ndim + 1) for d in (dim1, dim2))
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = reshape(input, 1)
    return apply(_DIAG_EMBED, input, offset=int(offset), dim1=d1, dim2=d2)


def diagflat(input, offset: int = 0):
    """A square matrix with the flattened `input` on diagonal `offset`."""
    tensor_arg(input, "diagflat")
    return diag_embed(reshape(input, -1), offset)


def matrix_power(input, n: int):
    """The n-th power of square matrices (batched) by repeated squaring; n < 0 inverts first,
    n == 0 gives identities."""
    tensor_arg(input, "matrix_power")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        rows, cols = (tuple(input.shape) + (1, 1))[:2] if input.ndim < 2 else input.shape[-2:]
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{rows} by {cols} matrices"
        )
    if n == 0:
        eye = _factories.eye(input.shape[-1], dtype=input.dtype)
        return expand(eye, tuple(input.shape)).clone()
    base = input if n > 0 else inverse(input)
    result, n = None, builtins.abs(n)
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


_CROSS = register(
    "linalg.cross", lambda a, b, *, dim: jnp.cross(a, b, axis=dim), node="LinalgCrossBackward0"
)


def cross(input, other, dim=None):
    """The 3-D cross product along `dim` (by default the first dim of size 3, with PyTorch's
    deprecation warning); the inputs broadcast."""
    tensor_arg(input, "cross")
    tensor_arg(other, "cross", "other", 2)
    shape = tuple(jnp.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a "
            "future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    d = normalize_dim(dim, len(shape))
    if shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}"
        )
    a, b = (expand(t, shape) if tuple(t.shape) != shape else t for t in (input, other))
    return apply(_CROSS, a, b, dim=d)


def _holds(condition: Tensor) -> bool:
    """The value of a 0-d bool tensor; False under a jax trace, where value checks skip."""
    return not is_tracer(condition._value) and bool(condition._value)


def _check_weights(name: str, w, observations: int, floating: bool) -> None:
    kind = "floating point" if floating else "integral"
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.ndim} dimensions"
        )
    if w.dtype.is_floating_point is not floating or w.dtype.is_complex or w.dtype is _dtypes.bool:
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with "
            f"{scalar_type_name(w.dtype)} dtype"
        )
    if w.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {observations}"
        )
    if observations and _holds(w.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input` (observations in the
    columns), optionally weighted; composed as PyTorch composes it."""
    tensor_arg(input, "cov")
    if input.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    if input.dtype is _dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = reshape(input, 1, -1) if input.ndim < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, floating=False)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, floating=True)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = observations
    else:
        w_sum = w.sum()
        if _holds(w_sum == 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    degenerate = norm_factor <= 0
    if _holds(degenerate) if isinstance(degenerate, Tensor) else degenerate:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = norm_factor * 0
    x = x - unsqueeze(avg, 1)
    c = mm(x, (x if w is None else x * w).t().conj())
    return (c / norm_factor).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of `input`, clipped to [-1, 1]."""
    tensor_arg(input, "corrcoef")
    if input.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    c = cov(input)
    if c.ndim == 0:
        return c / c
    stddev = diagonal(c).real.sqrt()
    c = c / reshape(stddev, -1, 1)
    c = c / reshape(stddev, 1, -1)
    return c.clamp(-1, 1)


def _is_cpu(self: Tensor) -> bool:
    """`Tensor.is_cpu`: every tensor here lives on the host or is placed by JAX."""
    return True


def _itemsize(self: Tensor) -> int:
    """`Tensor.itemsize`: bytes per element."""
    return self.element_size()


def _nbytes(self: Tensor) -> int:
    """`Tensor.nbytes`: bytes of all elements."""
    return self.numel() * self.element_size()
