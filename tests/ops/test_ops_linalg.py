"""Linear algebra ops and torch.linalg against real PyTorch, jax.vjp and finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, check_case, check_error, uniform


def _well_conditioned(n: int, batch=(), seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (n, n)) * 0.3
    return a + 2 * np.eye(n)


# name -> (function of (lib, *inputs), inputs)
CASES = {
    "matmul_2d": (lambda t, a, b: a @ b, [arr((3, 4)), arr((4, 2))]),
    "matmul_batched_broadcast": (lambda t, a, b: t.matmul(a, b), [arr((2, 3, 4)), arr((4, 2))]),
    "matmul_vector_matrix": (lambda t, a, b: a @ b, [arr((4,)), arr((4, 2))]),
    "mm": (lambda t, a, b: t.mm(a, b), [arr((3, 4)), arr((4, 2))]),
    "bmm": (lambda t, a, b: t.bmm(a, b), [arr((2, 3, 4)), arr((2, 4, 2))]),
    "mv": (lambda t, a, b: a.mv(b), [arr((3, 4)), arr((4,))]),
    "dot": (lambda t, a, b: t.dot(a, b), [arr((4,)), arr((4,), seed=3)]),
    "outer": (lambda t, a, b: t.outer(a, b), [arr((3,)), arr((4,))]),
    "ger": (lambda t, a, b: a.ger(b), [arr((3,)), arr((4,))]),
    "einsum_matmul": (lambda t, a, b: t.einsum("ij,jk->ik", a, b), [arr((3, 4)), arr((4, 2))]),
    "einsum_list": (lambda t, a, b: t.einsum("ij,kj->ik", [a, b]), [arr((3, 4)), arr((2, 4))]),
    "einsum_batched": (
        lambda t, a, b: t.einsum("bij,bjk->bik", a, b),
        [arr((2, 3, 4)), arr((2, 4, 2))],
    ),
    "einsum_ellipsis": (lambda t, a, b: t.einsum("...j,j->...", a, b), [arr((2, 3, 4)), arr((4,))]),
    "einsum_elementwise": (lambda t, a, b: t.einsum("ij,ij->ij", a, b), [arr((3, 4)), arr((3, 4))]),
    "einsum_outer": (lambda t, a, b: t.einsum("i,j->ij", a, b), [arr((3,)), arr((4,))]),
    "einsum_sum": (lambda t, a: t.einsum("ij->", a), [arr((3, 4))]),
    "einsum_rowsum": (lambda t, a: t.einsum("ij->i", a), [arr((3, 4))]),
    "einsum_transpose": (lambda t, a: t.einsum("ij->ji", a), [arr((3, 4))]),
    "einsum_implicit": (lambda t, a, b: t.einsum("ij,jk", a, b), [arr((3, 4)), arr((4, 2))]),
    "einsum_trace": (lambda t, a: t.einsum("ii->", a), [arr((3, 3))]),
    "tensordot_int": (lambda t, a, b: t.tensordot(a, b, 1), [arr((3, 4)), arr((4, 2))]),
    "tensordot_lists": (
        lambda t, a, b: t.tensordot(a, b, dims=([1, 0], [0, 2])),
        [arr((3, 4)), arr((4, 2, 3))],
    ),
    "tensordot_default": (lambda t, a, b: t.tensordot(a, b), [arr((2, 3, 4)), arr((3, 4))]),
    "tensordot_zero": (lambda t, a, b: t.tensordot(a, b, dims=0), [arr((3,)), arr((2,))]),
    "addmm": (lambda t, c, a, b: t.addmm(c, a, b), [arr((3, 2)), arr((3, 4)), arr((4, 2))]),
    "addmm_broadcast_scaled": (
        lambda t, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2),
        [arr((2,)), arr((3, 4)), arr((4, 2))],
    ),
    "addmm_beta_zero": (
        lambda t, c, a, b: t.addmm(c, a, b, beta=0),
        [arr((3, 2)), arr((3, 4)), arr((4, 2))],
    ),
    "trace": (lambda t, a: t.trace(a), [arr((3, 4))]),
    "diag_vector": (lambda t, a: t.diag(a), [arr((3,))]),
    "diag_vector_offset": (lambda t, a: a.diag(-1), [arr((3,))]),
    "diag_matrix": (lambda t, a: t.diag(a), [arr((3, 4))]),
    "diag_matrix_offset": (lambda t, a: a.diag(2), [arr((3, 4))]),
    "tril": (lambda t, a: t.tril(a), [arr((3, 4))]),
    "tril_batched_offset": (lambda t, a: a.tril(-1), [arr((2, 3, 4))]),
    "triu": (lambda t, a: a.triu(1), [arr((3, 4))]),
    "linalg_norm": (lambda t, a: t.linalg.norm(a), [arr((2, 3, 4))]),
    "linalg_norm_fro": (lambda t, a: t.linalg.norm(a, "fro"), [arr((3, 4))]),
    "linalg_norm_nuc": (lambda t, a: t.linalg.norm(a, "nuc"), [arr((3, 4))]),
    "linalg_norm_2": (lambda t, a: t.linalg.norm(a, 2), [arr((3, 4))]),
    "linalg_norm_minus_2": (lambda t, a: t.linalg.norm(a, -2), [arr((3, 4))]),
    "linalg_norm_1": (lambda t, a: t.linalg.norm(a, 1), [arr((3, 4))]),
    "linalg_norm_minus_1": (lambda t, a: t.linalg.norm(a, -1), [arr((3, 4))]),
    "linalg_norm_inf": (lambda t, a: t.linalg.norm(a, math.inf), [arr((3, 4))]),
    "linalg_norm_vector_ord": (lambda t, a: t.linalg.norm(a, 3), [arr((4,))]),
    "linalg_norm_dim": (lambda t, a: t.linalg.norm(a, dim=1, keepdim=True), [arr((3, 4))]),
    "linalg_norm_dims_nuc": (
        lambda t, a: t.linalg.norm(a, "nuc", dim=(0, 2)),
        [arr((3, 2, 4))],
    ),
    "norm_nuc": (lambda t, a: t.norm(a, "nuc"), [arr((3, 4))]),
    "norm_fro_dims": (lambda t, a: a.norm("fro", dim=(0, 2)), [arr((2, 3, 4))]),
    "vector_norm": (lambda t, a: t.linalg.vector_norm(a), [arr((3, 4))]),
    "vector_norm_ord": (lambda t, a: t.linalg.vector_norm(a, 0.5, dim=(0, 1)), [arr((3, 4))]),
    "vector_norm_inf": (lambda t, a: t.linalg.vector_norm(a, -math.inf, dim=1), [arr((3, 4))]),
    "vector_norm_1": (lambda t, a: t.linalg.vector_norm(a, 1, keepdim=True), [arr((3, 4))]),
    "matrix_norm_batched": (lambda t, a: t.linalg.matrix_norm(a, 1), [arr((2, 3, 4))]),
    "inv": (lambda t, a: t.linalg.inv(a), [_well_conditioned(3)]),
    "inv_batched": (lambda t, a: t.linalg.inv(a), [_well_conditioned(3, (2,))]),
    "inverse": (lambda t, a: a.inverse(), [_well_conditioned(3)]),
    "det": (lambda t, a: t.linalg.det(a), [_well_conditioned(3)]),
    "det_batched": (lambda t, a: t.det(a), [_well_conditioned(3, (2,))]),
    "solve_vector": (lambda t, a, b: t.linalg.solve(a, b), [_well_conditioned(3), arr((3,))]),
    "solve_matrix": (lambda t, a, b: t.linalg.solve(a, b), [_well_conditioned(3), arr((3, 2))]),
    "solve_batched_vector": (
        lambda t, a, b: t.linalg.solve(a, b),
        [_well_conditioned(3, (2,)), arr((2, 3))],
    ),
    "solve_broadcast": (
        lambda t, a, b: t.linalg.solve(a, b),
        [_well_conditioned(3), arr((2, 3, 2))],
    ),
    "solve_left_false": (
        lambda t, a, b: t.linalg.solve(a, b, left=False),
        [_well_conditioned(3), arr((2, 3))],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_float64(name, real_torch):
    fn, inputs = CASES[name]
    sample = name in sorted(CASES)[::4]
    check_case(fn, inputs, real_torch, grad_rtol=1e-6, grad_atol=1e-8, jax_vjp=sample)


@pytest.mark.parametrize("name", sorted(CASES)[1::6])
def test_linalg_float32(name, real_torch):
    fn, inputs = CASES[name]
    check_case(
        fn,
        [a.astype(np.float32) for a in inputs],
        real_torch,
        tolerance=uniform(1e-4, 1e-5),
    )


def test_integer_products(real_torch):
    a = arr((3, 4), "int", np.int64)
    b = arr((4, 2), "int", np.int64, seed=5)
    v = arr((4,), "int", np.int64, seed=6)
    for fn, inputs in (
        (lambda t, a, b: t.mm(a, b), [a, b]),
        (lambda t, a, b: t.mv(a, b), [a, v]),
        (lambda t, a, b: t.dot(a, b), [v, v]),
        (lambda t, a, b: t.outer(a, b.float()), [v, v]),
        (lambda t, a, b: t.einsum("ij,jk->ik", a, b), [a, b]),
        (lambda t, a, b: t.tensordot(a, b, 1), [a, b]),
        (lambda t, a, b: t.addmm(a @ b, a, b, beta=0.5), [a, b]),
        (lambda t, a, b: t.trace(a.int()), [a, b]),
        (lambda t, a, b: t.diag(b), [a, v]),
        (lambda t, a, b: t.tril(a, 1), [a, b]),
        (lambda t, a, b: t.diag(a > 0), [v, b]),
    ):
        check_case(fn, inputs, real_torch)


def test_inplace_variants(real_torch):
    def fn(t, a, b):
        x = a * 1.0
        x.tril_(1)
        x.triu_(-1)
        x.addmm_(a, b, beta=0.5, alpha=2)
        return x

    check_case(fn, [arr((3, 3)), arr((3, 3), seed=2)], real_torch)


def test_edge_gradients(real_torch):
    # A zero row: every LU meets an exact zero pivot. With two proportional rows PyTorch's LU
    # rounds to a det of ~1e-16 on some CPUs (an Intel Xeon: the adjugate as gradient) and to
    # exactly 0 on others (0 as gradient, as here).
    singular = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    for fn, inputs in (
        (lambda t, a: t.linalg.det(a), [singular]),
        (lambda t, a: t.linalg.vector_norm(a), [np.zeros(3)]),
        (lambda t, a: t.linalg.vector_norm(a, 1), [np.array([0.0, 1.0, -2.0])]),
        (lambda t, a: t.linalg.vector_norm(a, 0.5), [np.array([0.0, 1.0, -2.0])]),
        (lambda t, a: t.linalg.vector_norm(a, math.inf), [np.array([2.0, -2.0, 1.0])]),
        (lambda t, a: t.linalg.norm(a, 1), [np.array([[1.0, -1.0], [0.0, 2.0]])]),
        (lambda t, a: t.linalg.norm(a, math.inf), [np.array([[1.0, 0.0], [0.0, -1.0]])]),
        (lambda t, c, a: t.addmm(c, a, a, beta=0), [np.full((2, 2), math.nan), np.eye(2)]),
    ):
        check_case(fn, inputs, real_torch, finite_differences=False, jax_vjp=False)


def test_second_order_through_linalg(real_torch):
    a = _well_conditioned(3)

    def fn(t, a):
        y = t.linalg.det(a) + t.linalg.inv(a).sum() + t.linalg.norm(a @ a.T, "fro")
        (g,) = t.autograd.grad(y, a, create_graph=True)
        return g.square().sum()

    check_case(fn, [a], real_torch, names=False, jax_vjp=False, finite_differences=False)


def test_singular_matrices_raise_linalg_error(real_torch):
    for fn in (
        lambda t: t.linalg.inv(t.zeros(3, 3)),
        lambda t: t.linalg.inv(t.tensor([[1.0, 2.0], [2.0, 4.0]])),
        lambda t: t.linalg.inv(t.stack([t.eye(2), t.zeros(2, 2)])),
        lambda t: t.linalg.solve(t.zeros(2, 2), t.ones(2)),
        # batched: "(Batch element b): " names the first singular matrix, unless only B is
        lambda t: t.linalg.solve(t.stack([t.eye(2), t.zeros(2, 2)]), t.ones(2, 2)),
        lambda t: t.linalg.solve_ex(t.zeros(2, 2, 2), t.ones(2, 1), check_errors=True),
        lambda t: t.linalg.solve(t.zeros(2, 2), t.ones(3, 2, 1)),
        lambda t: t.linalg.inv_ex(t.zeros(3, 2, 2), check_errors=True),
        lambda t: t.linalg.cholesky(t.stack([t.eye(2), -t.eye(2)])),
        lambda t: t.linalg.cholesky_ex(-t.eye(2), check_errors=True),
    ):
        error = check_error(fn, real_torch)
        assert isinstance(error, ac.linalg.LinAlgError)
    for fn in (  # a zero pivot is a RuntimeError
        lambda t: t.linalg.lu_factor(t.zeros(2, 2, 2)),
        lambda t: t.linalg.lu_factor_ex(t.zeros(2, 2, 2), check_errors=True),
    ):
        assert not isinstance(check_error(fn, real_torch), ac.linalg.LinAlgError)
    assert issubclass(ac.linalg.LinAlgError, RuntimeError)
    for a_shape, b_shape in (((2, 2), (3, 2, 1)), ((1, 2, 2), (3, 2, 1)), ((3, 1, 2, 2), (2, 2))):
        info = ac.linalg.solve_ex(ac.zeros(a_shape), ac.ones(b_shape)).info
        expected = real_torch.linalg.solve_ex(real_torch.zeros(a_shape), real_torch.ones(b_shape))
        assert info.shape == expected.info.shape  # A's batch shape, B's broadcast aside


LINALG_ERRORS = [
    lambda t: t.mm(t.ones(3), t.ones(3, 2)),
    lambda t: t.mm(t.ones(2, 3), t.ones(3)),
    lambda t: t.mm(t.ones(2, 3), [[1.0]]),
    lambda t: t.bmm(t.ones(3, 4), t.ones(4, 2)),
    lambda t: t.bmm(t.ones(2, 3, 4), t.ones(4, 2)),
    lambda t: t.bmm(t.ones(1, 3, 4), t.ones(1, 3, 4)),
    lambda t: t.bmm(t.ones(2, 3, 4), t.ones(3, 4, 5)),
    lambda t: t.bmm(t.ones(2, 3, 4), t.ones(2, 4, 5, dtype=t.float64)),
    lambda t: t.mv(t.ones(3, 4), t.ones(3)),
    lambda t: t.mv(t.ones(4), t.ones(4)),
    lambda t: t.mv(t.ones(2, 2, dtype=t.float64), t.ones(2)),
    lambda t: t.dot(t.ones(2, 2), t.ones(2, 2)),
    lambda t: t.dot(t.ones(4), t.ones(3)),
    lambda t: t.dot(t.ones(4), t.ones(4, dtype=t.float64)),
    lambda t: t.outer(t.ones(2, 2), t.ones(2)),
    lambda t: t.outer(t.ones(2), t.ones(2, 2)),
    lambda t: t.einsum("ij,jk->ik", t.ones(3, 4), t.ones(3, 4)),
    lambda t: t.einsum("ij,jk->ik", t.ones(3, 4)),
    lambda t: t.einsum("i->", t.ones(2), t.ones(2)),
    lambda t: t.einsum("ij->", t.ones(2)),
    lambda t: t.einsum("i->ii", t.ones(2)),
    lambda t: t.einsum("i1,i->", t.ones(2), t.ones(2)),
    lambda t: t.einsum("i,i->", t.ones(2), t.ones(2, dtype=t.float64)),
    lambda t: t.tensordot(t.ones(3, 4), t.ones(3, 4), dims=([1], [1, 0])),
    lambda t: t.tensordot(t.ones(3, 4), t.ones(3, 4), dims=([1], [0])),
    lambda t: t.tensordot(t.ones(3, 4), t.ones(4), 1.0 and t.tensor(-1)),
    lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 2), dims=3),
    lambda t: t.tensordot(t.ones(3, 4), t.ones(4, dtype=t.float64), 1),
    lambda t: t.addmm(t.zeros(3, 3), t.ones(3, 4), t.ones(3, 4)),
    lambda t: t.addmm(t.zeros(3, 4), t.ones(3, 4), t.ones(4, 3)),
    lambda t: t.addmm(t.zeros(2, 2), t.ones(2), t.ones(2, 2)),
    lambda t: t.addmm(t.zeros(2, 2, dtype=t.float64), t.ones(2, 2), t.ones(2, 2)),
    lambda t: t.addmm(t.zeros(2, 2), t.ones(2, 2, dtype=t.float64), t.ones(2, 2)),
    lambda t: t.trace(t.ones(4)),
    lambda t: t.trace(t.ones(2, 2, dtype=t.bool)),
    lambda t: t.diag(t.ones(2, 2, 2)),
    lambda t: t.diag(t.tensor(1.0)),
    lambda t: t.tril(t.ones(4)),
    lambda t: t.triu(t.ones(4)),
    lambda t: t.linalg.inv(t.ones(3, 4)),
    lambda t: t.linalg.inv(t.eye(2, dtype=t.long)),
    lambda t: t.linalg.inv(t.ones(4)),
    lambda t: t.linalg.det(t.ones(3, 4)),
    lambda t: t.linalg.det(t.eye(2, dtype=t.long)),
    lambda t: t.linalg.solve(t.eye(2), t.ones(3)),
    lambda t: t.linalg.solve(t.eye(2), t.ones(3, 2)),
    lambda t: t.linalg.solve(t.eye(2), t.ones(2, dtype=t.float64)),
    lambda t: t.linalg.solve(t.eye(2), t.ones(2), left=False),
    lambda t: t.linalg.norm(t.ones(2, 2), "fro", dim=1),
    lambda t: t.linalg.norm(t.ones(2, 2, 2), 2),
    lambda t: t.linalg.norm(t.ones(4), "fro"),
    lambda t: t.linalg.norm(t.tensor([3, 4])),
    lambda t: t.linalg.norm(t.ones(3, 4), 0.5, dim=(0, 1)),
    lambda t: t.linalg.norm(t.ones(3, 4), "abc"),
    lambda t: t.linalg.vector_norm(t.tensor([3, 4])),
    lambda t: t.linalg.vector_norm(t.ones(2, dtype=t.float64), dtype=t.float32),
    lambda t: t.linalg.vector_norm(t.zeros(0), math.inf),
    lambda t: t.linalg.matrix_norm(t.ones(3, 4), 3),
    lambda t: t.linalg.matrix_norm(t.ones(4)),
    lambda t: t.ones(3, 4) @ t.ones(3, 4),
]


@pytest.mark.parametrize("index", range(len(LINALG_ERRORS)))
def test_linalg_errors(index, real_torch):
    check_error(LINALG_ERRORS[index], real_torch)


def test_linalg_under_jit():
    import jax

    a = _well_conditioned(3)

    @jax.jit
    def f(x):
        t = ac.from_jax(x)
        return (ac.linalg.inv(t) @ ac.linalg.solve(t, t.diag()) + ac.linalg.det(t)).jax()

    t = ac.tensor(a)
    expected = ac.linalg.inv(t) @ ac.linalg.solve(t, t.diag()) + ac.linalg.det(t)
    np.testing.assert_allclose(np.asarray(f(a)), expected.numpy(), rtol=1e-10)
