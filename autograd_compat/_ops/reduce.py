"""Reductions: sum, mean, norm, with PyTorch's dim/keepdim/dtype arguments and result dtypes."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .. import _dtypes
from .._shapes import normalize_dim
from .._tensor import Tensor
from . import apply, register
from ._args import scalar_type_name, tensor_arg

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
    from .elementwise import _abs  # |x| with PyTorch's derivative at 0 (0, not 1)

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


def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector p-norm over all elements or over `dim` (`p="fro"` is the 2-norm)."""
    tensor_arg(input, "norm")
    if p == "nuc":
        from ..linalg import matrix_norm

        dims = (-2, -1) if dim is None else tuple(dim)
        return matrix_norm(input, "nuc", dims, keepdim, dtype=dtype)
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


for _name, _fn in {"sum": sum, "mean": mean, "norm": norm}.items():
    setattr(Tensor, _name, _fn)
