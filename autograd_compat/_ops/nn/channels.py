"""Ops across channels: channel_shuffle (a fixed permutation) and local response
normalization (PyTorch's composite of avg_pool over squared neighbours)."""

from __future__ import annotations

from ..._tape.record import apply
from ._common import _tensor, register
from .padding import pad
from .pooling import avg_pool2d, avg_pool3d

__all__ = ["channel_shuffle", "local_response_norm", "native_channel_shuffle"]


def _channel_shuffle_fn(x, *, groups):
    n, c = x.shape[:2]
    rest = x.shape[2:]
    return x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2).reshape(x.shape)


_CHANNEL_SHUFFLE = register(
    "channel_shuffle", _channel_shuffle_fn, node="ChannelShuffleBackward0", saves="none"
)


def channel_shuffle(input, groups: int):
    """(N, g * k, *) -> (N, k * g, *): channel i * k + j moves to j * g + i (ShuffleNet)."""
    _tensor(input, "channel_shuffle")
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    return apply(_CHANNEL_SHUFFLE, input, groups=int(groups))


native_channel_shuffle = channel_shuffle


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """input / (k + alpha * mean of the squares of `size` neighbouring channels) ** beta."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)
