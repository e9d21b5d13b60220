"""The linear map of one resized axis, as PyTorch's upsample kernels compute it: source indices
and weights for nearest, nearest-exact, (bi/tri)linear and bicubic interpolation, the
separable antialias filters (bilinear, bicubic, lanczos), and adaptive average pooling's
windows. Indices and weights are computed in the kernel's precision (`real`: float32, or
float64 for float64 tensors; nearest indices always in float32), so the maps equal PyTorch's."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

__all__ = ["AxisSpec", "axis_matrix"]


class AxisSpec(NamedTuple):
    """One axis resized from `size` to `out`; `factor` the user's scale factor when it
    sets the scale (None: size / out), `kind` one of the builders below."""

    kind: str
    size: int
    out: int
    factor: float | None
    align_corners: bool


@functools.lru_cache(maxsize=256)
def axis_matrix(spec: AxisSpec, real: type) -> np.ndarray:
    """The (out, size) matrix of `spec`, in `real` arithmetic."""
    return _BUILDERS[spec.kind](spec, real)


def _scale(spec: AxisSpec, real: type):
    """PyTorch's `area_pixel_compute_scale`: input / output spacing ratio."""
    if spec.align_corners:
        return real(spec.size - 1) / real(spec.out - 1) if spec.out > 1 else real(0)
    if spec.factor is not None and spec.factor > 0:
        return real(1.0 / spec.factor)
    return real(spec.size) / real(spec.out)


def _nearest(spec: AxisSpec, real: type) -> np.ndarray:
    """Source floor(dst * scale), with the kernel's exact copies for sizes x1 and x2."""
    size, out = spec.size, spec.out
    scale = _scale(spec, np.float32)
    matrix = np.zeros((out, size))
    for dst in range(out):
        if out == size:
            src = dst
        elif out == 2 * size:
            src = dst >> 1
        else:
            src = min(int(np.floor(np.float32(dst) * scale)), size - 1)
        matrix[dst, src] = 1.0
    return matrix


def _nearest_exact(spec: AxisSpec, real: type) -> np.ndarray:
    """Source floor((dst + 0.5) * scale): the pixel whose centre is nearest."""
    scale = float(_scale(spec, np.float32))
    matrix = np.zeros((spec.out, spec.size))
    for dst in range(spec.out):
        src = min(int(np.floor(np.float32((dst + 0.5) * scale))), spec.size - 1)
        matrix[dst, src] = 1.0
    return matrix


def _source(spec: AxisSpec, real: type, dst: int, clamp: bool):
    """PyTorch's `area_pixel_compute_source_index`: the source coordinate of `dst` (below 0
    clamped to 0 for linear modes, kept for cubic)."""
    scale = _scale(spec, real)
    if spec.align_corners:
        return scale * real(dst)
    src = scale * (real(dst) + real(0.5)) - real(0.5)
    return max(src, real(0)) if clamp else src


def _linear(spec: AxisSpec, real: type) -> np.ndarray:
    """Two taps, weights 1 - lambda and lambda, at floor(src) and the next index."""
    size = spec.size
    matrix = np.zeros((spec.out, size))
    for dst in range(spec.out):
        src = _source(spec, real, dst, clamp=True)
        low = min(int(np.floor(src)), size - 1)
        high = low + (1 if low < size - 1 else 0)
        lam = min(max(real(src) - real(low), real(0)), real(1))
        matrix[dst, low] += real(1) - lam
        matrix[dst, high] += lam
    return matrix


def _cubic1(x, a):
    """Keys' cubic convolution kernel on [0, 1]."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x, a):
    """Keys' cubic convolution kernel on [1, 2]."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _cubic(spec: AxisSpec, real: type) -> np.ndarray:
    """Four taps around floor(src), indices clamped to the axis, Keys' weights (A = -0.75)."""
    size, a, one = spec.size, real(-0.75), real(1)
    matrix = np.zeros((spec.out, size))
    for dst in range(spec.out):
        src = _source(spec, real, dst, clamp=False)
        low = min(int(np.floor(src)), size - 1)
        t = min(max(real(src) - real(low), real(0)), one)
        weights = (
            _cubic2(t + one, a),
            _cubic1(t, a),
            _cubic1(one - t, a),
            _cubic2(one - t + one, a),
        )
        for k, weight in enumerate(weights):
            matrix[dst, max(min(low - 1 + k, size - 1), 0)] += weight
    return matrix


def _triangle(x: float) -> float:
    return max(1.0 - abs(x), 0.0)


def _keys_half(x: float) -> float:
    """Keys' cubic kernel with a = -0.5 (Pillow's), antialiased bicubic's filter."""
    x = abs(x)
    return _cubic1(x, -0.5) if x < 1 else _cubic2(x, -0.5) if x < 2 else 0.0


def _sinc(x: float) -> float:
    return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)


def _lanczos3(x: float) -> float:
    return _sinc(x) * _sinc(x / 3) if -3 < x < 3 else 0.0


def _antialiased(taps: int, kernel):
    """PyTorch's separable antialias resampling (Pillow's): each output averages the inputs
    within `taps / 2` (times the scale when shrinking) of its centre, weighted by `kernel`
    stretched by the scale and normalised to sum 1."""

    def build(spec: AxisSpec, real: type) -> np.ndarray:
        scale = _scale(spec, real)
        support = real(taps * 0.5) * scale if scale >= 1 else real(taps * 0.5)
        stretch = real(1) / scale if scale >= 1 else real(1)
        matrix = np.zeros((spec.out, spec.size))
        for i in range(spec.out):
            centre = scale * (real(i) + real(0.5))
            low = max(int(centre - support + real(0.5)), 0)
            high = min(int(centre + support + real(0.5)), spec.size)
            weights = [
                real(kernel(float((real(j) - centre + real(0.5)) * stretch)))
                for j in range(low, high)
            ]
            total = sum(weights, real(0))
            for j, weight in zip(range(low, high), weights):
                matrix[i, j] = weight / total if total != 0 else weight
        return matrix

    return build


def _adaptive(spec: AxisSpec, real: type) -> np.ndarray:
    """Row i averages input[floor(i * size / out) : ceil((i + 1) * size / out)]."""
    size, out = spec.size, spec.out
    matrix = np.zeros((out, size))
    for i in range(out):
        start = (i * size) // out
        end = -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


_BUILDERS = {
    "nearest": _nearest,
    "nearest-exact": _nearest_exact,
    "linear": _linear,
    "cubic": _cubic,
    "linear-aa": _antialiased(2, _triangle),
    "cubic-aa": _antialiased(4, _keys_half),
    "lanczos-aa": _antialiased(6, _lanczos3),
    "adaptive": _adaptive,
}
