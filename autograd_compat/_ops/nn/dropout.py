"""Dropout and channel dropout. Eagerly on the CPU backend the mask is PyTorch's (a
`bernoulli_(1 - p)` noise tensor scaled by 1 / (1 - p), multiplied in: MulBackward0); in a
trace or on an accelerator it comes from a JAX key, an op input drawn from the generator."""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..._pure.op import scalar_input
from ..._state import draws
from ..._state.tensor import Tensor
from ..._tape.record import apply
from ..factories import _device_array
from ..random import host_generator
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


def _is_key(source) -> bool:
    """Whether a dropout op's `source` is key data (uint32), not PyTorch's noise."""
    return jnp.issubdtype(source.dtype, jnp.unsignedinteger)


def _dropout_op(x, source, p):
    """`source`: PyTorch's noise from the host, multiplied in as PyTorch does, or key data
    for the JAX mask (a trace, an accelerator)."""
    return _dropout_fn(x, source, p) if _is_key(source) else x * source


def _channel_dropout_op(x, source, p, *, batched):
    if _is_key(source):
        return _channel_dropout_fn(x, source, p, batched=batched)
    return x * source


# p is a runtime input (a new p never compiles); only the input is the node's input. PyTorch's
# CPU dropout multiplies by its noise: MulBackward0.
_DROPOUT = register("dropout", _dropout_op, node="MulBackward0", shown_inputs=(0,))
_CHANNEL_DROPOUT = register(
    "dropout.channel", _channel_dropout_op, node="MulBackward0", shown_inputs=(0,)
)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _host_noise(input: Tensor, p: float, shape: tuple) -> jax.Array | None:
    """PyTorch's dropout noise for `input` (None in a trace or on an accelerator): 0/1 from
    `bernoulli_(1 - p)` in input's dtype, divided by 1 - p in its arithmetic (float32 for
    float16/bfloat16), shaped to broadcast against input."""
    g = host_generator(None, input.dtype)
    if g is None or isinstance(input._value, jax.core.Tracer):
        return None
    dtype = np.dtype(input._stored.dtype)
    keep = draws.bernoulli(g, math.prod(shape), 1.0 - p).reshape(shape)
    compute = np.float64 if dtype == np.float64 else np.float32
    scale = (compute(1.0) / compute(1.0 - p)).astype(dtype)
    return _device_array(keep.astype(dtype) * scale)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only),
    PyTorch's mask eagerly on the CPU backend."""
    _tensor(input, "dropout")
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:  # no draw: PyTorch multiplies by zero
        return input.mul_(0.0) if inplace else input.mul(0.0)
    noise = _host_noise(input, p, tuple(input.shape))
    source = _key_array() if noise is None else noise
    result = apply(_DROPOUT, input, source, scalar_input(float(p)))
    return _inplace_result(input, result, inplace)


def _feature_dropout(input, p, training, inplace, nd, fname):
    _tensor(input, fname)
    _check_p(p)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D input, but got input of size: "
            f"{list(input.shape)}"
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input.mul(0.0)
    kept = 2 if input.ndim == nd + 2 else 1  # one draw per (sample,) channel
    noise = _host_noise(input, p, tuple(input.shape[:kept]) + (1,) * (input.ndim - kept))
    result = apply(
        _CHANNEL_DROPOUT,
        input,
        _key_array() if noise is None else noise,
        scalar_input(float(p)),
        batched=input.ndim == nd + 2,
    )
    return _inplace_result(input, result, inplace)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) input."""
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, H, W) input; a 3-D input is (N, C, L), as in PyTorch."""
    if isinstance(input, Tensor) and input.ndim == 3:
        warnings.warn(_DROPOUT2D_3D, stacklevel=2)
        return _feature_dropout(input, p, training, inplace, 1, "dropout2d")
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


_DROPOUT2D_3D = (
    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
    "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
    "This behavior will change in a future release to interpret the input as one without a "
    "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
    "please switch to using dropout1d instead."
)
