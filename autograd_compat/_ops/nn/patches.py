"""Moving pixels between space and channels: pixel (un)shuffle, and unfold/fold (PyTorch's
im2col/col2im) of sliding blocks."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..._tape.record import apply
from ._common import _ntuple, _tensor, register
from .pooling import _windows

__all__ = ["fold", "pixel_shuffle", "pixel_unshuffle", "unfold"]


def _pixel_shuffle_fn(x, *, factor):
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    c_out = c // (factor * factor)
    n = len(lead)
    x = x.reshape(*lead, c_out, factor, factor, h, w)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c_out, h * factor, w * factor)


def _pixel_unshuffle_fn(x, *, factor):
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    n = len(lead)
    x = x.reshape(*lead, c, h // factor, factor, w // factor, factor)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * factor * factor, h // factor, w // factor)


_PIXEL_SHUFFLE = register(
    "pixel_shuffle", _pixel_shuffle_fn, node="PixelShuffleBackward0", saves="none"
)
_PIXEL_UNSHUFFLE = register(
    "pixel_unshuffle", _pixel_unshuffle_fn, node="PixelUnshuffleBackward0", saves="none"
)


def _pixel_args(input, factor, fname: str, what: str) -> int:
    _tensor(input, fname)
    if input.ndim < 3:
        raise RuntimeError(
            f"{fname} expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{fname} expects a positive {what}, but got {factor}")
    return int(factor)


def pixel_shuffle(input, upscale_factor: int):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channels become r x r blocks of pixels.

    Example::

        >>> F.pixel_shuffle(torch.randn(1, 8, 3, 3), 2).shape
        torch.Size([1, 2, 6, 6])
    """
    factor = _pixel_args(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    channels = input.shape[-3]
    if channels % (factor * factor):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={channels} is not divisible by "
            f"{factor * factor}"
        )
    return apply(_PIXEL_SHUFFLE, input, factor=factor)


def pixel_unshuffle(input, downscale_factor: int):
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of `pixel_shuffle`."""
    factor = _pixel_args(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    for name, dim in (("height", -2), ("width", -1)):
        if input.shape[dim] % factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={input.shape[dim]} is not divisible by {factor}"
            )
    return apply(_PIXEL_UNSHUFFLE, input, factor=factor)


def _also_unbatched(fn, batched_ndim: int):
    """`fn` of a batch, also applied to one sample (one dim fewer) as a batch of one."""

    def run(x, **static):
        if x.ndim == batched_ndim:
            return fn(x, **static)
        return fn(x[None], **static)[0]

    return run


def _im2col_fn(x, *, kernel, dilation, padding, stride, blocks):
    """(N, C, H, W) -> (N, C kh kw, L): each sliding block as a column."""
    windows = _windows(
        x,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        out=blocks,
        extra=(0, 0),
        fill=0.0,
    )  # (N, C, bh, bw, K)
    n, c = x.shape[:2]
    windows = jnp.moveaxis(windows, -1, 2)
    return windows.reshape(n, c * windows.shape[2], blocks[0] * blocks[1])


def _col2im_fn(cols, *, output_size, kernel, dilation, padding, stride, blocks):
    """(N, C kh kw, L) -> (N, C, H, W): the sum of the blocks at their places."""
    n = cols.shape[0]
    k = kernel[0] * kernel[1]
    cols = cols.reshape(n, cols.shape[1] // k, k, *blocks)
    height, width = (size + 2 * p for size, p in zip(output_size, padding))
    out = jnp.zeros((n, cols.shape[1], height, width), cols.dtype)
    for index, (i, j) in enumerate(np.ndindex(*kernel)):
        top, left = i * dilation[0], j * dilation[1]
        rows = slice(top, top + (blocks[0] - 1) * stride[0] + 1, stride[0])
        columns = slice(left, left + (blocks[1] - 1) * stride[1] + 1, stride[1])
        out = out.at[:, :, rows, columns].add(cols[:, :, index])
    return out[
        :, :, padding[0] : padding[0] + output_size[0], padding[1] : padding[1] + output_size[1]
    ]


_IM2COL = register("unfold", _also_unbatched(_im2col_fn, 4), node="Im2ColBackward0", saves="none")
_COL2IM = register("fold", _also_unbatched(_col2im_fn, 3), node="Col2ImBackward0", saves="none")


def _pair(value, name: str) -> tuple:
    """An int as (value, value); a sequence must have two entries (PyTorch's IntArrayRef[2])."""
    if isinstance(value, (list, tuple)) and len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return _ntuple(value, 2, name)


def _block_args(kernel_size, dilation, padding, stride) -> dict:
    """PyTorch's checks of the sliding-block geometry, as the ops' static arguments."""
    geometry = {
        "kernel": _pair(kernel_size, "kernel_size"),
        "dilation": _pair(dilation, "dilation"),
        "padding": _pair(padding, "padding"),
        "stride": _pair(stride, "stride"),
    }
    for key, name, low, word in (
        ("kernel", "kernel size", 1, "greater than zero"),
        ("stride", "stride", 1, "greater than zero"),
        ("dilation", "dilation", 1, "greater than zero"),
        ("padding", "padding", 0, "non-negative"),
    ):
        values = geometry[key]
        if min(values) < low:
            short = "pad" if key == "padding" else key
            raise RuntimeError(
                f"{name} should be {word}, but got {short}_height: {values[0]} "
                f"{short}_width: {values[1]}"
            )
    return geometry


def _blocks(spatial, *, kernel, dilation, padding, stride) -> tuple:
    """How many sliding blocks fit along each spatial dim."""
    return tuple(
        (size + 2 * p - d * (k - 1) - 1) // s + 1
        for size, k, d, p, s in zip(spatial, kernel, dilation, padding, stride)
    )


def _described(geometry: dict) -> str:
    return (
        f"kernel_size={geometry['kernel']}, dilation={geometry['dilation']}, "
        f"padding={geometry['padding']}"
    )


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * prod(kernel_size), L) (im2col).

    Example::

        >>> F.unfold(torch.randn(1, 2, 4, 4), kernel_size=2).shape
        torch.Size([1, 8, 9])
    """
    _tensor(input, "unfold")
    geometry = _block_args(kernel_size, dilation, padding, stride)
    if input.ndim not in (3, 4) or 0 in input.shape[input.ndim - 3 :]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    spatial = tuple(input.shape[-2:])
    blocks = _blocks(spatial, **geometry)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {spatial}, {_described(geometry)}, calculated shape "
            f"of the array of sliding blocks as {blocks}, but its components must be at least "
            "one."
        )
    return apply(_IM2COL, input, **geometry, blocks=blocks)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image: (N, C * prod(kernel_size), L) -> (N, C, *output_size)
    (col2im, the adjoint of `unfold`)."""
    _tensor(input, "fold")
    output_size = _pair(output_size, "output_size")
    geometry = _block_args(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or 0 in input.shape[input.ndim - 2 :]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    channels, count = input.shape[-2:]
    kernel = geometry["kernel"]
    if channels % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and kernel_size={kernel}."
        )
    blocks = _blocks(output_size, **geometry)
    if blocks[0] * blocks[1] != count:
        raise RuntimeError(
            f"Given output_size={output_size}, {_described(geometry)}, "
            f"stride={geometry['stride']}, expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={count}."
        )
    return apply(_COL2IM, input, output_size=output_size, **geometry, blocks=blocks)
