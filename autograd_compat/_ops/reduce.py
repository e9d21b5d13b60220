"""Reductions: sum, mean, norm, with PyTorch's dim/keepdim/dtype arguments and result dtypes."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from .elementwise import _abs  # |x| with PyTorch's derivative at 0 (0, not 1)
from .linalg import apply_matrix_norm

__all__ = ["mean", "norm", "sum"]


_HALF = frozenset({jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)})


def accumulator(dtype):
    """The dtype PyTorch accumulates reductions of `dtype` in: float32 for float16/bfloat16."""
    return jnp.float32 if jnp.dtype(dtype) in _HALF else dtype


def _sum(x, *, dims, keepdim, dtype):
    return jnp.sum(x, axis=dims, keepdims=keepdim, dtype=accumulator(dtype)).astype(dtype)


def _mean(x, *, dims, keepdim, dtype):
    total = jnp.mean(x.astype(accumulator(dtype)), axis=dims, keepdims=keepdim)
    return total.astype(dtype)


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """`dim` (None, an int or a sequence) as a sorted tuple of indices; PyTorch's errors for
    an out-of-range or a repeated dim."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        d = normalize_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


_SUM_ALL = register("sum", _sum, node="SumBackward0", saves="none")
_SUM_DIM = register("sum.dim", _sum, node="SumBackward1", saves="none")
_MEAN_ALL = register("mean", _mean, node="MeanBackward0", saves="none")
_MEAN_DIM = register("mean.dim", _mean, node="MeanBackward1", saves="none")


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


def mean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """Mean over all elements or over `dim`; floating and complex inputs only, as in PyTorch."""
    tensor_arg(input, "mean")
    if dtype is not None:
        out_dtype = _dtypes.as_dtype(dtype)
        if not (out_dtype.is_floating_point or out_dtype.is_complex):
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {scalar_type_name(out_dtype)}"
            )
    else:
        out_dtype = input.dtype
        if not (out_dtype.is_floating_point or out_dtype.is_complex):
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a "
                f"floating point or complex dtype. Got: {scalar_type_name(out_dtype)}"
            )
    op = _MEAN_ALL if dim is None else _MEAN_DIM
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    dims = normalize_dims(dim, input.ndim)
    return apply(op, input, dims=dims, keepdim=keepdim, dtype=out_dtype.jax)


def _vector_norm(x, *, ord, dims, keepdim, dtype):
    """The p-norm with PyTorch's gradient at zero: 0 (a subgradient), never NaN.

    The usual trick: the sum is replaced by 1 where it is 0 before the root, and the result
    by 0 there, so neither branch produces 0/0 in the derivative (of any order).
    """
    if jnp.dtype(dtype) in _HALF:  # computed in float32 and rounded once, as PyTorch
        out = _vector_norm(
            x.astype(jnp.float32), ord=ord, dims=dims, keepdim=keepdim, dtype=jnp.float32
        )
        return out.astype(dtype)
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


_NORM = register("linalg.vector_norm", _vector_norm, node="LinalgVectorNormBackward0")


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
    dims = normalize_dims(dim, x.ndim) if dim is not None else None
    if dims is not None and x.ndim == 0:
        dims = ()
    ord = float(ord)
    if ord < 0 or math.isinf(ord):
        empty = x.numel() == 0 if dims is None else any(x.shape[d] == 0 for d in dims)
        if empty:
            name = "inf" if math.isinf(ord) and ord > 0 else str(ord).removesuffix(".0")
            if ord == -math.inf:
                name = "-inf"
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
                "the operation does not have an identity"
            )
    return apply(_NORM, x, ord=ord, dims=dims, keepdim=bool(keepdim), dtype=out_dtype.to_real().jax)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


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


def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector p-norm over all elements or over `dim` (`p="fro"` is the 2-norm)."""
    tensor_arg(input, "norm")
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
    return apply(
        _NORM, input, ord=float(p), dims=dims, keepdim=keepdim, dtype=out_dtype.to_real().jax
    )
