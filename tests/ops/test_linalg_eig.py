"""torch.linalg.eig against real PyTorch: eigenvalues and eigenvectors of real and complex,
single and batched matrices, float64 gradients of losses that do not depend on the
eigenvectors' phases (the only ones PyTorch differentiates), and the input errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

A = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])


def _invariant(w, v):
    """The eigenvalues and the moduli of the eigenvectors' entries (phase-invariant)."""
    return w, v.abs()


CASES = {
    "real": (lambda t, a: _invariant(*t.linalg.eig(a)), [A]),
    "complex": (
        lambda t, a, b: _invariant(*t.linalg.eig(t.complex(a, b))),
        [arr((3, 3)), arr((3, 3), seed=5)],
    ),
    "batched_empty": (lambda t, a: _invariant(*t.linalg.eig(a)), [np.zeros((2, 0, 0))]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eig_matches_torch(name, real_torch):
    fn, arrays = CASES[name]
    check_case(fn, arrays, real_torch, grad_rtol=1e-6, grad_atol=1e-7)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.linalg.eig(t.zeros(2, 3)),
        lambda t: t.linalg.eig(t.zeros(3)),
        lambda t: t.linalg.eig(t.zeros(2, 2, dtype=t.int64)),
        lambda t: t.linalg.eigvals(t.zeros(2, 2, dtype=t.bool)),
        lambda t: t.linalg.eigvals(t.zeros(2, 2, dtype=t.float16)),
    ],
)
def test_eig_errors_match_torch(call, real_torch):
    check_error(call, real_torch)
