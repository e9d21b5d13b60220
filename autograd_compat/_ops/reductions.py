"""Reductions and orderings: prod, std/var, max/min (whole or along a dim), amax/amin,
argmax/argmin, logsumexp, cumsum/cumprod, all/any, median, topk, sort, argsort.

Ops that select an element along a dim (max/min/median with a dim, topk, sort) return
`(values, indices)` as a `torch.return_types.*` tuple; their gradient flows to the selected
position only, because the pure function gathers the values at the indices it computed.
Whole-tensor max/min/median instead split the gradient evenly between tied elements, as
PyTorch does.
"""

from __future__ import annotations

import builtins
import sys
import types
import warnings

import jax
import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace, tensor_arg
from .._tape.record import apply
from .pointwise import maximum, minimum
from .reduce import accumulator, normalize_dims

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "argsort",
    "cumprod",
    "cumsum",
    "logsumexp",
    "max",
    "median",
    "min",
    "prod",
    "return_types",
    "sort",
    "std",
    "topk",
    "var",
]


# ----------------------------------------------------------------------------- return types
class _ReturnType(tuple):
    """A `(values, indices)` pair with named fields, like `torch.return_types.max`."""

    __slots__ = ()
    _name = "return_type"

    def __new__(cls, values, indices=None):
        if indices is None:  # built from one iterable, as structseq types allow
            values, indices = values
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _return_type(name: str) -> type:
    cls = type(name, (_ReturnType,), {"__slots__": (), "_name": name})
    cls.__module__ = "torch.return_types"
    cls.__qualname__ = name
    return cls


return_types = types.ModuleType(
    "autograd_compat.return_types", "Named (values, indices) tuples returned by some ops."
)
for _name in ("max", "min", "median", "topk", "sort", "kthvalue", "mode", "cummax", "cummin"):
    setattr(return_types, _name, _return_type(_name))
sys.modules.setdefault("autograd_compat.return_types", return_types)


# ----------------------------------------------------------------------------- helpers
def _float_only(fname: str, d: _dtypes.dtype) -> None:
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"{fname} only support floating point and complex dtypes")


def _integral_accumulate(d: _dtypes.dtype) -> _dtypes.dtype:
    """The dtype sum-like reductions give: integers and bools accumulate in int64."""
    return d if (d.is_floating_point or d.is_complex) else _dtypes.int64


def _dims_or_all(dim, ndim: int):
    """normalize_dims, with None or () meaning every dim (as a tuple, for jnp)."""
    if dim is None:
        return tuple(range(ndim))
    dims = normalize_dims(dim, ndim)
    if ndim == 0:
        return ()
    return dims


def _evenly_distributed(x, value):
    """`value` (a reduction of `x` that picks an element, kept dims) with PyTorch's gradient:
    split evenly among the elements equal to it (the NaNs, when it is NaN). The value itself is
    unchanged: the added term is exactly zero."""
    value = lax.stop_gradient(value)
    mask = jnp.where(jnp.isnan(value), jnp.isnan(x), x == value)
    count = jnp.sum(mask)
    share = jnp.sum(jnp.where(mask, x - value, 0)) / jnp.maximum(count, 1)
    return value + share.astype(x.dtype)


# ----------------------------------------------------------------------------- prod
def _prod(x, *, dims, keepdim, dtype):
    return jnp.prod(x.astype(accumulator(dtype)), axis=dims, keepdims=keepdim).astype(dtype)


_PROD_ALL = register("prod", _prod, node="ProdBackward0")
_PROD_DIM = register("prod.dim", _prod, node="ProdBackward1")


def prod(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Product of all elements, or along one `dim`; integers and bools give int64.

    Example::

        >>> torch.tensor([[1, 2], [3, 4]]).prod(1)
        tensor([ 2, 12])
    """
    tensor_arg(input, "prod")
    out_dtype = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    if dim is None:
        return apply(_PROD_ALL, input, dims=None, keepdim=False, dtype=out_dtype.jax)
    if not isinstance(dim, int):
        raise TypeError(
            f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), "
            "but expected one of:\n * (*, torch.dtype dtype = None)\n"
            " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
        )
    d = normalize_dim(dim, input.ndim)
    dims = (d,) if input.ndim else ()
    return apply(_PROD_DIM, input, dims=dims, keepdim=keepdim, dtype=out_dtype.jax)


# ----------------------------------------------------------------------------- std / var
def _var(x, *, dims, keepdim, correction):
    n = 1
    for d in dims:
        n *= x.shape[d]
    mean = jnp.mean(x, axis=dims, keepdims=True)
    centered = x - mean
    squares = (centered * jnp.conj(centered)).real if jnp.iscomplexobj(x) else centered**2
    total = jnp.sum(squares, axis=dims, keepdims=keepdim)
    return total / builtins.max(n - correction, 0)


def _half_as_float32(fn):
    """`fn` computed in float32 for float16/bfloat16 inputs (PyTorch's accumulation type)."""

    def computed(x, **static):
        if accumulator(x.dtype) != x.dtype:
            return fn(x.astype(jnp.float32), **static).astype(x.dtype)
        return fn(x, **static)

    return computed


def _std(x, *, dims, keepdim, correction):
    """sqrt(var) with PyTorch's gradient where the std is 0: 0 (JAX's sqrt gives 0/0)."""
    variance = _var(x, dims=dims, keepdim=keepdim, correction=correction)
    is_zero = variance == 0
    return jnp.where(is_zero, 0.0, jnp.sqrt(jnp.where(is_zero, 1.0, variance)))


_VAR = register("var", _half_as_float32(_var), node="VarBackward0")
_STD = register("std", _half_as_float32(_std), node="StdBackward0")


def _moment(fname, op, input, dim, unbiased, keepdim, correction):
    tensor_arg(input, fname)
    if isinstance(dim, bool):  # std(input, unbiased)
        unbiased, dim = dim, None
    _float_only("std and var", input.dtype)
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{fname}: Cannot pass both unbiased and correction arguments")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _dims_or_all(dim, input.ndim)
    reduced = 1
    for d in dims:
        reduced *= input.shape[d]
    if reduced - correction <= 0:
        warnings.warn(
            f"{fname}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    if isinstance(correction, float) and correction.is_integer():
        correction = int(correction)
    return apply(op, input, dims=dims, keepdim=keepdim, correction=correction)


def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """Variance over all elements or `dim`, dividing by N - correction (default 1; `unbiased`
    is the older spelling: True for 1, False for 0)."""
    return _moment("var", _VAR, input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """Standard deviation: the square root of `var` with the same arguments."""
    return _moment("std", _STD, input, dim, unbiased, keepdim, correction)


# ----------------------------------------------------------------------------- max / min
def _select_along(x, *, dim, keepdim, largest, scalar):
    """(values, int64 indices) of the max (min) along `dim`: the first one, NaN counting as
    the extreme. The values are gathered at the indices, so the gradient goes there only."""
    if scalar:
        x = x.reshape(1)
    index = (
        jnp.argmax(x, axis=dim, keepdims=True)
        if largest
        else jnp.argmin(x, axis=dim, keepdims=True)
    )
    values = jnp.take_along_axis(x, index, axis=dim)
    index = index.astype(jnp.int64)
    if scalar:
        return values.reshape(()), index.reshape(())
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index


def _extreme(x, *, largest):
    value = jnp.max(x) if largest else jnp.min(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return value
    nan = jnp.any(jnp.isnan(x))
    value = jnp.where(nan, jnp.nan, value)
    return _evenly_distributed(x, value)


_MAX_DIM = register("max.dim", _select_along, node="MaxBackward0")
_MIN_DIM = register("min.dim", _select_along, node="MinBackward0")
_MAX_ALL = register("max", _extreme, node="MaxBackward1")
_MIN_ALL = register("min", _extreme, node="MinBackward1")


def _max_min(fname: str, largest: bool, input, dim, keepdim, other):
    tensor_arg(input, fname)
    if isinstance(dim, Tensor) and other is None:
        dim, other = None, dim
    if other is not None:
        return (maximum if largest else minimum)(input, other)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return apply(_MAX_ALL if largest else _MIN_ALL, input, largest=largest)
    if not isinstance(dim, int):
        raise TypeError(
            f"{fname}() received an invalid combination of arguments - got "
            f"({type(dim).__name__}), but expected one of:\n * ()\n * (Tensor other)\n"
            " * (int dim, bool keepdim = False)\n"
        )
    d = normalize_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    op = _MAX_DIM if largest else _MIN_DIM
    values, indices = apply(
        op, input, dim=d, keepdim=bool(keepdim), largest=largest, scalar=input.ndim == 0
    )
    return getattr(return_types, fname)(values, indices)


def max(input, dim=None, keepdim: bool = False, *, other=None):
    """The largest element; along `dim`, `(values, indices)`; with a tensor, `maximum`.

    Example::

        >>> torch.tensor([[1, 5], [7, 2]]).max(1)
        torch.return_types.max(
        values=tensor([5, 7]),
        indices=tensor([1, 0]))
    """
    return _max_min("max", True, input, dim, keepdim, other)


def min(input, dim=None, keepdim: bool = False, *, other=None):
    """The smallest element; along `dim`, `(values, indices)`; with a tensor, `minimum`."""
    return _max_min("min", False, input, dim, keepdim, other)


def _amax(x, *, dims, keepdim, largest):
    """amax/amin; the gradient is split evenly among the elements equal to the result (NaN
    everywhere in a slice whose result is NaN, as PyTorch's)."""
    value = (jnp.max if largest else jnp.min)(x, axis=dims, keepdims=True)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        value = lax.stop_gradient(value)
        mask = x == value
        count = jnp.maximum(jnp.sum(mask, axis=dims, keepdims=True), 1)
        share = jnp.sum(jnp.where(mask, x - value, 0), axis=dims, keepdims=True) / count
        # A NaN result: PyTorch's grad / count is 0/0, NaN for every element of the slice.
        is_nan = jnp.isnan(value)
        poison = jnp.where(is_nan, jnp.nan, 0.0).astype(x.dtype)
        nan_branch = value + jnp.sum(x, axis=dims, keepdims=True) * poison
        value = jnp.where(is_nan, nan_branch, value + share.astype(x.dtype))
    return value if keepdim else jnp.squeeze(value, dims)


_AMAX = register("amax", _amax, node="AmaxBackward0")
_AMIN = register("amin", _amax, node="AminBackward0")


def _amax_amin(fname: str, largest: bool, input, dim, keepdim):
    tensor_arg(input, fname)
    dims = _dims_or_all(dim if dim != () else None, input.ndim)
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    if input.numel() == 0 and not dims:
        raise IndexError(f"{fname}(): Expected reduction dim 0 to have non-zero size.")
    return apply(_AMAX if largest else _AMIN, input, dims=dims, keepdim=keepdim, largest=largest)


def amax(input, dim=(), keepdim: bool = False):
    """The maximum over `dim` (an int or tuple; all dims by default). Ties share the gradient."""
    return _amax_amin("amax", True, input, dim, keepdim)


def amin(input, dim=(), keepdim: bool = False):
    """The minimum over `dim` (an int or tuple; all dims by default). Ties share the gradient."""
    return _amax_amin("amin", False, input, dim, keepdim)


def _arg_extreme(x, *, dim, keepdim, largest):
    fn = jnp.argmax if largest else jnp.argmin
    if dim is None:
        index = fn(x.reshape(-1))
        if keepdim:
            index = index.reshape((1,) * x.ndim)
        return index.astype(jnp.int64)
    if x.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return fn(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


_ARGMAX = register("argmax", _arg_extreme, node="ArgmaxBackward", differentiable=False)


def _arg(fname: str, largest: bool, input, dim, keepdim):
    tensor_arg(input, fname)
    if input.dtype is _dtypes.bool:
        raise RuntimeError(f"{fname}(): does not support bool input")
    if dim is None:
        if input.numel() == 0:
            raise IndexError(
                f"{fname}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        d = None
    else:
        d = normalize_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    return apply(_ARGMAX, input, dim=d, keepdim=bool(keepdim), largest=largest)


def argmax(input, dim=None, keepdim: bool = False):
    """Index of the (first) largest element, of the flattened tensor or along `dim`."""
    return _arg("argmax", True, input, dim, keepdim)


def argmin(input, dim=None, keepdim: bool = False):
    """Index of the (first) smallest element, of the flattened tensor or along `dim`."""
    return _arg("argmin", False, input, dim, keepdim)


# ----------------------------------------------------------------------------- logsumexp
def _logsumexp(x, *, dims, keepdim, dtype):
    out = jax.nn.logsumexp(x.astype(accumulator(dtype)), axis=dims, keepdims=keepdim)
    return out.astype(dtype)


_LOGSUMEXP = register("logsumexp", _logsumexp, node="LogsumexpBackward0")


def logsumexp(input, dim, keepdim: bool = False):
    """log(sum(exp(input))) over `dim`, computed stably; integers give the default float."""
    tensor_arg(input, "logsumexp")
    dtype = input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _dtypes.get_default_dtype()
    dims = _dims_or_all(dim if dim != () else None, input.ndim)
    return apply(_LOGSUMEXP, input, dims=dims, keepdim=keepdim, dtype=dtype.jax)


# ----------------------------------------------------------------------------- cumulative
def _cumulative(x, *, dim, dtype, product):
    x = x.astype(accumulator(dtype))
    if x.ndim == 0:
        return x.astype(dtype)
    out = jnp.cumprod(x, axis=dim) if product else jnp.cumsum(x, axis=dim)
    return out.astype(dtype)


_CUMSUM = register("cumsum", _cumulative, node="CumsumBackward0", saves="none")
_CUMPROD = register("cumprod", _cumulative, node="CumprodBackward0")


def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along `dim`; integers and bools give int64 unless `dtype` is given."""
    tensor_arg(input, "cumsum")
    d = normalize_dim(dim, input.ndim)
    out = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    return apply(_CUMSUM, input, dim=d, dtype=out.jax, product=False)


def cumprod(input, dim, *, dtype=None):
    """Cumulative product along `dim` (exact gradients with zeros in the input)."""
    tensor_arg(input, "cumprod")
    d = normalize_dim(dim, input.ndim)
    out = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    return apply(_CUMPROD, input, dim=d, dtype=out.jax, product=True)


# ----------------------------------------------------------------------------- all / any
def _all_any(x, *, dims, keepdim, is_all, dtype):
    truth = x.astype(jnp.bool_)
    out = (
        jnp.all(truth, axis=dims, keepdims=keepdim)
        if is_all
        else jnp.any(truth, axis=dims, keepdims=keepdim)
    )
    return out.astype(dtype)


_ALL_ANY = register("all", _all_any, node="AllBackward", differentiable=False)


def _truth_reduction(fname: str, is_all: bool, input, dim, keepdim):
    tensor_arg(input, fname)
    dims = _dims_or_all(dim, input.ndim)
    dtype = _dtypes.uint8 if input.dtype is _dtypes.uint8 else _dtypes.bool
    return apply(_ALL_ANY, input, dims=dims, keepdim=keepdim, is_all=is_all, dtype=dtype.jax)


def all(input, dim=None, keepdim: bool = False):
    """True where every element (along `dim`) is nonzero; uint8 inputs give uint8."""
    return _truth_reduction("all", True, input, dim, keepdim)


def any(input, dim=None, keepdim: bool = False):
    """True where some element (along `dim`) is nonzero; uint8 inputs give uint8."""
    return _truth_reduction("any", False, input, dim, keepdim)


# ----------------------------------------------------------------------------- median
def _lower_median_index(x, dim):
    """Index of the lower median along `dim` (position (n - 1) // 2 of a stable sort), or of
    the first NaN where there is one (PyTorch's median propagates NaN)."""
    n = x.shape[dim]
    order = jnp.argsort(x, axis=dim, stable=True)
    index = lax.index_in_dim(order, (n - 1) // 2, axis=dim, keepdims=True)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        nan = jnp.isnan(x)
        first_nan = jnp.argmax(nan, axis=dim, keepdims=True)
        index = jnp.where(jnp.any(nan, axis=dim, keepdims=True), first_nan, index)
    return index


def _median_all(x):
    if x.size == 0:
        return jnp.full((), jnp.nan, x.dtype)
    flat = x.reshape(-1)
    value = flat[_lower_median_index(flat, 0)[0]]
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return value
    return _evenly_distributed(flat, value)


def _median_dim(x, *, dim, keepdim, scalar):
    if scalar:
        x = x.reshape(1)
    index = _lower_median_index(x, dim)
    values = jnp.take_along_axis(x, index, axis=dim)
    index = index.astype(jnp.int64)
    if scalar:
        return values.reshape(()), index.reshape(())
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index


_MEDIAN_ALL = register("median", _median_all, node="MedianBackward0")
_MEDIAN_DIM = register("median.dim", _median_dim, node="MedianBackward1")


def median(input, dim=None, keepdim: bool = False):
    """The lower median (for an even count, the smaller of the two middle values), as PyTorch.

    Without `dim`: one value, its gradient split among the elements equal to it. With `dim`:
    `(values, indices)`, the gradient going to the index. NaN propagates.
    """
    tensor_arg(input, "median")
    if dim is None:
        return apply(_MEDIAN_ALL, input)
    d = normalize_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, indices = apply(
        _MEDIAN_DIM, input, dim=d, keepdim=bool(keepdim), scalar=input.ndim == 0
    )
    return return_types.median(values, indices)


# ----------------------------------------------------------------------------- sort / topk
def _sort_order(x, dim, descending):
    """A stable argsort; descending keeps the original order of equal elements, NaN first."""
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.uint8)
    return jnp.argsort(x, axis=dim, stable=True, descending=descending)


def _sort(x, *, dim, descending, scalar):
    if scalar:
        return x, jnp.zeros((), jnp.int64)
    order = _sort_order(x, dim, descending)
    return jnp.take_along_axis(x, order, axis=dim), order.astype(jnp.int64)


def _topk(x, *, k, dim, largest, scalar):
    if scalar:
        return x, jnp.zeros((), jnp.int64)
    order = lax.slice_in_dim(_sort_order(x, dim, largest), 0, k, axis=dim)
    return jnp.take_along_axis(x, order, axis=dim), order.astype(jnp.int64)


_SORT = register("sort", _sort, node="SortBackward0")
_SORT_STABLE = register("sort.stable", _sort, node="SortBackward1")
_TOPK = register("topk", _topk, node="TopkBackward0")
_ARGSORT = register(
    "argsort",
    lambda x, *, dim, descending, scalar: _sort(x, dim=dim, descending=descending, scalar=scalar)[
        1
    ],
    node="ArgsortBackward",
    differentiable=False,
)


def sort(input, dim: int = -1, descending: bool = False, stable: bool | None = None):
    """Sort along `dim`: `(values, indices)`. Always stable here (NaN sorts as the largest).

    Example::

        >>> torch.tensor([3.0, 1.0, 2.0]).sort()
        torch.return_types.sort(
        values=tensor([1., 2., 3.]),
        indices=tensor([1, 2, 0]))
    """
    tensor_arg(input, "sort")
    if isinstance(dim, bool):  # sort(stable, dim, descending): every sort here is stable
        stable, dim = dim, -1
    d = normalize_dim(dim, input.ndim)
    op = _SORT if stable is None else _SORT_STABLE  # PyTorch's node for the `stable` overload
    values, indices = apply(op, input, dim=d, descending=bool(descending), scalar=input.ndim == 0)
    return return_types.sort(values, indices)


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """The indices that sort `input` along `dim` (stable)."""
    tensor_arg(input, "argsort")
    d = normalize_dim(dim, input.ndim)
    return apply(_ARGSORT, input, dim=d, descending=bool(descending), scalar=input.ndim == 0)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The `k` largest (or smallest) elements along `dim`: `(values, indices)`, sorted.

    Among equal elements the lower index comes first (PyTorch's CPU order for ties is
    unspecified and can differ).
    """
    tensor_arg(input, "topk")
    if input.dtype is _dtypes.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    k = int(k)
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = apply(_TOPK, input, k=k, dim=d, largest=bool(largest), scalar=input.ndim == 0)
    return return_types.topk(values, indices)


def cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place `cumsum`; returns self."""
    check_inplace(self)
    return commit_inplace(self, cumsum(self, dim, dtype=dtype))


def cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place `cumprod`; returns self."""
    check_inplace(self)
    return commit_inplace(self, cumprod(self, dim, dtype=dtype))
