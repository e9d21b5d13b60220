"""pad: constant, reflect, replicate and circular padding (negative sizes crop)."""

from __future__ import annotations

import numbers

import jax.numpy as jnp
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure.dtype_rules import cpp_name
from ..._tape.record import apply
from ._common import _tensor, register

__all__ = ["pad"]


def _crop(x, pads):
    """`x` without the elements that the negative sizes of `pads` remove."""
    return x[tuple(slice(-min(lo, 0), x.shape[i] + min(hi, 0)) for i, (lo, hi) in enumerate(pads))]


def _pad_fn(x, *, pads, mode, value):
    if mode == "constant":
        config = [(lo, hi, 0) for lo, hi in pads]
        return lax.pad(x, jnp.asarray(value, x.dtype), config)
    # Negative sizes crop: after reflecting or replicating the whole input, as PyTorch's
    # kernels index it; before wrapping, as its circular padding narrows first.
    if mode == "circular":
        x = _crop(x, pads)
    grown = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    x = jnp.pad(
        x, grown, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    )
    return x if mode == "circular" else _crop(x, pads)


_PAD = {
    "constant": register("pad.constant", _pad_fn, node="ConstantPadNdBackward0", saves="none"),
    "reflect": register("pad.reflect", _pad_fn, node="ReflectionPad2DBackward0", saves="none"),
    "replicate": register("pad.replicate", _pad_fn, node="ReplicationPad2DBackward0", saves="none"),
    "circular": register("pad.circular", _pad_fn, node="CopySlices", saves="none"),
}


def _pairs(input, pad: tuple) -> list:
    """(before, after) per dimension of `input` from PyTorch's flat `pad` (last dim first),
    with PyTorch's error for a crop larger than a dimension."""
    pairs = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pairs[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    for size, (lo, hi) in zip(input.shape, pairs):
        if size + lo + hi < 0:  # cropping more than the dimension holds
            raise RuntimeError("narrow(): length must be non-negative.")
    return pairs


def _apply_pad(input, pairs: list, mode: str, value):
    fill = 0 if value is None else value
    if isinstance(fill, bool) or not isinstance(fill, numbers.Number):
        fill = float(fill)
    return apply(_PAD[mode], input, pads=tuple(pairs), mode=mode, value=fill)


def pad(input, pad, mode: str = "constant", value=None):
    """Pad (or, with negative sizes, crop) the last len(pad) // 2 dimensions.

    `pad` lists (left, right) for the last dim first, then the one before, and so on.
    """
    _tensor(input, "pad")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    if mode not in _PAD:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pairs = _pairs(input, pad)
    if mode != "constant":
        if value not in (None, 0):
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        for size, (lo, hi) in zip(input.shape, pairs):
            if mode == "reflect" and (lo >= size or hi >= size) and (lo or hi):
                raise RuntimeError(
                    f"Argument #4: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({lo}, {hi}) at dimension of input "
                    f"{list(input.shape)}"
                )
    return _apply_pad(input, pairs, mode, value)


def constant_pad_nd(input, pad, value=0):
    """`torch.constant_pad_nd`: `value` around (negative sizes: crop) the last len(pad) // 2
    dimensions, `pad` listing (before, after) for the last dimension first; the op under
    `F.pad(mode="constant")`, with its own argument checks.

    Example::

        >>> torch.constant_pad_nd(torch.tensor([1.0, 2.0]), (1, 2), 9.0)
        tensor([9., 1., 2., 9., 9.])
    """
    _tensor(input, "constant_pad_nd")
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, numbers.Integral):
            raise TypeError(
                "constant_pad_nd(): argument 'pad' (position 2) must be tuple of ints, but "
                f"found element of type {type(p).__name__} at pos {i}"
            )
    if not isinstance(value, numbers.Number):
        raise TypeError(
            "constant_pad_nd(): argument 'value' (position 3) must be Number, not "
            f"{type(value).__name__}"
        )
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)}while the input has {input.ndim}dimensions."
        )
    if isinstance(value, complex) and not input.dtype.is_complex:
        if value.imag:
            raise RuntimeError(
                f"value cannot be converted to type {cpp_name(input.dtype.jax)} without overflow"
            )
        value = value.real
    value = _dtypes.fit_scalar(value, input.dtype)
    return _apply_pad(input, _pairs(input, pad), "constant", value)
