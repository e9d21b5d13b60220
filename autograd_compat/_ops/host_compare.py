"""Comparisons of a 0-d CPU tensor with a number or another 0-d tensor, read on the host.

`while y.norm() < 1000:` compares one number per iteration: through an XLA dispatch the
comparison costs about 10 us, read on the host about 5. A comparison is exact, so the host
result is XLA's except at subnormal values, which XLA:CPU flushes to zero (those, and complex
values, take the op as before). The result is one of the two cached 0-d bool arrays (JAX's
arrays are immutable; an in-place op on the tensor rebinds its value and never changes them).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.op import constant
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.args import is_tracer

_BOOL = np.dtype(np.bool_)  # the results' dtype (a numpy dtype hashes in C: a cheap cache key)


@functools.cache
def _on_cpu(sharding) -> bool:
    return all(d.platform == "cpu" for d in sharding.device_set)


@functools.cache
def _smallest_normal(jax_dtype) -> float:
    return float(jnp.finfo(jax_dtype).tiny)


def _subnormal(x: float, jax_dtype) -> bool:
    return x != 0 and abs(x) < _smallest_normal(jax_dtype)


def _read(array, target) -> float | int | bool:
    """A 0-d array's value as a Python number, converted to `target` as XLA converts (numpy's
    overflow warnings off: XLA's conversion warns of nothing)."""
    host = np.asarray(array)
    if host.dtype != target:
        with np.errstate(all="ignore"):
            host = host.astype(target)
    return host.item()


def _host_value(other, place):
    """`other` (a Python number or a 0-d Tensor) as what the host comparison reads: the number,
    or the Tensor's array when it lies, uncommitted, where `place` says; else None."""
    if type(other) in (float, int, bool):
        return other
    if isinstance(other, Tensor):
        array = other._value
        if array.ndim == 0 and not is_tracer(array) and not array.committed:
            return array if array.sharding == place else None
    return None


def host_compare(compare, input: Tensor, other) -> Tensor | None:
    """`compare(input, other)` (an `operator` comparison) as a 0-d bool Tensor computed on the
    host, or None where the op must run: a value that is no 0-d CPU array where the cached
    results lie (a tracer, another device, an array committed to its device), a mode with its
    own op path (`modes.special`), a complex or subnormal value."""
    value = input._value
    if value.ndim or modes.special or is_tracer(value):
        return None
    place = constant(True, _BOOL).sharding  # the results' placement (uncommitted)
    if value.committed or value.sharding != place or not _on_cpu(place):
        return None
    operand = _host_value(other, place)
    if operand is None:
        return None
    dtype = _dtypes.binary_result_type(input, other)
    if dtype.is_complex:
        return None
    target = dtype.jax
    if not isinstance(operand, jax.Array):
        operand = constant(operand, target)  # the number as the op gets it
    x, y = _read(value, target), _read(operand, target)
    if dtype.is_floating_point and (_subnormal(x, target) or _subnormal(y, target)):
        return None
    return Tensor._wrap(constant(compare(x, y), _BOOL))
