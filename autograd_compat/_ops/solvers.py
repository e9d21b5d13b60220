"""Linear solvers of torch.linalg beyond `solve`: solve_triangular, lu_factor/lu_factor_ex,
lu_solve, lstsq, inv_ex/solve_ex; and matrix_rank, multi_dot, vecdot, vander and the
torch.linalg spellings of matmul, matrix_power, cross and diagonal, composed from other ops.

The solvers are pure JAX functions (lax.linalg's triangular solve and LU, jnp.linalg.lstsq)
differentiated by jax.vjp. LU pivots are 1-based int32, as LAPACK's and PyTorch's.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import broadcast_shapes
from .._state.tensor import Tensor
from .._tape.args import check_same_dtype, tensor_arg
from .._tape.record import apply
from .decomposition import _check_matrix, linalg_svdvals
from .factories import eye, ones_like
from .linalg import (
    _INV,
    SINGULAR_INVERSE,
    SINGULAR_SOLVE,
    _check_square,
    _zero_pivot,
    cross,
    linalg_inv,
    linalg_solve,
    matmul,
    matrix_power,
    raise_for_info,
    solve_with_info,
)
from .out_arg import takes_out
from .reduce import matrix_norm, return_types, sum
from .shape import cat

# the rest are torch.linalg functions (autograd_compat/linalg.py)
__all__ = ["lu", "lu_solve", "lu_unpack", "triangular_solve", "vander"]


def _broadcast_batches(a, b):
    """`a` and `b` (matrices) broadcast to their common batch shape."""
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return jnp.broadcast_to(a, batch + a.shape[-2:]), jnp.broadcast_to(b, batch + b.shape[-2:])


def _solve_triangular(a, b, *, upper, left, unitriangular):
    a, b = _broadcast_batches(a, b)
    return lax.linalg.triangular_solve(
        a, b, left_side=left, lower=not upper, unit_diagonal=unitriangular
    )


_SOLVE_TRIANGULAR = register(
    "linalg.solve_triangular", _solve_triangular, node="LinalgSolveTriangularBackward0"
)


def _check_rhs(fname: str, A: Tensor, B: Tensor, left: bool, a_name: str = "A") -> None:
    """B: a batch of matrices of A's dtype whose rows (columns when not `left`) match A
    (named `a_name` in the errors)."""
    tensor_arg(B, fname.split(".")[-1], "B", 2)
    if B.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    check_same_dtype(
        A,
        B,
        f"{fname}: Expected {a_name} and B to have the same dtype, but found {a_name} of type "
        "{a} and B of type {b} instead",
    )
    n, rows = A.shape[-1], B.shape[-2] if left else B.shape[-1]
    if rows != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fname}: Incompatible shapes of A and B for the equation {equation} "
            f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))


@takes_out
def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False):
    """The solution X of AX = B (XA = B when not `left`) for triangular A (`upper` or lower;
    its diagonal taken as ones when `unitriangular`)."""
    _check_square("linalg.solve_triangular", A, floating=False)
    _check_rhs("linalg.solve_triangular", A, B, left)
    return apply(
        _SOLVE_TRIANGULAR,
        A,
        B,
        upper=bool(upper),
        left=bool(left),
        unitriangular=bool(unitriangular),
    )


def _lu_factor_ex(a):
    lu, pivots, _ = lax.linalg.lu(a)
    return lu, pivots + 1, _zero_pivot(lu)


_LU_FACTOR = register("linalg.lu_factor_ex", _lu_factor_ex, node="LinalgLuFactorExBackward0")


@takes_out
def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False):
    """`(LU, pivots, info)`: the partially pivoted LU factorization (L below the diagonal,
    unit diagonal implied, U on and above), 1-based int32 pivots, and per matrix 0 or the
    1-based position of U's first zero on the diagonal."""
    _check_matrix("linalg.lu_factor_ex", A, floating=False)
    if not pivot:
        raise NotImplementedError("linalg.lu_factor_ex: pivot=False is only supported on CUDA")
    lu, pivots, info = apply(_LU_FACTOR, A)
    if check_errors:
        raise_for_info(info, "torch.linalg.lu_factor_ex", _ZERO_PIVOT, RuntimeError)
    return return_types.linalg_lu_factor_ex(lu, pivots, info)


# PyTorch's text for a zero on U's diagonal in linalg.lu_factor(_ex).
_ZERO_PIVOT = (
    "U[{code},{code}] is zero and using it on lu_solve would result in a division by zero. If "
    "you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
    "linalg.lu_factor_ex(A, pivot)"
)


@takes_out
def lu_factor(A, *, pivot: bool = True):
    """`(LU, pivots)` of `lu_factor_ex`; a LinAlgError (checked eagerly) for a singular A."""
    lu, pivots, info = lu_factor_ex(A, pivot=pivot)
    raise_for_info(info, "torch.linalg.lu_factor", _ZERO_PIVOT, RuntimeError)
    return return_types.linalg_lu_factor(lu, pivots)


def _lu_solve(lu, pivots, b, *, left, adjoint):
    """X with AX = B (XA = B when not `left`; A^H in place of A when `adjoint`) from A's LU."""
    if not left:  # X A = B  <=>  A^H X^H = B^H
        b, adjoint = jnp.conj(jnp.swapaxes(b, -1, -2)), not adjoint
    lu_b, b = _broadcast_batches(lu, b)
    pivots = jnp.broadcast_to(pivots, lu_b.shape[:-1])
    trans = (2 if jnp.iscomplexobj(lu) else 1) if adjoint else 0
    x = jax.scipy.linalg.lu_solve((lu_b, pivots - 1), b, trans=trans)
    return jnp.conj(jnp.swapaxes(x, -1, -2)) if not left else x


_LU_SOLVE = register(
    "linalg.lu_solve", _lu_solve, node="LinalgLuSolveBackward0", shown_inputs=(0, 2)
)


@takes_out
def linalg_lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False):
    """The solution of AX = B (XA = B when not `left`, A^H for A when `adjoint`) given A's
    `lu_factor` result."""
    _check_square("linalg.lu_solve", LU, "LU", floating=False)
    tensor_arg(pivots, "lu_solve", "pivots", 2)
    _check_rhs("linalg.lu_solve", LU, B, left, "LU")
    return apply(_LU_SOLVE, LU, pivots, B, left=bool(left), adjoint=bool(adjoint))


def _lstsq(a, b, *, rcond, residuals: bool):
    """The solution, the rank, and the squared residual norms per column of B when asked
    (driver "gels" with a tall A), else an empty residuals array, as PyTorch's drivers give."""
    solution, _, rank, _ = jnp.linalg.lstsq(a, b, rcond=rcond)
    if residuals:
        fit = jnp.matmul(a, solution, precision=lax.Precision.HIGHEST)
        squares = jnp.sum(jnp.abs(fit - b) ** 2, axis=0).reshape(-1)
    else:
        squares = jnp.zeros((0,), solution.dtype)
    return solution, lax.stop_gradient(rank).astype(jnp.int64), squares


_LSTSQ = register("linalg.lstsq", _lstsq, node="LinalgLstsqBackward0")


def lstsq(A, B, rcond=None, *, driver=None):
    """`(solution, residuals, rank, singular_values)`: the least-squares (minimum-norm for a
    rank-deficient A) solution of AX = B, as PyTorch's default CPU driver "gelsy" (residuals
    and singular values empty). Driver "gels" (full-rank A) gives the same solution, no rank,
    and for a tall A the residuals' squared norms. Single matrices only (no batch)."""
    _check_matrix("linalg.lstsq", A, floating=False)
    tensor_arg(B, "lstsq", "B", 2)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    if driver in ("gelsd", "gelss"):
        raise NotImplementedError(
            f"linalg.lstsq: driver {driver!r} is not supported by autograd_compat; use "
            "driver=None (PyTorch's default, 'gelsy') or 'gels'"
        )
    if A.ndim != 2 or B.ndim not in (1, 2):
        raise NotImplementedError("linalg.lstsq: batches of matrices are not supported yet")
    if B.shape[0] != A.shape[0]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    gels = driver == "gels"
    solution, rank, residuals = apply(
        _LSTSQ,
        A,
        B,
        rcond=None if rcond is None else float(rcond),
        residuals=gels and A.shape[0] > A.shape[1],
    )
    if gels:  # this driver computes no rank
        rank = Tensor._wrap(jnp.zeros((0,), jnp.int64))
    empty = Tensor._wrap(jnp.zeros((0,), A._stored.dtype))
    return return_types.linalg_lstsq(solution, residuals, rank, empty)


@takes_out
def matrix_rank(A, *, atol=None, rtol=None, hermitian: bool = False):
    """The number of singular values above max(atol, rtol * largest) (rtol defaulting to
    eps * max(m, n) when neither is given), an int64 tensor per matrix."""
    values = linalg_svdvals(A).detach()
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(A._stored.dtype).eps) * max(A.shape[-2:])
    largest = values.amax(-1, keepdim=True) if values.shape[-1] else values.sum(-1, keepdim=True)
    cutoff = (largest * rtol).clamp_min(0.0 if atol is None else float(atol))
    return sum(values > cutoff, -1)


@takes_out
def multi_dot(tensors):
    """The product of the matrices in `tensors`, a first 1-D one a row and a last a column."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    out = tensors[0]
    for t in tensors[1:]:
        out = matmul(out, t)
    return out


@takes_out
def vecdot(x, y, *, dim: int = -1):
    """The dot product along `dim` (x conjugated), broadcasting the other dims."""
    tensor_arg(x, "vecdot", "x")
    tensor_arg(y, "vecdot", "y", 2)
    return sum(x.conj() * y, dim)


@takes_out
def inv_ex(A, *, check_errors: bool = False):
    """`(inverse, info)`: info per matrix 0, or > 0 for a singular one (raising LinAlgError
    instead when `check_errors`)."""
    _check_square("linalg.inv_ex", A)
    inverse, info = apply(_INV, A)
    if check_errors:
        raise_for_info(info, "linalg.inv_ex", SINGULAR_INVERSE)
    return return_types.linalg_inv_ex(inverse, info)


@takes_out
def solve_ex(A, B, *, left: bool = True, check_errors: bool = False):
    """`(result, info)` of linalg.solve's equation; info > 0 marks a singular matrix (a
    LinAlgError when `check_errors`)."""
    x, info = solve_with_info(A, B, left)
    if check_errors:
        raise_for_info(info, "torch.linalg.solve_ex", SINGULAR_SOLVE)
    return return_types.linalg_solve_ex(x, info)


@takes_out
def linalg_cross(input, other, *, dim: int = -1):
    """The cross product of 3-vectors along `dim` (default the last); inputs of the same
    number of dims broadcast."""
    tensor_arg(input, "linalg_cross")
    tensor_arg(other, "linalg_cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    if tuple(other.shape) != shape:
        other = other.expand(shape)
    return cross(input, other, dim)


def linalg_diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """The diagonal of each matrix (a view), the last two dims by default."""
    return A.diagonal(offset, dim1, dim2)


@takes_out
def linalg_matrix_power(A, n: int):
    """A to the integer power `n` (negative: of the inverse)."""
    return matrix_power(A, n)


def _vander_input(x):
    """`x` with integral and bool inputs widened to int64, as PyTorch's vander does."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x
    return x.to(_dtypes.int64)


def linalg_vander(x, *, N=None):
    """The Vandermonde matrix of increasing powers x**0 .. x**(N-1) along a new last dim."""
    tensor_arg(x, "vander", "x")
    n = (x.shape[-1] if x.ndim else 0) if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    x = _vander_input(x if x.ndim else x.reshape(1)).unsqueeze(-1)  # 0-d: one value
    return cat([ones_like(x), x.expand(*x.shape[:-1], n - 1).cumprod(-1)], -1)


def vander(x, N=None, increasing: bool = False):
    """`torch.vander`: the powers of the 1-D `x`, decreasing unless `increasing`."""
    tensor_arg(x, "vander", "x")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    n = x.shape[0] if N is None else int(N)
    if n <= 1:
        return ones_like(_vander_input(x)).unsqueeze(-1)[:, :n]
    out = linalg_vander(x, N=n)
    return out if increasing else out.flip(-1)


# ----------------------------------------------------------------------------- torch.* forms
def _warn_replaced(text: str) -> None:
    """The first line of PyTorch's deprecation warning of a torch.* solver."""
    warnings.warn(text, UserWarning, stacklevel=3)


@takes_out
def lu(A, pivot: bool = True, get_infos: bool = False):
    """`torch.lu` (deprecated there): `(LU, pivots)` of `linalg.lu_factor`, with the infos
    when `get_infos` (a singular A raises otherwise)."""
    _warn_replaced(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release."
    )
    if get_infos:
        return return_types._lu_with_info(*lu_factor_ex(A, pivot=pivot))
    return tuple(lu_factor(A, pivot=pivot))


@takes_out
def lu_solve(b, LU_data, LU_pivots):
    """`torch.lu_solve(b, LU_data, LU_pivots)`: `linalg.lu_solve(LU_data, LU_pivots, b)`."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


def _permutation(pivots, *, m, dtype):
    """The permutation matrix P with A = P L U, from 1-based LAPACK pivots."""
    permutation = lax.linalg.lu_pivots_to_permutation(pivots - 1, m)
    return jnp.swapaxes(jax.nn.one_hot(permutation, m, dtype=dtype), -1, -2)


_PERMUTATION = register(
    "lu_unpack.permutation", _permutation, node="LuUnpackBackward0", differentiable=False
)


@takes_out
def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """`(P, L, U)` with A = P L U from `lu_factor`'s result (empty tensors for the parts not
    unpacked)."""
    tensor_arg(LU_data, "lu_unpack", "LU_data")
    tensor_arg(LU_pivots, "lu_unpack", "LU_pivots", 2)
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    none = LU_data.new_empty((0,))
    if unpack_data:
        lower = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype)
        upper = LU_data[..., :k, :].triu()
    else:
        lower = upper = none
    if unpack_pivots:
        p = apply(_PERMUTATION, LU_pivots, m=m, dtype=LU_data._stored.dtype)
    else:
        p = none
    return return_types.lu_unpack(p, lower, upper)


@takes_out
def triangular_solve(b, A, upper: bool = True, transpose: bool = False, unitriangular=False):
    """`torch.triangular_solve` (deprecated there): `(solution, cloned_coefficient)` with
    solution X of AX = b (A^T X = b when `transpose`)."""
    _warn_replaced(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
        "and will be removed in a future PyTorch release."
    )
    coefficient = A.mT if transpose else A
    solution = solve_triangular(
        coefficient, b, upper=bool(upper) != bool(transpose), unitriangular=unitriangular
    )
    return return_types.triangular_solve(solution, A.clone())


# ----------------------------------------------------------------------------- cond, tensor*
@takes_out
def cond(A, p=None):
    """The condition number of each matrix in the norm `p` (2 by default: the ratio of the
    largest to the smallest singular value)."""
    tensor_arg(A, "cond", "A")
    if p is None or p in (2, -2):
        values = linalg_svdvals(A)
        ratio = values[..., 0] / values[..., -1]
        return ratio if p != -2 else 1 / ratio
    return matrix_norm(A, p) * matrix_norm(linalg_inv(A), p)


@takes_out
def tensorinv(A, ind: int = 2):
    """The tensor inverse: the inverse of A reshaped to a prod(shape[:ind]) square matrix,
    shaped back to shape[ind:] + shape[:ind]."""
    tensor_arg(A, "tensorinv", "A")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    inverse = linalg_inv(A.reshape(math.prod(rows), math.prod(cols)))
    return inverse.reshape(cols + rows)


@takes_out
def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B (`dims`: the dims of A moved to the end first)."""
    tensor_arg(A, "tensorsolve", "A")
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)
    solution_shape = tuple(A.shape[B.ndim :])
    matrix = A.reshape(B.numel(), math.prod(solution_shape))
    return linalg_solve(matrix, B.reshape(-1)).reshape(solution_shape)
