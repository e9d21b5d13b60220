"""PyTorch's CPU distributions on the host: the values its kernels compute from a generator's
mt19937 outputs, as numpy arrays, in the order PyTorch draws them.

Each function takes the generator's lock for the whole fill, as PyTorch's kernels do. Float64
normals use the C library's log/sin/cos per element (PyTorch's); the float32 normal fill of 16
or more values runs PyTorch's AVX2 transform (`avx2_normal`; see docs/random.md for what is
bit-exact).
"""

from __future__ import annotations

import math

import numpy as np

from .._pure.device import host_buffer
from . import avx2_normal
from .random import Cached, Generator

# float16/bfloat16 uniforms are float32 ones (24 bits of a 32-bit draw), rounded
_DIGITS = {"float16": 24, "bfloat16": 24, "float32": 24, "float64": 53}
_SMALL_RANDPERM = 2**32 // 20  # below it randperm draws 32-bit outputs, above 64-bit
_VECTOR = avx2_normal.BLOCK
_F32 = np.float32
_LOW_53 = 2**53 - 1


def _exact(fn, x: np.ndarray) -> np.ndarray:
    """`fn` (a `math` function: the C library's, as PyTorch calls it) of each element."""
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


def unit(generator: Generator, n: int, digits: int) -> np.ndarray:
    """`n` uniforms in [0, 1) with `digits` bits (PyTorch's uniform_real_distribution): 53
    from 64-bit draws (float64), fewer from 32-bit draws (float32 arithmetic)."""
    if digits == 53:
        bits = generator.words64(n) & np.uint64(_LOW_53)
        return bits.astype(np.float64) * 2.0**-53
    bits = generator.words(n)
    bits &= np.uint32(2**digits - 1)
    return np.multiply(bits, _F32(2.0**-digits), out=host_buffer(n, _F32), dtype=_F32)


def _fma(a, b, c) -> np.ndarray:
    """float32 a * b + c rounded once (up to float64's midpoint case: `avx2_normal`)."""
    wide = np.asarray(a, np.float64) * np.float64(b)
    wide += c
    out = host_buffer(wide.shape, _F32)
    out[...] = wide
    return out


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
    values = x if a == 0 and b == 1 else _fma(x, b - a, float(a))  # x * 1 + 0 is x
    values = values.astype(dtype, copy=False)
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
    radius = np.sqrt(-2.0 * _exact(math.log, 1.0 - u[:, :8]))
    theta = 2.0 * math.pi * u[:, 8:]
    normals = np.concatenate([radius * _exact(trig, theta) for trig in (math.cos, math.sin)], 1)
    if std == 1 or mean == 0:  # the product is exact or nothing is added: one rounding
        return (normals * std + mean).reshape(-1)
    return fma64(normals, std, mean).reshape(-1)


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
        wide = dtype == np.float64
        draw = (lambda count: unit(generator, count, 53)) if wide else generator.words
        drawn = draw(whole if dtype.itemsize == 2 else n)
        tail = draw(_VECTOR) if n % _VECTOR else None
    if wide:
        out = np.empty(n, dtype)
        out[:whole] = _fill_double(drawn[:whole], mean, std)
        if tail is not None:
            out[n - _VECTOR :] = _fill_double(tail, mean, std)
        return out
    single = host_buffer(n, _F32)
    avx2_normal.fill(drawn[:whole], mean, std, single[:whole])
    if tail is not None:
        avx2_normal.fill(tail, mean, std, single[n - _VECTOR :])
    return single.astype(dtype, copy=False)


def _mod(words: np.ndarray, span: int) -> np.ndarray:
    """`words % span` (numpy divides by a scalar fast, where its `%` does not)."""
    divisor = words.dtype.type(span)
    quotient = words // divisor
    quotient *= divisor
    return np.subtract(words, quotient, out=quotient)


def integers(generator: Generator, n: int, span: int, base: int) -> np.ndarray:
    """`random_(from, to)`: `draw % span + base` as int64 (two's complement), one 64-bit draw
    each when `span` needs more than 32 bits, else one 32-bit draw."""
    with generator.lock:
        words = generator.words64(n) if span >= 2**32 else generator.words(n)
    offsets = host_buffer(n, np.uint64)
    np.add(_mod(words, span), np.uint64(base % 2**64), out=offsets, dtype=np.uint64)
    return offsets.view(np.int64)


def full_range(generator: Generator, n: int, dtype_name: str, max_value: int) -> np.ndarray:
    """`random_()` without bounds: 64-bit draws for int64/float64, 32-bit for the others;
    modulo `max_value + 1` (2**digits + 1 for floats; bool takes the low bit)."""
    with generator.lock:
        wide = dtype_name in ("int64", "float64")
        words = generator.words64(n) if wide else generator.words(n).astype(np.uint64)
    if dtype_name == "bool":
        return (words & np.uint64(1)).view(np.int64)
    return _mod(words, max_value + 1).view(np.int64)


def randperm(generator: Generator, n: int) -> np.ndarray:
    """PyTorch's CPU randperm. Below `_SMALL_RANDPERM`: Fisher-Yates swapping i with
    i + draw % (n - i) for i < n - 1 (32-bit draws); from it on, the inside-out variant:
    for i < n, i goes to z = draw % (i + 1) and what z held to i (64-bit draws)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    with generator.lock:
        if n < _SMALL_RANDPERM:
            words = generator.words(n - 1)
        else:
            words = generator.words64(n)[1:]  # the first draw, modulo 1, moves nothing
    if n < _SMALL_RANDPERM:
        targets = words % np.arange(n, 1, -1, dtype=np.uint32)
        targets += np.arange(n - 1, dtype=np.uint32)
        return _swaps(targets)
    # The inside-out swaps (i, z) for i = 1 .. n - 1 in reverse order, mirrored (position
    # p as n - 1 - p), are the forward swaps (k, n - 1 - z) for k = n - 1 - i: their
    # result is the inverse permutation, mirrored.
    lows = words % np.arange(2, n + 1, dtype=np.uint64)
    forward = _swaps(np.uint64(n - 1) - lows[::-1])
    mirrored = np.empty(n, np.int64)
    mirrored[forward] = np.arange(n)
    return (n - 1) - mirrored[::-1]


def _swaps(targets: np.ndarray) -> np.ndarray:
    """The array `arange(n)` after swapping positions i and targets[i] >= i (unsigned) for
    i = 0, 1, ..., n - 2 in turn, without a loop over i.

    Position k holds, just before step k, the value `held[k]`: k itself when no earlier
    step targeted k, else what the last such step took, `held` of that step. The steps
    that last targeted each position chain positions into disjoint paths of increasing
    indices, so `held` is each path's first position (found by pointer doubling). Step i
    then takes `held` of the step before it with the same target, or its target untouched.
    """
    n = targets.size + 1
    shift = max((n - 1).bit_length(), 1)
    key = np.dtype(np.uint32 if 2 * shift <= 32 else np.uint64).type
    keys: np.ndarray = targets.astype(key)
    keys <<= key(shift)
    keys |= np.arange(n - 1, dtype=key)
    keys.sort()  # by target, then step
    by_step = (keys & key((1 << shift) - 1)).astype(np.intp)
    keys >>= key(shift)
    by_target = keys.astype(np.intp)
    first = np.empty(n - 1, bool)  # the earliest step of its target
    first[0] = True
    np.not_equal(by_target[1:], by_target[:-1], out=first[1:])
    # Each position's last step before it to target it: its target group's last step, or the
    # one before that when the last is the position's own step (none if that is all).
    ends = np.flatnonzero(np.append(first[1:], True))
    position = by_target[ends]
    own = by_step[ends] == position
    source = by_step[ends - own]
    held = np.arange(n, dtype=np.intp)
    held[position] = np.where(own & first[ends], position, source)
    active = np.flatnonzero(held != np.arange(n))
    while active.size:  # pointer doubling, on the positions not yet at their path's start
        parent = held[active]
        grand = held[parent]
        held[active] = grand
        active = active[grand != parent]
    order = host_buffer(n, np.int64)
    order[by_step] = by_target  # the first step to a target takes it untouched
    later = np.flatnonzero(~first)
    order[by_step[later]] = held[by_step[later - 1]]
    order[n - 1] = held[n - 1]
    return order


def bernoulli(generator: Generator, n: int, p: float) -> np.ndarray:
    """`bernoulli_(p)` for a number p: a 53-bit uniform below p, one 64-bit draw each (the
    53 bits compared as integers: u * 2**-53 < p exactly when the bits are below
    ceil(p * 2**53))."""
    bound = min(max(math.ceil(p * 2.0**53), 0), 2**53)
    high, low = divmod(bound, 2**32)
    with generator.lock:
        words = generator.words(2 * n).reshape(n, 2)
    top = words[:, 0] & np.uint32(_LOW_53 >> 32)
    below = np.less(top, high, out=host_buffer(n, bool))
    if low:
        below |= (top == high) & (words[:, 1] < low)
    return below


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
    return (-1.0 / lambd) * _exact(math.log1p, -u)


def _c_exp(x: float) -> float:
    """The C library's exp: inf past float64's range, where Python's raises."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _c_log(x: float) -> float:
    """The C library's log of a uniform: -inf at 0, where Python's raises."""
    return math.log(x) if x > 0 else -math.inf


def cauchy(generator: Generator, n: int, median: float, sigma: float) -> np.ndarray:
    """`cauchy_(median, sigma)`: `median + sigma * tan(pi * (u - 0.5))` in float64 (one
    multiply-add), u a 53-bit uniform."""
    with generator.lock:
        u = unit(generator, n, 53)
    return fma64(float(sigma), _exact(math.tan, math.pi * (u - 0.5)), float(median))


def log_normal(generator: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """`log_normal_(mean, std)`: `exp(z * std + mean)` (one multiply-add) in float64, z
    PyTorch's scalar standard normal (Box-Muller, its cached sample used in turn)."""
    with generator.lock:
        z = np.array([_box_muller(generator, 0.0, 1.0) for _ in range(n)], np.float64)
    return _exact(_c_exp, fma64(z, float(std), float(mean)))


def geometric(generator: Generator, n: int, p: float) -> np.ndarray:
    """`geometric_(p)`: `ceil(log(u) / log1p(-p))` in float64, u a 53-bit uniform."""
    with generator.lock:
        u = unit(generator, n, 53)
    return np.ceil(_exact(_c_log, u) / math.log1p(-p))
