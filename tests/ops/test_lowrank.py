"""torch.svd_lowrank and torch.pca_lowrank against real PyTorch's on matrices of low rank
(where both are exact), tall, wide, batched and with a mean or centred; their random draws
differ, the decomposition must not."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error


def _low_rank(shape: tuple, rank: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    left = rng.standard_normal((*shape[:-1], rank))
    right = rng.standard_normal((*shape[:-2], rank, shape[-1]))
    return left @ right


@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (2, 7, 6)])
@pytest.mark.parametrize("with_mean", [False, True])
def test_svd_lowrank_matches_pytorch(shape, with_mean, real_torch):
    data = _low_rank(shape, 3)
    mean = np.full(shape[-1:], 0.5) if with_mean else None
    results = []
    for lib in (torch, real_torch):
        A = lib.tensor(data + (0 if mean is None else mean))
        M = None if mean is None else lib.tensor(mean).expand(shape)
        U, S, V = lib.svd_lowrank(A, q=4, niter=2, M=M)
        rebuilt = U @ lib.diag_embed(S) @ V.mT
        results.append((np.asarray(S)[..., :3], np.asarray(rebuilt), U.shape, V.shape))
    (s, rebuilt, u, v), (s_ref, _, u_ref, v_ref) = results
    np.testing.assert_allclose(s, s_ref, rtol=1e-6)
    np.testing.assert_allclose(rebuilt, data, atol=1e-8)
    assert (u, v) == (u_ref, v_ref)


@pytest.mark.parametrize("center", [False, True])
def test_pca_lowrank_matches_pytorch(center, real_torch):
    data = _low_rank((2, 8, 5), 3) + 0.25
    results = []
    for lib in (torch, real_torch):
        U, S, V = lib.pca_lowrank(lib.tensor(data), q=4, center=center)
        results.append((np.asarray(S)[..., :3], np.asarray(U @ lib.diag_embed(S) @ V.mT)))
    (s, rebuilt), (s_ref, rebuilt_ref) = results
    np.testing.assert_allclose(s, s_ref, rtol=1e-6)
    np.testing.assert_allclose(rebuilt, rebuilt_ref, atol=1e-8)


@pytest.mark.parametrize("q, niter", [(6, 2), (-1, 2), (2, -1)])
def test_pca_lowrank_errors_match_pytorch(q, niter, real_torch):
    check_error(lambda t: t.pca_lowrank(t.zeros(4, 5), q=q, niter=niter), real_torch)
