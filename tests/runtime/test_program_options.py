"""Per-program XLA options (`_pure/program_options.py`): which eager programs get XLA:CPU's
legacy emitters, and that their values are the default emitters' to the bit."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograd_compat as torch
from autograd_compat._pure import program_options
from autograd_compat._pure.op import registered_ops
from autograd_compat._pure.program_options import LEGACY_EMITTERS, Chosen, FirstCall, options_for

RNG = np.random.default_rng(0)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e30, 88.7, -88.7, 0.5, -1.0]
VALUES = np.concatenate([RNG.standard_normal(12000) * 3, RNG.uniform(-100, 100, 4372), SPECIAL])
OTHERS = RNG.permutation(VALUES)
UNIT = np.clip(VALUES / 100, -0.999, 0.999)  # inside the domain of acos, asin, atanh

# One function per primitive of `ELEMENTWISE` (on two float arrays a, b and `UNIT` u).
PRIMITIVES = {
    "abs": lambda a, b, u: lax.abs(a),
    "acos": lambda a, b, u: lax.acos(u),
    "acosh": lambda a, b, u: lax.acosh(lax.abs(a) + 1),
    "add": lambda a, b, u: a + b,
    "and": lambda a, b, u: (a > 0) & (b > 0),
    "asin": lambda a, b, u: lax.asin(u),
    "asinh": lambda a, b, u: lax.asinh(a),
    "atan2": lambda a, b, u: lax.atan2(a, b),
    "atanh": lambda a, b, u: lax.atanh(u),
    "broadcast_in_dim": lambda a, b, u: lax.broadcast_in_dim(a, (2, a.size), (1,)),
    "ceil": lambda a, b, u: lax.ceil(a),
    "clamp": lambda a, b, u: lax.clamp(a.dtype.type(-1), a, a.dtype.type(2)),
    "convert_element_type": lambda a, b, u: (a.astype(jnp.int32), a.astype(jnp.uint8)),
    "copy": lambda a, b, u: lax.copy_p.bind(a),
    "copy_p": lambda a, b, u: jnp.array(a, copy=True),
    "cos": lambda a, b, u: lax.cos(a),
    "cosh": lambda a, b, u: lax.cosh(a),
    "digamma": lambda a, b, u: lax.digamma(a),
    "div": lambda a, b, u: a / b,
    "eq": lambda a, b, u: a == b,
    "erf": lambda a, b, u: lax.erf(a),
    "exp": lambda a, b, u: lax.exp(a),
    "exp2": lambda a, b, u: lax.exp2(a),
    "expand_dims": lambda a, b, u: lax.expand_dims(a, (0,)),
    "expm1": lambda a, b, u: lax.expm1(a),
    "floor": lambda a, b, u: lax.floor(a),
    "ge": lambda a, b, u: a >= b,
    "gt": lambda a, b, u: a > b,
    "integer_pow": lambda a, b, u: lax.integer_pow(a, 3),
    "is_finite": lambda a, b, u: lax.is_finite(a),
    "le": lambda a, b, u: a <= b,
    "lgamma": lambda a, b, u: lax.lgamma(a),
    "log": lambda a, b, u: lax.log(a),
    "log1p": lambda a, b, u: lax.log1p(a),
    "logistic": lambda a, b, u: lax.logistic(a),
    "lt": lambda a, b, u: a < b,
    "max": lambda a, b, u: lax.max(a, b),
    "min": lambda a, b, u: lax.min(a, b),
    "mul": lambda a, b, u: a * b,
    "ne": lambda a, b, u: a != b,
    "neg": lambda a, b, u: -a,
    "nextafter": lambda a, b, u: lax.nextafter(a, b),
    "not": lambda a, b, u: ~(a > b),
    "or": lambda a, b, u: (a > 0) | (b > 0),
    "pow": lambda a, b, u: lax.pow(lax.abs(a), b / 10),
    "reduce_precision": lambda a, b, u: lax.reduce_precision(a, 5, 10),
    "rem": lambda a, b, u: lax.rem(a, b),
    "reshape": lambda a, b, u: a.reshape(2, -1),
    "round": lambda a, b, u: lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN),
    "rsqrt": lambda a, b, u: lax.rsqrt(a),
    "select_n": lambda a, b, u: jnp.where(a > b, a, b * 2),
    "shift_left": lambda a, b, u: lax.shift_left(a.astype(jnp.int32), jnp.int32(3)),
    "shift_right_arithmetic": lambda a, b, u: lax.shift_right_arithmetic(
        a.astype(jnp.int32), jnp.int32(2)
    ),
    "shift_right_logical": lambda a, b, u: lax.shift_right_logical(
        a.astype(jnp.uint32), jnp.uint32(2)
    ),
    "sign": lambda a, b, u: lax.sign(a),
    "sin": lambda a, b, u: lax.sin(a),
    "sinh": lambda a, b, u: lax.sinh(a),
    "sqrt": lambda a, b, u: lax.sqrt(a),
    "square": lambda a, b, u: lax.square(a),
    "squeeze": lambda a, b, u: lax.squeeze(a[None], (0,)),
    "sub": lambda a, b, u: a - b,
    "tanh": lambda a, b, u: lax.tanh(a),
    "xor": lambda a, b, u: (a > 0) ^ (b > 0),
    # composites the ops use: an fma-shaped pair, tanh's GELU, SiLU
    "mul add": lambda a, b, u: a + 0.3 * a * b,
    "gelu": lambda a, b, u: jax.nn.gelu(a, approximate=True),
    "silu": lambda a, b, u: jax.nn.silu(a),
}


def _jaxpr(fn, *args):
    return jax.make_jaxpr(fn)(*args).jaxpr


def test_every_elementwise_primitive_is_checked():
    assert set(program_options.ELEMENTWISE) <= set(PRIMITIVES)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_legacy_emitters_give_the_default_emitters_bits(dtype):
    """Every primitive the legacy emitters may compile rounds as XLA's defaults do."""
    args = [jnp.asarray(v.astype(dtype)) for v in (VALUES, OTHERS, UNIT)]

    def every(a, b, u):
        return {name: fn(a, b, u) for name, fn in PRIMITIVES.items()}

    assert VALUES.size >= program_options.LARGE
    assert options_for(_jaxpr(every, *args)) == LEGACY_EMITTERS
    default = jax.jit(every)(*args)
    legacy = jax.jit(every, compiler_options=LEGACY_EMITTERS)(*args)
    for name in PRIMITIVES:
        for d, le in zip(jax.tree.leaves(default[name]), jax.tree.leaves(legacy[name])):
            d, le = np.asarray(d), np.asarray(le)
            assert d.dtype == le.dtype and np.array_equal(d.view(np.uint8), le.view(np.uint8)), name


X = jnp.ones((2, program_options.LARGE // 2), jnp.float32)


@pytest.mark.parametrize(
    ("fn", "legacy"),
    [
        (lambda x: x * 2 + 1, True),
        (lambda x: jax.nn.relu(jnp.tanh(x)), True),  # custom_jvp and jit bodies are read
        (lambda x: x.astype(jnp.int64) >> 1, True),
        (jax.nn.softmax, False),  # a reduction
        (lambda x: x.sum(), False),
        (lambda x: x @ x.T, False),
        (lambda x: x[jnp.array([1, 0])], False),  # a gather
        (lambda x: jnp.sort(x), False),
        (lambda x: jnp.cumsum(x), False),
        (lambda x: jnp.tan(x), False),  # rounds otherwise in the last bit
        (lambda x: jax.nn.gelu(x, approximate=False), False),  # erfc, likewise
        (lambda x: x.astype(jnp.float16) * 2, False),  # a 16-bit float
        (lambda x: x.astype(jnp.bfloat16), False),
        (lambda x: x * 1j, False),  # complex
    ],
)
def test_which_programs_get_the_legacy_emitters(fn, legacy):
    assert (options_for(_jaxpr(fn, X)) == LEGACY_EMITTERS) is legacy


def test_small_programs_keep_the_defaults():
    assert options_for(_jaxpr(lambda x: x * 2, X[:, :8])) == {}


@pytest.mark.parametrize(("size", "kind"), [(program_options.LARGE, Chosen), (8, None)])
def test_an_op_keeps_the_program_its_first_call_chose(size, kind):
    mul = registered_ops()["mul"]
    static = (("dtype", np.dtype(np.float32)),)
    mul._compiled.pop(static, None)
    first = mul.compiled(static)
    assert type(first) is FirstCall
    host = np.arange(size, dtype=np.float32) % 100
    x = jnp.asarray(host)
    np.testing.assert_array_equal(first(x, x), host * host)
    kept = mul.compiled(static)
    assert kept is mul.compiled(static) and kept is not first
    assert type(kept) is (kind or type(first.plain))
    np.testing.assert_array_equal(kept(x, x + 1), host * (host + 1))
    # inside a trace (torch.compile's) the plain function runs: no options on a nested jit
    traced = jax.jit(lambda a: kept(a, a))(x)
    np.testing.assert_array_equal(traced, host * host)
    mul._compiled.pop(static, None)


def test_a_first_call_inside_a_trace_chooses_nothing():
    kept = []
    first = FirstCall(functools.partial(jnp.multiply, 3.0), kept.append)
    np.testing.assert_array_equal(jax.jit(lambda x: first(x))(X), 3 * np.ones(X.shape))
    assert kept == []
    np.testing.assert_array_equal(first(X), 3 * np.ones(X.shape))
    assert type(kept[0]) is Chosen


@pytest.mark.parametrize("name", ["mul", "add", "sub", "div", "maximum", "neg"])
def test_elementwise_ops_match_pytorch_to_the_bit(real_torch, name):
    """Ops whose maths IEEE fixes (no rounding choice) give PyTorch's bits."""
    a = np.resize(VALUES, (8, program_options.LARGE // 8)).astype(np.float32)
    b = np.resize(OTHERS, a.shape).astype(np.float32)
    args = (a,) if name == "neg" else (a, b)
    ours = getattr(torch, name)(*[torch.tensor(v) for v in args]).numpy()
    theirs = getattr(real_torch, name)(*[real_torch.tensor(v) for v in args]).numpy()
    numbers = ~np.isnan(theirs)  # (NaN payloads are the CPU's: XLA's NaN is not x86's)
    np.testing.assert_array_equal(np.isnan(ours), ~numbers)
    np.testing.assert_array_equal(ours[numbers].view(np.uint32), theirs[numbers].view(np.uint32))
