"""torch.nonzero_static: nonzero's indices in a result of fixed size, so it compiles (and runs
under a trace) where nonzero, whose size depends on the values, cannot."""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from .._pure.op import register
from .._tape.args import tensor_arg
from .._tape.record import apply
from .out_arg import takes_out

__all__ = ["nonzero_static"]


def _nonzero_static(x, *, size: int, fill_value: int):
    """The first `size` indices of x's nonzero elements (NaN counts), as rows of an int64
    (size, ndim) array; rows past the last nonzero element hold `fill_value`."""
    if x.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    if x.size == 0:  # jnp.nonzero fills with zeros here
        return jnp.full((size, x.ndim), fill_value, jnp.int64)
    positions = jnp.nonzero(x, size=size, fill_value=fill_value)
    return jnp.stack(positions, axis=1).astype(jnp.int64)


_NONZERO_STATIC = register(
    "nonzero_static", _nonzero_static, node="NonzeroStaticBackward0", differentiable=False
)


def _int_argument(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"nonzero_static(): argument '{name}' must be int, not {type(value).__name__}"
        )
    return int(value)


@takes_out
def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the first `size` nonzero elements of `input`, one row each (an int64
    (size, input.dim()) tensor), padded with rows of `fill_value`.

    Example::

        >>> torch.nonzero_static(torch.tensor([0.0, 2.0, 0.0, 3.0]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    tensor_arg(input, "nonzero_static")
    size = _int_argument(size, "size")
    fill_value = _int_argument(fill_value, "fill_value")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return apply(_NONZERO_STATIC, input, size=size, fill_value=fill_value)
