"""PyTorch's AVX2 float32 normal transform, bit for bit: avx_mathfun's `log256_ps` and
`sincos256_ps` (cephes polynomials in float32) with the fused multiply-adds PyTorch's build
makes, on blocks of 16 uniforms (the first 8 give the radius, the last 8 the angle).

The maths is written once over an `Arithmetic`: numpy for a few blocks, and one XLA program
on chunks of `CHUNK_BLOCKS` blocks for large fills. A fused multiply-add is emulated in
float64: the product of two float32 values is exact there, and the float64 sum rounded to
float32 differs from one rounding only when it falls exactly halfway between two float32
values. XLA:CPU's compiler contracts a float32 `a * b + c` into the machine's own multiply-add,
about three times faster, so the large fills' program is written plainly (`contracting`): a
product that feeds an add unfused gets a -0.0 the compiler cannot see added to it (contracted
or not, `a * b + -0.0` is `a * b` rounded), which leaves the add nothing to fuse with. Whether
the compiler then contracted exactly PyTorch's pairs is checked once per process on fixed
draws against the numpy transform; where it did not, the emulating program serves.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import executables

BLOCK = 16  # PyTorch's normal fill transforms blocks of 16 values
CHUNK_BLOCKS = 8192  # blocks per run of the XLA program (131,072 values)
XLA_BLOCKS = 512  # from this many blocks on a fill runs through XLA

_F32 = np.float32
_LOG_POLY = (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)  # fmt: skip
_COS_POLY = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_SIN_POLY = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_PI_PARTS = (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)  # -pi/4
_MANTISSA_24 = 2**24 - 1


class Halves(NamedTuple):
    """A block's two halves of normals: radius * cos (values 0-7), radius * sin (8-15)."""

    cos: np.ndarray
    sin: np.ndarray


class Arithmetic(NamedTuple):
    """The operations the transform is written in: an array module, a float32 multiply-add
    rounded once, and `rounded`, which marks a product an add must not fuse with."""

    xp: ModuleType
    fma: Callable[[Any, Any, Any], Any]
    rounded: Callable[[Any], Any]


def _emulated_fma(xp: ModuleType):
    """float32 a * b + c rounded once (up to the float64 midpoint case above)."""
    return lambda a, b, c: (xp.asarray(a, xp.float64) * xp.asarray(b, xp.float64) + c).astype(_F32)


def _unchanged(product):
    return product


NUMPY = Arithmetic(np, _emulated_fma(np), _unchanged)
EMULATED = Arithmetic(jnp, _emulated_fma(jnp), _unchanged)


def contracting(negative_zero) -> Arithmetic:
    """Plain float32 `a * b + c`, which XLA:CPU's compiler contracts; a product plus the
    runtime `negative_zero` is no longer a product an add can fuse with."""
    return Arithmetic(jnp, lambda a, b, c: a * b + c, lambda product: product + negative_zero)


def _bits(xp: ModuleType, x, dtype):
    """The bits of `x` reinterpreted as `dtype` (numpy's view, XLA's bitcast)."""
    if xp is np:
        return x.view(dtype)
    return jax.lax.bitcast_convert_type(x, dtype)


def _exact_fma(a, b, c):
    """a * b + c where the float32 product a * b is exact: one rounding, fused or not (so
    XLA's own contraction of it changes nothing)."""
    return c + a * b


def _horner(ar: Arithmetic, coefficients: tuple, x):
    y = ar.xp.full_like(x, _F32(coefficients[0]))
    for c in coefficients[1:]:
        y = ar.fma(y, x, _F32(c))
    return y


def _log(ar: Arithmetic, x):
    """log256_ps for x in (0, 1]: exponent and mantissa split, then a cephes polynomial."""
    xp = ar.xp
    bits = _bits(xp, xp.maximum(x, _F32(1.17549435e-38)), xp.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _F32(1)
    m = _bits(xp, (bits & ~0x7F800000) | int(_F32(0.5).view(np.int32)), _F32)
    small = m < _F32(0.707106781186547524)
    e = e - small.astype(_F32)
    m = (m - _F32(1)) + xp.where(small, m, _F32(0))
    z = m * m
    y = _horner(ar, _LOG_POLY, m) * m
    y = ar.fma(y, z, ar.rounded(e * _F32(-2.12194440e-4)))
    y = _exact_fma(z, _F32(-0.5), y)  # z = m * m: a multiple of 2**-48
    return _exact_fma(e, _F32(0.693359375), m + y)  # e: an integer in [-24, 1]


def _sincos(ar: Arithmetic, x) -> Halves:
    """sincos256_ps for x >= 0: the octant, x reduced by pi/4 in three parts, the cosine and
    sine polynomials, selected and signed by the octant."""
    xp = ar.xp
    j = (x * _F32(1.27323954473516)).astype(xp.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)  # 0, 2, 4, 6 or 8: exact products with the first two parts
    x = ar.fma(y, _F32(_PI_PARTS[0]), ar.rounded(x))  # x is a product: its rounding stays
    x = _exact_fma(y, _F32(_PI_PARTS[1]), x)
    x = ar.fma(y, _F32(_PI_PARTS[2]), x)
    z = x * x
    cos = ar.fma(_horner(ar, _COS_POLY, z) * z, z, -ar.rounded(z * _F32(0.5))) + _F32(1)
    sin = ar.fma(_horner(ar, _SIN_POLY, z) * z, x, x)
    swap = (j & 2) != 0
    sin, cos = xp.where(swap, cos, sin), xp.where(swap, sin, cos)
    sin = _bits(xp, _bits(xp, sin, xp.int32) ^ ((j & 4) << 29), _F32)
    cos = _bits(xp, _bits(xp, cos, xp.int32) ^ ((~(j - 2) & 4) << 29), _F32)
    return Halves(cos, sin)


def _scaled(ar: Arithmetic, normal, mean, std):
    """normal * std + mean, one rounding; for (0, 1) that is the normal with -0 as +0."""
    if std is None:
        return ar.xp.where(normal == 0, _F32(0), normal)
    return ar.fma(normal, std, mean)


def _transform(ar: Arithmetic, u, mean, std) -> Halves:
    """Blocks of uniforms (shape (blocks, 2, 8)) to normals * std + mean (std None: the
    standard normal)."""
    radius = ar.xp.sqrt(_F32(-2.0) * _log(ar, _F32(1.0) - u[:, 0]))
    angle = _sincos(ar, _F32(2.0 * math.pi) * u[:, 1])
    return Halves(
        _scaled(ar, radius * angle.cos, mean, std), _scaled(ar, radius * angle.sin, mean, std)
    )


def _unit(xp: ModuleType, words):
    """PyTorch's float32 uniforms: the low 24 bits of each 32-bit draw, times 2**-24."""
    return (words & xp.uint32(_MANTISSA_24)).astype(_F32) * _F32(2.0**-24)


def _chunk_pure(words, mean, std, negative_zero, *, contract: bool) -> Halves:
    """`CHUNK_BLOCKS` blocks of 32-bit draws (shape (blocks, 2, 8)) to normals (mean and std
    None: the standard normal), fused multiply-adds contracted or emulated."""
    ar = contracting(negative_zero) if contract else EMULATED
    return _transform(ar, _unit(jnp, words), mean, std)


_chunk = executables.jit(_chunk_pure, static_argnames="contract")
_NEGATIVE_ZERO = _F32(-0.0)
_CHECK_SEED = 0x5EED  # fixed draws for the check of the contracted program


@functools.cache
def _contracts_as_pytorch(standard: bool) -> bool:
    """Whether the contracted program gives the numpy transform's normals, bit for bit, on
    `XLA_BLOCKS` blocks of fixed draws (once per process and program)."""
    words = np.random.default_rng(_CHECK_SEED).integers(
        0, 2**32, (CHUNK_BLOCKS, 2, 8), np.uint32, endpoint=False
    )
    scale = (None, None) if standard else (_F32(-0.3), _F32(1.7))
    with jax.ensure_compile_time_eval():
        fused = _chunk(words, *scale, _NEGATIVE_ZERO, contract=True)
    expected = _transform(NUMPY, _unit(np, words[:XLA_BLOCKS]), *scale)
    return all(
        np.array_equal(np.asarray(a)[:XLA_BLOCKS], b) for a, b in zip(fused, expected, strict=True)
    )


def fill(words: np.ndarray, mean: float, std: float, out: np.ndarray) -> None:
    """Write into `out` (float32, contiguous) the normals of its size in 32-bit draws (a
    multiple of 16 of them), block by block."""
    blocks = words.size // BLOCK
    out = out.reshape(blocks, 2, 8)
    words = words.reshape(blocks, 2, 8)
    mean32, std32 = _F32(mean), _F32(std)
    standard = mean32 == 0 and std32 == 1
    scale = (None, None) if standard else (mean32, std32)
    if blocks < XLA_BLOCKS:
        out[:, 0], out[:, 1] = _transform(NUMPY, _unit(np, words), *scale)
        return
    contract = _contracts_as_pytorch(standard)
    padded = np.zeros((CHUNK_BLOCKS, 2, 8), np.uint32)
    with jax.ensure_compile_time_eval():  # concrete values, even when called in a trace
        for start in range(0, blocks, CHUNK_BLOCKS):
            part = words[start : start + CHUNK_BLOCKS]
            if len(part) < CHUNK_BLOCKS:
                padded[: len(part)] = part
                part = padded
            halves = _chunk(part, *scale, _NEGATIVE_ZERO, contract=contract)
            stop = min(start + CHUNK_BLOCKS, blocks)
            out[start:stop, 0] = np.asarray(halves.cos)[: stop - start]
            out[start:stop, 1] = np.asarray(halves.sin)[: stop - start]
