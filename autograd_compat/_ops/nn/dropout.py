"""Dropout and channel dropout; the mask key is an op input drawn from the library's generator."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..._pure.op import scalar_input
from ..._tape.record import apply
from ._common import _inplace_result, _key_array, _tensor, register

__all__ = ["dropout", "dropout1d", "dropout2d"]


def _scale(p, dtype):
    """1 / (1 - p), 0 for p = 1, computed in float64 and rounded to `dtype` once."""
    p = jnp.asarray(p, jnp.float64)
    dropped = p >= 1.0
    return jnp.where(dropped, 0.0, 1.0 / (1.0 - jnp.where(dropped, 0.0, p))).astype(dtype)


def _dropout_fn(x, key, p):
    """`p` a runtime float64 input (a Python float inside attention's op)."""
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 1.0 - jnp.asarray(p), x.shape)
    return jnp.where(keep, x * _scale(p, x.dtype), jnp.zeros((), x.dtype))


def _channel_dropout_fn(x, key, p, *, batched):
    shape = x.shape[:2] if batched else x.shape[:1]
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 1.0 - p, shape)
    keep = keep.reshape(shape + (1,) * (x.ndim - len(shape)))
    return jnp.where(keep, x * _scale(p, x.dtype), jnp.zeros((), x.dtype))


# p is a runtime input (a new p never compiles); only the input is the node's input.
_DROPOUT = register("dropout", _dropout_fn, node="NativeDropoutBackward0", shown_inputs=(0,))
_CHANNEL_DROPOUT = register(
    "dropout.channel", _channel_dropout_fn, node="MulBackward0", shown_inputs=(0,)
)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only).

    The mask comes from this library's generator, so it differs from PyTorch's draws.
    """
    _tensor(input, "dropout")
    _check_p(p)
    if not training or p == 0.0:
        return input
    result = apply(_DROPOUT, input, _key_array(), scalar_input(float(p)))
    return _inplace_result(input, result, inplace)


def _feature_dropout(input, p, training, inplace, nd, fname):
    _tensor(input, fname)
    _check_p(p)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D input, but got input of size: "
            f"{list(input.shape)}"
        )
    if not training or p == 0.0:
        return input
    result = apply(
        _CHANNEL_DROPOUT,
        input,
        _key_array(),
        scalar_input(float(p)),
        batched=input.ndim == nd + 2,
    )
    return _inplace_result(input, result, inplace)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) input."""
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, H, W) input."""
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")
