"""PyTorch's conversion of numbers to float8 where it differs from XLA's (and ml_dtypes'):
`float8_e4m3fn` saturates finite overflow and infinities to +-448 (XLA: NaN), `float8_e5m2`'s
NaN is 0x7F with the sign kept (XLA: 0x7E), and `float8_e8m0fnu` takes |x|'s exponent rounded
to nearest even, 0 and negatives included (XLA: NaN for those). Every source converts through
float32, as PyTorch's does; the fnuz dtypes convert as XLA does."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["convert", "full"]

_E4M3FN = np.dtype(jnp.float8_e4m3fn)
_E5M2 = np.dtype(jnp.float8_e5m2)
_E8M0FNU = np.dtype(jnp.float8_e8m0fnu)
_E4M3FN_MAX = 448.0
_TARGETS = (_E4M3FN, _E5M2, _E8M0FNU)  # the dtypes `convert` handles itself


def convert(x, dtype):
    """`x.astype(dtype)` with PyTorch's values; `x` a jax array (or tracer) or a numpy array."""
    target = np.dtype(dtype)
    if target not in _TARGETS or x.dtype == target or x.dtype.kind == "c":
        return x.astype(dtype)
    xp = np if isinstance(x, (np.ndarray, np.generic)) else jnp
    f = xp.asarray(x).astype(np.float32)
    if target == _E8M0FNU:
        bits = _e8m0fnu_bits(xp, _bits(xp, f, np.uint32))
        if x.dtype == np.float64:  # XLA flushes float32 subnormals made from float64 to zero
            magnitude = xp.abs(xp.asarray(x))  # 2^-126 or 2^-127: above 2^-127 in float32?
            rounded = (magnitude > 2.0**-127 + 2.0**-150).astype(np.uint8)
            bits = xp.where(magnitude < 2.0**-126, rounded, bits)
        return _from_bits(xp, bits, target)
    if target == _E4M3FN:  # NaN stays NaN through the clip; it is set below either way
        converted = xp.clip(f, -_E4M3FN_MAX, _E4M3FN_MAX).astype(target)
    else:
        converted = f.astype(target)
    nan = xp.where(xp.signbit(f), np.uint8(0xFF), np.uint8(0x7F))
    bits = xp.where(xp.isnan(f), nan, _bits(xp, converted, np.uint8))
    return _from_bits(xp, bits, target)


def full(shape: tuple, value, dtype) -> np.ndarray:
    """`np.full(shape, value, dtype)` on the host, with PyTorch's float8 values."""
    if np.dtype(dtype) in _TARGETS:
        return convert(np.full(shape, value), dtype)
    return np.full(shape, value, dtype)


def _e8m0fnu_bits(xp, bits):
    """The exponent field of float32 `bits`, rounded up when the mantissa is past half (half
    exactly: when the implicit bit is 1, i.e. a normal number); 255 (NaN) for inf and NaN."""
    exponent = (bits >> 23) & 0xFF
    guard = (bits & 0x400000) != 0
    rest = (bits & 0x3FFFFF) != 0
    up = guard & (rest | (exponent > 0)) & (exponent != 0xFF)
    return (exponent + up.astype(np.uint32)).astype(np.uint8)


def _bits(xp, x, unsigned):
    """The bit pattern of `x` as the unsigned type of its width."""
    return x.view(unsigned) if xp is np else lax.bitcast_convert_type(x, unsigned)


def _from_bits(xp, bits, target):
    """The float8 array of bit pattern `bits` (uint8)."""
    return bits.view(target) if xp is np else lax.bitcast_convert_type(bits, target)
