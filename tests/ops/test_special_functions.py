"""torch.special's orthogonal polynomials and Bessel functions against real PyTorch: values
and dtypes over the special cases (negative and large degrees, the interval's ends, the
trigonometric branch), scalar arguments, and no grad_fn (none is differentiable in PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same

POLYNOMIALS = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]
X = np.concatenate([np.linspace(-1.5, 1.5, 13), [0.0, 1.0, -1.0, 0.5, 0.25]])
N = np.array([-1, 0, 1, 2, 3, 5, 7, 9, 10, 12, 3, 8, 9, 4, 6, 20, 7, 5.7])


def _polynomial(lib, name: str) -> list:
    fn = getattr(lib.special, name)
    x = lib.tensor(X, requires_grad=True)
    return [
        fn(x, lib.tensor(N)),
        fn(x.float().detach(), lib.tensor(N).long()),
        fn(0.3, lib.tensor(N[:5])),
    ]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_matches_torch(name, real_torch):
    assert_same(_polynomial(autograd_compat, name), _polynomial(real_torch, name))


BESSEL = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
]
# The ranges' ends (2, 2.09, 5, 8, 103.892), far out on both sides, zeros and non-finite values.
EDGES = [0.0, -0.0, 1e-8, 1e-6, 0.3, -0.49, 2.0, 2.09, -2.09, 5.0, 8.0, 103.892, 110.0, -150.0]
POINTS = np.concatenate([np.linspace(-20, 20, 81), EDGES, [np.inf, -np.inf, np.nan]])


def _bessel(lib, name: str) -> list:
    fn = getattr(lib.special, name)
    x = lib.tensor(POINTS, requires_grad=True)
    return [fn(x), fn(x.float().detach()), fn(lib.arange(4))]


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_matches_torch(name, real_torch):
    assert_same(_bessel(autograd_compat, name), _bessel(real_torch, name))
