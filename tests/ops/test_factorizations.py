"""linalg.lu, geqrf, ormqr, householder_product and the LDL functions against real PyTorch
where the OpInfo samples do not reach: every side and transpose of ormqr with float64
gradients, LDL factorizations that take 2x2 pivots (symmetric and Hermitian), singular
matrices, the missing derivatives and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

SYMMETRIC = np.array(
    [[0.1, 2.0, -1.0, 0.5], [2.0, 0.2, 0.3, 1.0], [-1.0, 0.3, 0.05, 4.0], [0.5, 1.0, 4.0, -0.1]]
)


def _hermitian(t, re, im):
    return t.complex(re + re.mT, im - im.mT)


CASES = {
    "lu_wide": (lambda t, a: t.linalg.lu(a)[1:], [arr((3, 5))]),
    "lu_tall_batched": (lambda t, a: t.linalg.lu(a), [arr((2, 5, 3))]),
    "geqrf": (lambda t, a: t.geqrf(a), [arr((2, 4, 3))]),
    "householder_product": (
        lambda t, a, tau: t.linalg.householder_product(a, tau),
        [arr((5, 3)), arr((2,), seed=3)],
    ),
    "ldl_symmetric": (lambda t, a: tuple(t.linalg.ldl_factor_ex(a)), [SYMMETRIC]),
    "ldl_hermitian": (
        lambda t, a, b: tuple(t.linalg.ldl_factor_ex(_hermitian(t, a, b), hermitian=True)),
        [SYMMETRIC, arr((4, 4), seed=2)],
    ),
    "ldl_complex_symmetric": (
        lambda t, a, b: tuple(t.linalg.ldl_factor(t.complex(a, b))),
        [SYMMETRIC, arr((4, 4), seed=2)],
    ),
    "ldl_solve": (
        lambda t, a, b: t.linalg.ldl_solve(*t.linalg.ldl_factor(a), b),
        [SYMMETRIC, arr((2, 4, 3), seed=4)],
    ),
    "ldl_solve_hermitian": (
        lambda t, a, b, c: t.linalg.ldl_solve(
            *t.linalg.ldl_factor(_hermitian(t, a, b), hermitian=True),
            t.complex(c, c),
            hermitian=True,
        ),
        [SYMMETRIC, arr((4, 4), seed=2), arr((4, 2), seed=4)],
    ),
    "ldl_singular_info": (lambda t, a: tuple(t.linalg.ldl_factor_ex(a * 0)), [SYMMETRIC]),
}
# PyTorch has no derivative of these: values only
NO_GRAD = {"geqrf", "ldl_symmetric", "ldl_hermitian", "ldl_complex_symmetric", "ldl_solve"}
NO_GRAD |= {"ldl_solve_hermitian", "ldl_singular_info"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_factorizations_match_torch(name, real_torch):
    fn, arrays = CASES[name]
    check_case(fn, arrays, real_torch, grads=name not in NO_GRAD, grad_rtol=1e-6, grad_atol=1e-8)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_matches_torch(left, transpose, real_torch):
    def fn(t, a, tau, c):
        return t.ormqr(a, tau, c if left else c.mT, left=left, transpose=transpose)

    check_case(fn, [arr((4, 3)), arr((3,), seed=1), arr((4, 2), seed=2)], real_torch)


ERRORS = [
    lambda t: t.linalg.lu(t.zeros(3, 3), pivot=False),
    lambda t: t.linalg.lu(t.zeros(3)),
    lambda t: t.linalg.lu(t.zeros(3, 3, dtype=t.int64)),
    lambda t: t.geqrf(t.zeros(3)),
    lambda t: t.geqrf(t.zeros(3, 3, dtype=t.int64)),
    lambda t: t.geqrf(t.ones(2, 2, requires_grad=True))[0].sum().backward(),
    lambda t: t.linalg.householder_product(t.zeros(3, 2), t.zeros(2, dtype=t.float64)),
    lambda t: t.linalg.householder_product(t.zeros(3, 2), t.zeros(3)),
    lambda t: t.linalg.householder_product(t.zeros(2, 3), t.zeros(2)),
    lambda t: t.linalg.householder_product(t.zeros(3), t.zeros(2)),
    lambda t: t.linalg.householder_product(t.zeros(2, 3, 2), t.zeros(2)),
    lambda t: t.ormqr(t.zeros(3, 2), t.zeros(2), t.zeros(4, 3)),
    lambda t: t.ormqr(t.zeros(3, 2), t.zeros(2), t.zeros(3, 3, dtype=t.float64)),
    lambda t: t.ormqr(t.zeros(3, 2), t.zeros(3), t.zeros(3, 3)),
    lambda t: t.ormqr(t.zeros(3, 2), t.zeros(2), t.zeros(3)),
    lambda t: t.ormqr(t.zeros(2, 3, 2), t.zeros(2, 2), t.zeros(3, 3)),
    lambda t: t.linalg.ldl_factor(t.zeros(3, 2)),
    lambda t: t.linalg.ldl_factor(t.zeros(2, 2, dtype=t.int64)),
    lambda t: t.linalg.ldl_factor(t.zeros(2, 2)),
    lambda t: t.linalg.ldl_factor_ex(t.zeros(2, 2), check_errors=True),
    lambda t: t.linalg.ldl_factor(t.eye(2, requires_grad=True))[0].sum().backward(),
    lambda t: t.linalg.ldl_solve(t.eye(2), t.ones(2, dtype=t.int32), t.ones(3, 1)),
    lambda t: t.linalg.ldl_solve(t.eye(2), t.ones(3, dtype=t.int32), t.ones(2, 1)),
    lambda t: t.linalg.ldl_solve(t.eye(2), t.ones(2, dtype=t.int32), t.ones(2, 1).double()),
    lambda t: t.linalg.ldl_solve(t.eye(2), t.ones(2, dtype=t.int32), t.ones(2)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
