"""PyTorch's "opmath" for float16 and bfloat16: its CPU kernels compute an elementwise op on
these dtypes in float32 and round the result once, and hold a Python scalar operand in float32.

XLA computes one f16 multiply or add as PyTorch does (in float32, rounded once), but a
composite op rounds at every step (gelu's erf, lerp's difference) and a scalar operand cast to
the tensor's dtype loses its float32 bits: `half * 0.1` multiplies by the f16 nearest to 0.1,
and `half / 3` came out an ulp off on a third of the values. Pure functions of ops on these
dtypes therefore compute in `opmath_dtype` and cast back (`in_opmath`), and their scalars
are made in it.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

REDUCED = frozenset([np.dtype(jnp.float16), np.dtype(jnp.bfloat16)])
FLOAT32 = np.dtype(np.float32)


def opmath_dtype(dtype) -> np.dtype:
    """The dtype PyTorch computes `dtype`'s elementwise ops in: float32 for float16 and
    bfloat16, `dtype` itself otherwise."""
    dtype = np.dtype(dtype)
    return FLOAT32 if dtype in REDUCED else dtype


def in_opmath(fn):
    """`fn` computed in float32 where an input array is float16 or bfloat16: those inputs are
    upcast (exactly), and each float32 output is cast back to the first such input's dtype."""

    @functools.wraps(fn)
    def computed(*args, **static):
        reduced = next((a.dtype for a in args if getattr(a, "dtype", None) in REDUCED), None)
        if reduced is None:
            return fn(*args, **static)
        up = [a.astype(FLOAT32) if getattr(a, "dtype", None) in REDUCED else a for a in args]
        out = fn(*up, **static)
        if isinstance(out, tuple):
            return tuple(_back(o, reduced) for o in out)
        return _back(out, reduced)

    return computed


def _back(out, reduced: np.dtype):
    return out.astype(reduced) if out.dtype == FLOAT32 else out
