"""Dropout, channel dropout and alpha dropout. Eagerly on the CPU backend the mask is
PyTorch's (a `bernoulli_(1 - p)` noise tensor: scaled by 1 / (1 - p) and multiplied in for
dropout, MulBackward0; scaled and shifted for alpha dropout, AddBackward0); in a trace or on
an accelerator it comes from a JAX key, an op input drawn from the generator."""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..._pure.device import host_buffer, host_to_device
from ..._pure.op import scalar_input
from ..._pure.opmath import opmath_dtype
from ..._state import draws
from ..._state.tensor import Tensor
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ..factories import zeros
from ..random import host_generator
from ._common import _inplace_result, _is_key, _key_array, _tensor, register

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]


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


def _host_keep(input: Tensor, p: float, shape: tuple) -> np.ndarray | None:
    """PyTorch's `bernoulli_(1 - p)` noise of `shape` for `input`, as 0/1 in input's dtype
    (None in a trace or on an accelerator: the mask then comes from a JAX key)."""
    g = host_generator(None, input.dtype)
    if g is None or isinstance(input._value, jax.core.Tracer):
        return None
    keep = draws.bernoulli(g, math.prod(shape), 1.0 - p).reshape(shape)
    return keep.astype(input._stored.dtype)


def _host_noise(input: Tensor, p: float, shape: tuple) -> jax.Array | None:
    """PyTorch's dropout noise for `input` (None in a trace or on an accelerator): 0/1 from
    `bernoulli_(1 - p)` in input's dtype, divided by 1 - p in its arithmetic (float32 for
    float16/bfloat16), shaped to broadcast against input."""
    keep = _host_keep(input, p, shape)
    if keep is None:
        return None
    compute = opmath_dtype(keep.dtype)
    scale = (compute.type(1.0) / compute.type(1.0 - p)).astype(keep.dtype)
    return _handed_over(np.multiply(keep, scale, out=host_buffer(keep.shape, keep.dtype)))


def _handed_over(noise: np.ndarray) -> jax.Array:
    """Noise drawn here, on the device (on the CPU an aligned buffer is not copied)."""
    return host_to_device(noise, owned=True)


def dropout_source(like: Tensor, p: float, shape: tuple):
    """What a dropout multiplies by (`_dropout_op`): PyTorch's noise of `shape` from the host
    generator (`_host_noise`), else key data for JAX's mask (a trace, an accelerator)."""
    noise = _host_noise(like, p, shape)
    return _key_array() if noise is None else noise


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only),
    PyTorch's mask eagerly on the CPU backend."""
    _tensor(input, "dropout")
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:  # no draw: PyTorch multiplies by zero
        return input.mul_(0.0) if inplace else input.mul(0.0)
    source = dropout_source(input, p, tuple(input.shape))
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
    return _drop_channels(input, p, inplace, batched=input.ndim == nd + 2)


def _drop_channels(input, p: float, inplace: bool, batched: bool):
    """Zero whole channels (dimension 1 of a batched input, 0 otherwise) with probability p,
    one draw per (sample,) channel, and scale the rest by 1/(1-p)."""
    if p == 1.0:
        return input.mul_(0.0) if inplace else input.mul(0.0)
    kept = 2 if batched else 1
    source = dropout_source(input, p, tuple(input.shape[:kept]) + (1,) * (input.ndim - kept))
    result = apply(_CHANNEL_DROPOUT, input, source, scalar_input(float(p)), batched=batched)
    return _inplace_result(input, result, inplace)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) or (C, L) input."""
    result = _feature_dropout(input, p, training, inplace, 1, "dropout1d")
    return _unbatched_as_view(result, 2, inplace)


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


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input; other ranks warn, as in
    PyTorch, and drop along their first dimension."""
    _tensor(input, "dropout3d")
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if not training or p == 0.0 or input.numel() == 0:
        return _unbatched_as_view(input, 4, inplace)
    return _unbatched_as_view(
        _drop_channels(input, p, inplace, batched=input.ndim == 5), 4, inplace
    )


def _unbatched_as_view(result, unbatched_ndim: int, inplace: bool):
    """The result for an unbatched input as PyTorch returns it: dropout1d/3d unsqueeze the
    input and squeeze the result, so it is a view (SqueezeBackward1), the input itself
    included when nothing was dropped; in place, the input itself."""
    if inplace or result.ndim != unbatched_ndim:
        return result
    return result.unsqueeze(0).squeeze(0)


_ALPHA = 1.7580993408473766  # PyTorch's -SELU saturation value (scale * alpha)


def _alpha_scale(p, sqrt=jnp.sqrt):
    """Alpha dropout's scale a = 1 / sqrt((alpha**2 p + 1)(1 - p)) (float64)."""
    return 1.0 / sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))


def _alpha_dropout_fn(x, key, p, *, feature):
    """PyTorch's alpha dropout: x * a * mask + a * alpha * (p - (1 - mask)), keeping zero
    mean and unit variance for SELU networks (a from p in float64)."""
    shape = x.shape[:2] + (1,) * (x.ndim - 2) if feature else x.shape
    p = p.astype(jnp.float64)
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 1.0 - p, shape).astype(x.dtype)
    a = _alpha_scale(p)
    shift = (keep - 1) * (_ALPHA * a).astype(x.dtype) + (_ALPHA * a * p).astype(x.dtype)
    return x * (keep * a.astype(x.dtype)) + shift


@jax.custom_jvp
def _rounded(value):
    """`value` itself, through an operation XLA cannot see through: a multiply producing it
    is not fused with a following add into one multiply-add (PyTorch rounds both)."""
    return jax.lax.nextafter(value, value)


_rounded.defjvp(lambda primals, tangents: (_rounded(*primals), tangents[0]))


def _alpha_dropout_op(x, source, extra, *, feature, half=None):
    """`source`, `extra`: PyTorch's scaled noise and shift from the host, applied as PyTorch
    does (x * noise, rounded, + shift), or key data and p for the JAX mask (a trace, an
    accelerator). `half`: the float16/bfloat16 dtype the float32 product rounds to first."""
    if _is_key(source):
        return _alpha_dropout_fn(x, source, extra, feature=feature)
    product = _rounded(x * source)
    if half is not None:
        product = product.astype(half).astype(product.dtype)
    return product + extra


_ALPHA_DROPOUT = register(
    "alpha_dropout", _alpha_dropout_op, node="AddBackward0", shown_inputs=(0,)
)


def _alpha_host_noise(input: Tensor, p: float, feature: bool) -> tuple | None:
    """PyTorch's alpha dropout noise and shift for `input` (None in a trace or on an
    accelerator): from the 0/1 noise, shift = (noise - 1) * alpha * a + alpha * a * p and
    noise * a, each step in input's arithmetic rounded to its dtype."""
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = _host_keep(input, p, shape)
    if keep is None:
        return None
    dtype, compute = keep.dtype, opmath_dtype(keep.dtype)
    a = _alpha_scale(p, math.sqrt)

    def step(values, fn):
        return fn(values.astype(compute)).astype(dtype)

    shift = step(step(keep, lambda v: v - 1), lambda v: v * compute.type(_ALPHA * a))
    shift = step(shift, lambda v: v + compute.type(_ALPHA * a * p))
    return _handed_over(step(keep, lambda v: v * compute.type(a))), _handed_over(shift)


def _alpha_dropout(input, p, training, inplace, feature: bool, fname: str):
    _tensor(input, fname)
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "result type Float can't be cast to the desired output type "
            f"{scalar_type_name(input.dtype)}"
        )
    if p == 1.0:
        result = input * zeros((), dtype=input.dtype)
    else:
        noise = _alpha_host_noise(input, p, feature)
        if noise is None:
            result = apply(
                _ALPHA_DROPOUT, input, _key_array(), scalar_input(float(p)), feature=feature
            )
        else:
            half = input.dtype.jax if input.dtype.itemsize == 2 else None
            result = apply(_ALPHA_DROPOUT, input, *noise, feature=feature, half=half)
    return _inplace_result(input, result, inplace)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and
    the result is rescaled to keep the input's mean and variance (training only)."""
    return _alpha_dropout(input, p, training, inplace, False, "alpha_dropout")


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Alpha dropout of whole channels (dimension 1) of a batched input."""
    return _alpha_dropout(input, p, training, inplace, True, "feature_alpha_dropout")
