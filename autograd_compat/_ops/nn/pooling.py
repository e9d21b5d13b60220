"""Max, average and adaptive (average and max) pooling over windows."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ._common import _ntuple, _tensor, register
from .interpolation import ADAPTIVE_AVG as _ADAPTIVE_AVG
from .resize_matrices import AxisSpec

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
]


def _pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode, fname, channels=None):
    """PyTorch's pooling output sizes, and the extra high padding that ceil_mode needs."""
    out, extra = [], []
    for size, k, s, p, d in zip(shape, kernel, stride, padding, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        n = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (n - 1) * s >= size + p:
            n -= 1
        out.append(n)
        extra.append(max(0, (n - 1) * s + d * (k - 1) + 1 - (size + 2 * p)))
    if any(n <= 0 for n in out):
        lead = () if channels is None else (channels,)
        sizes = "x".join(str(s) for s in lead + tuple(shape))
        outs = "x".join(str(n) for n in lead + tuple(out))
        raise RuntimeError(
            f"Given input size: ({sizes}). Calculated output size: ({outs}). Output size is "
            "too small"
        )
    return tuple(out), tuple(extra)


def _window_slices(x, kernel, stride, padding, dilation, out, extra, fill) -> list:
    """The pooling windows of x (..., *spatial): one strided slice per kernel offset."""
    nd = len(kernel)
    lead = x.ndim - nd
    pads = [(0, 0)] * lead + [(p, p + e) for p, e in zip(padding, extra)]
    xp = jnp.pad(x, pads, constant_values=fill)
    slices = []
    for offset in np.ndindex(*kernel):
        index = [slice(None)] * lead
        for o, s, d, n in zip(offset, stride, dilation, out):
            start = o * d
            index.append(slice(start, start + (n - 1) * s + 1, s))
        slices.append(xp[tuple(index)])
    return slices


def _windows(x, kernel, stride, padding, dilation, out, extra, fill):
    """The pooling windows of x (..., *spatial) stacked on a new last axis (kernel offsets)."""
    return jnp.stack(_window_slices(x, kernel, stride, padding, dilation, out, extra, fill), -1)


def _inside(spatial, kernel, stride, padding, dilation, out) -> list:
    """Per kernel offset, which output positions read an element of the input, not padding
    (numpy masks of shape `out`)."""
    masks = []
    for offset in np.ndindex(*kernel):
        mask = np.ones((), bool)
        for o, s, p, d, n, size in zip(offset, stride, padding, dilation, out, spatial):
            position = np.arange(n) * s - p + o * d
            mask = np.logical_and.outer(mask, (position >= 0) & (position < size))
        masks.append(mask)
    return masks


def _first_max(slices: list, inside: list):
    """The elementwise maximum of `slices` and the index of the slice it came from, as
    PyTorch's kernels choose: from the window's first element inside the input on, a value
    that is greater or NaN (so the first of equal maxima, the last NaN, and the first inside
    element where all are -inf). A chain of selects: XLA fuses it into one loop, where
    stacking the windows and gathering at their argmax wrote every window out (the MNIST
    CNN's 2x2 pooling, 64x64x24x24: forward 4.3 -> 1.5 ms, forward and backward 13.9 -> 9.4
    ms), and the gradient follows the selects to the chosen slice."""
    y = slices[0]
    choice = jnp.zeros(y.shape, jnp.int32)
    seen = inside[0]
    for k, (candidate, within) in enumerate(zip(slices[1:], inside[1:]), 1):
        take = (candidate > y) | jnp.isnan(candidate)
        if not seen.all():  # (padding: where nothing inside came yet, take what is inside)
            take = take | ~seen
        if not within.all():
            take = take & within
        y = jnp.where(take, candidate, y)
        choice = jnp.where(take, k, choice)
        seen = seen | within
    return y, choice


def _max_pool_fn(x, *, kernel, stride, padding, dilation, out, extra, with_indices):
    nd = len(kernel)
    spatial = x.shape[-nd:]
    y, choice = _first_max(
        _window_slices(x, kernel, stride, padding, dilation, out, extra, -jnp.inf),
        _inside(spatial, kernel, stride, padding, dilation, out),
    )
    if not with_indices:
        return y
    offsets = np.array(list(np.ndindex(*kernel)))  # (K, nd)
    flat = jnp.zeros(choice.shape, jnp.int64)
    for axis in range(nd):
        grid = np.arange(out[axis]) * stride[axis] - padding[axis]
        grid = grid.reshape((-1,) + (1,) * (nd - 1 - axis))
        position = grid + jnp.asarray(offsets[:, axis] * dilation[axis])[choice]
        flat = flat * spatial[axis] + position
    return y, flat


_MAX_POOL = {
    1: register("max_pool1d", _max_pool_fn, node="MaxPool1DWithIndicesBackward0"),
    2: register("max_pool2d", _max_pool_fn, node="MaxPool2DWithIndicesBackward0"),
    3: register("max_pool3d", _max_pool_fn, node="MaxPool3DWithIndicesBackward0"),
}


def _windows_args(input, fname, nd, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's pooling argument checks; the window geometry, as the ops' static arguments."""
    _tensor(input, fname)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor for input, but got "
            f"{input.ndim}D"
        )
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == [] else _ntuple(stride, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    dilation = _ntuple(dilation, nd, "dilation")
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={dilation[0]}"
            )
    out, extra = _pool_geometry(
        tuple(input.shape[-nd:]),
        kernel,
        stride,
        padding,
        dilation,
        ceil_mode,
        fname,
        input.shape[-nd - 1],
    )
    return dict(
        kernel=kernel, stride=stride, padding=padding, dilation=dilation, out=out, extra=extra
    )


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd):
    geometry = _windows_args(
        input, f"max_pool{nd}d", nd, kernel_size, stride, padding, dilation, ceil_mode
    )
    return apply(_MAX_POOL[nd], input, with_indices=bool(return_indices), **geometry)


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling; the gradient goes to the first maximum of each window, as in PyTorch."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling (with indices into each H*W plane when return_indices=True)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W) input."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def _avg_pool_fn(
    x, *, kernel, stride, padding, dilation, out, extra, count_include_pad, divisor_override
):
    divisor = _avg_divisor(
        x.shape[-len(kernel) :], kernel, stride, padding, out, count_include_pad, divisor_override
    )
    windows = _windows(x, kernel, stride, padding, dilation, out, extra, 0.0)
    total = jnp.sum(windows, axis=-1)
    if jnp.issubdtype(x.dtype, jnp.integer):  # PyTorch's integer division, toward zero
        divisor = jnp.broadcast_to(np.asarray(divisor).astype(np.int64), total.shape)
        return lax.div(total, divisor.astype(x.dtype))
    return total / jnp.asarray(divisor, x.dtype)


_AVG_POOL = {
    1: register(
        "avg_pool1d", _avg_pool_fn, node="AvgPool2DBackward0", saves="none"
    ),  # PyTorch: via avg_pool2d
    2: register("avg_pool2d", _avg_pool_fn, node="AvgPool2DBackward0", saves="none"),
    3: register("avg_pool3d", _avg_pool_fn, node="AvgPool3DBackward0", saves="none"),
}


def _avg_divisor(shape, kernel, stride, padding, out, count_include_pad, divisor_override):
    """Per-output-window divisors (a numpy constant at trace time), as PyTorch's kernel counts."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    per_axis = []
    for size, k, s, p, n in zip(shape, kernel, stride, padding, out):
        counts = []
        for i in range(n):
            start = i * s - p
            end = min(start + k, size + p)
            pool = end - start
            start, end = max(start, 0), min(end, size)
            counts.append(pool if count_include_pad else end - start)
        per_axis.append(np.array(counts, dtype=np.float64))
    divisor = per_axis[0]
    for counts in per_axis[1:]:
        divisor = np.multiply.outer(divisor, counts)
    return divisor


def _avg_pool(
    input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd
):
    geometry = _windows_args(
        input, f"avg_pool{nd}d", nd, kernel_size, stride, padding, 1, ceil_mode
    )
    return apply(
        _AVG_POOL[nd],
        input,
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
        **geometry,
    )


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def _avg_pool_with_divisor(nd: int, doc: str):
    """`avg_pool{nd}d` for nd = 2, 3: one signature (PyTorch's, with divisor_override)."""

    def avg_pool(
        input,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        return _avg_pool(
            input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd
        )

    avg_pool.__name__ = avg_pool.__qualname__ = f"avg_pool{nd}d"
    avg_pool.__doc__ = doc
    return avg_pool


avg_pool2d = _avg_pool_with_divisor(
    2, "2-D average pooling, with PyTorch's divisor rules at the borders."
)
avg_pool3d = _avg_pool_with_divisor(
    3, "3-D average pooling, with PyTorch's divisor rules at the borders."
)


def _adaptive_avg_pool(input, output_size, nd: int):
    fname = f"adaptive_avg_pool{nd}d"
    _tensor(input, fname)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(input.shape)}"
        )
    shape = tuple(input.shape[-nd:])
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * nd
    if nd == 3 and len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    out = tuple(s if o is None else int(o) for o, s in zip(output_size, shape))
    axes = tuple(AxisSpec("adaptive", s, o, None, False) for s, o in zip(shape, out))
    return apply(_ADAPTIVE_AVG[nd], input, axes=axes)


def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling to `output_size`."""
    return _adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to `output_size` (an int, a pair, None keeps a size)."""
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling to `output_size` (an int, a triple, None keeps a size)."""
    return _adaptive_avg_pool(input, output_size, 3)


def _adaptive_windows(size: int, out: int) -> np.ndarray:
    """(out, K) input positions of PyTorch's adaptive windows [floor(i S/O), ceil((i+1) S/O)),
    short windows padded with their last position (a repeat never changes a maximum)."""
    starts = [i * size // out for i in range(out)]
    ends = [-(-(i + 1) * size // out) for i in range(out)]
    width = max((e - s for s, e in zip(starts, ends)), default=1)
    return np.array(
        [[min(s + k, e - 1) for k in range(width)] for s, e in zip(starts, ends)], np.int64
    ).reshape(out, width)


def _last_nan_or_first_max(x):
    """Along the last axis, the index PyTorch's max pools take (`_first_max`): the last NaN
    where there is one, else the first maximum. An argmax, not a chain of selects: an adaptive
    window can hold hundreds of elements."""
    nan = jnp.isnan(x)
    last_nan = x.shape[-1] - 1 - jnp.argmax(nan[..., ::-1], axis=-1)
    return jnp.where(nan.any(axis=-1), last_nan, jnp.argmax(x, axis=-1))


def _adaptive_max_fn(x, *, out, with_indices):
    """Max over each adaptive window of the last len(out) axes, and its flat position."""
    nd = len(out)
    spatial = x.shape[-nd:]
    windows = [_adaptive_windows(s, o) for s, o in zip(spatial, out)]
    lead = x.ndim - nd
    for axis, w in enumerate(windows):  # axis `lead + 2 * axis` becomes (out, K)
        at = lead + 2 * axis
        x = jnp.take(x, w.reshape(-1), axis=at).reshape(*x.shape[:at], *w.shape, *x.shape[at + 1 :])
    order = [
        *range(lead),
        *(lead + 2 * a for a in range(nd)),
        *(lead + 2 * a + 1 for a in range(nd)),
    ]
    x = x.transpose(order).reshape(*x.shape[:lead], *out, -1)
    choice = _last_nan_or_first_max(x)
    y = jnp.take_along_axis(x, choice[..., None], axis=-1)[..., 0]
    if not with_indices:
        return y
    flat = np.zeros((*out, *(w.shape[1] for w in windows)), np.int64)
    for axis, w in enumerate(windows):
        shape = [1] * (2 * nd)
        shape[axis], shape[nd + axis] = w.shape
        flat = flat * spatial[axis] + w.reshape(shape)
    flat = flat.reshape(*out, -1)
    return y, jnp.asarray(flat)[tuple(np.indices(out)) + (choice,)]


_ADAPTIVE_MAX = register("adaptive_max_pool", _adaptive_max_fn, node="AdaptiveMaxPool2DBackward0")
_ADAPTIVE_MAX_3D = register(
    "adaptive_max_pool3d", _adaptive_max_fn, node="AdaptiveMaxPool3DBackward0"
)


def _adaptive_max_pool(input, output_size, return_indices: bool, nd: int):
    fname = f"adaptive_max_pool{nd}d"
    _tensor(input, fname)
    if nd == 1 and input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_max_pool1d)"
        )
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fname}(): Expected {max(nd, 2) + 1}D or {max(nd, 2) + 2}D tensor, but got: "
            f"{list(input.shape)}"
        )
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * nd
    if len(output_size) != nd:
        if nd == 1:
            raise RuntimeError(
                "adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                f"{len(output_size)})"
            )
        raise RuntimeError(f"{fname}(): internal error: output_size.size() must be {nd}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {dim} being empty"
            )
    if not input.dtype.is_floating_point:
        kernel = "adaptive_max_pool3d_cpu" if nd == 3 else "adaptive_max_pool2d"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    shape = tuple(input.shape[-nd:])
    out = tuple(s if o is None else int(o) for o, s in zip(output_size, shape))
    op = _ADAPTIVE_MAX_3D if nd == 3 else _ADAPTIVE_MAX
    return apply(op, input, out=out, with_indices=bool(return_indices))


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """1-D adaptive max pooling to `output_size` (with each maximum's position on request)."""
    return _adaptive_max_pool(input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """2-D adaptive max pooling to `output_size` (an int, a pair, None keeps a size); with
    return_indices, also each maximum's position in its H*W plane.

    Example::

        >>> F.adaptive_max_pool2d(torch.randn(1, 2, 5, 7), (2, 3)).shape
        torch.Size([1, 2, 2, 3])
    """
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """3-D adaptive max pooling to `output_size` (an int, a triple, None keeps a size); with
    return_indices, also each maximum's position in its D*H*W volume."""
    return _adaptive_max_pool(input, output_size, return_indices, 3)
