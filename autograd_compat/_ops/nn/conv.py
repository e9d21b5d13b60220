"""Convolutions and transposed convolutions, one `lax.conv_general_dilated` op each.

A convolution with few taps (input channels times kernel elements, at most `FEW_TAPS`: the
first layer of a CNN, on one to three input channels) computes its forward as a sum of
shifted, strided slices times weights instead: XLA:CPU's convolution runs such a layer 2-6x
slower than that loop, which it fuses into one pass. Its derivatives stay the convolution's
(`_few_taps_jvp`), so backward, double backward and forward mode run the same programs as for
any other convolution.
"""

from __future__ import annotations

import functools
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._tape.record import apply
from ._common import _HIGHEST, _ntuple, _tensor, register

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]


def _dimension_numbers(nd: int):
    spatial = "DHW"[-nd:] if nd <= 3 else None
    return (f"NC{spatial}", f"OI{spatial}", f"NC{spatial}")


FEW_TAPS = 27  # input channels x kernel elements up to which the forward sums slices
_SUMMED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # (half types: the conv's accuracy)


def _lax_conv(x, w, geometry: tuple):
    """`lax.conv_general_dilated` of batched `x` with `w` (OI...); `geometry` as items."""
    nd = w.ndim - 2
    return lax.conv_general_dilated(
        x, w, **dict(geometry), dimension_numbers=_dimension_numbers(nd), precision=_HIGHEST
    )


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _few_taps(x, w, geometry: tuple):
    """The convolution of batched `x` with `w` (no groups, no input dilation) as a sum over its
    taps: each (input channel, kernel offset) adds a strided slice of the padded input times
    that tap's weight for every output channel."""
    g = dict(geometry)
    nd = w.ndim - 2
    x = jnp.pad(x, ((0, 0), (0, 0), *g["padding"]))
    strides, dilation = g["window_strides"], g["rhs_dilation"]
    out = [
        (size - d * (k - 1) - 1) // s + 1
        for size, k, s, d in zip(x.shape[2:], w.shape[2:], strides, dilation)
    ]
    total = None
    for c in range(w.shape[1]):
        for offset in itertools.product(*(range(k) for k in w.shape[2:])):
            start = [o * d for o, d in zip(offset, dilation)]
            stop = [b + s * (n - 1) + 1 for b, s, n in zip(start, strides, out)]
            window = lax.slice(x, (0, c, *start), (x.shape[0], c + 1, *stop), (1, 1, *strides))
            term = window * w[(slice(None), c, *offset)].reshape((1, -1) + (1,) * nd)
            total = term if total is None else total + term
    return total


@_few_taps.defjvp
def _few_taps_jvp(geometry, primals, tangents):
    """The convolution's own derivative (linear in each input): its transposes are the
    backward programs every convolution runs."""
    x, w = primals
    dx, dw = tangents
    return _few_taps(x, w, geometry), _lax_conv(dx, w, geometry) + _lax_conv(x, dw, geometry)


def _general_conv(x, w, b, *, batched, **geometry):
    """The convolution of (unbatched) `x` with weight `w` (OI...), plus bias `b`: a sum over
    its taps where they are few (see the module docstring), else `lax.conv_general_dilated`."""
    if not batched:
        x = x[None]
    nd = w.ndim - 2
    few = (
        geometry.get("feature_group_count", 1) == 1
        and "lhs_dilation" not in geometry
        and x.dtype in _SUMMED_DTYPES
        and w.dtype == x.dtype
        and w.shape[1] * math.prod(w.shape[2:]) <= FEW_TAPS
        and 0 not in x.shape
        and 0 not in w.shape
    )
    items = tuple(sorted(geometry.items()))
    y = _few_taps(x, w, items) if few else _lax_conv(x, w, items)
    if b:
        y = y + b[0].reshape((1, -1) + (1,) * nd)
    return y if batched else y[0]


def _conv_fn(x, w, *b, stride, padding, dilation, groups, batched):
    return _general_conv(
        x,
        w,
        b,
        batched=batched,
        window_strides=stride,
        padding=padding,
        rhs_dilation=dilation,
        feature_group_count=groups,
    )


def _conv_transpose_fn(x, w, *b, stride, padding, output_padding, dilation, groups, batched):
    nd = w.ndim - 2
    cin, cout_g = w.shape[0], w.shape[1]
    kernel = w.shape[2:]
    # (Cin, Cout/g, k) -> (Cout, Cin/g, k), flipped: the transposed conv as a dilated conv.
    w = w.reshape((groups, cin // groups, cout_g) + kernel)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + kernel)
    w = jnp.flip(w, axis=tuple(range(2, 2 + nd)))
    pads = tuple(
        (d * (k - 1) - p, d * (k - 1) - p + op)
        for k, p, op, d in zip(kernel, padding, output_padding, dilation)
    )
    return _general_conv(
        x,
        w,
        b,
        batched=batched,
        window_strides=(1,) * nd,
        padding=pads,
        lhs_dilation=stride,
        rhs_dilation=dilation,
        feature_group_count=groups,
    )


_CONV = register("convolution", _conv_fn, node="ConvolutionBackward0")
_CONV_TRANSPOSE = register(
    "convolution.transposed", _conv_transpose_fn, node="ConvolutionBackward0"
)


def _apply_conv(op, input, weight, bias, groups, batched: bool, **geometry):
    """Apply a convolution op to `input`, `weight` and `bias` when there is one."""
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(op, *args, groups=int(groups), batched=batched, **geometry)


def _check_conv_input(input, weight, bias, nd: int, fname: str) -> bool:
    """PyTorch's checks of a (transposed) convolution's tensors; whether `input` is batched."""
    _tensor(input, fname)
    _tensor(weight, fname, "weight", 2)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but got "
            f"input of size: {list(input.shape)}"
        )
    batched = input.ndim == nd + 2
    return batched


def _conv(input, weight, bias, stride, padding, dilation, groups, nd: int, fname: str):
    batched = _check_conv_input(input, weight, bias, nd, fname)
    shape = tuple(input.shape) if batched else (1,) + tuple(input.shape)
    stride = _ntuple(stride, nd, "stride")
    dilation = _ntuple(dilation, nd, "dilation")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            halves = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                halves.append((total // 2, total - total // 2))
            pads = tuple(halves)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'. Expected 'valid' or 'same'")
    else:
        pads = tuple((p, p) for p in _ntuple(padding, nd, "padding"))
    if shape[1] != weight.shape[1] * groups:
        shown = list(input.shape)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{shown} "
            f"to have {weight.shape[1] * groups} channels, but got {shape[1]} channels instead"
        )
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead"
        )
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(shape[2:], pads))
    effective = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater "
            "than actual input size"
        )
    return _apply_conv(
        _CONV, input, weight, bias, groups, batched, stride=stride, padding=pads, dilation=dilation
    )


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) or (C, L) input (lax.conv_general_dilated)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) or (C, H, W) input (lax.conv_general_dilated).

    Example::

        >>> x = torch.randn(1, 3, 8, 8)
        >>> F.conv2d(x, torch.randn(4, 3, 3, 3), padding=1).shape
        torch.Size([1, 4, 8, 8])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) input."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(
    input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fname
):
    batched = _check_conv_input(input, weight, bias, nd, fname)
    channels = input.shape[1] if batched else input.shape[0]
    if channels != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {weight.shape[0]} channels, but got {channels} "
            "channels instead"
        )
    stride = _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    output_padding = _ntuple(output_padding, nd, "output_padding")
    dilation = _ntuple(dilation, nd, "dilation")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding: {op}, stride: {s}, dilation: {d}"
            )
    return _apply_conv(
        _CONV_TRANSPOSE,
        input,
        weight,
        bias,
        groups,
        batched,
        stride=stride,
        padding=padding,
        output_padding=output_padding,
        dilation=dilation,
    )


def _conv_transpose_nd(nd: int, doc: str):
    """`conv_transpose{nd}d`: PyTorch's signature, the same for every nd."""
    fname = f"conv_transpose{nd}d"

    def conv_transpose(
        input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
    ):
        return _conv_transpose(
            input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fname
        )

    conv_transpose.__name__ = conv_transpose.__qualname__ = fname
    conv_transpose.__doc__ = doc
    return conv_transpose


conv_transpose1d = _conv_transpose_nd(
    1, "1-D transposed convolution; weight is (C_in, C_out / groups, k)."
)
conv_transpose2d = _conv_transpose_nd(
    2, '2-D transposed convolution ("deconvolution"); weight is (C_in, C_out / groups, kH, kW).'
)
conv_transpose3d = _conv_transpose_nd(
    3, "3-D transposed convolution; weight is (C_in, C_out / groups, kD, kH, kW)."
)
