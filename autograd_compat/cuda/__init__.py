"""torch.cuda: whether JAX has a GPU backend, and the device queries scripts make.

`device = "cuda" if torch.cuda.is_available() else "cpu"` picks JAX's GPU when jaxlib has
one (CUDA or ROCm). Without it, the queries answer as PyTorch built without CUDA does:
`is_available()` is False, `device_count()` 0, seeding and `empty_cache()` do nothing, and
`current_device()`, `synchronize()` and `get_device_name()` raise PyTorch's AssertionError.
"""

from __future__ import annotations

import jax

from .._alias import missing_attribute as _missing_attribute
from .._pure.memory import OutOfMemoryError
from .._state import random as _random
from . import amp, memory
from .gpus import gpu as _gpu
from .gpus import gpus as _gpus
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing
from .memory import *  # noqa: F403  (the memory statistics)
from .streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

__all__ = [
    "CUDAGraph",
    "Event",
    "OutOfMemoryError",
    "Stream",
    "StreamContext",
    "current_stream",
    "default_stream",
    "graph",
    "graph_pool_handle",
    "is_current_stream_capturing",
    "set_stream",
    "stream",
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "get_rng_state_all",
    "is_available",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "set_rng_state_all",
    "synchronize",
    *memory.__all__,
]


def is_available() -> bool:
    """True if JAX has a GPU backend with at least one device."""
    return bool(_gpus())


def device_count() -> int:
    """The number of GPUs JAX sees (0 without a GPU backend)."""
    return len(_gpus())


def current_device() -> int:
    """The index of the current GPU: always 0, JAX's default GPU (there is no set_device)."""
    _gpu()
    return 0


def manual_seed(seed: int) -> None:
    """Seed the generator GPU tensors draw from; a no-op without a GPU, as in PyTorch.

    This library has one generator for all devices, so with a GPU this is `torch.manual_seed`.
    """
    if is_available():
        _random.manual_seed(seed)


manual_seed_all = manual_seed


def get_rng_state_all() -> list:
    """The generator state of each GPU ([] without one). This library has one generator for
    all devices, so each entry is `torch.get_rng_state()`."""
    return [_random.get_rng_state() for _ in range(device_count())]


def set_rng_state_all(new_states) -> None:
    """Set each GPU's generator state (one generator here: the states are set in turn);
    PyTorch's AssertionError without a GPU, unless `new_states` is empty."""
    for state in new_states:
        _gpu()
        _random.set_rng_state(state)


def synchronize(device=None) -> None:
    """Wait until the work queued on the GPU has finished (JAX dispatches asynchronously)."""
    jax.block_until_ready(jax.device_put(0, _gpu(device)) + 0)


def empty_cache() -> None:
    """A no-op: JAX frees a device buffer when its last array is garbage-collected."""


def get_device_name(device=None) -> str:
    """The GPU's name, e.g. "NVIDIA H100 80GB HBM3"."""
    return _gpu(device).device_kind


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 works on the GPU: True whenever JAX has one (XLA emulates it on old
    GPUs), False without a GPU."""
    return is_available()


def __getattr__(name: str):
    """`torch.cuda.X` that this module lacks: an AttributeError saying it is not supported."""

    return _missing_attribute(__name__, name)
