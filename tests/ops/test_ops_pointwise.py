"""Pointwise ops against real PyTorch, jax.vjp and finite differences: values, dtypes, shapes,
grad_fn names, gradients (at ordinary and at edge points), operators and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, assert_same, check_case, check_error, uniform

BINARY_SHAPES = [((3, 1), (4,)), ((), (2, 3))]

# name -> (function of (lib, x), input kind)
UNARY = {
    "expm1": (lambda t, x: t.expm1(x), "normal"),
    "log1p": (lambda t, x: x.log1p(), "pos"),
    "log2": (lambda t, x: t.log2(x), "pos"),
    "log10": (lambda t, x: x.log10(), "pos"),
    "rsqrt": (lambda t, x: t.rsqrt(x), "pos"),
    "reciprocal": (lambda t, x: x.reciprocal(), "pos"),
    "tan": (lambda t, x: t.tan(x), "unit"),
    "asin": (lambda t, x: t.asin(x), "unit"),
    "acos": (lambda t, x: x.acos(), "unit"),
    "atan": (lambda t, x: t.atan(x), "normal"),
    "arcsin": (lambda t, x: t.arcsin(x), "unit"),
    "sinh": (lambda t, x: x.sinh(), "normal"),
    "cosh": (lambda t, x: t.cosh(x), "normal"),
    "erf": (lambda t, x: t.erf(x), "normal"),
    "floor": (lambda t, x: t.floor(x), "normal"),
    "ceil": (lambda t, x: x.ceil(), "normal"),
    "round": (lambda t, x: t.round(x), "normal"),
    "round_decimals": (lambda t, x: t.round(x * 10, decimals=1), "normal"),
    "round_negative_decimals": (lambda t, x: t.round(x * 1000, decimals=-2), "normal"),
    "trunc": (lambda t, x: x.trunc(), "normal"),
    "fix": (lambda t, x: t.fix(x), "normal"),
    "sign": (lambda t, x: t.sign(x), "normal"),
    "square": (lambda t, x: t.square(x), "normal"),
    "abs": (lambda t, x: t.abs(x), "normal"),
    "neg": (lambda t, x: -x, "normal"),
    "exp": (lambda t, x: x.exp(), "normal"),
    "log": (lambda t, x: x.log(), "pos"),
    "sqrt": (lambda t, x: x.sqrt(), "pos"),
    "sigmoid": (lambda t, x: x.sigmoid(), "normal"),
    "clamp_scalar": (lambda t, x: t.clamp(x, -0.5, 0.7), "normal"),
    "clamp_min_only": (lambda t, x: x.clamp(min=0.1), "normal"),
    "clamp_max_only": (lambda t, x: x.clamp(max=0.1), "normal"),
    "clip": (lambda t, x: t.clip(x, -1, 1), "normal"),
    "clamp_min": (lambda t, x: x.clamp_min(0.2), "normal"),
    "clamp_max": (lambda t, x: t.clamp_max(x, 0.2), "normal"),
    "lerp_scalar": (lambda t, x: t.lerp(x, x * 3, 0.25), "normal"),
    "lerp_scalar_high": (lambda t, x: t.lerp(x, x.exp(), 0.75), "normal"),
    "remainder_scalar": (lambda t, x: t.remainder(x, 0.7), "normal"),
    "fmod_scalar": (lambda t, x: t.fmod(x, -0.7), "normal"),
    "mod_operator": (lambda t, x: x % 1.5, "normal"),
    "rmod_operator": (lambda t, x: 1.5 % x, "pos"),
    "rfloordiv_operator": (lambda t, x: 2.0 // x, "pos"),
}


NO_BACKWARD = ("rfloordiv_operator", "rmod_operator")  # their backward raises, see below
JAX_SAMPLE = set(sorted(UNARY)[1::3])  # also checked against jax.vjp of the traced program


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float64(name, real_torch):
    """Values, node names and gradients (vs PyTorch, jax.vjp and finite differences)."""
    fn, kind = UNARY[name]
    grads = name not in NO_BACKWARD
    check_case(fn, [arr((3, 4), kind)], real_torch, grads=grads, jax_vjp=name in JAX_SAMPLE)


@pytest.mark.parametrize("name", sorted(UNARY)[::6])
def test_unary_zero_dim(name, real_torch):
    fn, kind = UNARY[name]
    check_case(fn, [arr((), kind)], real_torch, grads=name not in NO_BACKWARD)


@pytest.mark.parametrize("name", sorted(UNARY)[1::3])
def test_unary_float32_dtype_and_values(name, real_torch):
    fn, kind = UNARY[name]
    check_case(fn, [arr((3, 4), kind, np.float32)], real_torch)


INTEGER_UNARY = [
    "expm1",
    "reciprocal",
    "erf",
    "floor",
    "round",
    "sign",
    "square",
    "abs",
    "neg",
    "clamp_min_only",
    "clamp_scalar",
    "remainder_scalar",
    "fmod_scalar",
]


@pytest.mark.parametrize("name", INTEGER_UNARY)
def test_unary_int64_promotion(name, real_torch):
    fn, _ = UNARY[name]
    check_case(fn, [arr((3, 4), "nat", np.int64)], real_torch)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_], ids=str)
def test_unary_small_integer_promotion(dtype, real_torch):
    x = arr((5,), "nat", dtype)
    for fn in (
        lambda t, x: t.expm1(x),
        lambda t, x: t.sign(x),
        lambda t, x: t.square(x),
        lambda t, x: t.isnan(x),
        lambda t, x: t.logical_not(x),
        lambda t, x: t.clamp(x, 0, 1),
    ):
        check_case(fn, [x], real_torch)


# name -> (function of (lib, a, b), kinds)
BINARY = {
    "atan2": (lambda t, a, b: t.atan2(a, b), ("normal", "normal")),
    "arctan2": (lambda t, a, b: a.arctan2(b), ("normal", "normal")),
    "maximum": (lambda t, a, b: t.maximum(a, b), ("normal", "normal")),
    "minimum": (lambda t, a, b: a.minimum(b), ("normal", "normal")),
    "max_binary": (lambda t, a, b: t.max(a, b), ("normal", "normal")),
    "min_binary": (lambda t, a, b: a.min(b), ("normal", "normal")),
    "remainder": (lambda t, a, b: t.remainder(a, b), ("normal", "pos")),
    "fmod": (lambda t, a, b: t.fmod(a, b), ("normal", "pos")),
    "clamp_tensor_min": (lambda t, a, b: t.clamp(a, min=b), ("normal", "normal")),
    "clamp_tensor_max": (lambda t, a, b: a.clamp(None, b), ("normal", "normal")),
    "clamp_tensor_both": (lambda t, a, b: t.clamp(a, b - 0.5, b + 0.5), ("normal", "normal")),
    "clamp_min_tensor": (lambda t, a, b: a.clamp_min(b), ("normal", "normal")),
    "clamp_max_tensor": (lambda t, a, b: t.clamp_max(a, b), ("normal", "normal")),
    "where": (lambda t, a, b: t.where(a > b, a, b * 2), ("normal", "normal")),
    "where_scalar": (lambda t, a, b: t.where(a > 0, b, 0.5), ("normal", "normal")),
    "where_method": (lambda t, a, b: a.where(b > 0, -b), ("normal", "normal")),
    "lerp_tensor_weight": (lambda t, a, b: t.lerp(a, b, b.sigmoid()), ("normal", "normal")),
    "addcmul": (lambda t, a, b: t.addcmul(a, b, a * b, value=0.5), ("normal", "normal")),
    "addcdiv": (lambda t, a, b: t.addcdiv(a, a, b, value=-2), ("normal", "pos")),
    "addcdiv_method": (lambda t, a, b: a.addcdiv(b, b.exp()), ("normal", "normal")),
}


@pytest.mark.parametrize(
    ("name", "shapes"),
    [(n, BINARY_SHAPES[0]) for n in sorted(BINARY)]
    + [(n, BINARY_SHAPES[1]) for n in sorted(BINARY)[::3]],
    ids=str,
)
def test_binary_float64(name, shapes, real_torch):
    fn, kinds = BINARY[name]
    inputs = [arr(s, k, seed=i) for i, (s, k) in enumerate(zip(shapes, kinds))]
    sample = shapes == BINARY_SHAPES[0] and name in sorted(BINARY)[::4]
    check_case(fn, inputs, real_torch, jax_vjp=sample)


@pytest.mark.parametrize("name", sorted(BINARY)[1::3])
def test_binary_float32(name, real_torch):
    fn, kinds = BINARY[name]
    check_case(fn, [arr((3, 4), k, np.float32) for k in kinds], real_torch)


def test_binary_mixed_dtypes_promote(real_torch):
    f32 = arr((3, 4), "pos", np.float32)
    f64 = arr((3, 4), "pos", np.float64)
    i32 = arr((4,), "nat", np.int32)
    zero_dim = np.asarray(1.5, np.float64)
    for fn in (
        lambda t, a, b: t.atan2(a, b),
        lambda t, a, b: t.maximum(a, b),
        lambda t, a, b: t.fmod(a, b),
        lambda t, a, b: t.where(a > 1, a, b),
        lambda t, a, b: t.clamp(a, b),
    ):
        for pair in ((f32, f64), (i32, zero_dim)):
            check_case(fn, list(pair), real_torch, grads=False)


def test_integer_division_family(real_torch):
    a = np.array([-7, 7, -6, 5, 0], np.int64)
    b = np.array([2, -2, 3, -5, 3], np.int64)
    for fn in (
        lambda t, a, b: t.floor_divide(a, b),
        lambda t, a, b: a // b,
        lambda t, a, b: a // 3,
        lambda t, a, b: 7 // b,
        lambda t, a, b: t.remainder(a, b),
        lambda t, a, b: a % b,
        lambda t, a, b: -7 % b,
        lambda t, a, b: t.remainder(5, b),
        lambda t, a, b: t.fmod(a, b),
        lambda t, a, b: t.div(a, b, rounding_mode="floor"),
        lambda t, a, b: t.div(a, b, rounding_mode="trunc"),
    ):
        check_case(fn, [a, b], real_torch)


def test_float_division_family_python_semantics(real_torch):
    a = np.array([1.0, -1.0, 1.0, 0.0, -1.0, 5.5, -5.5, -0.0], np.float64)
    b = np.array([0.1, 0.1, 0.0, 0.0, 0.0, 2.0, 2.0, 3.0], np.float64)
    for fn in (
        lambda t, a, b: a // b,
        lambda t, a, b: t.div(a, b, rounding_mode="floor"),
        lambda t, a, b: t.div(a, b, rounding_mode="trunc"),
        lambda t, a, b: t.remainder(a, b),
        lambda t, a, b: t.fmod(a, b),
    ):
        check_case(fn, [a, b], real_torch, grads=False)


def test_division_rounds_once_as_pytorch_whatever_the_divisor(real_torch):
    """Every quotient bit for bit PyTorch's, where XLA would multiply by a reciprocal (a
    number, a 0-d tensor, a row, a square root or exponential computed in the same program)
    and round twice: eager, deferred (small arrays), truncated to integers and compiled."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 10, (64, 256)).astype(np.float32)
    y = rng.uniform(0.1, 3, (64, 256)).astype(np.float32)
    grid = (np.arange(1, 4001, dtype=np.float32) * np.float32(0.3)).reshape(16, 250)

    def quotients(t, x, y, grid):
        row = y[:1]  # (1, 256): a broadcast divisor
        return [
            x / 3.0,
            x / t.tensor(3.0),
            x / row,
            x[:2, :8] / 3.0,  # small: deferred into one program with the next
            t.addcdiv(x, x, t.tensor(3.0), value=0.5),
            t.div(grid, 0.3, rounding_mode="trunc"),
            2.5 / x,
        ]

    ours = [ac.tensor(a) for a in (x, y, grid)]
    theirs = [real_torch.tensor(a) for a in (x, y, grid)]
    got = quotients(ac, *ours)
    compiled = ac.compile(lambda x, y: [x / y.sqrt(), x / y.sum(0, keepdim=True)])(*ours[:2])
    expected = quotients(real_torch, *theirs)
    y_sqrt, y_sum = ours[1].sqrt().numpy(), ours[1].sum(0, keepdim=True).numpy()
    for i, (mine, want) in enumerate(zip(got, expected, strict=True)):
        assert np.array_equal(mine.numpy(), want.numpy()), i
    # compiled: the same quotients of the same divisors (their own values are the op's)
    assert np.array_equal(compiled[0].numpy(), x / y_sqrt)
    assert np.array_equal(compiled[1].numpy(), x / y_sum)


def test_arithmetic_takes_a_number_as_input_as_pytorch(real_torch):
    """add, sub, mul, div (and their aliases) and floor_divide take a Python number in the
    input's place, promoted as a wrapped number (Longformer's `torch.div(seq_len, w,
    rounding_mode="trunc")`); other ops refuse it."""
    i8 = np.array([1, -3, 4], np.int8)
    f16 = np.array([0.5, -1.5, 2.0], np.float16)
    for fn in (
        lambda t, a, b: t.div(10, 3, rounding_mode="trunc"),
        lambda t, a, b: t.div(10, 4),
        lambda t, a, b: t.div(7, b),
        lambda t, a, b: t.add(2.5, 3, alpha=2),
        lambda t, a, b: t.add(2, a),
        lambda t, a, b: t.sub(1, b, alpha=2),
        lambda t, a, b: t.mul(2.5, b),
        lambda t, a, b: t.true_divide(True, 2),
        lambda t, a, b: t.floor_divide(7, a),
        lambda t, a, b: t.multiply(3, 4) + t.subtract(3, 4) + t.divide(3, 4),
    ):
        check_case(fn, [i8, f16], real_torch, grads=False)
    x = np.array([0.5, -1.5, 2.0])
    for fn in (
        lambda t, x: t.sub(1, x, alpha=2),
        lambda t, x: t.add(1, x, alpha=3),
        lambda t, x: t.div(2, x),
        lambda t, x: t.mul(-2, x),
    ):
        check_case(fn, [x], real_torch)
    check_error(lambda t: t.atan2(7, t.ones(2)), real_torch, message=False)
    check_error(lambda t: t.mul("2", t.ones(2)), real_torch)


def test_integer_division_by_zero_raises(real_torch):
    for fn in (
        lambda t: t.tensor([1, 2]) // t.tensor([1, 0]),
        lambda t: t.tensor([1]) % 0,
        lambda t: t.fmod(t.tensor([1]), 0),
        lambda t: t.div(t.tensor([1]), 0, rounding_mode="trunc"),
        lambda t: t.div(t.tensor([3]), t.tensor([0]), rounding_mode="floor"),
    ):
        check_error(fn, real_torch)


def test_floor_divide_has_no_derivative(real_torch):
    def fn(t):
        x = t.tensor([1.5, -2.5], requires_grad=True)
        y = x // 2
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        y.sum().backward()

    check_error(fn, real_torch)


def test_rmod_node_and_no_derivative(real_torch):
    check_error(lambda t: (2 % t.tensor([1.5], requires_grad=True)).sum().backward(), real_torch)


# ----------------------------------------------------------------------------- edge gradients
def _grad_parity(fn, inputs, real_torch):
    """Values and gradients at hand-picked (non-differentiable) points, against PyTorch and
    jax.vjp (finite differences do not apply there)."""
    check_case(fn, inputs, real_torch, finite_differences=False)


def test_clamp_gradient_at_the_bounds(real_torch):
    x = np.array([0.0, 1.0, 1.5, 2.0, 3.0, math.nan], np.float64)
    _grad_parity(lambda t, x: t.clamp(x, 1.0, 2.0), [x], real_torch)
    _grad_parity(lambda t, x: t.clamp(x, min=1.0), [x], real_torch)
    _grad_parity(lambda t, x: t.clamp(x, max=2.0), [x], real_torch)
    _grad_parity(lambda t, x: x.clamp_min(1.0), [x], real_torch)
    _grad_parity(lambda t, x: x.clamp_max(2.0), [x], real_torch)


def test_clamp_tensor_bounds_edges(real_torch):
    x = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 0.5], np.float64)
    lo = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 1.0], np.float64)
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 2.0], np.float64)
    _grad_parity(lambda t, x, lo, hi: t.clamp(x, lo, hi), [x, lo, hi], real_torch)
    _grad_parity(lambda t, x, lo, hi: t.clamp(x, lo), [x, lo, hi], real_torch)
    _grad_parity(lambda t, x, lo, hi: t.clamp(x, None, hi), [x, lo, hi], real_torch)
    _grad_parity(lambda t, x, lo, hi: t.clamp(x, hi + 1, lo), [x, lo, hi], real_torch)


def test_clamp_with_a_number_and_a_zero_dim_tensor_matches_pytorch(real_torch):
    """A number with a 0-d tensor bound takes the number overload (the tensor read as a
    number); a tensor with dimensions, or one needing a gradient, is refused."""
    x = np.array([-2.0, 0.5, 3.0, 1.0])
    _grad_parity(lambda t, x: t.clamp(x, 0, t.tensor(2.0)), [x], real_torch)
    _grad_parity(lambda t, x: x.clamp(t.tensor(0.25), 2), [x], real_torch)
    check_case(lambda t, n: t.clamp(n, 0, t.tensor(2.5)), [np.array([1, -5, 9])], real_torch)
    _grad_parity(lambda t, x: t.clip(x, max=t.tensor(1), min=-1), [x], real_torch)
    for bound in ([0.0, 0.0, 0.0], 2.0):  # dimensions, or a gradient needed: no number
        check_error(
            lambda t, b=bound: t.clamp(t.ones(3), 0, t.tensor(b, requires_grad=b == 2.0)),
            real_torch,
            message=False,
        )


def test_maximum_minimum_ties_and_nan(real_torch):
    a = np.array([1.0, 2.0, math.nan, 0.0, math.inf, -1.0], np.float64)
    b = np.array([1.0, 1.0, 0.0, math.nan, math.inf, -1.0], np.float64)
    _grad_parity(lambda t, a, b: t.maximum(a, b), [a, b], real_torch)
    _grad_parity(lambda t, a, b: t.minimum(a, b), [a, b], real_torch)


def test_abs_sign_at_zero_and_atan2_at_origin(real_torch):
    x = np.array([0.0, -0.0, -1.5, 2.0, math.nan], np.float64)
    y = np.array([0.0, 1.0, 0.0, -0.0, 1.0], np.float64)
    _grad_parity(lambda t, x: t.abs(x), [x], real_torch)
    _grad_parity(lambda t, x: t.sign(x), [x], real_torch)
    _grad_parity(lambda t, x: x.sqrt(), [np.array([0.0, 4.0])], real_torch)
    _grad_parity(lambda t, x: x.rsqrt(), [np.array([0.0, 4.0])], real_torch)
    _grad_parity(lambda t, x, y: t.atan2(x, y), [x, y], real_torch)


def test_remainder_fmod_gradients_in_the_divisor(real_torch):
    a = np.array([5.0, -5.0, 7.5, -7.5], np.float64)
    b = np.array([3.0, 3.0, -2.0, -2.0], np.float64)
    _grad_parity(lambda t, a, b: t.remainder(a, b), [a, b], real_torch)
    _grad_parity(lambda t, a, b: t.fmod(a, b), [a, b], real_torch)


def test_second_order_through_pointwise(real_torch):
    x = arr((4,), "pos")

    def fn(t, x):
        y = (t.atan2(x, x.square() + 1) * t.maximum(x, x.flip(0)) + t.clamp(x, 0.7, 1.5)).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        return g * x.log1p()

    check_case(fn, [x], real_torch, names=False, jax_vjp=False, finite_differences=False)


# ----------------------------------------------------------------------------- integer ops
def test_logical_ops(real_torch):
    a = np.array([0.0, 1.5, -2.0, 0.0], np.float32)
    b = np.array([0, 0, 3, 4], np.int64)
    for fn in (
        lambda t, a, b: t.logical_and(a, b),
        lambda t, a, b: t.logical_or(a, b),
        lambda t, a, b: a.logical_xor(b),
        lambda t, a, b: t.logical_not(a),
        lambda t, a, b: b.logical_not(),
        lambda t, a, b: t.isnan(a / a),
        lambda t, a, b: t.isinf(b / a),
        lambda t, a, b: (b / a).isfinite(),
        lambda t, a, b: t.isfinite(b),
    ):
        check_case(fn, [a, b], real_torch)


@pytest.mark.parametrize(
    "dtypes",
    [(np.int32, np.int64), (np.bool_, np.bool_)],
    ids=str,
)
def test_bitwise_ops(dtypes, real_torch):
    a = arr((3, 4), "nat", dtypes[0], seed=1)
    b = arr((4,), "nat", dtypes[1], seed=2)
    for fn in (
        lambda t, a, b: t.bitwise_and(a, b),
        lambda t, a, b: t.bitwise_or(a, b),
        lambda t, a, b: t.bitwise_xor(a, b),
        lambda t, a, b: t.bitwise_not(a),
        lambda t, a, b: a & b,
        lambda t, a, b: a | b,
        lambda t, a, b: a ^ b,
        lambda t, a, b: ~a,
        lambda t, a, b: a & 3,
        lambda t, a, b: 6 | b,
        lambda t, a, b: True ^ a,
    ):
        check_case(fn, [a, b], real_torch)


def test_bitwise_bool_with_int_scalar_promotes(real_torch):
    check_case(lambda t, a: a | 2, [np.array([True, False])], real_torch)


def test_bitwise_errors(real_torch):
    for fn in (
        lambda t: t.bitwise_and(t.tensor([1.0]), t.tensor([1.0])),
        lambda t: t.tensor([1]) & 1.5,
        lambda t: ~t.tensor([1.0]),
        lambda t: t.bitwise_not(t.tensor([1.0])),
    ):
        check_error(fn, real_torch)


# ----------------------------------------------------------------------------- in-place
INPLACE = [
    ("clamp_", lambda x: x.clamp_(-0.5, 0.5)),
    ("clip_", lambda x: x.clip_(min=0.0)),
    ("exp_", lambda x: x.exp_()),
    ("floor_", lambda x: x.floor_()),
    ("square_", lambda x: x.square_()),
    ("remainder_", lambda x: x.remainder_(0.3)),
    ("lerp_", lambda x: x.lerp_(x * 2, 0.5)),
    ("addcmul_", lambda x: x.addcmul_(x + 1, x - 1, value=2)),
    ("imod", lambda x: x.__imod__(0.4)),
]


@pytest.mark.parametrize("name", [n for n, _ in INPLACE])
def test_inplace_variants(name, real_torch):
    method = dict(INPLACE)[name]

    def fn(t, x):
        y = x * 1.0
        out = method(y)
        assert out is y
        return y

    grads = name not in ("floor_", "round_", "sign_")
    check_case(fn, [arr((3, 4))], real_torch, grads=grads, jax_vjp=False)


def test_inplace_dtype_and_leaf_errors(real_torch):
    check_error(lambda t: t.tensor([1, 2]).exp_(), real_torch)
    check_error(lambda t: t.ones(2, requires_grad=True).clamp_(0, 1), real_torch)
    check_error(lambda t: t.zeros(4).clamp_(t.zeros(3, 4)), real_torch, message=False)


def test_integer_inplace_bitwise_and_floordiv(real_torch):
    def fn(t, a):
        b = a.clone()
        b &= 6
        b |= 1
        b ^= 2
        b //= 2
        b %= 3
        return b

    check_case(fn, [np.arange(12, dtype=np.int64)], real_torch)


# ----------------------------------------------------------------------------- errors
def test_pointwise_errors(real_torch):
    x = "t.tensor([1.0, 2.0])"
    cases = [
        lambda t: t.clamp(t.tensor([1.0, 2.0])),
        lambda t: t.clamp(t.tensor([1.0, 2.0]), min=t.tensor([1.5]), max=2.0),
        lambda t: t.where(t.tensor([1.0, 0.0]), 1.0, 2),
        lambda t: t.where(t.tensor([True, False, True]), t.tensor([1.0, 2.0]), 0.0),
        lambda t: t.maximum(t.tensor([1, 2]), 1),
        lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 4]), 0.5),
        lambda t: t.lerp(t.tensor([1.0, 2]), t.tensor([3.0, 4], dtype=t.float64), 0.5),
        lambda t: t.lerp(t.tensor([1.0, 2]), t.tensor([3.0, 4]), t.tensor([0.5], dtype=t.float64)),
        lambda t: t.addcdiv(t.tensor([1, 2]), t.tensor([1, 2]), t.tensor([1, 2])),
        lambda t: t.abs(t.tensor([True])),
        lambda t: -t.tensor([True]),
        lambda t: t.floor(t.tensor([True])),
        lambda t: t.round(t.tensor([1, 2]), decimals=1),
        lambda t: t.remainder(t.tensor([True]), t.tensor([True])),
        lambda t: t.tensor([True]) // t.tensor([True]),
        lambda t: t.atan2(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])),
        lambda t: t.tensor([1, 2]).clamp_(0.5),
    ]
    del x
    for fn in cases:
        check_error(fn, real_torch, message=True if fn is not cases[-1] else False)


def test_mixed_signature_errors_mention_the_overloads(real_torch):
    check_error(lambda t: t.fmod(5, t.tensor([3, 2])), real_torch, message=False)
    check_error(lambda t: t.max(t.tensor([1, 2]), 1.5), real_torch, message=False)


def test_clamp_min_greater_than_max_gives_max():
    x = ac.tensor([0.0, 5.0, 10.0])
    assert x.clamp(6, 4).tolist() == [4.0, 4.0, 4.0]


def test_values_under_jit():
    import jax

    @jax.jit
    def f(x):
        t = ac.from_jax(x)
        return (t.clamp(0, 1) + t.maximum(t * 0) + (t // 0.3) + t.atan2(t + 1)).jax()

    x = np.array([-1.0, 0.25, 2.0])
    t = ac.tensor(x)
    expected = t.clamp(0, 1) + t.maximum(t * 0) + (t // 0.3) + t.atan2(t + 1)
    assert_same(ac.from_jax(f(x)), expected)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_dtypes(dtype, real_torch):
    x = arr((3, 4), "pos", np.float32)

    def fn(t, x):
        h = x.to(getattr(t, dtype))
        return [t.expm1(h), t.clamp(h, 0.7, 1.5), h // 0.3, h.max(1), h.logsumexp(1)]

    check_case(fn, [x], real_torch, tolerance=uniform(1e-2, 1e-2))


def test_scalar_divided_by_tensor_records_reciprocal_then_mul(real_torch):
    def fn(t, x):
        y = 3 / x
        if x.requires_grad:
            assert y.grad_fn.name() == "MulBackward0"
            assert y.grad_fn.next_functions[0][0].name() == "ReciprocalBackward0"
        return y

    check_case(fn, [arr((3, 4), "pos")], real_torch)
    check_case(lambda t, x: 3 / x, [np.array([1, 2, 4])], real_torch)
    check_case(lambda t, x: x.div(0.7, rounding_mode="floor"), [arr((3, 4))], real_torch)
    check_case(lambda t, x: x.div(x.exp(), rounding_mode="trunc"), [arr((3, 4))], real_torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_computes_in_float32(dtype, real_torch):
    """PyTorch's half kernels compute (and accumulate) in float32 and round once."""

    def fn(t, x):
        h = x.to(getattr(t, dtype))
        return [
            t.full((3000,), 0.1, dtype=h.dtype).sum(),
            t.tensor([300.0, 400.0], dtype=h.dtype).norm(),
            h.sigmoid(),
            h.exp().mean(),
            t.log1p(h),
            h.std(),
            h.cumsum(0),
        ]

    x = arr((8,), "unit", np.float32)
    check_case(fn, [x], real_torch, tolerance=uniform(0, 0))

    def backward(t, x):
        h = x.to(getattr(t, dtype)).detach().requires_grad_()
        (h.sigmoid() * h.tanh()).sum().backward()
        return h.grad

    # Our fused backward is one XLA call, and XLA may keep a half intermediate in float32
    # (xla_allow_excess_precision), so a gradient may differ by one ulp of the half dtype.
    one_ulp = float(np.finfo(np.float16).eps) if dtype == "float16" else 2.0**-7
    check_case(backward, [x], real_torch, tolerance=uniform(one_ulp, 0))
