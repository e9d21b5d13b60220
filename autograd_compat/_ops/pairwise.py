"""Pairwise and block constructions and the trapezoid rule: cdist/pdist (distances between
row vectors), block_diag, cartesian_prod, combinations, trapezoid/trapz/cumulative_trapezoid.

cdist and block_diag are pure JAX functions (cdist's norm is reduce.py's `_vector_norm`, so
its gradient at a zero distance is PyTorch's 0); cartesian_prod is composed of views and
`stack`, as PyTorch's is.
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import broadcast_shapes, normalize_dim
from .._tape.args import check_same_dtype, scalar_type_name, tensor_arg
from .._tape.record import apply
from .factories import empty, tensor, triu_indices
from .reduce import _vector_norm, norm_order
from .shape import stack

__all__ = [
    "block_diag",
    "cartesian_prod",
    "cdist",
    "combinations",
    "cumulative_trapezoid",
    "pdist",
    "trapezoid",
    "trapz",
]


def _cdist(x1, x2, p, *, ord):
    batch = jnp.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    x1 = jnp.broadcast_to(x1, batch + x1.shape[-2:])
    x2 = jnp.broadcast_to(x2, batch + x2.shape[-2:])
    differences = x1[..., :, None, :] - x2[..., None, :, :]
    return _vector_norm(differences, p, ord=ord, dims=(-1,), keepdim=False, dtype=x1.dtype)


_CDIST = register("cdist", _cdist, node="CdistBackward0", shown_inputs=(0, 1))


def cdist(x1, x2, p: float = 2.0, compute_mode=None):
    """The p-norm distance between each row of `x1` (B x P x M) and each row of `x2`
    (B x R x M): a B x P x R tensor (batch dims broadcast). `compute_mode` is accepted and
    ignored: the distances are always computed directly."""
    tensor_arg(x1, "cdist", "x1")
    tensor_arg(x2, "cdist", "x2", 2)
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(
            f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D"
            if x1.ndim < 2
            else f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D"
        )
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if not x1.dtype.is_floating_point:
        raise RuntimeError(
            f"cdist only supports floating-point dtypes, X1 got: {scalar_type_name(x1.dtype)}"
        )
    check_same_dtype(x1, x2, "expected scalar type {a} but found {b}")
    if float(p) < 0 or math.isnan(float(p)):
        raise RuntimeError("cdist only supports non-negative p values")
    broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    order, static = norm_order(float(p))
    return apply(_CDIST, x1, x2, order, ord=static)


def _block_diag(*arrays, dtype):
    return jax.scipy.linalg.block_diag(*(a.astype(dtype) for a in arrays))


_BLOCK_DIAG = register("block_diag", _block_diag, node="BlockDiagBackward0")


def block_diag(*tensors):
    """The block-diagonal matrix of `tensors` (0-d ones are 1x1, 1-d ones a row), in their
    promoted dtype."""
    for i, t in enumerate(tensors):
        tensor_arg(t, "block_diag", "tensors", 1)
        if t.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.ndim} dimensions"
            )
    if not tensors:
        return empty(1, 0)
    dtype = _dtypes.result_type(*tensors)
    matrices = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    return apply(_BLOCK_DIAG, *matrices, dtype=dtype.jax)


def cartesian_prod(*tensors):
    """All combinations of one element of each 1-D tensor, one per row (a single tensor is
    returned as is)."""
    for t in tensors:
        tensor_arg(t, "cartesian_prod", "tensors", 1)
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len(tensors) == 1:
        return tensors[0]
    sizes = tuple(t.shape[0] for t in tensors)
    columns = []
    for i, t in enumerate(tensors):
        shape = tuple(-1 if j == i else 1 for j in range(len(tensors)))
        columns.append(t.reshape(shape).expand(sizes).reshape(-1))
    return stack(columns, 1)


def pdist(input, p: float = 2):
    """The p-norm distances between the rows of the 2-D `input`, each pair i < j once, in
    row-major order (the upper triangle of `cdist(input, input)`)."""
    tensor_arg(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    n = input.shape[0]
    rows, cols = triu_indices(n, n, 1)
    return cdist(input.index_select(0, rows), input.index_select(0, cols), p).diagonal()


def combinations(input, r: int = 2, with_replacement: bool = False):
    """All r-element combinations of the 1-D `input`'s elements, one per row (as
    itertools.combinations, or combinations_with_replacement)."""
    tensor_arg(input, "combinations")
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    chosen = np.asarray(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    index = tensor(chosen)
    return stack([input.index_select(0, index[:, i]) for i in range(r)], 1)


def _trapezoid_terms(y, x, dx, dim: int, fname: str):
    """The areas of the trapezoids along `dim`: (y[i] + y[i+1]) / 2 times the spacing."""
    tensor_arg(y, fname, "y")
    if x is not None and dx is not None:
        raise TypeError(
            f"{fname}() received an invalid combination of arguments - got (Tensor, Tensor, "
            f"dx={type(dx).__name__}), but expected one of:\n * (Tensor y, Tensor x, *, int dim "
            "= -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"
        )
    dim = normalize_dim(dim, y.ndim)
    n = y.shape[dim]
    if n == 0:
        return None
    heights = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) / 2
    if x is None:
        return heights * (1 if dx is None else dx)
    if x.ndim == 1:
        spacing = x[1:] - x[:-1]
        shape = [1] * y.ndim
        shape[dim] = n - 1
        return heights * spacing.reshape(shape)
    return heights * x.diff(dim=dim)


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """The trapezoid-rule integral of `y` along `dim`, at positions `x` or spacing `dx`
    (default 1)."""
    terms = _trapezoid_terms(y, x, dx, dim, "trapezoid")
    if terms is None:
        return y.sum(dim)
    return terms.sum(dim)


def trapz(y, x=None, *, dx=None, dim: int = -1):
    """`trapezoid`'s older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """The running trapezoid-rule integral of `y` along `dim` (one element fewer)."""
    terms = _trapezoid_terms(y, x, dx, dim, "cumulative_trapezoid")
    if terms is None:
        return y
    return terms.cumsum(dim)
