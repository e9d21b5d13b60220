"""torch.linalg: norm, vector_norm, matrix_norm, inv, det, solve, and LinAlgError.

Each function is one op of the library (a pure JAX function differentiated by jax.vjp).
Singular matrices raise `LinAlgError` as in PyTorch; that check reads the factorization's
result, so it runs on concrete values only (under a jax trace the result is inf/NaN instead).
"""

from __future__ import annotations

import math

from ._ops import apply
from ._ops.linalg import LinAlgError, apply_matrix_norm
from ._ops.linalg import linalg_det as det
from ._ops.linalg import linalg_inv as inv
from ._ops.linalg import linalg_solve as solve
from ._ops.reduce import _NORM, normalize_dims
from ._pure import dtypes as _dtypes
from ._pure.shapes import normalize_dim
from ._tape.args import scalar_type_name, tensor_arg

__all__ = ["LinAlgError", "det", "inv", "matrix_norm", "norm", "solve", "vector_norm"]


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


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None):
    """A vector or matrix norm, as `torch.linalg.norm`.

    With `dim` an int (or a 1-tuple) the vector norm; a 2-tuple, the matrix norm. Without
    `dim`: the 2-norm of the flattened input when `ord` is None, else the vector norm of a
    1-D input or the matrix norm of a 2-D one.
    """
    tensor_arg(A, "norm", "A")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1 and not isinstance(ord, str):
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim == 2 or isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    raise RuntimeError(
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
        f"Got {A.ndim}D."
    )
