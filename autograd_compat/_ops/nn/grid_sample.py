"""Sampling at given points: `grid_sample` (bilinear, nearest, bicubic; zeros, border and
reflection padding; 4-D and 5-D input) and the grids of affine maps, `affine_grid`.

Both are pure JAX functions: a sample is a gather of the corner (or 4x4 cubic) neighbours and
a weighted sum, so the gradients with respect to the input and to the grid come from jax.vjp,
as PyTorch's kernels compute them (zero through `nearest` and through clipped coordinates).
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from ..._tape.args import check_same_dtype
from ..._tape.record import apply
from ._common import _HIGHEST, _tensor, register

__all__ = ["affine_grid", "grid_sample"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75  # the cubic convolution constant PyTorch's bicubic uses
_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _unnormalize(coord, size: int, align_corners: bool):
    """Grid values in [-1, 1] as pixel coordinates along an axis of `size` pixels."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low: int, twice_high: int):
    """`coord` reflected into [twice_low / 2, twice_high / 2] as often as needed."""
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = jnp.abs(coord - low)
    extra = jnp.fmod(coord, span)
    flips = jnp.floor(coord / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _pad_coordinate(coord, size: int, padding: str, align_corners: bool):
    """A pixel coordinate moved inside the image by the padding mode (zeros leaves it)."""
    if padding == "zeros":
        return coord
    if padding == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
    return jnp.clip(coord, 0, size - 1)


def _cubic_weights(t):
    """The four cubic-convolution weights of taps -1, 0, 1, 2 at fraction `t`."""
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _axis_taps(coord, size: int, mode: str, padding: str, align_corners: bool):
    """The pixels along one axis that each point reads, with their weights: two (T, N, P)
    arrays, T being 1 (nearest), 2 (linear) or 4 (cubic) taps.

    Linear and nearest pad the coordinate; cubic pads each tap on its own and truncates it
    to a pixel, as PyTorch's `get_value_bounded` does."""
    if mode == "bicubic":
        low = jnp.floor(coord)
        taps = [_pad_coordinate(low + i, size, padding, align_corners) for i in (-1, 0, 1, 2)]
        return jnp.stack(taps).astype(jnp.int64), jnp.stack(_cubic_weights(coord - low))
    coord = _pad_coordinate(coord, size, padding, align_corners)
    if mode == "nearest":
        return jnp.round(coord).astype(jnp.int64)[None], jnp.ones_like(coord)[None]
    low = jnp.floor(coord)
    fraction = coord - low
    return jnp.stack([low, low + 1]).astype(jnp.int64), jnp.stack([1 - fraction, fraction])


def _grid_sample_fn(x, grid, *, mode: str, padding: str, align_corners: bool):
    """`x` (N, C, *sizes) sampled at `grid` (N, *out, nd), whose last axis is (x, y[, z]):
    every point's taps (the product of each axis's) read in one gather and weighted."""
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    points = grid.reshape(n, -1, nd).astype(x.dtype)
    # The grid's last axis runs from the innermost spatial axis out: take it outermost first.
    inside = jnp.ones((), bool)
    linear = jnp.zeros((), jnp.int64)
    weight = jnp.ones((), x.dtype)
    for d, size in enumerate(sizes):
        coord = _unnormalize(points[..., nd - 1 - d], size, align_corners)
        index, tap_weight = _axis_taps(coord, size, mode, padding, align_corners)
        place = (slice(None),) + (None,) * (nd - 1 - d)  # this axis's taps at dimension d
        index, tap_weight = index[place], tap_weight[place]
        inside = inside & (index >= 0) & (index < size)
        linear = linear * size + jnp.clip(index, 0, size - 1)
        weight = weight * tap_weight
    shape = linear.shape[:-2] + points.shape[:2]  # (*taps, N, P)

    def per_point(values):  # (*taps, N, P) -> (N, T, P)
        return jnp.moveaxis(jnp.broadcast_to(values, shape).reshape((-1,) + shape[-2:]), 0, 1)

    linear, inside, weight = per_point(linear), per_point(inside), per_point(weight)
    gathered = jnp.take_along_axis(x.reshape(n, c, -1), linear.reshape(n, 1, -1), axis=2)
    gathered = gathered.reshape((n, c) + linear.shape[1:])
    gathered = jnp.where(inside[:, None], gathered, jnp.zeros((), x.dtype))
    result = jnp.einsum("nctp,ntp->ncp", gathered, weight, precision=_HIGHEST)
    return result.reshape((n, c) + grid.shape[1:-1])


_GRID_SAMPLE = {
    nd: register(f"grid_sampler_{nd}d", _grid_sample_fn, node=f"GridSampler{nd}DBackward0")
    for nd in (2, 3)
}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample `input` (N, C, H, W) or (N, C, D, H, W) at the points of `grid` (N, H_out,
    W_out, 2) or (N, D_out, H_out, W_out, 3), whose values lie in [-1, 1] across the image.

    Args:
        mode: "bilinear", "nearest" or "bicubic" (4-D input only).
        padding_mode: outside the image, "zeros", the "border" value or the "reflection".
        align_corners: -1 and 1 are the centres of the corner pixels (True) or their outer
            edges (False, the default, with a warning when not given).

    Example::

        >>> x = torch.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = torch.tensor([[[[0.0, 0.0], [1.0, 1.0]]]])
        >>> F.grid_sample(x, grid, align_corners=True)
        tensor([[[[1.5000, 3.0000]]]])
    """
    _tensor(input, "grid_sample")
    _tensor(grid, "grid_sample", "grid", 2)
    if mode not in _MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _sampled(input, grid, mode, padding_mode, align_corners)


def _sampled(input, grid, mode: str, padding: str, align_corners, nd: int | None = None):
    """The checked sampling op (see `_check_grid_sampler` for `nd`)."""
    _check_grid_sampler(input, grid, mode, nd)
    return apply(
        _GRID_SAMPLE[input.ndim - 2],
        input,
        grid,
        mode=mode,
        padding=padding,
        align_corners=bool(align_corners),
    )


def _mode_number(value, fname: str, name: str, position: int, names: tuple) -> str:
    """The mode an integer argument of `torch.grid_sampler` names (0, 1, 2 index `names`)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"{fname}(): argument '{name}' (position {position}) must be int, not "
            f"{type(value).__name__}"
        )
    if not 0 <= value < len(names):
        raise RuntimeError(
            f"{fname}(): {name} {value} is none of {', '.join(map(str, range(len(names))))} "
            f"({', '.join(names)})"
        )
    return names[value]


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, fname, nd):
    _tensor(input, fname)
    _tensor(grid, fname, "grid", 2)
    mode = _mode_number(interpolation_mode, fname, "interpolation_mode", 3, _MODES)
    padding = _mode_number(padding_mode, fname, "padding_mode", 4, _PADDINGS)
    return _sampled(input, grid, mode, padding, align_corners, nd)


def grid_sampler(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """`F.grid_sample` with the modes as numbers: `interpolation_mode` 0 bilinear, 1 nearest,
    2 bicubic; `padding_mode` 0 zeros, 1 border, 2 reflection."""
    args = (interpolation_mode, padding_mode, align_corners)
    return _grid_sampler(input, grid, *args, "grid_sampler", None)


def grid_sampler_2d(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """`grid_sampler` of (N, C, H, W) input."""
    args = (interpolation_mode, padding_mode, align_corners)
    return _grid_sampler(input, grid, *args, "grid_sampler_2d", 4)


def grid_sampler_3d(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """`grid_sampler` of (N, C, D, H, W) input."""
    args = (interpolation_mode, padding_mode, align_corners)
    return _grid_sampler(input, grid, *args, "grid_sampler_3d", 5)


def _check_grid_sampler(input, grid, mode: str, nd: int | None = None) -> None:
    """PyTorch's checks of `torch.grid_sampler`'s arguments, in its order (`nd`: the input's
    dimensions that `grid_sampler_2d`/`_3d` require; by default the input's own)."""
    shapes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {shapes}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    for axis in range(2, input.ndim):
        if input.shape[axis] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {axis} being empty"
            )
    nd = nd or (4 if input.ndim == 4 else 5)
    if input.ndim != nd or grid.ndim != nd:
        raise RuntimeError(
            f"grid_sampler(): expected {nd}D input and grid with same number of dimensions, "
            f"but got {shapes}"
        )
    if mode == "bicubic" and nd == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    check_same_dtype(input, grid, "expected scalar type {a} but found {b}")


def _base_grid(sizes: tuple, align_corners: bool) -> np.ndarray:
    """The identity grid of shape (*sizes, nd + 1): (x, y[, z], 1) at every output point."""
    axes = []
    for size in sizes:
        steps = np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(size)
        axes.append(steps if align_corners else steps * (size - 1) / size)
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([*reversed(mesh), np.ones(sizes)], axis=-1)


def _affine_grid_fn(theta, *, sizes: tuple, align_corners: bool):
    """Each output point's (x, y[, z], 1) mapped by the batch of affine matrices `theta`."""
    base = jnp.asarray(_base_grid(sizes, align_corners), theta.dtype)
    return jnp.einsum("...k,nik->n...i", base, theta, precision=_HIGHEST)


_AFFINE_GRID = register(
    "affine_grid_generator", _affine_grid_fn, node="AffineGridGeneratorBackward0", saves="none"
)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, for `grid_sample`.

    Args:
        theta: (N, 2, 3) matrices for 2-D output, (N, 3, 4) for 3-D.
        size: the output's size, (N, C, H, W) or (N, C, D, H, W).
        align_corners: as in `grid_sample` (False by default, with a warning when not given).

    Example::

        >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]])  # y stretched twice
        >>> F.affine_grid(theta, [1, 1, 2, 2], align_corners=False)
        tensor([[[[-0.5000, -1.0000],
                  [ 0.5000, -1.0000]],
        <BLANKLINE>
                 [[-0.5000,  1.0000],
                  [ 0.5000,  1.0000]]]])
    """
    _tensor(theta, "affine_grid", "theta", 1)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shown, size = size, tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {shown}."
        )
    nd = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
        raise ValueError(
            f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size "
            f"{shown}. Got {theta.shape}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {nd + 1}] but got: [{theta.shape[0]}, {nd + 1}]."
        )
    return apply(_AFFINE_GRID, theta, sizes=spatial, align_corners=bool(align_corners))
