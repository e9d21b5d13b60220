"""Poisson and binomial draws: `torch.poisson`, `torch.binomial` and the count distributions'
samplers. PyTorch draws them with native samplers whose values this library does not
reproduce; these draw correctly distributed counts with jax.random, keyed from the library's
generator (`torch.manual_seed` makes them repeatable), as floats of the parameters' dtype.
As in PyTorch, a Poisson draw's gradient to its rate is zero (`PoissonBackward0`), and a
binomial draw has no derivative (its backward raises PyTorch's error)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import executables
from .._pure.op import register
from .._pure.shapes import broadcast_shapes
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from .elementwise import _no_derivative
from .factories import _finish

__all__ = ["binomial", "poisson"]

# The samplers compile per shape (a rejection loop, about a second): the parameters are drawn
# flattened and padded to a power of two of elements, one compilation per bucket.
_SMALLEST_BUCKET = 64


def _poisson_counts(key, rate):
    """Poisson counts, infinite where the rate is (PyTorch's sampler gives a garbage count)."""
    counts = jax.random.poisson(key, rate).astype(rate.dtype)
    return jnp.where(jnp.isinf(rate), rate, counts)


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


def _drawn(parameter, sample):
    """A draw recorded as a function of its parameter: the sample, with zero gradient."""
    return sample


_POISSON_OP = register("poisson", _drawn, node="PoissonBackward0", saves="none")
_BINOMIAL_OP = register(
    "binomial",
    _no_derivative("binomial", lambda count, prob, sample: sample),
    node="torch::autograd::NotImplemented",
)


def poisson(input, generator=None) -> Tensor:
    """A Poisson(rate) count per element of the rates `input`, in its dtype; its gradient to
    `input` is zero."""
    rate = tensor_arg(input, "poisson")
    if not rate.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{scalar_type_name(rate.dtype)}'"
        )
    value = rate._value
    if not isinstance(value, jax.core.Tracer) and not np.all(np.asarray(value) >= 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return apply(_POISSON_OP, rate, sample_poisson(rate, generator)._value)


def binomial(count, prob, generator=None) -> Tensor:
    """A Binomial(count, prob) count per element of `count` and `prob` broadcast together, in
    their (one floating) dtype; it has no derivative."""
    count = tensor_arg(count, "binomial", "count", 1)
    prob = tensor_arg(prob, "binomial", "prob", 2)
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: "
                f"{scalar_type_name(t.dtype)}"
            )
    if prob.dtype != count.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type_name(prob.dtype)} but expected "
            f"{scalar_type_name(count.dtype)}"
        )
    shape = broadcast_shapes(tuple(count.shape), tuple(prob.shape))
    count, prob = count.expand(shape), prob.expand(shape)
    return apply(_BINOMIAL_OP, count, prob, sample_binomial(count, prob, generator)._value)
