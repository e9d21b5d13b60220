"""The Bunch-Kaufman LDL factorization and its solve on the host, in LAPACK's conventions
(`?sytrf`/`?hetrf` and `?sytrs`/`?hetrs` with the lower triangle), which torch.linalg's
ldl_factor and ldl_solve return and read: L unit lower triangular below the diagonal of the
compact LD, D block diagonal with 1x1 and 2x2 blocks, and 1-based int32 pivots, positive for a
1x1 block (the row swapped with) and negative twice for a 2x2 one.

It follows LAPACK's unblocked algorithm step by step, so that the pivots it chooses, and
therefore every entry, are LAPACK's. Matrices come one at a time (numpy arrays); the callers
loop over batches. JAX has no such factorization: these run inside `jax.pure_callback`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# LAPACK's pivot threshold: the growth factor bound of Bunch and Kaufman
ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


class Factorization(NamedTuple):
    """One matrix's factorization: the compact LD (upper triangle zero), pivots, info."""

    ld: np.ndarray
    pivots: np.ndarray
    info: int


def _size(x, hermitian: bool):
    """LAPACK's `cabs1` magnitude (|re| + |im|) for pivot choices; the real part's modulus for
    a Hermitian diagonal."""
    if hermitian:
        return abs(np.real(x))
    return np.abs(np.real(x)) + np.abs(np.imag(x))


def _first_max(values: np.ndarray) -> int:
    """The index of the first largest entry (LAPACK's i?amax)."""
    return int(np.argmax(values))


def _choose_pivot(a: np.ndarray, k: int, hermitian: bool) -> tuple[int, int, bool]:
    """(kp, kstep, singular) at step k: the row to swap in, the block size, and whether the
    column is zero (or NaN)."""
    n = a.shape[0]
    absakk = _size(a[k, k], hermitian)
    imax, colmax = k, 0.0
    if k < n - 1:
        imax = k + 1 + _first_max(_size(a[k + 1 :, k], False))
        colmax = _size(a[imax, k], False)
    if max(absakk, colmax) == 0 or np.isnan(absakk):
        return k, 1, True
    if absakk >= ALPHA * colmax:
        return k, 1, False
    rowmax = _size(a[imax, k + _first_max(_size(a[imax, k:imax], False))], False)
    if imax < n - 1:
        jmax = imax + 1 + _first_max(_size(a[imax + 1 :, imax], False))
        rowmax = max(rowmax, _size(a[jmax, imax], False))
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if _size(a[imax, imax], hermitian) >= ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _interchange(a: np.ndarray, k: int, kk: int, kp: int, kstep: int, hermitian: bool) -> None:
    """Swap rows and columns kk and kp of the trailing lower triangle."""
    conj = np.conj if hermitian else (lambda x: x)
    a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    between = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = conj(a[kp, kk + 1 : kp])
    a[kp, kk + 1 : kp] = conj(between)
    if hermitian:
        a[kp, kk] = np.conj(a[kp, kk])
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if hermitian:
        a[kk, kk], a[kp, kp] = np.real(a[kk, kk]), np.real(a[kp, kp])
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _update_1x1(a: np.ndarray, k: int, hermitian: bool) -> None:
    x = a[k + 1 :, k]
    d = 1.0 / (np.real(a[k, k]) if hermitian else a[k, k])
    outer = np.outer(x, np.conj(x) if hermitian else x)
    a[k + 1 :, k + 1 :] -= d * np.tril(outer)
    a[k + 1 :, k] = x * d


def _update_2x2(a: np.ndarray, k: int, hermitian: bool) -> None:
    n = a.shape[0]
    if hermitian:
        d = abs(a[k + 1, k])
        d11, d22 = np.real(a[k + 1, k + 1]) / d, np.real(a[k, k]) / d
        d21 = a[k + 1, k] / d
        scale = 1.0 / (d11 * d22 - 1.0) / d
    else:
        d21 = a[k + 1, k]
        d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
        scale = 1.0 / (d11 * d22 - 1.0) / d21
    for j in range(k + 2, n):
        if hermitian:
            wk = scale * (d11 * a[j, k] - d21 * a[j, k + 1])
            wkp1 = scale * (d22 * a[j, k + 1] - np.conj(d21) * a[j, k])
            a[j:, j] -= a[j:, k] * np.conj(wk) + a[j:, k + 1] * np.conj(wkp1)
        else:
            wk = scale * (d11 * a[j, k] - a[j, k + 1])
            wkp1 = scale * (d22 * a[j, k + 1] - a[j, k])
            a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
        a[j, k], a[j, k + 1] = wk, wkp1
        if hermitian:
            a[j, j] = np.real(a[j, j])


def factor(matrix: np.ndarray, hermitian: bool) -> Factorization:
    """The LDL factorization of the lower triangle of one square matrix."""
    a = np.array(matrix, copy=True)
    hermitian = hermitian and np.iscomplexobj(a)
    n = a.shape[0]
    pivots = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kp, kstep, singular = _choose_pivot(a, k, hermitian)
        if singular and not info:
            info = k + 1
        kk = k + kstep - 1
        if kp != kk:
            _interchange(a, k, kk, kp, kstep, hermitian)
        if hermitian:
            a[k, k] = np.real(a[k, k])
            if kstep == 2:
                a[k + 1, k + 1] = np.real(a[k + 1, k + 1])
        if not singular:
            if kstep == 1 and k < n - 1:
                _update_1x1(a, k, hermitian)
            elif kstep == 2 and k < n - 2:
                _update_2x2(a, k, hermitian)
        if kstep == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += kstep
    return Factorization(np.tril(a), pivots, info)


def solve(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray, hermitian: bool) -> np.ndarray:
    """X with A X = B, A given by `factor`'s LD and pivots."""
    hermitian = hermitian and np.iscomplexobj(ld)
    conj = np.conj if hermitian else (lambda x: x)
    x = np.array(b, copy=True)
    n = ld.shape[0]
    k = 0
    while k < n:  # L D Y = B
        if pivots[k] > 0:
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1 :] -= np.outer(ld[k + 1 :, k], x[k])
            x[k] /= np.real(ld[k, k]) if hermitian else ld[k, k]
            k += 1
        else:
            kp = -pivots[k] - 1
            x[[k + 1, kp]] = x[[kp, k + 1]]
            x[k + 2 :] -= np.outer(ld[k + 2 :, k], x[k]) + np.outer(ld[k + 2 :, k + 1], x[k + 1])
            off = ld[k + 1, k]
            akm1, ak = ld[k, k] / conj(off), ld[k + 1, k + 1] / off
            denom = akm1 * ak - 1.0
            bkm1, bk = x[k] / conj(off), x[k + 1] / off
            x[k], x[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y (L^H when Hermitian)
        if pivots[k] > 0:
            x[k] -= conj(ld[k + 1 :, k]) @ x[k + 1 :]
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
        else:
            x[k] -= conj(ld[k + 1 :, k]) @ x[k + 1 :]
            x[k - 1] -= conj(ld[k + 1 :, k - 1]) @ x[k + 1 :]
            kp = -pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 2
    return x
