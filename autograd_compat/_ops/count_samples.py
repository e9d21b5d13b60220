"""Poisson and binomial draws for the count distributions. PyTorch draws them with native
samplers (`torch.poisson`, `torch.binomial`) whose values this library does not reproduce;
these draw correctly distributed counts with jax.random, keyed from the library's generator
(`torch.manual_seed` makes them repeatable), as floats of the parameters' dtype and without
gradient, as PyTorch's are."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .._pure import executables
from .._state import random as _random
from .._state.tensor import Tensor
from .factories import _finish

__all__ = ["sample_binomial", "sample_poisson"]

# The samplers compile per shape (a rejection loop, about a second): the parameters are drawn
# flattened and padded to a power of two of elements, one compilation per bucket.
_SMALLEST_BUCKET = 64


def _poisson_counts(key, rate):
    return jax.random.poisson(key, rate).astype(rate.dtype)


def _binomial_counts(key, count, probs):
    return jax.random.binomial(key, count, probs, dtype=probs.dtype)


_POISSON = executables.jit(_poisson_counts)
_BINOMIAL = executables.jit(_binomial_counts)


def _padded(value: jax.Array, fill: float, bucket: int) -> jax.Array:
    """`value` flattened and padded with `fill` to `bucket` elements."""
    flat = value.reshape(-1)
    return jnp.pad(flat, (0, bucket - flat.size), constant_values=fill)


def _draw(sampler, params: tuple[Tensor, ...], fills: tuple[float, ...], generator) -> Tensor:
    """`sampler(key, *params)` on the flattened, padded parameters, cut back to their shape."""
    shape = tuple(params[0].shape)
    size = math.prod(shape)
    bucket = max(_SMALLEST_BUCKET, 1 << max(size - 1, 0).bit_length())
    values = [_padded(p.detach()._value, fill, bucket) for p, fill in zip(params, fills)]
    counts = sampler(_random.key(generator), *values)
    return _finish(counts[:size].reshape(shape), False)


def sample_poisson(rate: Tensor, generator=None) -> Tensor:
    """Poisson(rate) counts, one per element of `rate` (the draw of `torch.poisson`)."""
    return _draw(_POISSON, (rate,), (0.0,), generator)


def sample_binomial(count: Tensor, probs: Tensor, generator=None) -> Tensor:
    """Binomial(count, probs) counts of two tensors of one shape (the draw of
    `torch.binomial`)."""
    return _draw(_BINOMIAL, (count, probs), (0.0, 0.5), generator)
