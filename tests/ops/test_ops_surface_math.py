"""The maths ops added for PyTorch's op surface against real PyTorch: the data-dependent and
non-differentiable ones (unique, unique_consecutive, bincount, histc, argwhere, mode with
ties, nanmedian with NaN), the torch.* forms of the decompositions (torch.svd's V, logdet's
NaN, cholesky's errors), the special functions' edge values, and PyTorch's errors. The op
table (`op_table.py`) checks every new op's gradients; these cases are forward-only or few."""

from __future__ import annotations

import math
import warnings

import jax
import numpy as np
import pytest

import autograd_compat as ac
from autograd_compat._pure.errors import DataDependentError
from tests._helpers.torch_compare import assert_same, check_case, check_error, snap

NAN, INF = math.nan, math.inf
VALUES = [3.0, 1, 2, 3, 1, 5, 3]
SLICES = [[1, 2], [1, 2], [0, 5], [1, 2]]
RUNS = [1, 1, 2, 2, 3, 1, 1, 2]

# name -> a program of the library `t`, compared (values, dtypes, names) with PyTorch
FORWARD = {
    "unique": lambda t: t.unique(t.tensor(VALUES)),
    "unique_all": lambda t: t.unique(t.tensor(VALUES), return_inverse=True, return_counts=True),
    "unique_counts": lambda t: t.tensor(VALUES).unique(return_counts=True),
    "unique_2d": lambda t: t.unique(t.tensor(SLICES), return_inverse=True),
    "unique_dim0": lambda t: t.unique(
        t.tensor(SLICES), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_dim1": lambda t: t.tensor(SLICES).unique(dim=1, return_inverse=True),
    "unique_bool": lambda t: t.unique(t.tensor([True, False, True])),
    # NaN equals nothing, itself included: each NaN is a value of its own
    "unique_nan": lambda t: t.unique(
        t.tensor([1.0, NAN, 3, NAN, 1]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive": lambda t: t.unique_consecutive(
        t.tensor(RUNS), return_inverse=True, return_counts=True
    ),
    "unique_consecutive_2d": lambda t: t.tensor(SLICES).unique_consecutive(return_inverse=True),
    "unique_consecutive_dim0": lambda t: t.unique_consecutive(
        t.tensor(SLICES), dim=0, return_counts=True
    ),
    "bincount": lambda t: t.bincount(t.tensor(RUNS)),
    "bincount_minlength": lambda t: t.tensor(RUNS).bincount(minlength=7),
    "bincount_weights": lambda t: t.bincount(t.tensor([1, 1, 4]), t.tensor([0.5, 1, 2])),
    "bincount_float_weights": lambda t: t.bincount(
        t.tensor([1, 1, 4]), t.tensor([0.5, 1, 2], dtype=t.float32)
    ),
    "bincount_int_weights": lambda t: t.bincount(t.tensor([1, 1, 4]), t.tensor([1, 2, 3])),
    "bincount_empty": lambda t: t.bincount(t.tensor([], dtype=t.int64), minlength=2),
    "histc": lambda t: t.histc(t.tensor(VALUES), bins=4),
    "histc_range": lambda t: t.tensor(VALUES).histc(bins=4, min=0, max=4),
    "histc_double": lambda t: t.histc(t.tensor(VALUES, dtype=t.float64), 3, 1.5, 3),
    "histc_constant": lambda t: t.histc(t.tensor([2.0, 2.0]), bins=4),
    "argwhere": lambda t: t.argwhere(t.tensor([[0, 1], [2, 0]])),
    "mode_ties": lambda t: t.mode(t.tensor([[2.0, 1, 2, 1, 0], [5, 5, 5, 1, 1]]), 1),
    "mode_int": lambda t: t.tensor([[2, 1, 2], [1, 0, 1]]).mode(0, keepdim=True),
    "mode_scalar": lambda t: t.tensor(5.0).mode(),
    "nanmedian": lambda t: t.nanmedian(t.tensor([1.0, NAN, 3, 2])),
    "nanmedian_dim": lambda t: t.tensor([[1.0, NAN, 3, 2], [4, NAN, 1, 0]]).nanmedian(1),
    "nanmedian_int": lambda t: t.nanmedian(t.tensor([[1, 3, 2]]), 1),
    "aminmax": lambda t: t.aminmax(t.tensor(VALUES)),
    "aminmax_dim": lambda t: t.tensor(SLICES).aminmax(dim=1, keepdim=True),
    "msort": lambda t: t.msort(t.tensor(SLICES)),
    "angle": lambda t: t.angle(t.tensor([-2.0, 0, -0.0, 3, NAN, INF, -INF])),
    "angle_int": lambda t: t.tensor([-1, 2]).angle(),
    "signbit": lambda t: t.tensor([-2.0, 0, -0.0, NAN, -INF]).signbit(),
    "signbit_int": lambda t: t.signbit(t.tensor([-1, 0])),
    "isposinf": lambda t: t.isposinf(t.tensor([1.0, INF, -INF, NAN])),
    "isneginf": lambda t: t.tensor([1.0, INF, -INF, NAN]).isneginf(),
    "isreal": lambda t: t.isreal(t.tensor([1 + 2j, 3 + 0j])),
    "gcd": lambda t: t.gcd(t.tensor([12, -18, 0]), t.tensor([8, 12, 0])),
    "lcm": lambda t: t.tensor([4, -6, 0]).lcm(t.tensor([6, 4, 3])),
    "gcd_mixed": lambda t: t.gcd(t.tensor([12]), t.tensor([8], dtype=t.int32)),
    "gcd_": lambda t: t.tensor([12, 18]).gcd_(t.tensor([8, 12])),
    "ldexp_int": lambda t: t.ldexp(t.tensor([1, 2]), t.tensor([1, -2])),
    "ldexp_": lambda t: t.tensor([1.0, 3]).ldexp_(t.tensor([2, -1])),
    "frexp": lambda t: t.frexp(t.tensor([-2.0, 0, -0.0, 3, 0.3, NAN, INF])),
    "nextafter": lambda t: t.nextafter(t.tensor([1.0, 2]), t.tensor([2.0, 1])),
    "i0_int": lambda t: t.i0(t.tensor([1, 2])),
    "polygamma_": lambda t: t.tensor([1.5, 2.0], dtype=t.float64).polygamma_(3),
    "mvlgamma_int": lambda t: t.mvlgamma(t.tensor([3, 4]), 2),
    "special_multigammaln": lambda t: t.special.multigammaln(
        t.tensor([2.5, 3.0], dtype=t.float64), 3
    ),
    "special_gammainc": lambda t: t.special.gammainc(
        t.tensor([1.0, 2], dtype=t.float64), t.tensor([0.3, 2.0], dtype=t.float64)
    ),
    "igammac_": lambda t: t.tensor([1.0, 2], dtype=t.float64).igammac_(
        t.tensor([0.3, 2.0], dtype=t.float64)
    ),
    "hardshrink_module": lambda t: t.nn.Hardshrink(0.4)(t.tensor([-1.0, 0.3, 0.5, -0.4])),
    "softshrink_module": lambda t: t.nn.Softshrink()(t.tensor([-1.0, 0.3, 0.5, -0.6])),
    "hardshrink_torch": lambda t: t.hardshrink(t.tensor([-1.0, 0.3]), -1),
    "prelu_method": lambda t: t.tensor([[-1.0, 0.3], [0.5, -0.6]]).prelu(t.tensor([0.25, 0.1])),
    "bernoulli_limits": lambda t: (
        t.tensor([0.0, 1, 1, 0]).bernoulli(),
        t.ones(3).bernoulli(0.0),
        t.zeros(3).bernoulli(p=1.0),
    ),
    "slogdet_torch": lambda t: t.slogdet(t.tensor([[1.0, 2], [3, 4]])),
    "logdet_negative": lambda t: t.tensor([[1.0, 2], [3, 4]]).logdet(),
    "logdet_singular": lambda t: t.logdet(t.tensor([[1.0, 2], [2, 4]])),
    "svd_no_uv": lambda t: t.svd(t.tensor([[3.0, 0], [0, 4], [0, 0]]), compute_uv=False),
    "cholesky_ex_failed": lambda t: (
        t.linalg.cholesky_ex(t.tensor([[[4.0, 0], [0, 1]], [[1.0, 2], [2, 1]]])).info
    ),
    "eigvalsh_upper": lambda t: t.linalg.eigvalsh(t.tensor([[2.0, 1], [-7, 3]]), UPLO="U"),
    "qr_r": lambda t: t.linalg.qr(t.tensor([[1.0, 2], [3, 4], [5, 6]]), mode="r"),
    "qr_complete": lambda t: t.linalg.qr(t.tensor([[1.0, 2], [3, 4], [5, 6]]), mode="complete"),
    "pinverse": lambda t: t.tensor([[1.0, 2], [2, 4], [0, 0]]).pinverse(1e-3),
    "dist_inf": lambda t: t.dist(t.tensor([1.0, 5]), t.tensor([[0.0], [2]]), INF),
    "searchsorted_batched": lambda t: t.searchsorted(
        t.tensor([[1.0, 3, 5], [0, 2, 4]]), t.tensor([[0.0, 3], [4, 5]]), side="right"
    ),
    "searchsorted_number": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), 3, out_int32=True),
    "searchsorted_sorter": lambda t: t.searchsorted(
        t.tensor([5.0, 1, 3]), t.tensor([2.0, 3]), sorter=t.tensor([1, 2, 0])
    ),
    "bucketize": lambda t: t.bucketize(t.tensor([[0, 3], [6, 1]]), t.tensor([1, 3, 5])),
    "bucketize_right": lambda t: t.bucketize(
        t.tensor([0.0, 3, 6]), t.tensor([1.0, 3, 5]), right=True
    ),
    "block_diag_mixed": lambda t: t.block_diag(
        t.tensor(1.0), t.ones(2), t.ones(2, 2, dtype=t.int64)
    ),
    "block_diag_none": lambda t: t.block_diag(),
    "cartesian_prod": lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3, 4, 5])),
    "std_mean": lambda t: t.std_mean(t.tensor(SLICES, dtype=t.float32), 1, keepdim=True),
    "var_mean": lambda t: t.var_mean(t.tensor(SLICES, dtype=t.float32), correction=0),
    "matrix_rank": lambda t: t.linalg.matrix_rank(t.tensor([[1.0, 2], [2, 4], [0, 1]])),
    "matrix_rank_tol": lambda t: t.linalg.matrix_rank(t.tensor([[3.0, 0], [0, 0.1]]), atol=0.5),
    "multi_dot_vectors": lambda t: t.linalg.multi_dot(
        [t.ones(3), t.tensor([[1.0, 2], [3, 4], [5, 6]]), t.ones(2)]
    ),
    "vecdot": lambda t: t.linalg.vecdot(t.tensor([[1.0, 2], [3, 4]]), t.tensor([1.0, -1])),
    "lstsq_rank_deficient": lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(3, 1)),
    "lu_factor_ex_singular": lambda t: t.linalg.lu_factor_ex(t.tensor([[1.0, 2], [2, 4]])),
    "inv_ex_singular": lambda t: t.linalg.inv_ex(t.tensor([[1.0, 2], [2, 4]])),
    "solve_ex_vector": lambda t: t.linalg.solve_ex(t.tensor([[2.0, 1], [1, 3]]), t.ones(2)),
    "linalg_cross": lambda t: t.linalg.cross(t.eye(3), t.ones(1, 3)),
    "linalg_diagonal": lambda t: t.linalg.diagonal(t.arange(8.0).reshape(2, 2, 2), offset=1),
    "linalg_matrix_power": lambda t: t.linalg.matrix_power(t.tensor([[2.0, 1], [1, 3]]), -2),
    "linalg_vander": lambda t: t.linalg.vander(t.tensor([1, 2, 3], dtype=t.int32), N=4),
    "vander": lambda t: t.vander(t.tensor([1.0, 2, 3])),
    "vander_increasing": lambda t: t.vander(t.tensor([True, False]), 3, increasing=True),
    "vander_small": lambda t: (t.vander(t.ones(3), N=0), t.vander(t.ones(3), N=1)),
    "torch_lu": lambda t: t.lu(t.tensor([[2.0, 1], [4, 3]]), get_infos=True),
    "lu_unpack_wide": lambda t: t.lu_unpack(
        *t.linalg.lu_factor(t.tensor([[2.0, 1, 0], [4, 3, 1]]))
    ),
    "lu_unpack_parts": lambda t: t.lu_unpack(
        *t.linalg.lu_factor(t.tensor([[2.0, 1], [4, 3]])), unpack_data=False
    ),
    "torch_lu_solve": lambda t: t.lu_solve(
        t.ones(2, 1), *t.linalg.lu_factor(t.tensor([[2.0, 1], [4, 3]]))
    ),
    "triangular_solve": lambda t: t.ones(2, 1).triangular_solve(t.tensor([[2.0, 1], [0, 3]])),
    "cond": lambda t: t.linalg.cond(t.tensor([[2.0, 1], [1, 3]]), "nuc"),
    "tensorinv": lambda t: t.linalg.tensorinv(t.tensor([[2.0, 1], [1, 3]]).reshape(2, 1, 2), ind=2),
    "tensorsolve": lambda t: t.linalg.tensorsolve(t.tensor([[2.0, 1], [1, 3]]), t.ones(2)),
    "combinations": lambda t: t.combinations(t.tensor([1, 2, 3])),
    "combinations_replacement": lambda t: t.combinations(t.tensor([1.0, 2]), 3, True),
    "combinations_none": lambda t: t.combinations(t.tensor([1, 2, 3]), 0),
    "pdist": lambda t: t.pdist(t.tensor([[0.0, 1], [2, 2], [3, 3]]), 0),
    "trapezoid_int": lambda t: t.trapezoid(t.tensor([1, 2, 4])),
    "trapezoid_x": lambda t: t.trapezoid(t.tensor([1.0, 2, 4]), t.tensor([0.0, 1, 3])),
    "trapz_empty": lambda t: (t.trapz(t.ones(0)), t.cumulative_trapezoid(t.ones(2, 0))),
    "cdist_same": lambda t: t.cdist(t.tensor([[0.0, 1], [2, 2]]), t.tensor([[0.0, 1]]), 0),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward(name, real_torch):
    program = FORWARD[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.cholesky/qr/lu deprecation
        theirs = snap(program(real_torch))
        ours = snap(program(ac))
    assert_same(ours, theirs)


def test_torch_svd_returns_v(real_torch):
    """torch.svd's third result is V (not Vh): U diag(S) V^T rebuilds the input, reduced by
    default and full with some=False; gradients of the reconstruction agree with PyTorch."""
    x = np.arange(12.0).reshape(3, 4) ** 1.5

    def rebuild(t, x):
        u, s, v = t.svd(x)
        return u * s @ v.mT

    check_case(rebuild, [x], real_torch, finite_differences=False)
    for lib in (real_torch, ac):
        full = lib.svd(lib.tensor(x), some=False)
        assert (tuple(full.U.shape), tuple(full.V.shape)) == ((3, 3), (4, 4))


def test_deprecated_torch_forms_warn(real_torch):
    """torch.qr and torch.cholesky warn with PyTorch's text, and give linalg's results.
    PyTorch warns once per process, so whether its own call warns depends on which test ran
    first in this worker: only its values are compared."""
    a = np.array([[4.0, 2], [2, 3]])
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        q, r = ac.qr(ac.tensor(a))
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        upper = ac.cholesky(ac.tensor(a), upper=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        their_upper = real_torch.cholesky(real_torch.tensor(a), upper=True)
    np.testing.assert_allclose((q @ r).numpy(), a)
    np.testing.assert_allclose(upper.numpy(), their_upper.numpy())


@pytest.mark.parametrize(
    "name", ["unique", "unique_consecutive", "bincount", "argwhere"], ids=lambda n: n
)
def test_data_dependent_ops_refuse_a_trace(name):
    """Their output size depends on the values: a clear error under a jax trace."""
    fn = getattr(ac, name)

    def traced(v):
        return fn(ac.Tensor._wrap(v))._value

    with pytest.raises(DataDependentError, match=f"{name}\\(\\): the output shape depends"):
        jax.jit(traced)(np.array([1, 1, 2]))


ERRORS = [
    lambda t: t.bincount(t.tensor([1, -1])),
    lambda t: t.bincount(t.tensor([[1]])),
    lambda t: t.bincount(t.tensor([1.0])),
    lambda t: t.bincount(t.tensor([1, 2]), t.tensor([1.0])),
    lambda t: t.histc(t.tensor([1, 2]), bins=4),
    lambda t: t.histc(t.tensor([1.0]), bins=0),
    lambda t: t.histc(t.tensor([1.0]), bins=3, min=3, max=1),
    lambda t: t.mode(t.ones(2, 0), 1),
    lambda t: t.logcumsumexp(t.tensor([1, 2]), 0),
    lambda t: t.isposinf(t.tensor([1 + 2j])),
    lambda t: t.gcd(t.ones(2), t.ones(2)),
    lambda t: t.lcm(t.tensor([True]), t.tensor([True])),
    lambda t: t.gcd(t.tensor([4]), 2),
    lambda t: t.igamma(t.tensor([1, 2]), t.tensor([1, 2])),
    lambda t: t.nextafter(t.tensor([1, 2]), t.tensor([2, 1])),
    lambda t: t.frexp(t.tensor([1, 2])),
    lambda t: t.polygamma(-1, t.tensor([1.0])),
    lambda t: t.mvlgamma(t.tensor([3.0]), 0),
    lambda t: t.hardshrink(t.tensor([1, 2])),
    lambda t: t.nn.functional.softshrink(t.tensor([-1.0, 0.3]), -1),
    lambda t: t.linalg.svd(t.ones(3)),
    lambda t: t.linalg.svdvals(t.ones(3, 3, dtype=t.int64)),
    lambda t: t.linalg.qr(t.ones(3, 2), mode="bad"),
    lambda t: t.linalg.eigh(t.ones(3, 4)),
    lambda t: t.linalg.eigh(t.eye(2), UPLO="X"),
    lambda t: t.linalg.slogdet(t.ones(3, 4)),
    lambda t: t.matrix_exp(t.ones(3, 4)),
    lambda t: t.linalg.pinv(t.ones(3)),
    lambda t: t.linalg.cholesky(-t.eye(3)),
    lambda t: t.linalg.cholesky(t.stack([t.eye(3), t.eye(3) - 2 * t.eye(3)[0].diag()])),
    lambda t: t.linalg.cholesky_ex(t.tensor([[1.0, 2], [2, 1]]), check_errors=True),
    lambda t: t.cholesky_solve(t.ones(3), t.eye(3)),
    lambda t: t.cholesky_solve(t.ones(3, 1), t.eye(3, dtype=t.float64)),
    lambda t: t.vdot(t.ones(2, 2), t.ones(2, 2)),
    lambda t: t.vdot(t.ones(2), t.ones(2, dtype=t.float64)),
    lambda t: t.vdot(t.ones(4), t.ones(3)),
    lambda t: t.dist(t.ones(3, 4), t.ones(2)),
    lambda t: t.renorm(t.ones(3, 4), 0, 0, 1),
    lambda t: t.ones(3, 4).renorm(2, 0, -1),
    lambda t: t.renorm(t.ones(3, 4), 2, 5, 1),
    lambda t: t.searchsorted(t.tensor([[1.0, 3, 5]]), t.tensor([[0.0, 3, 6], [1, 1, 1]])),
    lambda t: t.searchsorted(t.tensor([1.0, 3]), t.tensor([1.0]), side="middle"),
    lambda t: t.bucketize(t.tensor([3]), t.tensor([[1.0, 3, 5]])),
    lambda t: t.block_diag(t.ones(2, 2, 2)),
    lambda t: t.cartesian_prod(t.ones(2, 2)),
    lambda t: t.cartesian_prod(t.ones(2), t.ones(2, dtype=t.int64)),
    lambda t: t.cdist(t.ones(3), t.ones(2, 3)),
    lambda t: t.cdist(t.ones(3, 4), t.ones(2, 3)),
    lambda t: t.cdist(t.ones(3, 2), t.ones(2, 2), p=-1),
    lambda t: t.cdist(t.ones(3, 2, dtype=t.int64), t.ones(2, 2, dtype=t.int64)),
    lambda t: t.linalg.lu_factor(t.tensor([[1.0, 2], [2, 4]])),
    lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.eye(3)), t.ones(3)),
    lambda t: t.linalg.solve_triangular(t.eye(3), t.ones(2, 2), upper=True),
    lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(2, 1)),
    lambda t: t.linalg.multi_dot([t.ones(3)]),
    lambda t: t.linalg.inv_ex(t.tensor([[1.0, 2], [2, 4]]), check_errors=True),
    lambda t: t.linalg.solve_ex(t.tensor([[1.0, 2], [2, 4]]), t.ones(2), check_errors=True),
    lambda t: t.linalg.vander(t.tensor([1.0, 2]), N=1),
    lambda t: t.vander(t.ones(2, 2)),
    lambda t: t.vander(t.ones(2), N=-1),
    lambda t: t.linalg.cross(t.eye(3), t.ones(3)),
    lambda t: t.combinations(t.ones(2, 2)),
    lambda t: t.combinations(t.ones(2), -1),
    lambda t: t.pdist(t.ones(3)),
    lambda t: t.trapezoid(t.ones(3), t.ones(3), dx=1.0),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index, real_torch):
    check_error(ERRORS[index], real_torch)
