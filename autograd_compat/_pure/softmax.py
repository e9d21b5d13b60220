"""Softmax and log-softmax with a shift XLA:CPU computes fast.

Both subtract the maximum along the axis before `exp`, to keep it in range. XLA's max
reduction propagates NaN, and XLA:CPU emits it as a scalar loop: 0.21 ms for the (12, 4, 64,
64) float32 scores of a small GPT's attention, 0.42 ms for (768, 512). A reduction by
`a if a > b else b` vectorizes: 0.05 and 0.13 ms. It ignores a NaN, which does not matter here:
a NaN reaches every element of its row through the sum of the exps whatever the shift, as it
does in PyTorch's kernels (and an infinite maximum still makes the row NaN, as there).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def shift(x, axis: int | None):
    """The maximum of `x` along `axis` (every axis where None), kept as size-1 dims, where no
    NaN is in the way; any value of the row where one is. Not differentiated (the result does
    not depend on it)."""
    axes = tuple(range(x.ndim)) if axis is None else (axis % x.ndim,)
    lowest = np.array(-np.inf, x.dtype)
    peak = lax.reduce(x, lowest, lambda a, b: lax.select(a > b, a, b), axes)
    return lax.stop_gradient(jnp.expand_dims(peak, axes))


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def softmax(x, axis: int | None):
    """exp(x) / sum(exp(x)) along `axis`, differentiated from its result, as PyTorch's: the
    tangent out * (t - sum(out * t)) is linear in t, so the pullback's one residual is the
    result (`_pure/residuals`: a node saves it and its backward computes no `exp`)."""
    unnormalized = jnp.exp(x - shift(x, axis))
    return unnormalized / jnp.sum(unnormalized, axis, keepdims=True)


@softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x,), (t,) = primals, tangents
    out = softmax(x, axis)
    return out, out * (t - jnp.sum(out * t, axis, keepdims=True))


def log_softmax(x, axis: int | None):
    """x - log(sum(exp(x))) along `axis`."""
    shifted = x - shift(x, axis)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis, keepdims=True))
