"""Comparisons of a 0-d CPU tensor with a number or another 0-d tensor, read on the host.

`while y.norm() < 1000:` compares one number per iteration: through an XLA dispatch the
comparison costs about 10 us, read on the host about 3. A comparison is exact, so the host
result is XLA's except at subnormal values, which XLA:CPU flushes to zero (those, and complex
values, take the op as before). The result stays on the host until an op reads it: a
`HostTensor` over one of two read-only 0-d numpy bools, so `bool()` of it (the `while` test)
reads no device array (measured in the doubling loop: ~8 -> ~2 us); an op reading it gets a
device array of its own, and an in-place op on it rebinds its value, never the shared bool.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.jax_internals import ArrayImpl
from .._pure.op import constant
from .._state.modes import modes
from .._state.tensor import MetaValueError, Tensor, hold_on_host

_BOOL = np.dtype(np.bool_)  # the marker's dtype (a numpy dtype hashes in C: a cheap cache key)


class _Place:
    """Where a comparison's device result would lie (JAX's default placement, that of a cached
    constant) and whether that is the CPU: found again only when the cached constant is
    another array (the default device changed, or the constant cache let it go). `matched`:
    the last other sharding found equal to it (every result of one program shares one sharding
    object, so a loop's comparisons skip the ~3 us `==` after the first)."""

    marker = place = matched = None
    on_cpu = False

    @classmethod
    def current(cls):
        marker = constant(True, _BOOL)
        if marker is not cls.marker:
            cls.marker, cls.place, cls.matched = marker, marker.sharding, None
            cls.on_cpu = all(d.platform == "cpu" for d in cls.place.device_set)
        return cls

    @classmethod
    def holds(cls, array) -> bool:
        """Whether `array` is a 0-d array lying, uncommitted, at `place`."""
        if type(array) is not ArrayImpl or array._committed or array.aval.shape:
            return False  # (a tracer, a committed or n-d array)
        sharding = array.sharding
        if sharding is cls.place or sharding is cls.matched:
            return True
        if sharding == cls.place:
            cls.matched = sharding
            return True
        return False


def _read_only(flag: bool) -> np.ndarray:
    array = np.array(flag)
    array.flags.writeable = False
    return array


_RESULTS = (_read_only(False), _read_only(True))  # a result's host value, shared read-only


@functools.cache
def _smallest_normal(jax_dtype) -> float:
    return float(jnp.finfo(jax_dtype).tiny)


def _read(array, target) -> float | int | bool:
    """A 0-d array's value as a Python number, converted to `target` as XLA converts (numpy's
    overflow warnings off: XLA's conversion warns of nothing)."""
    host = np.asarray(array)
    if host.dtype != target:
        with np.errstate(all="ignore"):
            host = host.astype(target)
    return host.item()


@functools.lru_cache(maxsize=256, typed=True)  # (typed: 1, 1.0 and True are distinct keys)
def _number(value, target) -> float | int | bool:
    """A Python number as the op gets it: converted to `target` as `constant` converts it."""
    return np.asarray(value, target).item()


def host_compare(compare, input: Tensor, other) -> Tensor | None:
    """`compare(input, other)` (an `operator` comparison) as a 0-d bool Tensor computed on the
    host, or None where the op must run: a value that is no 0-d CPU array where a device result
    would lie (a tracer, another device, an array committed to its device), a mode with its own
    op path (`modes.special`), a complex or subnormal value."""
    if modes.special:
        return None
    where = _Place.current()
    kind = type(other)
    number = kind is float or kind is int or kind is bool
    try:
        value = input._value
        if not where.on_cpu or not where.holds(value):
            return None
        if not number and not (isinstance(other, Tensor) and where.holds(other._value)):
            return None
    except MetaValueError:  # a meta tensor: no values (the op gives its shape)
        return None
    dtype = _dtypes.binary_result_type(input, other)
    if dtype.is_complex:
        return None
    target = dtype.jax
    x = _read(value, target)
    y = _number(other, target) if number else _read(other._value, target)
    if dtype.is_floating_point:
        tiny = _smallest_normal(target)
        if 0 < abs(x) < tiny or 0 < abs(y) < tiny:  # a subnormal value (NaN is no subnormal)
            return None
    return hold_on_host(Tensor._wrap(_RESULTS[compare(x, y)]))
