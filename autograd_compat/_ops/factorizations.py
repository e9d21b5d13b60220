"""LAPACK-style factorizations and their consumers: linalg.lu (P, L, U), geqrf, ormqr,
linalg.householder_product (orgqr), linalg.ldl_factor(_ex) and linalg.ldl_solve.

Householder reflectors are in LAPACK's layout (geqrf's): reflector i is column i of the input
below the diagonal, with an implied 1 on it, and H_i = I - tau_i v_i v_i^H; Q = H_1 ... H_k.
Applying them (`_apply_reflectors`) is one differentiable pure function shared by ormqr and
householder_product. geqrf is LAPACK's own (through `jnp.linalg.qr(mode="raw")`) and, as in
PyTorch, has no derivative. The LDL functions run LAPACK's Bunch-Kaufman algorithm on the host
(`bunch_kaufman`) and, as in PyTorch, have no derivative.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._state.tensor import Tensor
from .._tape.args import check_same_dtype, is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from . import bunch_kaufman
from .elementwise import _no_derivative
from .linalg import _check_square
from .out_arg import takes_out
from .reduce import return_types
from .solvers import _PERMUTATION

__all__ = ["geqrf", "orgqr", "ormqr"]


def _lapack_dtype(kernel: str, x: Tensor) -> None:
    """float32/64 and complex only: PyTorch's text names its CPU kernel."""
    d = x.dtype
    if not (d.is_floating_point or d.is_complex) or d in (_dtypes.float16, _dtypes.bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(d)}'")


# ----------------------------------------------------------------------------- lu
def _lu(a):
    """(L, U, pivots) of the partially pivoted LU factorization of m x n matrices."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu, pivots, _ = lax.linalg.lu(a)
    lower = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
    return lower, jnp.triu(lu[..., :k, :]), pivots + 1


_LU = register("linalg.lu", _lu, node="LinalgLuBackward0")


@takes_out
def linalg_lu(A, *, pivot: bool = True):
    """`(P, L, U)` with `A = P L U` for (batches of) m x n matrices: P a permutation matrix,
    L unit lower triangular m x k, U upper triangular k x n (k = min(m, n))."""
    tensor_arg(A, "linalg_lu", "A")
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
            "instead"
        )
    _lapack_dtype("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lower, upper, pivots = apply(_LU, A)
    p = apply(_PERMUTATION, pivots, m=A.shape[-2], dtype=A._stored.dtype)
    return return_types.linalg_lu(p, lower, upper)


# ----------------------------------------------------------------------------- reflectors
def _reflector(a, i, rows):
    """Reflector i of `a` (..., m, n): column i below the diagonal, 1 on it, 0 above."""
    column = lax.dynamic_index_in_dim(a, i, axis=-1, keepdims=False)
    return jnp.where(rows > i, column, (rows == i).astype(a.dtype))


def _apply_reflectors(a, tau, c, *, left, adjoint):
    """Q C (`left`) or C Q, Q^H for Q when `adjoint`, with Q = H_1 ... H_k the reflectors of
    `a` and `tau` (k = tau.shape[-1]); one reflector per loop step."""
    k = tau.shape[-1]
    rows = jnp.arange(a.shape[-2])
    # Q C = H_1 (... (H_k C)): the last reflector first; Q^H C and C Q the first first
    last_first = left != adjoint

    def step(j, c):
        i = k - 1 - j if last_first else j
        v = _reflector(a, i, rows)
        t = lax.dynamic_index_in_dim(tau, i, axis=-1, keepdims=False)[..., None, None]
        if adjoint:
            t = jnp.conj(t)
        if left:  # H C = C - tau v (v^H C)
            return c - t * v[..., :, None] * jnp.sum(
                jnp.conj(v)[..., :, None] * c, -2, keepdims=True
            )
        return c - t * jnp.sum(c * v[..., None, :], -1, keepdims=True) * jnp.conj(v)[..., None, :]

    c = c.astype(jnp.result_type(a, c))
    return lax.fori_loop(0, k, step, c) if k else c


def _householder_product(a, tau):
    m, n = a.shape[-2:]
    eye = jnp.broadcast_to(jnp.eye(m, n, dtype=a.dtype), a.shape)
    return _apply_reflectors(a, tau, eye, left=True, adjoint=False)


_HOUSEHOLDER_PRODUCT = register(
    "linalg.householder_product", _householder_product, node="LinalgHouseholderProductBackward0"
)
_ORMQR = register("ormqr", _apply_reflectors, node="OrmqrBackward0")


def _check_tau(fname: str, input: Tensor, tau: Tensor) -> None:
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(
            f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )


@takes_out
def linalg_householder_product(A, tau):
    """The first n columns of the product Q = H_1 ... H_k of the Householder reflectors in
    the columns of A (m x n, m >= n) with coefficients tau (k <= n): orgqr of LAPACK."""
    fname = "torch.linalg.householder_product"
    tensor_arg(A, "linalg_householder_product", "input")
    tensor_arg(tau, "linalg_householder_product", "tau", 2)
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{fname}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if tau.ndim and tau.shape[-1] > n:
        raise RuntimeError(
            f"{fname}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    _check_tau(fname, A, tau)
    if tau.dtype is not A.dtype:
        raise RuntimeError(
            f"{fname}: tau dtype {scalar_type_name(tau.dtype)} does not match input dtype "
            f"{scalar_type_name(A.dtype)}"
        )
    _lapack_dtype("orgqr_cpu", A)
    return apply(_HOUSEHOLDER_PRODUCT, A, tau)


@takes_out
def orgqr(input, input2):
    """`torch.orgqr`: `torch.linalg.householder_product(input, input2)`."""
    return linalg_householder_product(input, input2)


@takes_out
def ormqr(input, input2, input3, left: bool = True, transpose: bool = False):
    """`input3` (other) multiplied by Q (on the left unless `left=False`; by Q^H when
    `transpose`), Q the m x m product of the Householder reflectors in `input` and `input2`
    (tau): geqrf's result. PyTorch's argument names."""
    tau, other = input2, input3
    fname = "torch.ormqr"
    tensor_arg(input, "ormqr")
    tensor_arg(tau, "ormqr", "input2", 2)
    tensor_arg(other, "ormqr", "input3", 3)
    if input.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{fname}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{fname}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim and tau.shape[-1] > min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"{fname}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    _check_tau(fname, input, tau)
    if other.ndim != input.ndim:
        raise RuntimeError(
            f"{fname}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}"
        )
    for t, name in ((tau, "tau"), (other, "other")):
        if t.dtype is not input.dtype:
            raise RuntimeError(
                f"{fname}: Expected input and {name} to have the same dtype, but input has "
                f"dtype{scalar_type_name(input.dtype)} and {name} has dtype "
                f"{scalar_type_name(t.dtype)}"
            )
    _lapack_dtype("ormqr_cpu", input)
    return apply(_ORMQR, input, tau, other, left=bool(left), adjoint=bool(transpose))


def _geqrf(a):
    """LAPACK's geqrf: R on and above the diagonal, the reflectors below it, and tau."""
    h, tau = jnp.linalg.qr(a, mode="raw")
    return jnp.swapaxes(h, -1, -2), tau


_GEQRF = register(
    "geqrf",
    _no_derivative(
        "geqrf",
        _geqrf,
        text="the derivative for 'geqrf' is not implemented.",
        error=NotImplementedError,
    ),
    node="GeqrfBackward0",
)


@takes_out
def geqrf(input):
    """`(a, tau)`: the QR factorization in LAPACK's compact form (see the module)."""
    tensor_arg(input, "geqrf")
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_dtype("geqrf_cpu", input)
    return return_types.geqrf(*apply(_GEQRF, input))


# ----------------------------------------------------------------------------- ldl
def _host_factor(a: np.ndarray, hermitian: bool):
    """(LD, pivots, info) of every matrix of the batch `a`."""
    batch, n = a.shape[:-2], a.shape[-1]
    matrices = a.reshape((int(np.prod(batch)), n, n))
    results = [bunch_kaufman.factor(m, hermitian) for m in matrices]
    ld = np.reshape([r.ld for r in results], a.shape).astype(a.dtype)
    pivots = np.reshape([r.pivots for r in results], batch + (n,)).astype(np.int32)
    info = np.reshape([r.info for r in results], batch).astype(np.int32)
    return ld, pivots, info


def _host_solve(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray, hermitian: bool):
    """X with A X = B for every matrix of the broadcast batch."""
    batch = np.broadcast_shapes(ld.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    n, k = b.shape[-2:]
    count = int(np.prod(batch))
    factors = np.broadcast_to(ld, batch + (n, n)).reshape(count, n, n)
    rows = np.broadcast_to(pivots, batch + (n,)).reshape(count, n)
    rhs = np.broadcast_to(b, batch + (n, k)).reshape(count, n, k)
    out = [bunch_kaufman.solve(f, p, r, hermitian) for f, p, r in zip(factors, rows, rhs)]
    return np.reshape(out, batch + (n, k)).astype(b.dtype)


def _ldl_factor_call(a, hermitian: bool):
    shapes = (
        jax.ShapeDtypeStruct(a.shape, a.dtype),
        jax.ShapeDtypeStruct(a.shape[:-1], jnp.int32),
        jax.ShapeDtypeStruct(a.shape[:-2], jnp.int32),
    )
    return jax.pure_callback(
        lambda x: _host_factor(np.asarray(x), hermitian), shapes, a, vmap_method="sequential"
    )


def _ldl_solve_call(ld, pivots, b, hermitian: bool):
    batch = jnp.broadcast_shapes(ld.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    shape = jax.ShapeDtypeStruct(batch + b.shape[-2:], b.dtype)

    def host(*arrays):
        return _host_solve(*(np.asarray(x) for x in arrays), hermitian)

    return jax.pure_callback(host, shape, ld, pivots, b, vmap_method="sequential")


# one function per `hermitian`: the no-derivative wrapper takes arrays only
_LDL_FACTOR_FNS = {
    h: _no_derivative("linalg_ldl_factor_ex", lambda a, h=h: _ldl_factor_call(a, h))
    for h in (False, True)
}
_LDL_SOLVE_FNS = {
    h: _no_derivative("linalg_ldl_solve", lambda ld, p, b, h=h: _ldl_solve_call(ld, p, b, h))
    for h in (False, True)
}
_LDL_FACTOR = register(
    "linalg.ldl_factor_ex",
    lambda a, *, hermitian: _LDL_FACTOR_FNS[hermitian](a),
    node="NotImplemented",
)
_LDL_SOLVE = register(
    "linalg.ldl_solve",
    lambda ld, pivots, b, *, hermitian: _LDL_SOLVE_FNS[hermitian](ld, pivots, b),
    node="NotImplemented",
    shown_inputs=(0, 2),
)

# PyTorch reports LAPACK's info for a singular matrix as an internal error.
_UNKNOWN_INFO = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
    'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. {fname}: Unknown error '
    "code: {code}."
)


def _raise_for_ldl_info(info: Tensor, fname: str) -> None:
    """PyTorch's error for the first nonzero info (concrete values only)."""
    if is_tracer(info._value):
        return
    codes = np.asarray(info._value).reshape(-1)
    failed = codes[codes != 0]
    if failed.size:
        raise RuntimeError(_UNKNOWN_INFO.format(fname=fname, code=int(failed[0])))


@takes_out
def linalg_ldl_factor_ex(A, *, hermitian: bool = False, check_errors: bool = False):
    """`(LD, pivots, info)`: the Bunch-Kaufman factorization A = P L D L^T P^T (L^H when
    `hermitian`) of the lower triangle of A, in LAPACK's compact form (see bunch_kaufman);
    info is 0, or k where D's k-th diagonal block is singular."""
    fname = "torch.linalg.ldl_factor_ex"
    _check_square(fname, A)
    ld, pivots, info = apply(_LDL_FACTOR, A, hermitian=bool(hermitian))
    if check_errors:
        _raise_for_ldl_info(info, fname)
    return return_types.linalg_ldl_factor_ex(ld, pivots, info)


@takes_out
def linalg_ldl_factor(A, *, hermitian: bool = False):
    """`(LD, pivots)` of `ldl_factor_ex`; a singular D raises."""
    ld, pivots, info = linalg_ldl_factor_ex(A, hermitian=hermitian)
    _raise_for_ldl_info(info, "torch.linalg.ldl_factor")
    return return_types.linalg_ldl_factor(ld, pivots)


@takes_out
def linalg_ldl_solve(LD, pivots, B, *, hermitian: bool = False):
    """The solution X of A X = B from A's `ldl_factor` result; batch dims broadcast."""
    fname = "torch.linalg.ldl_solve"
    tensor_arg(LD, "linalg_ldl_solve", "LD")
    tensor_arg(pivots, "linalg_ldl_solve", "pivots", 2)
    tensor_arg(B, "linalg_ldl_solve", "B", 3)
    _check_square(fname, LD, "LD")
    if B.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(B.ndim, 1)}, "
            f"{max(B.ndim, 1) - 1}], but got -2)"
        )
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            f"{fname}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {list(pivots.shape)} instead"
        )
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {fname}: each A matrix is {LD.shape[-1]} by "
            f"{LD.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    check_same_dtype(
        B,
        LD,
        "Expected b and A to have the same dtype, but found b of type {a} and A of type {b} "
        "instead.",
    )
    return apply(_LDL_SOLVE, LD, pivots.to(_dtypes.int32), B, hermitian=bool(hermitian))
