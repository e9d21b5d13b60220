"""PyTorch's CPU distributions on the host: the values its kernels compute from a generator's
mt19937 outputs, as numpy arrays, in the order PyTorch draws them.

Each function takes the generator's lock for the whole fill, as PyTorch's kernels do. Float64
results use the C library's log/log1p/sin/cos per element (PyTorch's); the float32 normal fill
of 16 or more values runs PyTorch's AVX2 transform (avx_mathfun's log and sincos) in numpy
float32 arithmetic (see docs/random.md for what is bit-exact).
"""

from __future__ import annotations

import math

import numpy as np

from .random import Cached, Generator

# float16/bfloat16 uniforms are float32 ones (24 bits of a 32-bit draw), rounded
_DIGITS = {"float16": 24, "bfloat16": 24, "float32": 24, "float64": 53}
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


def _two_sum(a, b) -> tuple[np.ndarray, np.ndarray]:
    """a + b rounded, and its exact rounding error (Knuth's TwoSum)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _two_product(a, b) -> tuple[np.ndarray, np.ndarray]:
    """a * b rounded, and its exact rounding error (Dekker's product, Veltkamp's split)."""
    product = a * b
    a_hi, a_lo = _split(np.asarray(a, np.float64))
    b_hi, b_lo = _split(b)
    error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return product, error


def _split(x) -> tuple[np.ndarray, np.ndarray]:
    scaled = 134217729.0 * x  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def fma64(a, b, c) -> np.ndarray:
    """float64 a * b + c rounded once, as PyTorch's build contracts its kernels' multiply-adds
    (Boldo and Melquiond's emulation: the low parts summed rounded to odd)."""
    product, product_error = _two_product(a, b)
    high, low = _two_sum(product, c)
    odd, rest = _two_sum(low, product_error)
    even = (odd.view(np.int64) & 1) == 0
    toward = np.where(rest > 0, np.inf, -np.inf)
    odd = np.where((rest != 0) & even, np.nextafter(odd, toward), odd)
    return high + odd


def uniform(generator: Generator, n: int, dtype: np.dtype, low: float, high: float):
    """`uniform_(low, high)`: each value `x * (high - low) + low` from one draw each, in
    float64 for float64, else one float32 multiply-add (PyTorch's build fuses it)."""
    digits = _DIGITS[np.dtype(dtype).name]
    with generator.lock:
        x = unit(generator, n, digits)
    if digits == 53:
        return x * (float(high) - float(low)) + float(low)
    a, b = np.asarray(low, dtype).astype(_F32), np.asarray(high, dtype).astype(_F32)
    values = _fma(x, b - a, float(a)).astype(dtype)
    if values.itemsize == 2:  # a value rounded up to `high` is `low` (PyTorch's [low, high))
        values[values == np.asarray(high, dtype)] = np.asarray(low, dtype)
    return values


def _box_muller(generator: Generator, mean: float, std: float) -> float:
    """One value of PyTorch's scalar normal (normal_distribution<double>), `z * std + mean`
    in one multiply-add: the sine of each Box-Muller pair is cached for the next call."""
    cached = generator.cached.double
    if cached is not None:
        generator.cached = Cached(None, generator.cached.single)
        return float(fma64(np.float64(cached), std, mean))
    u1, u2 = unit(generator, 2, 53)
    radius = math.sqrt(-2.0 * math.log1p(-float(u2)))
    theta = 2.0 * math.pi * float(u1)
    generator.cached = Cached(radius * math.sin(theta), generator.cached.single)
    return float(fma64(np.float64(radius * math.cos(theta)), std, mean))


def _fill_double(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's normal_fill_16 on blocks of 16 float64 uniforms (C library functions; the
    scaling one multiply-add)."""
    u = u.reshape(-1, _VECTOR)
    radius = np.sqrt(-2.0 * _exact(_LOG, 1.0 - u[:, :8]))
    theta = 2.0 * math.pi * u[:, 8:]
    pair = np.concatenate([radius * _exact(_COS, theta), radius * _exact(_SIN, theta)], axis=1)
    return fma64(pair.reshape(-1), std, mean)


_F32 = np.float32
# PyTorch's AVX2 normal fill computes log and sin/cos with avx_mathfun.h (cephes polynomials
# in float32); its build contracts a multiply and an add into one fused multiply-add where
# noted. The coefficients are cephes' logf/sinf/cosf ones.
_LOG_POLY = (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)  # fmt: skip
_COS_POLY = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_SIN_POLY = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_PI_PARTS = (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)  # -pi/4
_SIGN = np.int32(-(2**31))


def _fma(a, b, c) -> np.ndarray:
    """float32 a * b + c rounded once (the product is exact in float64; the float64 sum's
    rounding before float32's differs from one rounding only on exact float32 midpoints)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + c).astype(_F32)


def _horner(coefficients: tuple, x: np.ndarray) -> np.ndarray:
    y = np.full_like(x, _F32(coefficients[0]))
    for c in coefficients[1:]:
        y = _fma(y, x, _F32(c))
    return y


def _log_avx2(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's log256_ps for x in (0, 1]: exponent and mantissa split, then a cephes
    polynomial."""
    bits = np.maximum(x, _F32(1.17549435e-38)).view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _F32(1)
    m = ((bits & ~0x7F800000) | _F32(0.5).view(np.int32)).view(_F32)
    small = m < _F32(0.707106781186547524)
    e = e - small.astype(_F32)
    m = (m - _F32(1)) + np.where(small, m, _F32(0))
    z = m * m
    y = _horner(_LOG_POLY, m) * m
    y = _fma(y, z, e * _F32(-2.12194440e-4))
    y = _fma(z, _F32(-0.5), y)
    return _fma(e, _F32(0.693359375), m + y)


def _sincos_avx2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun's sincos256_ps for x >= 0: the octant, x reduced by pi/4 in three parts,
    the cosine and sine polynomials, selected and signed by the octant."""
    j = (x * _F32(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    for part in _PI_PARTS:
        x = _fma(y, _F32(part), x)
    z = x * x
    cos = _fma(_horner(_COS_POLY, z) * z, z, -(z * _F32(0.5))) + _F32(1)
    sin = _fma(_horner(_SIN_POLY, z) * z, x, x)
    swap = (j & 2) != 0
    sin, cos = np.where(swap, cos, sin), np.where(swap, sin, cos)
    sin = (sin.view(np.int32) ^ ((j & 4) << 29)).view(_F32)
    cos = (cos.view(np.int32) ^ ((~(j - 2) & 4) << 29)).view(_F32)
    return sin, cos


def _fill_single(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's AVX2 normal fill on blocks of 16 float32 uniforms, bit for bit."""
    u = u.reshape(-1, _VECTOR)
    radius = np.sqrt(_F32(-2.0) * _log_avx2(_F32(1.0) - u[:, :8]))
    sin, cos = _sincos_avx2(_F32(2.0 * math.pi) * u[:, 8:])
    pair = np.concatenate([radius * cos, radius * sin], axis=1).reshape(-1)
    return _fma(pair, _F32(std), float(_F32(mean)))


def normal(generator: Generator, n: int, dtype: np.dtype, mean: float, std: float):
    """`normal_(mean, std)`: below 16 values PyTorch's scalar Box-Muller (with its cached
    sample), from 16 on its fill: uniforms for all, transformed 16 at a time, the last 16
    drawn again and transformed when 16 does not divide `n`. float16/bfloat16 values are
    the float32 transform's, rounded, and draw uniforms for the whole blocks only."""
    dtype = np.dtype(dtype)
    whole = n - n % _VECTOR
    with generator.lock:
        if n < _VECTOR:
            values = [_box_muller(generator, mean, std) for _ in range(n)]
            return np.asarray(values, np.float64).astype(dtype)
        digits = _DIGITS[dtype.name]
        reduced = dtype.itemsize == 2  # float16/bfloat16: uniforms for the whole blocks only
        u = unit(generator, whole if reduced else n, digits)
        tail = unit(generator, _VECTOR, digits) if n % _VECTOR else None
    fill = _fill_double if dtype == np.float64 else _fill_single
    out = np.empty(n, dtype)
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


_TAN = np.frompyfunc(math.tan, 1, 1)


def _c_exp(x: float) -> float:
    """The C library's exp: inf past float64's range, where Python's raises."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _c_log(x: float) -> float:
    """The C library's log of a uniform: -inf at 0, where Python's raises."""
    return math.log(x) if x > 0 else -math.inf


_EXP = np.frompyfunc(_c_exp, 1, 1)
_LOG_0 = np.frompyfunc(_c_log, 1, 1)


def cauchy(generator: Generator, n: int, median: float, sigma: float) -> np.ndarray:
    """`cauchy_(median, sigma)`: `median + sigma * tan(pi * (u - 0.5))` in float64 (one
    multiply-add), u a 53-bit uniform."""
    with generator.lock:
        u = unit(generator, n, 53)
    return fma64(float(sigma), _exact(_TAN, math.pi * (u - 0.5)), float(median))


def log_normal(generator: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """`log_normal_(mean, std)`: `exp(z * std + mean)` (one multiply-add) in float64, z
    PyTorch's scalar standard normal (Box-Muller, its cached sample used in turn)."""
    with generator.lock:
        z = np.array([_box_muller(generator, 0.0, 1.0) for _ in range(n)], np.float64)
    return _exact(_EXP, fma64(z, float(std), float(mean)))


def geometric(generator: Generator, n: int, p: float) -> np.ndarray:
    """`geometric_(p)`: `ceil(log(u) / log1p(-p))` in float64, u a 53-bit uniform."""
    with generator.lock:
        u = unit(generator, n, 53)
    return np.ceil(_exact(_LOG_0, u) / math.log1p(-p))
