"""Extra ops (special math, tensor extras, linear-algebra helpers) against real PyTorch,
jax.vjp and finite differences: values, dtypes, shapes, grad_fn names, gradients (at ordinary
and at edge points) and errors. Shapes are shared across the tables so compiles are reused."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, assert_same, check_case, check_error

# name -> (function of (lib, x), input kind); x has shape (3, 4)
UNARY = {
    "exp2": (lambda t, x: t.exp2(x), "normal"),
    "logit": (lambda t, x: t.logit(x / 3), "pos"),
    "logit_eps": (lambda t, x: x.div(2.5).logit(eps=0.3), "pos"),
    "erfc": (lambda t, x: t.erfc(x), "normal"),
    "erfinv": (lambda t, x: x.erfinv(), "unit"),
    "lgamma": (lambda t, x: t.lgamma(x), "pos"),
    "digamma": (lambda t, x: x.digamma(), "pos"),
    "acosh": (lambda t, x: t.acosh(x + 1), "pos"),
    "asinh": (lambda t, x: x.asinh(), "normal"),
    "atanh": (lambda t, x: t.atanh(x), "unit"),
    "frac": (lambda t, x: t.frac(x * 3), "normal"),
    "sinc": (lambda t, x: t.sinc(x), "normal"),
    "deg2rad": (lambda t, x: t.deg2rad(x), "normal"),
    "rad2deg": (lambda t, x: x.rad2deg(), "normal"),
    "sgn": (lambda t, x: t.sgn(x) * x, "normal"),
    "positive": (lambda t, x: t.positive(x) * 2, "normal"),
    "nan_to_num": (lambda t, x: t.nan_to_num(x.log(), nan=0.5), "normal"),
    "special_expit": (lambda t, x: t.special.expit(x), "normal"),
    "special_gammaln": (lambda t, x: t.special.gammaln(x), "pos"),
    "special_xlogy": (lambda t, x: t.special.xlogy(x, x * x), "normal"),
    "special_logsumexp": (lambda t, x: t.special.logsumexp(x, 1), "normal"),
    "special_softmax": (lambda t, x: t.special.softmax(x, 1), "normal"),
    "special_log_softmax": (lambda t, x: t.special.log_softmax(x, 0), "normal"),
    # tensor extras
    "broadcast_to": (lambda t, x: t.broadcast_to(x, (2, 3, 4)), "normal"),
    "ravel": (lambda t, x: x.ravel(), "normal"),
    "repeat_interleave_dim": (lambda t, x: x.repeat_interleave(2, dim=0), "normal"),
    "repeat_interleave_flat": (lambda t, x: t.repeat_interleave(x, 2), "normal"),
    "fliplr": (lambda t, x: t.fliplr(x), "normal"),
    "flipud": (lambda t, x: x.flipud(), "normal"),
    "rot90": (lambda t, x: t.rot90(x), "normal"),
    "rot90_k2": (lambda t, x: x.rot90(2, (1, 0)), "normal"),
    "diff": (lambda t, x: t.diff(x), "normal"),
    "diff_prepend_append": (lambda t, x: t.diff(x, 2, 0, prepend=x[:1], append=x * 2), "normal"),
    "nansum": (lambda t, x: t.nansum(x.log(), 1), "normal"),
    "nanmean": (lambda t, x: t.nanmean(x.log(), 0, keepdim=True), "normal"),
    "nanmean_all": (lambda t, x: x.nanmean(), "normal"),
    "cummax": (lambda t, x: t.cummax(x, 1), "normal"),
    "cummin": (lambda t, x: x.cummin(0), "normal"),
    "kthvalue": (lambda t, x: t.kthvalue(x, 2, 1), "normal"),
    "real": (lambda t, x: t.real(x) * 1, "normal"),
    "conj": (lambda t, x: x.conj() * 1, "normal"),
    "diag_embed": (lambda t, x: t.diag_embed(x), "normal"),
    "diag_embed_offset": (lambda t, x: x.diag_embed(-1, 0, 2), "normal"),
    "kron": (lambda t, x: t.kron(x, x[:2]), "normal"),
    "inner": (lambda t, x: t.inner(x, x * 2), "normal"),
    "matrix_power": (lambda t, x: t.matrix_power(x[:, :3], 3), "normal"),
    "matrix_power_neg": (lambda t, x: x[:, :3].matrix_power(-2), "normal"),
    "quantile": (lambda t, x: t.quantile(x, 0.3, dim=1), "normal"),
    "quantile_all": (lambda t, x: x.quantile(0.75), "normal"),
    "nanquantile": (lambda t, x: t.nanquantile(x.log(), 0.4, dim=1), "normal"),
    "cov": (lambda t, x: t.cov(x), "normal"),
    "cov_weighted": (
        lambda t, x: x.cov(
            correction=0,
            fweights=t.tensor([1, 2, 0, 3]),
            aweights=t.tensor([0.5, 1.0, 2.0, 0.3], dtype=x.dtype),
        ),
        "normal",
    ),
    "corrcoef": (lambda t, x: t.corrcoef(x), "normal"),
}

# Composites whose last PyTorch node differs (torch's own decompositions: SqueezeBackward4,
# UnsafeViewBackward0, ...); values and gradients are still compared.
NAMES_DIFFER = {
    "repeat_interleave_dim",
    "repeat_interleave_flat",
    "kron",
    "inner",
    "matrix_power",
    "matrix_power_neg",
    "quantile",
    "quantile_all",
    "nanquantile",
}
NO_FINITE_DIFFERENCES = {"nanquantile"}  # a NaN output makes the difference quotient NaN
JAX_SAMPLE = set(sorted(UNARY)[::10])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float64(name, real_torch):
    """Values, node names and gradients (vs PyTorch, finite differences, and a jax.vjp sample)."""
    fn, kind = UNARY[name]
    check_case(
        fn,
        [arr((3, 4), kind)],
        real_torch,
        names=name not in NAMES_DIFFER,
        jax_vjp=name in JAX_SAMPLE,
        finite_differences=name not in NO_FINITE_DIFFERENCES,
    )


@pytest.mark.parametrize("name", sorted(UNARY)[1::10])
def test_unary_float32(name, real_torch):
    fn, kind = UNARY[name]
    check_case(fn, [arr((3, 4), kind, np.float32)], real_torch, names=name not in NAMES_DIFFER)


@pytest.mark.parametrize("name", ["exp2", "lgamma", "sinc", "logit"])
def test_unary_int64_gives_default_float(name, real_torch):
    fn, _ = UNARY[name]
    check_case(fn, [arr((3, 4), "nat", np.int64)], real_torch)


# name -> (function of (lib, a, b), kinds); shapes (3, 1) and (4,) broadcast
BINARY = {
    "xlogy": (lambda t, a, b: t.xlogy(a, b), ("normal", "pos")),
    "xlogy_number_first": (lambda t, a, b: t.xlogy(2.0, b) + a, ("normal", "pos")),
    "xlogy_number_second": (lambda t, a, b: a.xlogy(3) + b, ("normal", "pos")),
    "hypot": (lambda t, a, b: t.hypot(a, b), ("normal", "normal")),
    "logaddexp": (lambda t, a, b: t.logaddexp(a, b), ("normal", "normal")),
    "logaddexp2": (lambda t, a, b: a.logaddexp2(b), ("normal", "normal")),
    "copysign": (lambda t, a, b: t.copysign(a, b), ("normal", "normal")),
    "copysign_number": (lambda t, a, b: a.copysign(-1.0) + b, ("normal", "normal")),
    "fmax": (lambda t, a, b: t.fmax(a, b), ("normal", "normal")),
    "fmin": (lambda t, a, b: a.fmin(b), ("normal", "normal")),
    "float_power": (lambda t, a, b: t.float_power(a, b), ("pos", "normal")),
    "float_power_number": (lambda t, a, b: a.float_power(2) + b, ("normal", "normal")),
    "take_along_dim": (
        lambda t, a, b: t.take_along_dim(a * b, t.argsort(b * a, 1), dim=1),
        ("normal", "normal"),
    ),
    "take_along_dim_flat": (
        lambda t, a, b: t.take_along_dim(a * b, t.tensor([0, 5, 11])),
        ("normal", "normal"),
    ),
    "cross": (lambda t, a, b: t.cross(a.expand(3, 3), b[:3].expand(3, 3), dim=1), ("normal",) * 2),
    "addr": (lambda t, a, b: t.addr(a * b, a[:, 0], b, beta=0.5, alpha=2), ("normal",) * 2),
    "addmv": (lambda t, a, b: t.addmv(a[:, 0], a * b, b), ("normal",) * 2),
    "baddbmm": (
        lambda t, a, b: t.baddbmm(a[None], (a * b)[None], (a * b).t()[None], alpha=-1),
        ("normal",) * 2,
    ),
    "addbmm": (
        lambda t, a, b: t.addbmm(a, (a * b).expand(2, 3, 4), (a * b).mT.expand(2, 4, 3), beta=0),
        ("normal",) * 2,
    ),
    "diagflat": (lambda t, a, b: t.diagflat(a, 1) + b.sum(), ("normal",) * 2),
    "quantile_tensor_q": (
        lambda t, a, b: t.quantile(a * b, t.tensor([0.2, 0.9], dtype=a.dtype), dim=1),
        ("normal",) * 2,
    ),
}
BINARY_NAMES_DIFFER = {"quantile_tensor_q", "diagflat"}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float64(name, real_torch):
    fn, kinds = BINARY[name]
    arrays = [arr((3, 1), kinds[0]), arr((4,), kinds[1])]
    check_case(
        fn,
        arrays,
        real_torch,
        names=name not in BINARY_NAMES_DIFFER,
        jax_vjp=name in ("xlogy", "copysign", "cross"),
    )


@pytest.mark.parametrize("name", sorted(BINARY)[::7])
def test_binary_float32(name, real_torch):
    fn, kinds = BINARY[name]
    arrays = [arr((3, 1), kinds[0], np.float32), arr((4,), kinds[1], np.float32)]
    check_case(fn, arrays, real_torch, names=name not in BINARY_NAMES_DIFFER)


def test_binary_integer_promotion(real_torch):
    a, b = arr((3, 1), "nat", np.int64), arr((4,), "int", np.int32)
    for fn in (
        lambda t, a, b: t.xlogy(a, b.abs()),
        lambda t, a, b: t.fmax(a, b),
        lambda t, a, b: t.float_power(a, b.abs()),
        lambda t, a, b: t.copysign(a, b),
        lambda t, a, b: t.heaviside(a, b.long()),
        lambda t, a, b: t.diff(a * b, dim=0),
        lambda t, a, b: t.count_nonzero(a * b, 1),
        lambda t, a, b: t.nansum(a * b),
        lambda t, a, b: t.kron(a, b),
        lambda t, a, b: t.cov((a * b)[0]),
    ):
        check_case(fn, [a, b], real_torch)


# ----------------------------------------------------------------------------- edge gradients
def _grad_parity(fn, inputs, real_torch, jax_vjp=False):
    """Values and gradients at hand-picked points, against PyTorch (and jax.vjp)."""
    check_case(fn, inputs, real_torch, finite_differences=False, jax_vjp=jax_vjp)


def test_special_points(real_torch):
    x = np.array([0.0, -0.0, 1.0, -2.5, 0.5, math.nan], np.float64)
    y = np.array([0.0, 2.0, 0.0, -1.0, 0.5, 1.0], np.float64)
    _grad_parity(lambda t, x, y: t.xlogy(x, y.abs()), [x, y], real_torch, jax_vjp=True)
    _grad_parity(lambda t, x, y: t.sinc(x), [x, y], real_torch)
    _grad_parity(lambda t, x, y: t.copysign(x, y), [x, y], real_torch, jax_vjp=True)
    _grad_parity(lambda t, x, y: t.fmax(x, y), [x, y], real_torch)
    _grad_parity(lambda t, x, y: t.fmin(y, x), [x, y], real_torch)
    _grad_parity(lambda t, x, y: t.frac(x), [x, y], real_torch)
    p = np.array([0.3, 0.7, 0.1, 0.9, 0.5, 0.2999], np.float64)
    _grad_parity(lambda t, p: t.logit(p, eps=0.3), [p], real_torch)
    inf = math.inf
    a = np.array([0.0, 1.0, -inf, inf, -0.5, 2.0], np.float64)
    b = np.array([0.0, 0.0, -inf, inf, 1.0, 0.0], np.float64)
    _grad_parity(lambda t, a, b: t.hypot(a, b), [a, b], real_torch)
    _grad_parity(lambda t, a, b: t.logaddexp(a, b), [a, b], real_torch)
    _grad_parity(lambda t, a, b: t.logaddexp2(a, b), [a, b], real_torch)
    c = np.array([0.0, -0.0, 1.0, 2.5, 3.0, 0.5], np.float64)
    _grad_parity(lambda t, a, c: t.logit(a) + t.lgamma(c) + t.digamma(c), [a, c], real_torch)


def test_cumulative_ties_and_nan(real_torch):
    x = np.array([[1.0, 1.0, 0.5, 2.0, 2.0], [0.0, math.nan, 3.0, math.nan, 1.0]], np.float64)
    _grad_parity(lambda t, x: t.cummax(x, 1), [x], real_torch, jax_vjp=True)
    _grad_parity(lambda t, x: t.cummin(x, 1), [x], real_torch)


def test_nan_to_num_infinities(real_torch):
    x = np.array([1.0, math.inf, -math.inf, math.nan, -2.0], np.float64)
    _grad_parity(lambda t, x: t.nan_to_num(x), [x], real_torch)
    _grad_parity(lambda t, x: x.nan_to_num(1.0, 2.0, -3.0), [x], real_torch)
    check_case(lambda t, x: t.nan_to_num(x), [x.astype(np.float32)], real_torch)


def test_quantile_interpolations_and_nan(real_torch):
    x = arr((3, 4), "normal")
    q = np.array([0.0, 0.3, 0.5, 1.0], np.float64)
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        check_case(
            lambda t, x, q, mode=mode: t.quantile(x, q, dim=0, interpolation=mode),
            [x, q],
            real_torch,
            requires_grad=[mode in ("linear", "midpoint"), False],
            names=False,
        )
    x[1, 2] = x[0, 0] = math.nan
    for fname in ("quantile", "nanquantile"):
        check_case(
            lambda t, x, fname=fname: getattr(t, fname)(x, 0.5, dim=1, keepdim=True),
            [x],
            real_torch,
            names=False,
            finite_differences=False,
        )


def test_repeat_interleave_tensor_repeats(real_torch):
    x = arr((3, 4), "normal")
    check_case(lambda t, x: x.repeat_interleave(t.tensor([1, 0, 2]), dim=0), [x], real_torch)
    check_case(lambda t, x: t.repeat_interleave(x, t.tensor([2]), dim=1), [x], real_torch)
    counts = np.array([2, 0, 3], np.int64)
    check_case(lambda t, c: t.repeat_interleave(c), [counts], real_torch)


# ----------------------------------------------------------------------------- no-grad ops
def test_comparisons_and_counts(real_torch):
    a = np.array([1.0, 1.0 + 1e-9, math.nan, math.inf, 2.0, 0.0], np.float64)
    b = np.array([1.0, 1.0, math.nan, math.inf, 2.1, 0.0], np.float64)
    for fn in (
        lambda t, a, b: t.isclose(a, b),
        lambda t, a, b: a.isclose(b, equal_nan=True),
        lambda t, a, b: t.isclose(a, b, rtol=0.1, atol=0.0),
        lambda t, a, b: t.count_nonzero(a),
        lambda t, a, b: b.count_nonzero(0),
    ):
        check_case(fn, [a, b], real_torch)
    ints = np.array([1, 2, 10], np.int64), np.array([2, 2, 11], np.int64)
    check_case(lambda t, a, b: t.isclose(a, b, atol=1.5), list(ints), real_torch)
    check_case(lambda t, a, b: t.isclose(a, b, rtol=0.1, atol=0), list(ints), real_torch)
    check_case(lambda t, a: t.cummin(a, 0), [np.array([True, False, True])], real_torch)
    for lib in (ac, real_torch):
        ta, tb = lib.tensor(a), lib.tensor(b)
        assert lib.allclose(ta[:2], tb[:2]) and not ta.allclose(tb)
        assert lib.allclose(ta, tb, equal_nan=True, rtol=0.1)
        assert lib.equal(ta[:2], ta[:2]) and not ta.equal(tb) and not lib.equal(ta, ta[:2])
        assert lib.heaviside(lib.tensor([-1.0, 0.0, 2.0]), lib.tensor([0.5])).tolist() == [
            0.0,
            0.5,
            1.0,
        ]


def test_new_factories_and_properties(real_torch):
    for lib in (ac, real_torch):
        x = lib.ones(2, 3, dtype=lib.float64)
        assert x.new_zeros(4).dtype is lib.float64
        assert x.new_ones((2, 2), dtype=lib.int32).dtype is lib.int32
        assert x.new_full((2,), 3).tolist() == [3.0, 3.0]
        assert x.new_empty(1, 5).shape == (1, 5)
        y = x.new_tensor([1, 2], requires_grad=True)
        assert y.dtype is lib.float64 and y.requires_grad and y.is_leaf
        assert x.new_zeros(2, requires_grad=True).requires_grad
        assert x.is_signed() and not lib.tensor([True]).is_signed()
        assert lib.is_signed(x) and not lib.tensor([1], dtype=lib.uint8).is_signed()
        assert x.is_cpu and x.get_device() == -1
        assert (x.nbytes, x.itemsize) == (48, 8)
        assert lib.tensor([1], dtype=lib.int16).itemsize == 2
        assert x.real is x and x.conj() is x and lib.conj(x) is x
        assert x.positive() is x
    assert_same(ac.tensor([1.0]).new_tensor(ac.tensor([2])), real_torch.tensor([2.0]))
    assert ac.arccosh is ac.acosh and ac.arcsinh is ac.asinh and ac.arctanh is ac.atanh
    assert ac.special.psi is ac.special.digamma


def test_inplace_variants(real_torch):
    for fn in (
        lambda t, x: x.clone().exp2_(),
        lambda t, x: x.clone().frac_(),
        lambda t, x: x.clone().copysign_(x.flip(0)),
        lambda t, x: x.clone().abs_().xlogy_(2.0),
        lambda t, x: x.clone().mul_(0.1).add_(0.5).logit_(),
        lambda t, x: x.clone().float_power_(2),
        lambda t, x: (x[:, None] * x).addr_(x, x.flip(0), alpha=2).sum(0),
        lambda t, x: x.clone().addmv_(x[:, None] * x, x, beta=2),
        lambda t, x: x[None, None].clone().baddbmm_(x[None, None], (x[:, None] * x)[None]),
    ):
        check_case(fn, [arr((4,), "normal")], real_torch)


def test_second_order(real_torch):
    def fn(t, x):
        y = (t.xlogy(x, x.exp2()) + t.logaddexp(x, -x) + x.asinh() * x.digamma()).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        return g

    check_case(fn, [arr((4,), "pos")], real_torch, names=False, finite_differences=False)


# ----------------------------------------------------------------------------- errors
ERRORS = [
    lambda t: t.fliplr(t.ones(3)),
    lambda t: t.flipud(t.tensor(1.0)),
    lambda t: t.rot90(t.ones(3, 4), 1, (0, 0)),
    lambda t: t.rot90(t.ones(3, 4), 1, (0,)),
    lambda t: t.isclose(t.ones(2), t.ones(2, dtype=t.float64)),
    lambda t: t.diff(t.ones(3), n=-1),
    lambda t: t.ones(2).imag,
    lambda t: t.kthvalue(t.ones(3, 4), 5, 1),
    lambda t: t.quantile(t.ones(3), 1.5),
    lambda t: t.quantile(t.ones(3, dtype=t.int32), 0.5),
    lambda t: t.quantile(t.ones(3), 0.5, interpolation="foo"),
    lambda t: t.quantile(t.ones(3), t.ones(1, 1) / 2),
    lambda t: t.repeat_interleave(t.ones(3, 4), t.tensor([1, 2]), dim=0),
    lambda t: t.take_along_dim(t.ones(3, 4), t.tensor([[0.0]]), 1),
    lambda t: t.cummax(t.ones(3, 4), 2),
    lambda t: t.positive(t.tensor([True])),
    lambda t: t.frac(t.tensor([1])),
    lambda t: t.heaviside(t.ones(2), t.ones(2, dtype=t.float64)),
    lambda t: t.heaviside(t.ones(2, requires_grad=True), t.ones(2)).sum().backward(),
    lambda t: t.nanmean(t.tensor([1, 2])),
    lambda t: t.xlogy(1.0, 2.0),
    lambda t: t.hypot(t.tensor([1]), t.tensor([2])),
    lambda t: t.logaddexp(t.tensor([1]), 2.0),
    lambda t: t.matrix_power(t.ones(2, 3), 2),
    lambda t: t.inner(t.ones(2, 3), t.ones(2)),
    lambda t: t.ones(2).float_power_(2),
    lambda t: t.cov(t.ones(2, 2, 2)),
    lambda t: t.cov(t.ones(2, 3), fweights=t.ones(3)),
    lambda t: t.cov(t.ones(2, 3), fweights=t.tensor([1, 2])),
    lambda t: t.cov(t.ones(2, 3), fweights=t.tensor([1, -2, 1])),
    lambda t: t.cov(t.ones(2, 3), aweights=t.tensor([1, 2, 1])),
    lambda t: t.corrcoef(t.ones(2, 2, 2)),
    lambda t: t.isclose(t.ones(2), t.ones(2), rtol=-1),
    lambda t: t.take_along_dim(t.ones(3, 1), t.zeros(2, 2, 1, dtype=t.int64), 1),
    lambda t: t.quantile(t.ones(0), 0.5),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index, real_torch):
    check_error(ERRORS[index], real_torch)


def test_cross_default_dim_warns(real_torch):
    """PyTorch's text; PyTorch warns once per process (TORCH_WARN_ONCE), so whether its own
    call warns depends on which test ran first in this worker: only the values are compared."""
    a = arr((2, 3), "normal")
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        ours = ac.cross(ac.tensor(a), ac.tensor(a[::-1].copy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = real_torch.cross(real_torch.tensor(a), real_torch.tensor(a[::-1].copy()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.numpy(), np.cross(a, a[::-1]), rtol=1e-6)
