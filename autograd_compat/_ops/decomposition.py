"""Matrix decompositions and the functions built on them: svd/svdvals, qr, eigh/eigvalsh,
slogdet/logdet, cholesky/cholesky_ex/cholesky_solve/cholesky_inverse, matrix_exp, pinv, and
the vector helpers vdot, dist and renorm.

Each decomposition is one pure JAX function (jax.numpy's, differentiated by jax.vjp); the
torch.* forms (`torch.svd` returning V, `torch.qr(some=)`, `torch.cholesky(upper=)`) are
compositions of the torch.linalg ones. `linalg.eigh` reads only the triangle `UPLO` names,
as PyTorch does. A Cholesky factorization that fails raises LinAlgError on concrete values;
under a jax trace its factor is NaN and `cholesky_ex`'s info only says 1 (failed) or 0.
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
from .._pure.shapes import broadcast_shapes, normalize_dim
from .._state.tensor import Tensor
from .._tape.args import check_same_dtype, is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from .comparison import where
from .linalg import (
    _check_floating,
    _check_square,
    check_vector_pair,
    raise_for_info,
)
from .out_arg import takes_out
from .reduce import _vector_norm, norm_order, return_types

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "dist",
    "logdet",
    "matrix_exp",
    "pinverse",
    "qr",
    "renorm",
    "slogdet",
    "svd",
    "vdot",
]


def _warn_deprecated(name: str) -> None:
    """PyTorch's warning for the torch.X forms that torch.linalg.X replaces."""
    warnings.warn(
        f"torch.{name} is deprecated in favor of torch.linalg.{name} and will be removed in a "
        "future PyTorch release.",
        UserWarning,
        stacklevel=3,
    )


def _check_matrix(fname: str, A, floating: bool = True) -> None:
    """A tensor of at least 2 dims, floating unless the op's dtype rule checks that; PyTorch's
    errors otherwise."""
    tensor_arg(A, fname.split(".")[-1], "A")
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if floating:
        _check_floating(fname, A)


# ----------------------------------------------------------------------------- svd, qr, eigh
def _svd(a, *, full_matrices):
    """JAX's SVD; the full one of a non-square matrix is the reduced one (differentiable)
    completed by the full one's extra columns, constants as in PyTorch, whose backward
    ignores them (JAX has no derivative of the full form)."""
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    m, n = a.shape[-2:]
    if not full_matrices or m == n:
        return u, s, vh
    u_full, _, vh_full = jnp.linalg.svd(lax.stop_gradient(a), full_matrices=True)
    k = min(m, n)
    u = jnp.concatenate([u, u_full[..., k:]], axis=-1)
    vh = jnp.concatenate([vh, vh_full[..., k:, :]], axis=-2)
    return u, s, vh


def _svdvals(a):
    return jnp.linalg.svd(a, compute_uv=False)


def _qr(a, *, mode):
    if mode == "r":
        return jnp.zeros((0,), a.dtype), jnp.linalg.qr(a, mode="r")
    return tuple(jnp.linalg.qr(a, mode=mode))


def _hermitian_from(a, lower: bool):
    """The Hermitian matrix whose `lower` (else upper) triangle is `a`'s: PyTorch's eigh reads
    that triangle only."""
    if lower:
        return jnp.tril(a) + jnp.conj(jnp.swapaxes(jnp.tril(a, -1), -1, -2))
    return jnp.triu(a) + jnp.conj(jnp.swapaxes(jnp.triu(a, 1), -1, -2))


def _eigh(a, *, lower):
    values, vectors = jnp.linalg.eigh(_hermitian_from(a, lower), symmetrize_input=False)
    return values, vectors


def _eigvalsh(a, *, lower):
    return jnp.linalg.eigvalsh(_hermitian_from(a, lower), symmetrize_input=False)


_SVD = register("linalg.svd", _svd, node="LinalgSvdBackward0")
_SVDVALS = register("linalg.svdvals", _svdvals, node="LinalgSvdBackward0")
_QR = register("linalg.qr", _qr, node="LinalgQrBackward0")
_EIGH = register("linalg.eigh", _eigh, node="LinalgEighBackward0")
_EIGVALSH = register("linalg.eigvalsh", _eigvalsh, node="LinalgEighBackward0")


@takes_out
def linalg_svd(A, full_matrices: bool = True, *, driver=None):
    """`A = U diag(S) Vh`: `(U, S, Vh)`, as `torch.linalg.svd`; reduced with
    `full_matrices=False` (the only form with a gradient for non-square inputs, as in JAX)."""
    _check_matrix("linalg.svd", A)
    return return_types.linalg_svd(*apply(_SVD, A, full_matrices=bool(full_matrices)))


@takes_out
def linalg_svdvals(A, *, driver=None):
    """The singular values of each matrix, in descending order."""
    _check_matrix("linalg.svd", A)
    return apply(_SVDVALS, A)


@takes_out
def svd(input, some: bool = True, compute_uv: bool = True):
    """`(U, S, V)` with `input = U diag(S) V^H` (V, not Vh: `torch.svd`'s convention); reduced
    unless `some=False`. With `compute_uv=False`, U and V are zero matrices."""
    tensor_arg(input, "svd")
    if not compute_uv:
        s = linalg_svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        u = Tensor._wrap(jnp.zeros(batch + (m, m), input._stored.dtype))
        v = Tensor._wrap(jnp.zeros(batch + (n, n), input._stored.dtype))
        return return_types.svd(u, s, v)
    u, s, vh = linalg_svd(input, full_matrices=not some)
    return return_types.svd(u, s, vh.mH)


@takes_out
def linalg_qr(A, mode: str = "reduced"):
    """`(Q, R)` with `A = QR`; `mode` "reduced", "complete" or "r" (Q empty)."""
    _check_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return return_types.linalg_qr(*apply(_QR, A, mode=mode))


@takes_out
def qr(input, some: bool = True):
    """`torch.qr`: `linalg.qr(input, "reduced" if some else "complete")` (deprecated there)."""
    _warn_deprecated("qr")
    return return_types.qr(*linalg_qr(input, "reduced" if some else "complete"))


def _uplo(UPLO: str) -> bool:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "L"


@takes_out
def linalg_eigh(A, UPLO: str = "L"):
    """`(eigenvalues, eigenvectors)` of Hermitian matrices, eigenvalues ascending; only the
    triangle `UPLO` is read."""
    _check_square("linalg.eigh", A, floating=False)
    return return_types.linalg_eigh(*apply(_EIGH, A, lower=_uplo(UPLO)))


@takes_out
def linalg_eigvalsh(A, UPLO: str = "L"):
    """The eigenvalues of Hermitian matrices, ascending."""
    _check_square("linalg.eigvalsh", A, floating=False)
    return apply(_EIGVALSH, A, lower=_uplo(UPLO))


# ----------------------------------------------------------------------------- determinants
_SLOGDET = register(
    "linalg.slogdet",
    lambda a: tuple(jnp.linalg.slogdet(a)),
    node="LinalgSlogdetBackward0",
)


@takes_out
def linalg_slogdet(A):
    """`(sign, logabsdet)` with `det(A) = sign * exp(logabsdet)`."""
    _check_square("linalg.slogdet", A)
    return return_types.linalg_slogdet(*apply(_SLOGDET, A))


def slogdet(input):
    """`torch.slogdet`: `torch.linalg.slogdet`'s result under the name `slogdet`."""
    return return_types.slogdet(*linalg_slogdet(input))


def logdet(input):
    """log(det(input)): NaN where the determinant is negative, -inf where it is 0."""
    tensor_arg(input, "logdet")
    sign, logabsdet = linalg_slogdet(input)
    return where(sign < 0, math.nan, logabsdet)


_MATRIX_EXP = register("linalg.matrix_exp", jax.scipy.linalg.expm, node="LinalgMatrixExpBackward0")


def matrix_exp(A):
    """The matrix exponential of each square matrix."""
    _check_square("linalg.matrix_exp", A)
    return apply(_MATRIX_EXP, A)


def _pinv(a, *, rtol, hermitian):
    """The pseudo-inverse; `hermitian` reads the lower triangle only, as PyTorch's eigh."""
    if hermitian:
        return jnp.linalg.pinv(_hermitian_from(a, True), rtol=rtol, hermitian=True)
    return jnp.linalg.pinv(a, rtol=rtol)


_PINV = register("linalg.pinv", _pinv, node="LinalgPinvBackward0")


@takes_out
def linalg_pinv(A, *, atol=None, rtol=None, hermitian: bool = False):
    """The Moore-Penrose pseudo-inverse; singular values below `rtol * max(S)` count as 0
    (`rtol` defaults to eps * max(m, n), as PyTorch's). `atol` is not supported."""
    tensor_arg(A, "pinv", "A")
    if A.ndim < 2 or not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            f"linalg.pinv({scalar_type_name(A.dtype)}{{{list(A.shape)}}}): expected a tensor "
            "with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    if atol is not None:
        raise NotImplementedError(
            "linalg.pinv: atol is not supported by autograd_compat; pass rtol instead"
        )
    if rtol is None:
        rtol = float(np.finfo(A._stored.dtype).eps) * max(A.shape[-2:])
    return apply(_PINV, A, rtol=float(rtol), hermitian=bool(hermitian))


def pinverse(input, rcond: float = 1e-15):
    """`torch.pinverse`: `linalg.pinv(input, rtol=rcond)`."""
    return linalg_pinv(input, rtol=rcond)


# ----------------------------------------------------------------------------- cholesky
def _cholesky_ex(a, *, upper):
    """(L, failed): the factor of A (U = L^H when `upper`), NaN where A is not positive
    definite, and whether that happened, per matrix."""
    factor = jax.lax.linalg.cholesky(a, symmetrize_input=False)
    failed = jnp.any(jnp.isnan(jnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    if upper:
        factor = jnp.conj(jnp.swapaxes(factor, -1, -2))
    return factor, failed.astype(jnp.int32)


_CHOLESKY = register("linalg.cholesky_ex", _cholesky_ex, node="LinalgCholeskyExBackward0")


def _failed_minor(a: np.ndarray) -> int:
    """The order of the first leading minor of `a` that is not positive definite (0 if none)."""
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def _cholesky_info(A: Tensor, failed: Tensor) -> Tensor:
    """PyTorch's info per matrix: the order of the failing leading minor (eager values); under
    a jax trace, 1 for a failure."""
    if is_tracer(failed._value) or not np.any(np.asarray(failed._value)):
        return failed
    matrices = np.asarray(A._value).reshape((-1,) + tuple(A.shape[-2:]))
    flags = np.asarray(failed._value).reshape(-1)
    info = [_failed_minor(m) if f else 0 for m, f in zip(matrices, flags)]
    return Tensor._wrap(jnp.asarray(np.asarray(info, np.int32).reshape(failed.shape)))


@takes_out
def linalg_cholesky_ex(A, *, upper: bool = False, check_errors: bool = False):
    """`(L, info)`: the Cholesky factor and, per matrix, 0 or the order of the leading minor
    that is not positive definite; with `check_errors`, a failure raises LinAlgError."""
    _check_square("linalg.cholesky", A)
    factor, failed = apply(_CHOLESKY, A, upper=bool(upper))
    info = _cholesky_info(A, failed)
    if check_errors:
        raise_for_info(info, "linalg.cholesky_ex", _NOT_POSITIVE_DEFINITE)
    return return_types.linalg_cholesky_ex(factor, info)


# PyTorch's text for a matrix that is not positive definite in linalg.cholesky(_ex).
_NOT_POSITIVE_DEFINITE = (
    "The factorization could not be completed because the input is not positive-definite "
    "(the leading minor of order {code} is not positive-definite)."
)


@takes_out
def linalg_cholesky(A, *, upper: bool = False):
    """The lower (or `upper`) Cholesky factor of Hermitian positive-definite matrices;
    LinAlgError (checked eagerly) when one is not positive definite."""
    factor, info = linalg_cholesky_ex(A, upper=upper)
    raise_for_info(info, "linalg.cholesky", _NOT_POSITIVE_DEFINITE)
    return factor


@takes_out
def cholesky(input, upper: bool = False):
    """`torch.cholesky` (deprecated there): `linalg.cholesky(input, upper=upper)`."""
    _warn_deprecated("cholesky")
    return linalg_cholesky(input, upper=upper)


def _cholesky_solve(b, factor, *, upper):
    batch = jnp.broadcast_shapes(b.shape[:-2], factor.shape[:-2])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    factor = jnp.broadcast_to(factor, batch + factor.shape[-2:])
    return jax.scipy.linalg.cho_solve((factor, not upper), b)


def _cholesky_inverse(factor, *, upper):
    eye = jnp.broadcast_to(jnp.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    return jax.scipy.linalg.cho_solve((factor, not upper), eye)


_CHOLESKY_SOLVE = register("cholesky_solve", _cholesky_solve, node="CholeskySolveBackward0")
_CHOLESKY_INVERSE = register("cholesky_inverse", _cholesky_inverse, node="CholeskyInverseBackward0")


@takes_out
def cholesky_solve(input, input2, upper: bool = False):
    """The solution X of `A X = input` given A's Cholesky factor `input2` (lower unless
    `upper`); batch dims broadcast."""
    tensor_arg(input, "cholesky_solve")
    tensor_arg(input2, "cholesky_solve", "input2", 2)
    for t, name in ((input, "b"), (input2, "u")):
        if t.ndim < 2:
            raise RuntimeError(
                f"{name} should have at least 2 dimensions, but has {t.ndim} dimensions instead"
            )
    check_same_dtype(
        input,
        input2,
        "Expected b and A to have the same dtype, but found b of type {a} and A of type {b} "
        "instead.",
    )
    _check_square("cholesky_solve", input2, "A")
    broadcast_shapes(tuple(input.shape[:-2]), tuple(input2.shape[:-2]))
    return apply(_CHOLESKY_SOLVE, input, input2, upper=bool(upper))


@takes_out
def cholesky_inverse(input, upper: bool = False):
    """The inverse of `A` given its Cholesky factor `input` (lower unless `upper`)."""
    _check_square("cholesky_inverse", input, "input")
    return apply(_CHOLESKY_INVERSE, input, upper=bool(upper))


# ----------------------------------------------------------------------------- vdot, dist, renorm
_VDOT = register("vdot", jnp.vdot, node="VdotBackward0", saves="others")


@takes_out
def vdot(input, other):
    """The dot product of two 1-D tensors, the first conjugated."""
    check_vector_pair(input, other, "vdot", "other")
    return apply(_VDOT, input, other)


def _dist(a, b, p, *, ord, dtype):
    return _vector_norm(a - b, p, ord=ord, dims=None, keepdim=False, dtype=dtype)


_DIST = register("dist", _dist, node="DistBackward0", shown_inputs=(0, 1))


def dist(input, other, p=2):
    """The p-norm of `input - other` (broadcast), a 0-d tensor."""
    tensor_arg(input, "dist")
    tensor_arg(other, "dist", "other", 2)
    broadcast_shapes(tuple(input.shape), tuple(other.shape))
    order, static = norm_order(float(p))
    dtype = _dtypes.result_type(input, other).jax
    return apply(_DIST, input, other, order, ord=static, dtype=dtype)


def _renorm(x, p, *, ord, dims, maxnorm):
    norms = _vector_norm(x, p, ord=ord, dims=dims, keepdim=True, dtype=x.dtype)
    factor = jnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0).astype(x.dtype)
    return x * factor


_RENORM = register("renorm", _renorm, node="RenormBackward0", shown_inputs=(0,))


@takes_out
def renorm(input, p, dim: int, maxnorm):
    """Each slice along `dim` whose p-norm exceeds `maxnorm` scaled down to norm `maxnorm`."""
    tensor_arg(input, "renorm")
    if float(p) <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = normalize_dim(dim, input.ndim)
    dims = tuple(i for i in range(input.ndim) if i != d)
    order, static = norm_order(float(p))
    return apply(_RENORM, input, order, ord=static, dims=dims, maxnorm=float(maxnorm))


# ----------------------------------------------------------------------------- eigenvalues
def _eigvals(a):
    """The (complex) eigenvalues of general square matrices: LAPACK's geev, on the CPU."""
    return jnp.linalg.eigvals(a)


_EIGVALS = register("linalg.eigvals", _eigvals, node="LinalgEigBackward0")


def _eig(a):
    """(eigenvalues, right eigenvectors) by LAPACK's geev: each eigenvector of unit norm with
    its largest component real. JAX differentiates through that normalisation; a loss that
    does not depend on the eigenvectors' phases (PyTorch accepts no other) gets PyTorch's
    gradient. Empty matrices give empty results (JAX's derivative has no rule for them)."""
    if a.shape[-1] == 0:
        dtype = jnp.result_type(a.dtype, jnp.complex64)
        return jnp.zeros(a.shape[:-1], dtype), jnp.zeros(a.shape, dtype)
    values, vectors = jax.lax.linalg.eig(
        a, compute_left_eigenvectors=False, enable_eigvec_derivs=True
    )
    return values, vectors


_EIG = register("linalg.eig", _eig, node="LinalgEigBackward0")


@takes_out
def linalg_eig(A):
    """`(eigenvalues, eigenvectors)` of general square matrices, complex (in LAPACK's order;
    each eigenvector of norm 1)."""
    _check_eig_input("linalg.eig", A)
    return return_types.linalg_eig(*apply(_EIG, A))


def _check_eig_input(fname: str, A) -> None:
    """Square matrices of float32/64 or complex values, with PyTorch's errors otherwise (its
    kernel names the complex dtype of the result first)."""
    _check_square(fname, A, floating=False)
    d = A.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar_type_name(d)}")
    if d in (_dtypes.float16, _dtypes.bfloat16):
        raise NotImplementedError(
            f"\"linalg_eig_out_cpu\" not implemented for '{scalar_type_name(d)}'"
        )


@takes_out
def linalg_eigvals(A):
    """The eigenvalues of general square matrices, complex (in LAPACK's order)."""
    _check_eig_input("linalg.eigvals", A)
    return apply(_EIGVALS, A)
