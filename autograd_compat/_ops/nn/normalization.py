"""Batch, layer, RMS and group normalization, each one fused op; batch norm updates its
running statistics outside the graph. Instance norm is batch norm of a (1, N*C, ...) view.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero

from ..._defer.lazy import Pending
from ..._pure import dtypes as _dtypes
from ..._pure import executables
from ..._pure.middle_sums import broadcast_from_middle, sum_middle
from ..._pure.op import scalar_input
from ..._pure.row_sums import broadcast_rows, mean_along_rows
from ..._pure.shapes import Size
from ..._state.tensor import Tensor
from ..._tape.args import commit_inplace, scalar_type_name
from ..._tape.record import apply
from ._common import _tensor, register

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "rms_norm"]


def _scale_shift(y, affine, shape, has_weight, has_bias):
    """`y * weight + bias` for the present ones of `affine`, each reshaped to `shape` if given."""
    affine = list(affine)
    if has_weight:
        w = affine.pop(0)
        y = y * (w if shape is None else w.reshape(shape))
    if has_bias:
        b = affine.pop(0)
        y = y + (b if shape is None else b.reshape(shape))
    return y


def _apply_norm(op, input, *statistics, eps, weight, bias, **static):
    """Apply a normalization op to `input`, `statistics`, `eps` (an array input, so that no eps
    compiles anew) and those of `weight` and `bias` that are given, telling it which they are."""
    affine = [t for t in (weight, bias) if t is not None]
    return apply(
        op,
        input,
        *statistics,
        scalar_input(float(eps)),
        *affine,
        has_weight=weight is not None,
        has_bias=bias is not None,
        **static,
    )


def _moments(x, axes):
    """The mean and the biased variance of `x` over `axes`, which stay as size-1 dims."""
    mean = mean_along_rows(x, axes)
    return mean, mean_along_rows(jnp.square(x - mean), axes)


def _bn_train_fn(x, eps, *affine, has_weight, has_bias):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if x.dtype in _SAVING_DTYPES:
        w, b = _split_affine(affine, has_weight, has_bias, shape)
        y = _batch_norm_of_input(x, eps, w, b)
        # The statistics are no differentiable outputs (they only update the running ones),
        # so their pullback saves nothing: the backward reads x and the per-channel statistics.
        mean, var = _channel_moments(lax.stop_gradient(x))
    else:
        mean, var = _moments(x, (0,) + tuple(range(2, x.ndim)))
        y = (x - mean) * lax.rsqrt(var + eps.astype(var.dtype))
        y = _scale_shift(y, affine, shape, has_weight, has_bias)
        mean, var = lax.stop_gradient(mean), lax.stop_gradient(var)
    count = x.size // x.shape[1]
    return y, mean.reshape(-1), var.reshape(-1) * (count / max(count - 1, 1))


CHANNELS = (1, 2)  # the channel dim of an (N, C, ...) array, as a `_pure/middle_sums` span


def _channel_mean(x):
    """The mean of `x` (N, C, ...) per channel, as (1, C, 1, ...), summed in two stages."""
    return sum_middle(x, CHANNELS, keepdims=True) / (x.size // x.shape[1])


def _per_channel(v, shape: tuple):
    """`v` (1, C, 1, ...) broadcast to `shape` as the transpose of `_channel_mean`'s sums."""
    return broadcast_from_middle(v, shape, CHANNELS)


def _channel_moments(x):
    """The per-channel mean and biased variance of `x` (N, C, ...), as (1, C, 1, ...)."""
    mean = _channel_mean(x)
    return mean, _channel_mean(jnp.square(x - mean))


def _bn_eval_fn(x, mean, var, eps, *affine, has_weight, has_bias):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) * lax.rsqrt(var + eps.astype(var.dtype)).reshape(shape)
    y = _scale_shift(y, affine, shape, has_weight, has_bias)
    return y


# eps is a runtime input (a new eps never compiles), placed before the optional weight and
# bias; shown_inputs keeps it and the running statistics out of next_functions.
_BN_TRAIN = register(
    "batch_norm",
    _bn_train_fn,
    node="NativeBatchNormBackward0",
    shown_inputs=(0, 2, 3),
    residuals="all",
)
_BN_EVAL = register(
    "batch_norm.eval", _bn_eval_fn, node="NativeBatchNormBackward0", shown_inputs=(0, 4, 5)
)


def _ema(running, statistic, momentum):
    """The running-statistics update: (1 - momentum) * running + momentum * statistic
    (`momentum` a runtime input: a cumulative average's changes every step)."""
    m = momentum.astype(running.dtype)
    return (1 - m) * running + m * statistic.astype(running.dtype)


_RUNNING_STATS = register(
    "_internal.running_stats", _ema, node="RunningStatsBackward", differentiable=False
)


def _update_running(buffer: Tensor, statistic: Tensor, momentum: float) -> None:
    """Write the update into `buffer` as an in-place op does: an op like the others, so a
    step's batch norms leave its forward's run of deferred ops open."""
    update = apply(_RUNNING_STATS, buffer, statistic, scalar_input(momentum))
    if type(update._stored) is Pending:  # (a deferred value: the write stays deferred)
        commit_inplace(buffer, update)
    else:  # (through `_set_value`, which a trace of torch.func's watches)
        buffer._set_value(update._value)
        buffer._bump_version()


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
):
    """Batch normalization over dim 1; in training, updates the running statistics in place.

    The running variance uses the unbiased batch variance, as in PyTorch.
    """
    _tensor(input, "batch_norm")
    if training:
        size = input.numel() // input.shape[1] if input.ndim > 1 else 0
        if size <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    channels = input.shape[1]
    given = (("running_mean", running_mean), ("running_var", running_var))
    for name, t in (*given, ("weight", weight), ("bias", bias)):  # PyTorch's order
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    norm_args = dict(eps=eps, weight=weight, bias=bias)
    if training or running_mean is None or running_var is None:
        y, mean, var = _apply_norm(_BN_TRAIN, input, **norm_args)
        if training and running_mean is not None and running_var is not None:
            _update_running(running_mean, mean, float(momentum))
            _update_running(running_var, var, float(momentum))
        return y
    return _apply_norm(_BN_EVAL, input, running_mean, running_var, **norm_args)


def _layer_norm_fn(x, eps, *affine, dims, has_weight, has_bias):
    axes = tuple(range(x.ndim - dims, x.ndim))
    if x.dtype in _SAVING_DTYPES:
        # as rows of one matrix, as PyTorch's kernel reads it: the sums over the rows of the
        # weight's and bias's gradients are then products with ones (`_pure/row_sums`)
        features = math.prod(x.shape[x.ndim - dims :])
        rows = x.reshape(math.prod(x.shape[: x.ndim - dims]), features)
        w, b = _split_affine(affine, has_weight, has_bias, (features,))
        return _normalized_from_input(rows, eps, w, b, (1,))[0].reshape(x.shape)
    mean, var = _moments(x, axes)
    y = (x - mean) * lax.rsqrt(var + eps.astype(var.dtype))
    y = _scale_shift(y, affine, None, has_weight, has_bias)
    return y


_SAVING_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _split_affine(affine, has_weight, has_bias, shape):
    """(weight, bias) from the present ones of `affine`, None where absent, each reshaped to
    `shape` if given."""
    affine = list(affine)
    w = affine.pop(0) if has_weight else None
    b = affine.pop(0) if has_bias else None
    if shape is not None:
        w, b = (None if t is None else t.reshape(shape) for t in (w, b))
    return w, b


def _statistics(x, eps, axes):
    """The mean of `x` over `axes` and 1 / sqrt(biased variance + eps), as size-1 dims."""
    mean, var = _moments(x, axes)
    return mean, lax.rsqrt(var + eps.astype(var.dtype))


def _affine(y, w, b):
    """`y` scaled by `w` and shifted by `b`, each None where absent."""
    return _scale_shift(y, [t for t in (w, b) if t is not None], None, w is not None, b is not None)


def _normalized(x, eps, w, b, axes):
    """`x` normalized over `axes`, scaled by `w` and shifted by `b` (each None where absent)."""
    mean, r = _statistics(x, eps, axes)
    y = (x - mean) * r
    return _affine(y, w, b)


@partial(jax.custom_jvp, nondiff_argnums=(4,))
def _normalized_from_input(x, eps, w, b, axes):
    """(output, mean, 1 / sqrt(variance + eps)) of layer norm over `axes` (w and b: None where
    absent, else broadcasting against `x`), the statistics as size-1 dims; group norm is this
    over a grouped view. Differentiated as PyTorch's layer and group norms are, from the input
    and statistics: the tangents multiply the input tangent by `x`, `w` and the statistics
    only, never by an array of x's size computed in the forward, so the pullback's residuals
    (`_pure/residuals`) are `x`, `w` and the statistics; its backward recomputes neither the
    mean nor the variance."""
    mean, r = _statistics(x, eps, axes)
    return _normalized(x, eps, w, b, axes), mean, r


@jax.custom_jvp
def _batch_norm_of_input(x, eps, w, b):
    """Batch norm (w and b: None where absent, else (1, C, 1, ...)) differentiated as
    PyTorch's is: the pullback's residuals are `x`, `w` and the per-channel statistics, and
    its backward makes two passes over `x` (the sums of the cotangent and of its product with
    the centred input, which both the input's and the weight's gradients read) and one that
    writes the input's gradient, as PyTorch's kernel does. The centred input `x - mean` is
    computed again in the backward (`jax.checkpoint`), never saved: PyTorch keeps the input
    and the statistics alone. Its sums are `_channel_mean`'s, forward and backward."""
    mean, r = _channel_statistics(x, eps)
    y = (x - mean) * r
    return _affine(y, w, b)


def _channel_statistics(x, eps):
    """The per-channel mean of `x` and 1 / sqrt(biased variance + eps), as (1, C, 1, ...)."""
    mean, var = _channel_moments(x)
    return mean, lax.rsqrt(var + eps.astype(var.dtype))


def _present(tangent) -> bool:
    return not isinstance(tangent, SymbolicZero)


def _sum_of(parts: list, out):
    """The tangent made of `parts` (zeros where none), in `out`'s dtype."""
    if not parts:
        return jnp.zeros_like(out)
    tangent = parts[0]
    for part in parts[1:]:
        tangent = tangent + part
    return tangent.astype(out.dtype)


@partial(_normalized_from_input.defjvp, symbolic_zeros=True)
def _normalized_from_input_jvp(axes, primals, tangents):
    x, eps, w, b = primals
    dx, _, dw, db = tangents
    out = _normalized_from_input(x, eps, w, b, axes)
    y, mean, r = out
    parts = []
    d_mean, d_r = jnp.zeros_like(mean), jnp.zeros_like(r)
    if _present(dx):  # d x_hat = r (u - x_hat mean(x_hat u)), u = dx - mean(dx)
        d_mean = mean_along_rows(dx, axes)
        u = dx - d_mean
        a = r * mean_along_rows(x * u, axes)  # mean(x_hat u): mean(u) is 0
        r2 = r * r
        d_hat = r * u - x * (r2 * a) + (mean * r2) * a
        parts.append(d_hat if w is None else w * d_hat)
        d_r = -r2 * a  # d var = 2 a / r
    if w is not None and _present(dw):  # x_hat dw, x_hat = x r - mean r
        dw = broadcast_rows(dw, y.shape)
        parts.append(x * (r * dw) - (mean * r) * dw)
    if b is not None and _present(db):
        parts.append(broadcast_rows(db, y.shape))
    return out, (_sum_of(parts, y), d_mean.astype(mean.dtype), d_r.astype(r.dtype))


@partial(_batch_norm_of_input.defjvp, symbolic_zeros=True)
def _batch_norm_of_input_jvp(primals, tangents):
    x, eps, w, b = primals
    dx, _, dw, db = tangents
    out = _batch_norm_of_input(x, eps, w, b)
    mean, r = _channel_statistics(x, eps)
    present = (_present(dx), w is not None and _present(dw), b is not None and _present(db))
    given = [t for t, p in zip((dx, dw, db), present) if p]
    tangent = jax.checkpoint(partial(_batch_norm_tangent, present))
    return out, tangent(x, mean, r, w, *given).astype(out.dtype)


def _batch_norm_tangent(present, x, mean, r, w, *given):
    """Batch norm's tangent from the `present` ones of (dx, dw, db). Under `jax.checkpoint`,
    so that the pullback's residuals are its primal arguments and the centred input it
    computes is computed again in the backward, never saved. Every per-channel factor
    multiplies a mean of a tangent, never a tangent inside a mean, and is broadcast by
    `_per_channel`, so that the transposed means sum the cotangent and
    `centred * cotangent` as `_channel_mean` does: two sums, which every term shares."""
    given = list(given)
    shape = x.shape
    centred = x - mean
    parts = []
    if present[0]:  # k (dx - mean(dx) - x_hat mean(x_hat dx)), k = w r
        dx = given.pop(0)
        k = r if w is None else w * r
        s1 = _channel_mean(dx)
        s2 = _channel_mean(centred * dx)
        shift = _per_channel(-k * s1, shape) + centred * _per_channel((-k * r * r) * s2, shape)
        parts.append(k * dx + shift)
    if present[1]:  # x_hat dw
        parts.append(centred * _per_channel(r * given.pop(0), shape))
    if present[2]:
        parts.append(_per_channel(given.pop(0), shape))
    return _sum_of(parts, jnp.zeros(shape, x.dtype))


_LAYER_NORM = register(
    "layer_norm",
    _layer_norm_fn,
    node="NativeLayerNormBackward0",
    shown_inputs=(0, 2, 3),
    residuals="all",
)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalize over the trailing `normalized_shape` dims, then scale and shift."""
    _tensor(input, "layer_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    n = len(normalized_shape)
    if tuple(input.shape[input.ndim - n :]) != normalized_shape or n > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(input.shape)}"
        )
    return _apply_norm(_LAYER_NORM, input, eps=eps, weight=weight, bias=bias, dims=n)


def _rms_norm_fn(x, eps, *weight, dims):
    axes = tuple(range(x.ndim - dims, x.ndim))
    y = x * lax.rsqrt(jnp.mean(jnp.square(x), axis=axes, keepdims=True) + eps.astype(x.dtype))
    if weight:
        y = y * weight[0]
    return y.astype(x.dtype)


_RMS_NORM = register("rms_norm", _rms_norm_fn, node="MulBackward0", shown_inputs=(0, 2))


def rms_norm(input, normalized_shape, weight=None, eps: float | None = None):
    """x / sqrt(mean(x²) + eps) over the trailing `normalized_shape` dims, times `weight`;
    `eps` None is the machine epsilon of the computation dtype (float32 for half inputs)."""
    _tensor(input, "rms_norm")
    if not isinstance(normalized_shape, (tuple, list, Size)):
        raise TypeError(
            "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    shape = tuple(int(s) for s in normalized_shape)
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        raise NotImplementedError(
            f"\"rms_norm\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(shape)}"
        )
    if len(shape) > input.ndim:
        raise ValueError(
            f"Input tensor must have at least {len(shape)} dimensions, but got {input.ndim}"
        )
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    if eps is None:
        wide = input.dtype in (_dtypes.float64, _dtypes.complex128)
        eps = float(np.finfo(np.float64 if wide else np.float32).eps)
    extra = [] if weight is None else [weight]
    return apply(_RMS_NORM, input, scalar_input(float(eps)), *extra, dims=len(shape))


def _group_norm_fn(x, eps, *affine, groups, has_weight, has_bias):
    """(output, mean, rstd), the statistics per sample and group: PyTorch's native_group_norm,
    whose three outputs are differentiable."""
    n, c = x.shape[0], x.shape[1]
    if x.dtype in _SAVING_DTYPES:  # layer norm of (n, groups, channels per group, elements)
        grouped = x.reshape(n, groups, c // groups, math.prod(x.shape[2:]))
        w, b = _split_affine(affine, has_weight, has_bias, (1, groups, c // groups, 1))
        y, mean, r = _normalized_from_input(grouped, eps, w, b, (2, 3))
        return y.reshape(x.shape), mean.reshape(n, groups), r.reshape(n, groups)
    grouped = x.reshape(n, groups, c // groups * math.prod(x.shape[2:]))
    mean, var = _moments(grouped, (2,))
    rstd = lax.rsqrt(var + eps.astype(var.dtype))
    y = ((grouped - mean) * rstd).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    y = _scale_shift(y, affine, shape, has_weight, has_bias)
    return y, mean.reshape(n, groups), rstd.reshape(n, groups)


_GROUP_NORM = register(
    "group_norm",
    _group_norm_fn,
    node="NativeGroupNormBackward0",
    shown_inputs=(0, 2, 3),
    residuals="all",
)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Normalize over groups of channels (dim 1), then scale and shift per channel."""
    _tensor(input, "group_norm")
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    return _apply_norm(
        _GROUP_NORM, input, eps=eps, weight=weight, bias=bias, groups=int(num_groups)
    )[0]


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
):
    """Normalize each channel of each sample over its spatial dims, then scale and shift.

    As PyTorch computes it: batch norm of the input viewed as (1, N * C, *), with the
    per-channel weight, bias and running statistics repeated N times; the running statistics
    become the mean over the batch of the updated copies.
    """
    _tensor(input, "instance_norm")
    if use_input_stats:
        spatial = int(np.prod(input.shape[2:]))
        if spatial == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.shape}"
            )
    elif running_mean is None or running_var is None:
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    b, c = input.shape[0], input.shape[1]
    repeated = [None if t is None else t.repeat(b) for t in (running_mean, running_var)]
    out = batch_norm(
        input.reshape(1, b * c, *input.shape[2:]),
        repeated[0],
        repeated[1],
        None if weight is None else weight.repeat(b),
        None if bias is None else bias.repeat(b),
        use_input_stats,
        momentum,
        eps,
    )
    for buffer, updated in zip((running_mean, running_var), repeated):
        if buffer is not None and updated is not None and use_input_stats:
            buffer._set_value(_mean_over_batch(updated._value, batch=b))
            buffer._bump_version()
    return out.reshape(input.shape)


@partial(executables.jit, static_argnames="batch")
def _mean_over_batch(repeated, *, batch: int):
    """A running statistic from its batch-repeated copy: the mean of the `batch` copies."""
    return repeated.reshape(batch, -1).mean(0)
