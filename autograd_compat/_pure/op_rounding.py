"""Ops fused into one XLA program that round as each op's own program rounds.

XLA:CPU compiles every program with floating-point contraction on: a multiply whose result
feeds an add in the same loop becomes one fused multiply-add, rounded once where two ops run
one by one (and PyTorch) round twice. One op's program may contract inside the op; a program
of many ops (a deferred run) must not contract across them, or its values are not the ops'.
`apart(x, key)` passes each op's output through an integer XOR with the program's runtime
zero (`key`, an input, so no pass can fold it): every bit stays as it was (subnormals too,
which float arithmetic would flush to zero on XLA:CPU), and neither XLA's simplifier nor LLVM
sees a multiply behind it, so nothing contracts across the seam. Where ops are memory-bound
it costs nothing measurable; turning XLA's fusion off, the other way to keep each op's
rounding, writes and reads every intermediate array.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # a float's size -> its bits


def apart(x, key):
    """`x` (a traced array), bit for bit, behind a seam XLA cannot contract a multiply-add
    across; `key` is the program's runtime zero (`key()`). Other than float and complex
    values are returned as they are."""
    dtype = x.dtype
    if jnp.issubdtype(dtype, jnp.complexfloating):
        return lax.complex(apart(lax.real(x), key), apart(lax.imag(x), key))
    if not jnp.issubdtype(dtype, jnp.floating):
        return x
    bits = _BITS[dtype.itemsize]
    return lax.bitcast_convert_type(lax.bitcast_convert_type(x, bits) ^ key.astype(bits), dtype)


@functools.cache
def key() -> jax.Array:
    """The uint32 zero a program of many ops takes as its `key` (made at the first use, so the
    import starts no backend; concrete even where that use is inside a trace)."""
    with jax.ensure_compile_time_eval():
        return jnp.zeros((), np.uint32)
