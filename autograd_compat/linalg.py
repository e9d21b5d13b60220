"""torch.linalg: norm, vector_norm, matrix_norm, inv, det, solve, the decompositions (svd,
svdvals, qr, eig, eigvals, eigh, eigvalsh, slogdet, cholesky, cholesky_ex, lu, ldl_factor,
ldl_factor_ex), matrix_exp, pinv, householder_product, the solvers (solve_triangular,
lu_factor, lu_solve, ldl_solve, lstsq), matrix_rank, multi_dot, vecdot, and LinAlgError.

Each function is one op of the library (a pure JAX function differentiated by jax.vjp).
Singular matrices raise `LinAlgError` as in PyTorch; that check reads the factorization's
result, so it runs on concrete values only (under a jax trace the result is inf/NaN instead).
"""

from __future__ import annotations

from ._ops.decomposition import linalg_cholesky as cholesky
from ._ops.decomposition import linalg_cholesky_ex as cholesky_ex
from ._ops.decomposition import linalg_eig as eig
from ._ops.decomposition import linalg_eigh as eigh
from ._ops.decomposition import linalg_eigvals as eigvals
from ._ops.decomposition import linalg_eigvalsh as eigvalsh
from ._ops.decomposition import linalg_pinv as pinv
from ._ops.decomposition import linalg_qr as qr
from ._ops.decomposition import linalg_slogdet as slogdet
from ._ops.decomposition import linalg_svd as svd
from ._ops.decomposition import linalg_svdvals as svdvals
from ._ops.decomposition import matrix_exp
from ._ops.factorizations import linalg_householder_product as householder_product
from ._ops.factorizations import linalg_ldl_factor as ldl_factor
from ._ops.factorizations import linalg_ldl_factor_ex as ldl_factor_ex
from ._ops.factorizations import linalg_ldl_solve as ldl_solve
from ._ops.factorizations import linalg_lu as lu
from ._ops.linalg import LinAlgError, matmul
from ._ops.linalg import linalg_det as det
from ._ops.linalg import linalg_inv as inv
from ._ops.linalg import linalg_solve as solve
from ._ops.out_arg import takes_out
from ._ops.reduce import matrix_norm, vector_norm
from ._ops.solvers import (
    cond,
    inv_ex,
    lstsq,
    lu_factor,
    lu_factor_ex,
    matrix_rank,
    multi_dot,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
    vecdot,
)
from ._ops.solvers import linalg_cross as cross
from ._ops.solvers import linalg_diagonal as diagonal
from ._ops.solvers import linalg_lu_solve as lu_solve
from ._ops.solvers import linalg_matrix_power as matrix_power
from ._ops.solvers import linalg_vander as vander
from ._tape.args import tensor_arg

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


@takes_out
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
