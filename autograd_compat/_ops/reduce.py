"""Reductions, scans and orderings: sum/mean/prod, nansum/nanmean, std/var, norms (vector,
matrix, norm), max/min (whole or along a dim), amax/amin, argmax/argmin, logsumexp, all/any,
count_nonzero, median/kthvalue/quantile/nanquantile, cumsum/cumprod/cummax/cummin, diff,
sort/argsort/topk; with PyTorch's dim/keepdim/dtype arguments and result dtypes.

Ops that select an element along a dim (max/min/median with a dim, topk, sort, kthvalue)
return `(values, indices)` as a `torch.return_types.*` tuple; their gradient flows to the
selected position only, because the pure function gathers the values at the indices it
computed. Whole-tensor max/min/median instead split the gradient evenly between tied
elements, as PyTorch does.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import sys
import types
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.middle_sums import middle, sum_middle
from .._pure.op import constant, register, scalar_input
from .._pure.opmath import REDUCED, in_opmath, opmath_dtype
from .._pure.shapes import normalize_dim, normalize_dims
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace, numpy_names, scalar_type_name, tensor_arg
from .._tape.record import apply
from .comparison import logical_xor, maximum, minimum
from .elementwise import sub
from .out_arg import takes_out
from .shape import cat, narrow, reshape
from .unary import _abs

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "argsort",
    "count_nonzero",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "diff",
    "kthvalue",
    "logcumsumexp",
    "logsumexp",
    "max",
    "mean",
    "median",
    "min",
    "nanmean",
    "nanquantile",
    "nansum",
    "norm",
    "prod",
    "quantile",
    "return_types",
    "sort",
    "std",
    "std_mean",
    "sum",
    "topk",
    "var",
    "var_mean",
]


def _sum(x, *, dims, keepdim, dtype):
    span = None if dims is None else middle(x.ndim, dims)
    if span is not None:  # (0, 2, 3) of NCHW: in two stages, as XLA:CPU runs it fast
        return sum_middle(x, span, keepdim, opmath_dtype(dtype)).astype(dtype)
    return jnp.sum(x, axis=dims, keepdims=keepdim, dtype=opmath_dtype(dtype)).astype(dtype)


def _mean(x, *, dims, keepdim, dtype):
    x = x.astype(opmath_dtype(dtype))
    span = None if dims is None else middle(x.ndim, dims)
    if span is not None:
        count = math.prod(x.shape[d] for d in dims)
        return (sum_middle(x, span, keepdim) / count).astype(dtype)
    return jnp.mean(x, axis=dims, keepdims=keepdim).astype(dtype)


_SUM_ALL = register("sum", _sum, node="SumBackward0", saves="none")
_SUM_DIM = register("sum.dim", _sum, node="SumBackward1", saves="none")
_MEAN_ALL = register("mean", _mean, node="MeanBackward0", saves="none")
_MEAN_DIM = register("mean.dim", _mean, node="MeanBackward1", saves="none")


@numpy_names
def sum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Sum over all elements, or over `dim` (an int or a tuple; an empty tuple means all, as
    in PyTorch). Integers and bools sum to int64."""
    tensor_arg(input, "sum")
    op = _SUM_ALL if dim is None else _SUM_DIM
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    dims = normalize_dims(dim, input.ndim)
    if dtype is not None:
        out_dtype = _dtypes.as_dtype(dtype)
    elif input.dtype.is_floating_point or input.dtype.is_complex:
        out_dtype = input.dtype
    else:
        out_dtype = _dtypes.int64
    return apply(op, input, dims=dims, keepdim=keepdim, dtype=out_dtype.jax)


@takes_out
@numpy_names
def mean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Mean over all elements or over `dim`; floating and complex inputs only, as in PyTorch."""
    tensor_arg(input, "mean")
    out_dtype = input.dtype if dtype is None else _dtypes.as_dtype(dtype)
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        given = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"mean(): could not infer output dtype. {given} dtype must be either a "
            f"floating point or complex dtype. Got: {scalar_type_name(out_dtype)}"
        )
    op = _MEAN_ALL if dim is None else _MEAN_DIM
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    dims = normalize_dims(dim, input.ndim)
    return apply(op, input, dims=dims, keepdim=keepdim, dtype=out_dtype.jax)


def _vector_norm(x, p, *, ord, dims, keepdim, dtype):
    """The p-norm with PyTorch's gradient at zero: 0 (a subgradient), never NaN.

    The usual trick: the sum is replaced by 1 where it is 0 before the root, and the result
    by 0 there, so neither branch produces 0/0 in the derivative (of any order).
    `ord` is static for 0, 1, 2 and +-inf; any other order is the runtime float64 input `p`
    (so a new order never compiles) and `ord` says which branch: "p>1", "0<p<1" or "p<0".
    """
    if jnp.dtype(dtype) in REDUCED:  # computed in float32 and rounded once, as PyTorch
        out = _vector_norm(
            x.astype(jnp.float32), p, ord=ord, dims=dims, keepdim=keepdim, dtype=jnp.float32
        )
        return out.astype(dtype)
    if isinstance(ord, str):
        return _general_norm(_abs(x).astype(dtype), p, ord, dims, keepdim)
    if ord == 2 and not jnp.iscomplexobj(x):  # x² is |x|², without abs's sign in the derivative
        x = x.astype(dtype)
    else:
        x = _abs(x).astype(dtype)
    if ord == math.inf:
        return jnp.max(x, axis=dims, keepdims=keepdim)
    if ord == -math.inf:
        return jnp.min(x, axis=dims, keepdims=keepdim)
    if ord == 0:
        return jnp.sum((x != 0).astype(x.dtype), axis=dims, keepdims=keepdim)
    if ord == 1:
        return jnp.sum(x, axis=dims, keepdims=keepdim)
    if ord < 1:  # |x|**ord has an infinite slope at 0; PyTorch's gradient there is 0
        nonzero = x != 0
        terms = jnp.where(nonzero, jnp.where(nonzero, x, 1.0) ** ord, 0.0 if ord > 0 else jnp.inf)
    else:
        terms = x**2 if ord == 2 else x**ord
    powered = jnp.sum(terms, axis=dims, keepdims=keepdim)
    is_zero = powered == 0
    safe = jnp.where(is_zero, 1.0, powered)
    root = jnp.sqrt(safe) if ord == 2 else safe ** (1.0 / ord)
    return jnp.where(is_zero, 0.0, root)


def _general_norm(x, p, kind: str, dims, keepdim):
    """`_vector_norm`'s last branches for a runtime order `p` (float64), cast as a Python
    float would be: p to x's dtype, 1 / p computed in float64 then cast."""
    order = p.astype(x.dtype)
    if kind == "p>1":
        terms = x**order
    else:
        nonzero = x != 0
        terms = jnp.where(
            nonzero, jnp.where(nonzero, x, 1.0) ** order, 0.0 if kind == "0<p<1" else jnp.inf
        )
    powered = jnp.sum(terms, axis=dims, keepdims=keepdim)
    is_zero = powered == 0
    safe = jnp.where(is_zero, 1.0, powered)
    root = safe ** (1.0 / p).astype(x.dtype)
    return jnp.where(is_zero, 0.0, root)


_NORM = register(
    "linalg.vector_norm", _vector_norm, node="LinalgVectorNormBackward0", shown_inputs=(0,)
)
_NORM_SPECIAL = frozenset([0.0, 1.0, 2.0, math.inf, -math.inf])
_NO_ORDER = np.zeros((), np.float64)  # the unused order input of a static order


def norm_order(ord: float) -> tuple:
    """`_vector_norm`'s (order input, static `ord`): `ord` static when special, else a runtime
    float64 input and its branch's name."""
    if ord in _NORM_SPECIAL or math.isnan(ord):
        return _NO_ORDER, ord
    return scalar_input(ord), "p>1" if ord > 1 else "0<p<1" if ord > 0 else "p<0"


def _apply_norm(x, ord: float, **static):
    """The norm op of `x` for the order `ord` (see `norm_order`)."""
    order, static_ord = norm_order(ord)
    return apply(_NORM, x, order, ord=static_ord, **static)


def _norm_dtype(fname: str, input, dtype) -> _dtypes.dtype:
    """The dtype a norm computes in: the input's (floating or complex only) or `dtype`."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type_name(input.dtype)}"
        )
    if dtype is None:
        return input.dtype
    dtype = _dtypes.as_dtype(dtype)
    if _dtypes.promote_types(input.dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{fname}: the dtype of the input ({scalar_type_name(input.dtype)}) should be "
            f"convertible without narrowing to the specified dtype ({scalar_type_name(dtype)})"
        )
    return dtype


@takes_out
def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None):
    """The vector `ord`-norm over all elements (flattened) or over `dim` (an int or a tuple).

    `ord` may be any real number or ±inf; `ord=0` counts the nonzero elements. The gradient at
    a zero norm is 0, as in PyTorch.

    Example::

        >>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0]))
        tensor(5.)
    """
    tensor_arg(x, "vector_norm", "x")
    out_dtype = _norm_dtype("linalg.vector_norm", x, dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    dims = normalize_dims(dim, x.ndim)
    ord = float(ord)
    if ord < 0 or math.isinf(ord):
        empty = x.numel() == 0 if dims is None else builtins.any(x.shape[d] == 0 for d in dims)
        if empty:
            name = "inf" if math.isinf(ord) and ord > 0 else str(ord).removesuffix(".0")
            if ord == -math.inf:
                name = "-inf"
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
                "the operation does not have an identity"
            )
    return _apply_norm(x, ord, dims=dims, keepdim=bool(keepdim), dtype=out_dtype.to_real().jax)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


@takes_out
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None):
    """A matrix norm over the two dims `dim`: "fro", "nuc", ±1 (max/min column sum), ±2
    (largest/smallest singular value), ±inf (max/min row sum).

    Node names follow PyTorch's decomposition (LinalgVectorNormBackward0 for "fro",
    SumBackward1 for "nuc", AmaxBackward0/AminBackward0 for the others).
    """
    tensor_arg(A, "matrix_norm", "A")
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    out_dtype = _norm_dtype("linalg.matrix_norm", A, dtype)
    if ord not in _MATRIX_ORDS or isinstance(ord, bool):
        shown = ord if isinstance(ord, str) else f"{ord:g}"
        raise RuntimeError(f"linalg.matrix_norm: Order {shown} not supported.")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        shown = ", ".join(str(d) for d in dim)
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    dims = (normalize_dim(dim[0], A.ndim), normalize_dim(dim[1], A.ndim))
    if dims[0] == dims[1]:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})"
        )
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    return apply_matrix_norm(A, ord, dims, keepdim, out_dtype.to_real())


# `x.norm()`'s static arguments by input dtype: the common call skips the argument handling
_EUCLIDEAN = {
    d.jax: {"ord": 2.0, "dims": None, "keepdim": False, "dtype": d.to_real().jax}
    for d in _dtypes.ALL
    if d.is_floating_point or d.is_complex
}


@takes_out
def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector p-norm over all elements or over `dim` (`p="fro"` is the 2-norm)."""
    tensor_arg(input, "norm")
    euclidean = p == "fro" if isinstance(p, str) else type(p) in (int, float) and p == 2
    if euclidean and dim is None and dtype is None and not keepdim:
        static = _EUCLIDEAN.get(input._stored.dtype)
        if static is not None:
            return apply(_NORM, input, _NO_ORDER, **static)
    if p == "nuc":
        matrix_dims = (-2, -1) if dim is None else tuple(dim)
        return matrix_norm(input, "nuc", matrix_dims, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm(): p={p!r} is not supported; use a number, 'fro' or 'nuc'")
    out_dtype = _dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {scalar_type_name(input.dtype)}"
        )
    dims = normalize_dims(dim, input.ndim)
    return _apply_norm(input, float(p), dims=dims, keepdim=keepdim, dtype=out_dtype.to_real().jax)


# ----------------------------------------------------------------------------- return types
class _ReturnType(tuple):
    """A tuple with named fields, like `torch.return_types.max` (`values`, `indices`)."""

    __slots__ = ()
    _name = "return_type"
    _fields: tuple[str, ...] = ("values", "indices")

    def __new__(cls, *items):
        if len(items) == 1:  # built from one iterable, as structseq types allow
            items = tuple(items[0])
        if len(items) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls._name} takes a {len(cls._fields)}-sequence")
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        shown = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{self._name}(\n{shown})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _return_type(name: str, fields: tuple[str, ...] = ("values", "indices")) -> type:
    """A `torch.return_types.<name>` tuple type whose items are named `fields`."""
    body: dict = {"__slots__": (), "_name": name, "_fields": fields}
    for i, field in enumerate(fields):
        body[field] = property(operator.itemgetter(i), doc=f"Item {i}.")
    cls = type(name, (_ReturnType,), body)
    cls.__module__ = "torch.return_types"
    cls.__qualname__ = name
    return cls


return_types = types.ModuleType(
    "autograd_compat.return_types", "Named tuples returned by some ops."
)
for _name in ("max", "min", "median", "topk", "sort", "kthvalue", "mode", "cummax", "cummin"):
    setattr(return_types, _name, _return_type(_name))
for _name, _fields in (
    ("nanmedian", ("values", "indices")),
    ("aminmax", ("min", "max")),
    ("histogram", ("hist", "bin_edges")),
    ("histogramdd", ("hist", "bin_edges")),
    ("frexp", ("mantissa", "exponent")),
    ("svd", ("U", "S", "V")),
    ("linalg_svd", ("U", "S", "Vh")),
    ("qr", ("Q", "R")),
    ("linalg_qr", ("Q", "R")),
    ("slogdet", ("sign", "logabsdet")),
    ("linalg_slogdet", ("sign", "logabsdet")),
    ("linalg_eigh", ("eigenvalues", "eigenvectors")),
    ("linalg_eig", ("eigenvalues", "eigenvectors")),
    ("linalg_lu", ("P", "L", "U")),
    ("geqrf", ("a", "tau")),
    ("linalg_ldl_factor", ("LD", "pivots")),
    ("linalg_ldl_factor_ex", ("LD", "pivots", "info")),
    ("linalg_cholesky_ex", ("L", "info")),
    ("linalg_lu_factor", ("LU", "pivots")),
    ("linalg_lu_factor_ex", ("LU", "pivots", "info")),
    ("linalg_lstsq", ("solution", "residuals", "rank", "singular_values")),
    ("linalg_inv_ex", ("inverse", "info")),
    ("lu_unpack", ("P", "L", "U")),
    ("_lu_with_info", ("LU", "pivots", "info")),
    ("triangular_solve", ("solution", "cloned_coefficient")),
    ("linalg_solve_ex", ("result", "info")),
):
    setattr(return_types, _name, _return_type(_name, _fields))


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
    return normalize_dims(dim, ndim)


@jax.custom_jvp
def _zero_passing_tangent(x):
    """Zeros whose derivative is the identity: `x - stop_gradient(x)` without its inf - inf."""
    return jnp.zeros_like(x)


@_zero_passing_tangent.defjvp
def _zero_passing_tangent_jvp(primals, tangents):
    return jnp.zeros_like(primals[0]), tangents[0]


def _evenly_distributed(x, value):
    """`value` (a reduction of `x` that picks an element, kept dims) with PyTorch's gradient:
    split evenly among the elements equal to it (the NaNs, when it is NaN). The value itself is
    unchanged: the added term is exactly zero, also for an infinite value."""
    value = lax.stop_gradient(value)
    mask = jnp.where(jnp.isnan(value), jnp.isnan(x), x == value)
    count = jnp.sum(mask)
    share = jnp.sum(jnp.where(mask, _zero_passing_tangent(x), 0)) / jnp.maximum(count, 1)
    return value + share.astype(x.dtype)


# ----------------------------------------------------------------------------- prod
def _prod(x, *, dims, keepdim, dtype):
    """`dtype` None: the input's (so a cast autocast put in front of it carries through)."""
    dtype = x.dtype if dtype is None else dtype
    return jnp.prod(x.astype(opmath_dtype(dtype)), axis=dims, keepdims=keepdim).astype(dtype)


_PROD_ALL = register("prod", _prod, node="ProdBackward0")
_PROD_DIM = register("prod.dim", _prod, node="ProdBackward1")


@numpy_names
def prod(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Product of all elements, or along one `dim`; integers and bools give int64.

    Example::

        >>> torch.tensor([[1, 2], [3, 4]]).prod(1)
        tensor([ 2, 12])
    """
    tensor_arg(input, "prod")
    out_dtype = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    out = None if out_dtype is input.dtype else out_dtype.jax
    if dim is None:
        return apply(_PROD_ALL, input, dims=None, keepdim=False, dtype=out)
    if not isinstance(dim, int):
        raise TypeError(
            f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), "
            "but expected one of:\n * (*, torch.dtype dtype = None)\n"
            " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
        )
    d = normalize_dim(dim, input.ndim)
    dims = (d,) if input.ndim else ()
    return apply(_PROD_DIM, input, dims=dims, keepdim=keepdim, dtype=out)


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


def _std(x, *, dims, keepdim, correction):
    """sqrt(var) with PyTorch's gradient where the std is 0: 0 (JAX's sqrt gives 0/0)."""
    variance = _var(x, dims=dims, keepdim=keepdim, correction=correction)
    is_zero = variance == 0
    return jnp.where(is_zero, 0.0, jnp.sqrt(jnp.where(is_zero, 1.0, variance)))


_VAR = register("var", in_opmath(_var), node="VarBackward0")
_STD = register("std", in_opmath(_std), node="StdBackward0")


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


@takes_out
@numpy_names
def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """Variance over all elements or `dim`, dividing by N - correction (default 1; `unbiased`
    is the older spelling: True for 1, False for 0)."""
    return _moment("var", _VAR, input, dim, unbiased, keepdim, correction)


@takes_out
@numpy_names
def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """Standard deviation: the square root of `var` with the same arguments."""
    return _moment("std", _STD, input, dim, unbiased, keepdim, correction)


@numpy_names
def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """`(var(...), mean(...))` over the same dims."""
    if isinstance(dim, bool):  # var_mean(input, unbiased)
        unbiased, dim = dim, None
    variance = var(input, dim, unbiased, keepdim, correction=correction)
    return variance, mean(input, dim, keepdim)


@numpy_names
def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """`(std(...), mean(...))` over the same dims."""
    if isinstance(dim, bool):  # std_mean(input, unbiased)
        unbiased, dim = dim, None
    deviation = std(input, dim, unbiased, keepdim, correction=correction)
    return deviation, mean(input, dim, keepdim)


# ----------------------------------------------------------------------------- max / min
def _gather_along(x, pick, *, dim, keepdim, scalar):
    """(values, int64 indices) at the positions `pick(x)` gives along `dim` (kept dims); the
    values are gathered at the indices, so the gradient goes there only."""
    if scalar:
        x = x.reshape(1)
    index = pick(x)
    values = jnp.take_along_axis(x, index, axis=dim)
    index = index.astype(jnp.int64)
    if scalar:
        return values.reshape(()), index.reshape(())
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index


def _select_along(x, *, dim, keepdim, largest, scalar):
    """(values, int64 indices) of the max (min) along `dim`: the first one, NaN counting as
    the extreme."""
    arg = jnp.argmax if largest else jnp.argmin
    return _gather_along(
        x, lambda v: arg(v, axis=dim, keepdims=True), dim=dim, keepdim=keepdim, scalar=scalar
    )


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


@takes_out
@numpy_names
def max(input, dim=None, keepdim: bool = False, *, other=None):
    """The largest element; along `dim`, `(values, indices)`; with a tensor, `maximum`.

    Example::

        >>> torch.tensor([[1, 5], [7, 2]]).max(1)
        torch.return_types.max(
        values=tensor([5, 7]),
        indices=tensor([1, 0]))
    """
    return _max_min("max", True, input, dim, keepdim, other)


@takes_out
@numpy_names
def min(input, dim=None, keepdim: bool = False, *, other=None):
    """The smallest element; along `dim`, `(values, indices)`; with a tensor, `minimum`."""
    return _max_min("min", False, input, dim, keepdim, other)


def _amax(x, *, dims, keepdim, largest):
    """amax/amin; the gradient is split evenly among the elements equal to the result (NaN
    everywhere in a slice whose result is NaN, as PyTorch's); an infinite result stays one."""
    value = (jnp.max if largest else jnp.min)(x, axis=dims, keepdims=True)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        value = lax.stop_gradient(value)
        mask = x == value
        count = jnp.maximum(jnp.sum(mask, axis=dims, keepdims=True), 1)
        ties = jnp.where(mask, _zero_passing_tangent(x), 0)
        share = jnp.sum(ties, axis=dims, keepdims=True) / count
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


@takes_out
@numpy_names
def amax(input, dim=(), keepdim: bool = False):
    """The maximum over `dim` (an int or tuple; all dims by default). Ties share the gradient."""
    return _amax_amin("amax", True, input, dim, keepdim)


@takes_out
@numpy_names
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


@numpy_names
def argmax(input, dim=None, keepdim: bool = False):
    """Index of the (first) largest element, of the flattened tensor or along `dim`."""
    return _arg("argmax", True, input, dim, keepdim)


@numpy_names
def argmin(input, dim=None, keepdim: bool = False):
    """Index of the (first) smallest element, of the flattened tensor or along `dim`."""
    return _arg("argmin", False, input, dim, keepdim)


# ----------------------------------------------------------------------------- logsumexp
def _logsumexp(x, *, dims, keepdim, dtype):
    out = jax.nn.logsumexp(x.astype(opmath_dtype(dtype)), axis=dims, keepdims=keepdim)
    return out.astype(dtype)


_LOGSUMEXP = register("logsumexp", _logsumexp, node="LogsumexpBackward0")


@takes_out
@numpy_names
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
    x = x.astype(opmath_dtype(dtype))
    if x.ndim == 0:
        return x.astype(dtype)
    out = jnp.cumprod(x, axis=dim) if product else jnp.cumsum(x, axis=dim)
    return out.astype(dtype)


_CUMSUM = register("cumsum", _cumulative, node="CumsumBackward0", saves="none")
_CUMPROD = register("cumprod", _cumulative, node="CumprodBackward0")


@takes_out
@numpy_names
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along `dim`; integers and bools give int64 unless `dtype` is given."""
    tensor_arg(input, "cumsum")
    d = normalize_dim(dim, input.ndim)
    out = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    return apply(_CUMSUM, input, dim=d, dtype=out.jax, product=False)


@takes_out
@numpy_names
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along `dim` (exact gradients with zeros in the input)."""
    tensor_arg(input, "cumprod")
    d = normalize_dim(dim, input.ndim)
    out = _dtypes.as_dtype(dtype) if dtype is not None else _integral_accumulate(input.dtype)
    return apply(_CUMPROD, input, dim=d, dtype=out.jax, product=True)


def _logcumsumexp(x, *, dim):
    return lax.cumlogsumexp(x, axis=dim) if x.ndim else x


_LOGCUMSUMEXP = register("logcumsumexp", _logcumsumexp, node="LogcumsumexpBackward0")


@takes_out
@numpy_names
def logcumsumexp(input, dim: int):
    """log(cumsum(exp(input), dim)), computed stably."""
    tensor_arg(input, "logcumsumexp")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    return apply(_LOGCUMSUMEXP, input, dim=normalize_dim(dim, input.ndim))


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


@takes_out
@numpy_names
def all(input, dim=None, keepdim: bool = False):
    """True where every element (along `dim`) is nonzero; uint8 inputs give uint8."""
    return _truth_reduction("all", True, input, dim, keepdim)


@takes_out
@numpy_names
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


def gathered_at(index_of):
    """The pure function of an op that picks the element at `index_of(x, dim)` (kept dims)
    along `dim`: (values, int64 indices), the gradient going to the index."""

    def pure(x, *, dim, keepdim, scalar):
        pick = functools.partial(index_of, dim=dim)
        return _gather_along(x, pick, dim=dim, keepdim=keepdim, scalar=scalar)

    return pure


_MEDIAN_ALL = register("median", _median_all, node="MedianBackward0")
_MEDIAN_DIM = register("median.dim", gathered_at(_lower_median_index), node="MedianBackward1")


@takes_out
@numpy_names
def median(input, dim=None, keepdim: bool = False):
    """The lower median (for an even count, the smaller of the two middle values), as PyTorch.

    Without `dim`: one value, its gradient split among the elements equal to it. With `dim`:
    `(values, indices)`, the gradient going to the index. NaN propagates.
    """
    tensor_arg(input, "median")
    if dim is None:
        return apply(_MEDIAN_ALL, input)
    return return_types.median(*pick_along("median", _MEDIAN_DIM, input, dim, keepdim))


def pick_along(fname: str, op, input: Tensor, dim, keepdim) -> tuple:
    """(values, indices) of the op `op`, which picks one element along `dim` (static `dim`,
    `keepdim`, `scalar`); PyTorch's IndexError for an empty dim."""
    d = normalize_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    return apply(op, input, dim=d, keepdim=bool(keepdim), scalar=input.ndim == 0)


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


@takes_out
@numpy_names
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


@numpy_names
def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """The indices that sort `input` along `dim` (stable)."""
    tensor_arg(input, "argsort")
    d = normalize_dim(dim, input.ndim)
    return apply(_ARGSORT, input, dim=d, descending=bool(descending), scalar=input.ndim == 0)


@takes_out
@numpy_names
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


def _matrix_norm(x, *, ord, dims, keepdim, dtype):
    """The matrix norms of linalg.matrix_norm over the two `dims` (ord != "fro")."""
    x = x.astype(dtype)
    row, col = dims
    if ord in ("nuc", 2.0, -2.0):
        moved = jnp.moveaxis(x, (row, col), (-2, -1))
        singular = jnp.linalg.svd(moved, compute_uv=False)
        if ord == "nuc":
            out = jnp.sum(singular, axis=-1)
        elif ord == 2.0:
            out = jnp.max(singular, axis=-1)
        else:
            out = jnp.min(singular, axis=-1)
        if keepdim:
            out = jnp.expand_dims(out, tuple(sorted(dims)))
        return out
    magnitude = _abs(x)
    summed, reduced = (row, col) if abs(ord) == 1 else (col, row)
    sums = jnp.sum(magnitude, axis=summed, keepdims=True)
    out = (
        jnp.max(sums, axis=reduced, keepdims=True)
        if ord > 0
        else jnp.min(sums, axis=reduced, keepdims=True)
    )
    return out if keepdim else jnp.squeeze(out, dims)


_MATRIX_NORM = {
    name: register(f"linalg.matrix_norm.{variant}", _matrix_norm, node=name)
    for variant, name in (
        ("sum", "SumBackward1"),
        ("amax", "AmaxBackward0"),
        ("amin", "AminBackward0"),
    )
}


def matrix_norm_node(ord) -> str:
    if ord == "nuc":
        return "SumBackward1"
    return "AmaxBackward0" if ord > 0 else "AminBackward0"


def apply_matrix_norm(A: Tensor, ord, dims: tuple, keepdim: bool, dtype: _dtypes.dtype):
    return apply(
        _MATRIX_NORM[matrix_norm_node(ord)],
        A,
        ord=ord if ord == "nuc" else float(ord),
        dims=dims,
        keepdim=bool(keepdim),
        dtype=dtype.jax,
    )


@takes_out
@numpy_names
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
    return x.clone() if x is input else x  # n == 0: a copy, as PyTorch's


# ----------------------------------------------------------------------------- diff, count_nonzero


def _count_nonzero(x, *, dims):
    return jnp.sum(x != 0, axis=dims, dtype=jnp.int64)


_COUNT_NONZERO = register(
    "count_nonzero", _count_nonzero, node="CountNonzeroBackward", differentiable=False
)


@numpy_names
def count_nonzero(input, dim=None):
    """The number of nonzero elements (along `dim`, an int or a tuple): int64."""
    tensor_arg(input, "count_nonzero")
    return apply(_COUNT_NONZERO, input, dims=normalize_dims(dim, input.ndim))


# ----------------------------------------------- NaN-aware, cumulative extremes, kthvalue, quantile
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


@numpy_names
def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Sum treating NaN as zero; integers accumulate in int64."""
    tensor_arg(input, "nansum")
    d = input.dtype
    if dtype is None:
        dtype = d if (d.is_floating_point or d.is_complex) else _dtypes.int64
    dtype = _dtypes.as_dtype(dtype)
    return apply(
        _NANSUM, input, dims=normalize_dims(dim, input.ndim), keepdim=keepdim, dtype=dtype.jax
    )


@takes_out
@numpy_names
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


def _cumulative_extreme(fname: str, op, input, dim: int):
    tensor_arg(input, fname)
    d = normalize_dim(dim, input.ndim)
    values, indices = apply(op, input, dim=d, pick=fname[3:])
    return getattr(return_types, fname)(values, indices)


@takes_out
@numpy_names
def cummax(input, dim: int):
    """Running maximum along `dim` and its indices (NaN propagates), as (values, indices)."""
    return _cumulative_extreme("cummax", _CUMMAX, input, dim)


@takes_out
@numpy_names
def cummin(input, dim: int):
    """Running minimum along `dim` and its indices (NaN propagates), as (values, indices)."""
    return _cumulative_extreme("cummin", _CUMMIN, input, dim)


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


@takes_out
@numpy_names
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
        if modes.captures:  # q's values shape the result: a compiled trace must see them
            modes.note_read(q)
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


@takes_out
@numpy_names
def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """The q-th quantiles of `input` (along `dim`, else of all elements); NaN if a NaN is
    among them. A 1-D `q` adds a leading dim."""
    return _quantile_front("quantile", input, q, dim, keepdim, interpolation, False)


@takes_out
@numpy_names
def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """`quantile` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile_front("nanquantile", input, q, dim, keepdim, interpolation, True)
