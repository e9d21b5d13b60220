"""PyTorch's CPU distributions on the host: the values its kernels compute from a generator's
mt19937 outputs, as numpy arrays, in the order PyTorch draws them.

Each function takes the generator's lock for the whole fill, as PyTorch's kernels do. Float64
results use the C library's log/log1p/sin/cos per element (PyTorch's), so they are bit-exact;
the float32 normal fill of 16 or more values runs PyTorch's vectorized transform in numpy,
whose log/sin/cos round differently from PyTorch's AVX2 ones (see docs/random.md).
"""

from __future__ import annotations

import math

import numpy as np

from .random import Cached, Generator

_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_LOG1P = np.frompyfunc(math.log1p, 1, 1)
_LOG = np.frompyfunc(math.log, 1, 1)
_SIN = np.frompyfunc(math.sin, 1, 1)
_COS = np.frompyfunc(math.cos, 1, 1)
_SMALL_RANDPERM = 2**32 // 20  # below it randperm draws 32-bit outputs, above 64-bit
_VECTOR = 16  # PyTorch's normal fill transforms blocks of 16 values


def _exact(fn, x: np.ndarray) -> np.ndarray:
    return fn(x).astype(np.float64) if x.size else x.astype(np.float64)


def unit(generator: Generator, n: int, digits: int) -> np.ndarray:
    """`n` uniforms in [0, 1) with `digits` bits (PyTorch's uniform_real_distribution): 53
    from 64-bit draws (float64), fewer from 32-bit draws (float32 arithmetic)."""
    if digits == 53:
        bits = generator.words64(n) & np.uint64(2**53 - 1)
        return bits.astype(np.float64) * 2.0**-53
    bits = generator.words(n) & np.uint64(2**digits - 1)
    return bits.astype(np.float32) * np.float32(2.0**-digits)


def uniform(generator: Generator, n: int, dtype: np.dtype, low: float, high: float):
    """`uniform_(low, high)`: each value `x * (high - low) + low` in the dtype's arithmetic
    (float32 for float16/bfloat16), from one draw each."""
    digits = _DIGITS[np.dtype(dtype).name]
    with generator.lock:
        x = unit(generator, n, digits)
    if digits == 53:
        return x * (float(high) - float(low)) + float(low)
    a, b = np.asarray(low, dtype).astype(np.float32), np.asarray(high, dtype).astype(np.float32)
    return (x * (b - a) + a).astype(dtype)


def _box_muller(generator: Generator, mean: float, std: float) -> float:
    """One value of PyTorch's scalar normal (normal_distribution<double>): the sine of each
    Box-Muller pair is cached for the next call."""
    cached = generator.cached.double
    if cached is not None:
        generator.cached = Cached(None, generator.cached.single)
        return cached * std + mean
    u1, u2 = unit(generator, 2, 53)
    radius = math.sqrt(-2.0 * math.log1p(-float(u2)))
    theta = 2.0 * math.pi * float(u1)
    generator.cached = Cached(radius * math.sin(theta), generator.cached.single)
    return radius * math.cos(theta) * std + mean


def _fill_double(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's normal_fill_16 on blocks of 16 float64 uniforms (C library functions)."""
    u = u.reshape(-1, _VECTOR)
    radius = np.sqrt(-2.0 * _exact(_LOG, 1.0 - u[:, :8]))
    theta = 2.0 * math.pi * u[:, 8:]
    return np.concatenate(
        [radius * _exact(_COS, theta) * std + mean, radius * _exact(_SIN, theta) * std + mean],
        axis=1,
    ).reshape(-1)


def _fill_single(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's AVX2 normal fill on blocks of 16 float32 uniforms: float32 arithmetic, the
    last step a fused multiply-add (evaluated in float64, rounded once)."""
    u = u.reshape(-1, _VECTOR)
    u1 = np.float32(1.0) - u[:, :8]
    log = np.log(u1.astype(np.float64)).astype(np.float32)
    radius = np.sqrt(np.float32(-2.0) * log)
    theta = (np.float32(2.0 * math.pi) * u[:, 8:]).astype(np.float64)
    cos = np.cos(theta).astype(np.float32)
    sin = np.sin(theta).astype(np.float32)
    pair = np.concatenate([radius * cos, radius * sin], axis=1).reshape(-1)
    return (pair.astype(np.float64) * float(np.float32(std)) + float(np.float32(mean))).astype(
        np.float32
    )


def normal(generator: Generator, n: int, dtype: np.dtype, mean: float, std: float):
    """`normal_(mean, std)`: below 16 values PyTorch's scalar Box-Muller (with its cached
    sample), from 16 on its fill: uniforms for all, transformed 16 at a time, the last 16
    drawn again and transformed when 16 does not divide `n`."""
    dtype = np.dtype(dtype)
    with generator.lock:
        if n < _VECTOR:
            values = [_box_muller(generator, mean, std) for _ in range(n)]
            return np.asarray(values, np.float64).astype(dtype)
        digits = _DIGITS[dtype.name]
        u = unit(generator, n, digits)
        tail = unit(generator, _VECTOR, digits) if n % _VECTOR else None
    if dtype == np.float64:
        fill = _fill_double
    elif dtype == np.float32:
        fill = _fill_single
    else:  # float16/bfloat16: the generic fill, here in float64
        fill = _fill_double
    out = np.empty(n, dtype)
    whole = n - n % _VECTOR
    out[:whole] = fill(u[:whole], mean, std)
    if tail is not None:
        out[n - _VECTOR :] = fill(tail, mean, std)
    return out


def integers(generator: Generator, n: int, span: int, base: int) -> np.ndarray:
    """`random_(from, to)`: `draw % span + base` as int64 (two's complement), one 64-bit draw
    each when `span` needs more than 32 bits, else one 32-bit draw."""
    with generator.lock:
        words = generator.words64(n) if span >= 2**32 else generator.words(n)
    return ((words % np.uint64(span)) + np.uint64(base % 2**64)).view(np.int64)


def full_range(generator: Generator, n: int, dtype_name: str, max_value: int) -> np.ndarray:
    """`random_()` without bounds: 64-bit draws for int64/float64, 32-bit for the others;
    modulo `max_value + 1` (2**digits + 1 for floats; bool takes the low bit)."""
    with generator.lock:
        wide = dtype_name in ("int64", "float64")
        words = generator.words64(n) if wide else generator.words(n)
    if dtype_name == "bool":
        return (words & np.uint64(1)).view(np.int64)
    return (words % np.uint64(max_value + 1)).view(np.int64)


def randperm(generator: Generator, n: int) -> np.ndarray:
    """PyTorch's CPU randperm: a Fisher-Yates pass swapping i with i + draw % (n - i)."""
    with generator.lock:
        if n < _SMALL_RANDPERM:
            words = generator.words(max(n - 1, 0))
        else:
            words = generator.words64(max(n - 1, 0))
    offsets = (words % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    order = list(range(n))
    for i, z in enumerate(offsets):
        j = i + z
        order[i], order[j] = order[j], order[i]
    return np.asarray(order, np.int64)


def bernoulli(generator: Generator, n: int, p: float) -> np.ndarray:
    """`bernoulli_(p)` for a number p: a 53-bit uniform below p, one 64-bit draw each."""
    with generator.lock:
        return unit(generator, n, 53) < p


def bernoulli_tensor(generator: Generator, p: np.ndarray) -> np.ndarray:
    """`bernoulli_(p)` for a tensor p (already broadcast): float64 p compares a 53-bit
    uniform, other p a 24-bit float one (PyTorch's bernoulli_distribution<float>)."""
    flat = p.reshape(-1)
    with generator.lock:
        if flat.dtype == np.float64:
            return (unit(generator, flat.size, 53) < flat).reshape(p.shape)
        return (unit(generator, flat.size, 24) < flat.astype(np.float32)).reshape(p.shape)


def exponential(generator: Generator, n: int, lambd: float) -> np.ndarray:
    """`exponential_(lambd)`: `-1 / lambd * log1p(-u)` in float64, u a 53-bit uniform."""
    with generator.lock:
        u = unit(generator, n, 53)
    return (-1.0 / lambd) * _exact(_LOG1P, -u)
