"""`torch.svd_lowrank`: a randomized low-rank SVD (Halko, Martinsson and Tropp 2009,
algorithms 4.4 and 5.1), written with this library's ops, so it is differentiable and draws its
random basis from the global generator (PyTorch's `randn` draws); and `torch.pca_lowrank`, that
SVD of the column-centred matrix."""

from __future__ import annotations

from ._ops.decomposition import linalg_qr, linalg_svd
from ._ops.random import randn
from ._state.tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


def _basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """`q` orthonormal columns Q with Q Q^H (A - M) close to A - M (`niter` power steps)."""
    R = randn(A.shape[-1], q, dtype=A.dtype, device=A.device)

    def centred(X: Tensor, B: Tensor, N: Tensor | None) -> Tensor:
        return X @ B if N is None else X @ B - N @ B

    Q = linalg_qr(centred(A, R, M)).Q
    MH = None if M is None else M.mH
    for _ in range(niter):
        Q = linalg_qr(centred(A.mH, Q, MH)).Q
        Q = linalg_qr(centred(A, Q, M)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """The SVD `(U, S, V)` of a matrix or a batch of them, approximately, with `A ≈ U diag(S)
    V^H` of rank `q` (of `A - M` when the mean `M` is given).

    Args:
        A (Tensor): the input, of size (*, m, n).
        q (int, optional): a slightly overestimated rank of A. Default: 6.
        niter (int, optional): the number of subspace iterations. Default: 2.
        M (Tensor, optional): the mean of A, broadcast to A's size.
    """
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # the basis of the taller side
        A = A.mH
        M = None if M is None else M.mH
    Q = _basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = linalg_svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """Principal component analysis of a low-rank matrix (or a batch of them): the approximate
    SVD `(U, S, V)` of A with its column means subtracted (of A itself unless `center`).

    Args:
        A (Tensor): the input, of size (*, m, n).
        q (int, optional): a slightly overestimated rank of A. Default: min(6, m, n).
        center (bool, optional): subtract the column means first. Default: True.
        niter (int, optional): the number of subspace iterations. Default: 2.
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A, q, niter=niter)
