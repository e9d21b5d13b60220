"""torch.linalg.eigvals against real PyTorch: complex eigenvalues of real and complex,
single and batched matrices, their dtypes, grad_fn names and float64 gradients of real
functions of them, and the error for a non-square input."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

A = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])

CASES = {
    "real": (lambda t, a: t.linalg.eigvals(a), [A]),
    "real_function": (
        lambda t, a: (lambda w: w.real.sum() + (w.imag**2).sum())(t.linalg.eigvals(a)),
        [A],
    ),
    "batched_float32": (lambda t, a: t.linalg.eigvals(a.float()).abs(), [arr((2, 3, 3))]),
    "complex": (
        lambda t, a, b: t.linalg.eigvals(t.complex(a, b)).abs(),
        [arr((3, 3)), arr((3, 3), seed=5)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eigvals_matches_torch(name, real_torch):
    fn, arrays = CASES[name]
    exact = name != "batched_float32"  # float32 rounding defeats finite differences
    check_case(fn, arrays, real_torch, grad_rtol=1e-6, grad_atol=1e-7, finite_differences=exact)


def test_non_square_raises_as_torch(real_torch):
    check_error(lambda t: t.linalg.eigvals(t.zeros(2, 3)), real_torch)
