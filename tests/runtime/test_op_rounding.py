"""The seam between ops in one program (`_pure/op_rounding.apart`): bits unchanged, and no
multiply-add contracted across it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograd_compat._pure import op_rounding


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32, np.float64])
def test_a_seam_keeps_every_bit(dtype):
    """Signed zeros, infinities, NaN, the largest value and the smallest subnormal (which
    float arithmetic on XLA:CPU would flush to zero)."""
    info = jnp.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -2.5, info.max, info.smallest_subnormal]
    x = np.array(special, dtype)
    out = jax.jit(op_rounding.apart)(x, op_rounding.key())
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(out).view(np.uint8), x.view(np.uint8))


def test_a_seam_keeps_complex_signed_zeros_and_leaves_integers_alone():
    z = np.array([complex(-0.0, -0.0), complex(0.0, -0.0), complex(np.nan, 1.0)], np.complex64)
    out = np.asarray(jax.jit(op_rounding.apart)(z, op_rounding.key()))
    np.testing.assert_array_equal(out.view(np.uint32), z.view(np.uint32))
    ints = np.arange(4, dtype=np.int32)
    assert op_rounding.apart(ints, op_rounding.key()) is ints


def _mul_add(seam):
    def f(key, a, b, c):
        product = a * b
        return (op_rounding.apart(product, key) if seam else product) + c

    return jax.jit(f)


def test_no_multiply_add_is_contracted_across_a_seam():
    """Without the seam XLA:CPU fuses `a * b + c` into one multiply-add (rounded once); with it
    the result is the two ops rounded apart, as numpy computes them."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
    apart = np.asarray(_mul_add(True)(op_rounding.key(), a, b, c))
    np.testing.assert_array_equal(apart, a * b + c)
    contracted = np.asarray(_mul_add(False)(op_rounding.key(), a, b, c))
    assert not np.array_equal(contracted, a * b + c)  # (the check above could fail)


def test_the_key_is_a_concrete_array_even_when_first_made_inside_a_trace():
    op_rounding.key.cache_clear()
    made = []
    jax.jit(lambda x: made.append(op_rounding.key()) or x)(1.0)
    assert isinstance(made[0], jax.Array) and not isinstance(made[0], jax.core.Tracer)
    assert made[0] is op_rounding.key() and int(made[0]) == 0
