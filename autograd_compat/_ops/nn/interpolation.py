"""Resizing as fixed linear maps per axis (interpolate, upsample), shared with adaptive
average pooling, which is the same einsum with averaging rows.
"""

from __future__ import annotations

import functools
import math
import warnings

import jax.numpy as jnp
import numpy as np

from ..._tape.args import floating
from ..._tape.record import apply
from ._common import _HIGHEST, _ntuple, _tensor, register

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]


def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    """Row i averages input[floor(i * size / out) : ceil((i + 1) * size / out)]."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start = (i * size) // out
        end = -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


@functools.lru_cache(maxsize=256)
def _axis_matrix(spec: tuple) -> np.ndarray:
    """The linear map of one resized axis: spec = (kind, size, out, scale, align_corners)."""
    kind, size, out, scale, align_corners = spec
    if kind == "adaptive":
        return _adaptive_matrix(size, out)
    if kind == "nearest":
        return _nearest_matrix(size, out, scale)
    return _linear_matrix(size, out, scale, align_corners)


def _resize_fn(x, *, axes):
    """Apply one fixed linear map per trailing axis (pooling or interpolation), as an einsum."""
    matrices = [_axis_matrix(spec) for spec in axes]
    letters = "abcdefgh"
    nd = len(matrices)
    lead = "".join(letters[: x.ndim - nd])
    spatial_in = "ijk"[:nd]
    spatial_out = "pqr"[:nd]
    operands = [x]
    spec = [lead + spatial_in]
    for i, matrix in enumerate(matrices):
        operands.append(jnp.asarray(np.array(matrix), x.dtype))
        spec.append(spatial_out[i] + spatial_in[i])
    return jnp.einsum(",".join(spec) + "->" + lead + spatial_out, *operands, precision=_HIGHEST)


def _nearest_matrix(size: int, out: int, scale) -> np.ndarray:
    """PyTorch's nearest source index floor(dst * scale), computed in float32 as its kernel."""
    matrix = np.zeros((out, size))
    for dst in range(out):
        if out == size:
            src = dst
        elif out == 2 * size:
            src = dst >> 1
        else:
            src = min(int(np.floor(np.float32(dst) * np.float32(scale))), size - 1)
        matrix[dst, src] = 1.0
    return matrix


def _linear_matrix(size: int, out: int, scale, align_corners: bool) -> np.ndarray:
    """PyTorch's (bi)linear source coordinates and weights along one axis, in float32."""
    matrix = np.zeros((out, size))
    for dst in range(out):
        if align_corners:
            src = np.float32(scale) * np.float32(dst)
        else:
            src = np.float32(scale) * np.float32(dst + 0.5) - np.float32(0.5)
            src = max(src, np.float32(0.0))
        low = min(int(np.floor(src)), size - 1)
        high = low + (1 if low < size - 1 else 0)
        lam = np.float32(src) - np.float32(low)
        matrix[dst, low] += 1.0 - lam
        matrix[dst, high] += lam
    return matrix


# One op per (mode, spatial dims), named as PyTorch's upsample kernels.
_UPSAMPLE = {
    (mode, nd): register(
        f"interpolate.{mode}{nd}d" if mode == "nearest" else f"interpolate.{mode}",
        _resize_fn,
        node=f"Upsample{mode.capitalize()}{nd}DBackward0",
        saves="none",
    )
    for mode, nd in (
        ("nearest", 1),
        ("nearest", 2),
        ("nearest", 3),
        ("linear", 1),
        ("bilinear", 2),
        ("trilinear", 3),
    )
}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias: bool = False,
):
    """Resize the spatial dims by nearest-neighbour or (bi/tri)linear interpolation.

    Each resize is a fixed linear map per axis (built once per shape), so it runs as one
    einsum and its gradient is exact.
    """
    _tensor(input, "interpolate")
    nd = input.ndim - 2
    if nd < 1:
        raise ValueError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
            f"nearest-exact (got {mode})"
        )
    if antialias:
        raise NotImplementedError(
            "interpolate(antialias=True) is not yet supported by autograd_compat"
        )
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if (mode, nd) not in _UPSAMPLE:
        if mode in ("linear", "bilinear", "trilinear", "nearest"):
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs "
                f"{ {'linear': 3, 'bilinear': 4, 'trilinear': 5}.get(mode, 3) }D input"
            )
        raise NotImplementedError(
            f"interpolate(mode='{mode}') is not yet supported by autograd_compat"
        )
    shape = tuple(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(size, nd, "size") if isinstance(size, (list, tuple)) else (int(size),) * nd
        scales: list[float | None] = [None] * nd
    elif scale_factor is not None:
        factors = (
            tuple(float(f) for f in scale_factor)
            if isinstance(scale_factor, (list, tuple))
            else (float(scale_factor),) * nd
        )
        out = tuple(int(math.floor(s * f)) for s, f in zip(shape, factors))
        scales = [None] * nd if recompute_scale_factor else list(factors)
    else:
        raise ValueError("either size or scale_factor should be defined")
    axes = []
    for s, o, factor in zip(shape, out, scales):
        if mode == "nearest":
            scale = 1.0 / factor if factor else s / o
            axes.append(("nearest", s, o, float(scale), False))
        else:
            if align_corners:
                scale = (s - 1) / (o - 1) if o > 1 else 0.0
            else:
                scale = 1.0 / factor if factor else s / o
            axes.append(("linear", s, o, float(scale), bool(align_corners)))
    return apply(_UPSAMPLE[(mode, nd)], floating(input), axes=tuple(axes))


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    """Deprecated alias of interpolate (warns, as PyTorch's)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest') (warns, as PyTorch's)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True) (warns, as
    PyTorch's)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
