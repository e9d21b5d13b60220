"""Fractional max pooling (Graham, 2014): windows of a fixed size whose starts advance by a
random, fractional step, one random sample per (batch, channel, spatial dim).

The samples are `torch.rand(N, C, nd)` from the library's generator, drawn as PyTorch draws
them, so a seeded run pools the regions PyTorch's pools; given `_random_samples`, the result
is PyTorch's exactly. The window starts follow ATen's `generate_intervals`, in the input's
dtype: `int((i + u) * alpha) - int(u * alpha)` with `alpha = (in - k) / (out - 1)`, the last
window ending at the input's end. Each output is its window's first maximum (the last NaN if
any, as ATen's scan `val > max || isnan(val)` picks); the gradient goes to it.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..._state.tensor import Tensor
from ..._tape.record import apply
from .. import random as _random_ops
from ._common import _ntuple, _tensor, register

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _starts(samples, size: int, out: int, kernel: int):
    """(N, C, out) window starts along one dimension from samples (N, C) (ATen's intervals)."""
    dtype = samples.dtype
    last = jnp.full(samples.shape + (1,), size - kernel, jnp.int64)
    if out == 1:
        return last
    alpha = (np.array(size - kernel, dtype) / np.array(out - 1, dtype)).astype(dtype)
    steps = jnp.arange(out - 1, dtype=dtype)
    u = samples[..., None]
    lead = ((steps + u) * alpha).astype(jnp.int64) - (u * alpha).astype(jnp.int64)
    return jnp.concatenate([lead, last], axis=-1)


def _fractional_max_pool_fn(x, samples, *, kernel, out):
    """(values, flat plane indices) of (N, C, *spatial) `x` pooled with `samples` (N, C, nd)."""
    nd = len(kernel)
    spatial = x.shape[-nd:]
    n, c = x.shape[:2]
    samples = samples[:n]
    if nd == 2:  # ATen's 2-d samples are (width, height)
        samples = samples[..., ::-1]
    flat = jnp.zeros((n, c) + (1,) * (2 * nd), jnp.int64)
    for axis in range(nd):
        starts = _starts(samples[..., axis], spatial[axis], out[axis], kernel[axis])
        positions = starts[..., None] + jnp.arange(kernel[axis])  # (N, C, out, k)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + axis], shape[2 + nd + axis] = out[axis], kernel[axis]
        flat = flat * spatial[axis] + positions.reshape(shape)
    windows_at = flat.reshape(n, c, -1)
    windows = jnp.take_along_axis(x.reshape(n, c, -1), windows_at, axis=-1)
    windows = windows.reshape(n, c, *out, -1)
    at = windows_at.reshape(n, c, *out, -1)
    nan = jnp.isnan(windows)
    last_nan = nan.shape[-1] - 1 - jnp.argmax(nan[..., ::-1], axis=-1)
    choice = jnp.where(nan.any(axis=-1), last_nan, jnp.argmax(windows, axis=-1))[..., None]
    values = jnp.take_along_axis(windows, choice, axis=-1)[..., 0]
    return values, jnp.take_along_axis(at, choice, axis=-1)[..., 0]


_FRACTIONAL_MAX_POOL = {
    2: register(
        "fractional_max_pool2d",
        _fractional_max_pool_fn,
        node="FractionalMaxPool2DBackward0",
        shown_inputs=(0,),
    ),
    3: register(
        "fractional_max_pool3d",
        _fractional_max_pool_fn,
        node="FractionalMaxPool3DBackward0",
        shown_inputs=(0,),
    ),
}


def _output_size(input, nd: int, output_size, output_ratio) -> tuple:
    fname = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _ntuple(output_size, nd, "output_size")
    if nd == 2 and len(output_ratio) > 2:  # a number raises TypeError, as in PyTorch
        raise ValueError(
            f"{fname} requires output_ratio to either be a single Int or tuple of Ints."
        )
    ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,)
    ratio = ratio * nd if len(ratio) == 1 else ratio
    return tuple(int(size * r) for size, r in zip(input.shape[-nd:], ratio))


def _check(input, samples, nd: int, kernel: tuple, out: tuple) -> None:
    """ATen's checks of the input, the pool size and the samples."""
    fname = f"fractional_max_pool{nd}d" + ("_out" if nd == 3 else "")
    shape = list(input.shape)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for dim in range(input.ndim - nd - 1, input.ndim):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"got{shape} with dimension {dim} being empty."
            )
    names = ("time", "height", "width")[-nd:]
    for name, size, o, k in zip(names, shape[-nd:], out, kernel):
        # ATen's 3-d check is strict (a window may not end at the input's last element)
        if o + k - 1 > size or (nd == 3 and o + k - 1 == size):
            raise RuntimeError(
                f"{fname}(): pool {name} {k} too large relative to input {name} {size}"
            )
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = 1 if input.ndim == nd + 1 else input.shape[0]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(
            f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}."
        )


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, indices, samples, nd):
    _tensor(input, f"fractional_max_pool{nd}d")
    out = _output_size(input, nd, output_size, output_ratio)
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    if samples is None:
        batch = 1 if input.ndim == nd + 1 else input.size(0)
        channels = input.size(-nd - 1)
        samples = _random_ops.rand(batch, channels, nd, dtype=input.dtype, device=input.device)
    elif not isinstance(samples, Tensor):
        raise TypeError(
            f"fractional_max_pool{nd}d(): argument '_random_samples' must be Tensor, not "
            f"{type(samples).__name__}"
        )
    _check(input, samples, nd, kernel, out)
    batched = input.ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    values, where = apply(_FRACTIONAL_MAX_POOL[nd], x, samples, kernel=kernel, out=out)
    if not batched:
        values, where = values.squeeze(0), where.squeeze(0)
    return (values, where) if indices else values


def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """2-D fractional max pooling of (N, C, H, W) or (C, H, W) input to `output_size` (or
    `output_ratio` of the input size), with windows of `kernel_size` at random fractional
    steps; `return_indices` also returns each maximum's flat position in its plane.

    Example::

        >>> x = torch.arange(16.0).view(1, 1, 4, 4)
        >>> F.fractional_max_pool2d(x, 2, output_size=1)
        tensor([[[[15.]]]])
    """
    return _fractional_max_pool(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2
    )


def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """3-D fractional max pooling of (N, C, T, H, W) or (C, T, H, W) input (see
    `fractional_max_pool2d`)."""
    return _fractional_max_pool(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3
    )
