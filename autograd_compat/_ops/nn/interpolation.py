"""Resizing as fixed linear maps per axis (interpolate, upsample), shared with adaptive
average pooling, which is the same einsum with averaging rows. The maps themselves are in
`resize_matrices`.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from ..._pure import dtypes as _dtypes
from ..._tape.args import floating
from ..._tape.record import apply
from ._common import _HIGHEST, _tensor, register
from .resize_matrices import AxisSpec, axis_matrix

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]


def _resize_fn(x, *, axes):
    """Apply one fixed linear map per trailing axis (pooling or interpolation), as an einsum."""
    real = np.float64 if x.dtype == jnp.float64 else np.float32
    matrices = [axis_matrix(spec, real) for spec in axes]
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


# Adaptive average pooling by spatial dims (1-D runs as PyTorch's 2-D kernel does).
_ADAPTIVE_2D = register(
    "adaptive_avg_pool", _resize_fn, node="AdaptiveAvgPool2DBackward0", saves="none"
)
ADAPTIVE_AVG = {
    1: _ADAPTIVE_2D,
    2: _ADAPTIVE_2D,
    3: register("adaptive_avg_pool3d", _resize_fn, node="AdaptiveAvgPool3DBackward0", saves="none"),
}


def _upsample_op(op_id: str, node: str):
    return register(f"interpolate.{op_id}", _resize_fn, node=f"{node}Backward0", saves="none")


# One op per PyTorch upsample kernel: (mode, spatial dims, antialias) -> (op, axis kind).
_UPSAMPLE = {
    **{
        ("nearest", nd, False): (_upsample_op(f"nearest{nd}d", f"UpsampleNearest{nd}D"), "nearest")
        for nd in (1, 2, 3)
    },
    **{
        ("nearest-exact", nd, False): (
            _upsample_op(f"nearest_exact{nd}d", f"UpsampleNearestExact{nd}D"),
            "nearest-exact",
        )
        for nd in (1, 2, 3)
    },
    ("linear", 1, False): (_upsample_op("linear", "UpsampleLinear1D"), "linear"),
    ("bilinear", 2, False): (_upsample_op("bilinear", "UpsampleBilinear2D"), "linear"),
    ("trilinear", 3, False): (_upsample_op("trilinear", "UpsampleTrilinear3D"), "linear"),
    ("bicubic", 2, False): (_upsample_op("bicubic", "UpsampleBicubic2D"), "cubic"),
    ("bilinear", 2, True): (_upsample_op("bilinear_aa", "UpsampleBilinear2DAa"), "linear-aa"),
    ("bicubic", 2, True): (_upsample_op("bicubic_aa", "UpsampleBicubic2DAa"), "cubic-aa"),
    ("lanczos", 2, True): (_upsample_op("lanczos_aa", "UpsampleLanczos2DAa"), "lanczos-aa"),
}
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


class _Named(NamedTuple):
    """How PyTorch's length error names `size` or `scale_factor`."""

    who: str  # "Input and {who} must have..."
    got: str  # "...and {got}."
    wanted: str  # "...and {wanted} format."


def _per_axis(value, nd: int, spatial: list, named: _Named) -> tuple:
    """`size` or `scale_factor` as one value per spatial dim, PyTorch's ValueError when a
    sequence has another length."""
    if not isinstance(value, (list, tuple)):
        return (value,) * nd
    if len(value) != nd:
        raise ValueError(
            f"Input and {named.who} must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {spatial} and {named.got}. Please provide input "
            f"tensor in (N, C, d1, d2, ...,dK) format and {named.wanted} format."
        )
    return tuple(value)


def _output_size(input, size, scale_factor, recompute_scale_factor, mode: str):
    """(output size, scale factors the kernel uses: None each where it takes input / output),
    with PyTorch's checks of the arguments."""
    nd = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        named = _Named("output", f"output size of {size}", "output size in (o1, o2, ...,oK)")
        out = _per_axis(size, nd, spatial, named)
        if isinstance(size, (list, tuple)) and not all(
            isinstance(s, (int, np.integer)) for s in size
        ):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
            )
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return tuple(int(s) for s in out), (None,) * nd
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    named = _Named(
        "scale_factor", f"scale_factor of shape {scale_factor}", "scale_factor in (s1, s2, ...,sK)"
    )
    factors = _per_axis(scale_factor, nd, spatial, named)
    out = tuple(int(math.floor(s * float(f))) for s, f in zip(spatial, factors))
    if recompute_scale_factor or mode == "area":
        return out, (None,) * nd
    return out, tuple(float(f) for f in factors)


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias: bool = False,
):
    """Resize the spatial dims: `nearest`, `nearest-exact`, `linear`/`bilinear`/`trilinear`,
    `bicubic`, `area` (adaptive average pooling), and with `antialias=True` PyTorch's
    separable antialias filters for `bilinear`, `bicubic` and `lanczos` (4-D input).

    Each resize is a fixed linear map per axis (built once per shape, with PyTorch's source
    indices and weights), so it runs as one einsum and its gradient is exact.
    """
    _tensor(input, "interpolate")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    out, factors = _output_size(input, size, scale_factor, recompute_scale_factor, mode)
    nd = input.ndim - 2
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "lanczos" and input.ndim == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    shape = tuple(input.shape[2:])
    if mode == "area" and nd in (1, 2, 3):
        axes = tuple(AxisSpec("adaptive", s, o, None, False) for s, o in zip(shape, out))
        return apply(ADAPTIVE_AVG[nd], floating(input), axes=axes)
    found = _UPSAMPLE.get((mode, nd, bool(antialias)))
    if found is None:
        if mode in _NEEDS and nd in (1, 2, 3):
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input"
            )
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_MODES} (got {mode})"
        )
    op, kind = found
    axes = tuple(
        AxisSpec(kind, s, o, f, bool(align_corners)) for s, o, f in zip(shape, out, factors)
    )
    # uint8 images resize in the default float (PyTorch keeps uint8); the op's dtype rules
    # refuse the other integral, bool and complex inputs, as PyTorch does
    x = floating(input) if input.dtype is _dtypes.uint8 else input
    return apply(op, x, axes=axes)


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
