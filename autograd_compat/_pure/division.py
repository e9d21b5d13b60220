"""Division rounded once, as IEEE's `a / b`: what PyTorch's kernels compute.

XLA's algebraic simplifier rewrites a division whose divisor it can see through:
`a / broadcast(b)` (a number, a scalar tensor, a row) becomes `a * broadcast(1 / b)`,
`a / sqrt(b)` becomes `a * rsqrt(b)` and `a / exp(b)` becomes `a * exp(-b)`. Each rounds twice:
float32 `x / 3.0` came out an ulp off on a third of the values, and truncated to an integer
(`div(x, 0.3, rounding_mode="trunc")`) one less on 5% of them. `ieee_divide` hides the divisor
behind a select XLA does not see through: it takes the divisor unless the dividend is NaN, where
the quotient is NaN whichever it takes. The select fuses into the division's loop.
"""

from __future__ import annotations

import jax.numpy as jnp


def ieee_divide(a, b):
    """`a / b` (broadcast) computed as one IEEE division, whatever the divisor's producer."""
    return jnp.divide(a, jnp.where(jnp.isnan(a), a, b))
